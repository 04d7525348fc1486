"""The re-deal for search and leak tests: everything one trader cannot see, drawn from what it saw.

Hidden from a trader: the other's hand as dealt (CT-1: any cards of the pool outside its own hand), hence
its current money; C's offer on the table (D sees its number of cards only, K-A22); the other's offer in
the making. What a trader saw constrains the other's deal: every offer the other gave in a settled round
was in its hand then. The other's deal is drawn among the hands that allow it, each weighted by the
number of card sets it stands for (the law of a uniformly random deal given what was seen); C's hidden
offer is a uniformly random set of its number of cards from C's hand; an offer in the making restarts
empty. Everything is computed from the trader's information and ``rng`` only.
"""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np

from ..koehandel.cards import NUM_DENOMS
from .vocab import (
    CHALLENGER, COUNTER_OFFER, OFFER, OFFER_CARDS, RESULT, ROW_COUNTER, ROW_OFFER, UNDECIDED,
)


def resample(state: Any, player: int, rng: np.random.Generator) -> None:
    """Re-deal, in place, what ``player`` cannot see (module docstring)."""
    other = 1 - player
    need, balance = [0] * NUM_DENOMS, [0] * NUM_DENOMS  # what the deal must hold; what it gained since
    for row in state.record:
        if row[RESULT] == UNDECIDED:
            break
        offer, counter = row[ROW_OFFER:ROW_COUNTER], row[ROW_COUNTER:]
        give, get = (offer, counter) if other == CHALLENGER else (counter, offer)
        for d in range(NUM_DENOMS):
            need[d] = max(need[d], give[d] - balance[d])
            balance[d] += get[d] - give[d]
    pool = [m - s for m, s in zip(state.game.money, state.start[player])]
    dealt = draw_hand(pool, need, state.game.hand_sizes[other], rng)
    hand = [s + b for s, b in zip(dealt, balance)]
    open_row = state.record and state.record[-1][RESULT] == UNDECIDED
    if other == CHALLENGER and open_row:  # C's offer lies face down
        state.offer = draw_hand(hand, [0] * NUM_DENOMS, state.record[-1][OFFER_CARDS], rng)
        hand = [h - o for h, o in zip(hand, state.offer)]
    state.start[other], state.hands[other] = dealt, hand
    if state.current_player == other and state.decision in (OFFER, COUNTER_OFFER):
        state.selection = [0] * NUM_DENOMS  # the other's offer in the making


def draw_hand(available: list[int], least: list[int], size: int, rng: np.random.Generator) -> list[int]:
    """``size`` cards out of ``available`` (counts per denomination) holding at least ``least``: a hand
    drawn with probability proportional to the card sets it stands for, prod C(available[d], hand[d])."""
    ways = _completions(tuple(available), tuple(least), size)
    hand, left = [], size
    for d in range(NUM_DENOMS):
        options = [k for k in range(least[d], min(available[d], left) + 1) if ways[d + 1].get(left - k)]
        weights = [comb(available[d], k) * ways[d + 1][left - k] for k in options]
        total = sum(weights)
        take = options[int(rng.choice(len(options), p=[w / total for w in weights]))] if len(options) > 1 \
            else options[0]
        hand.append(take)
        left -= take
    return hand


def _completions(available: tuple[int, ...], least: tuple[int, ...], size: int) -> list[dict[int, int]]:
    """``ways[d][r]``: the card sets of ``r`` cards from denominations ``d`` on, each at least ``least``."""
    ways: list[dict[int, int]] = [{} for _ in range(NUM_DENOMS)] + [{0: 1}]
    for d in range(NUM_DENOMS - 1, -1, -1):
        for r in range(size + 1):
            total = sum(comb(available[d], k) * ways[d + 1].get(r - k, 0)
                        for k in range(least[d], min(available[d], r) + 1))
            if total:
                ways[d][r] = total
    return ways
