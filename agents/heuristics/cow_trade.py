"""A cow trade heuristic that trades like the Koehandel heuristic.

Idea: the challenger offers the cheapest non-zero cards covering a share of the stake's worth and pads
them with 0-cards (Koehandel's ``BLUFF_ZEROS``) so the offer looks bigger. The challenged player guesses
the offer from its card count (each card worth the mean of the money it has not seen) and counters with
the cover of the amount that gains most over accepting: its chance to beat the offer, taken as uniform
between 0.4 and 1.6 times the guess, times the stake's worth, minus what the counter costs.
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.cow_trade.observation import CowTradeObserver
from hiddenhand.envs.cow_trade.rules import CowTradeGame
from hiddenhand.envs.cow_trade.vocab import ACCEPT, CARD, COUNTER, DONE, RESPONSE
from hiddenhand.envs.koehandel.cards import NUM_DENOMS
from hiddenhand.envs.koehandel.money import value

from ..base import Agent
from .koehandel import BLUFF_ZEROS, COUNTER_STEPS, best_counter, cover

OFFER_SHARE = 0.7  # share of the stake's worth the challenger's real cards aim at


class CowTradeHeuristic(Agent):
    """Deterministic: the same observation gives the same action."""

    name = "heuristic"

    def __init__(self, game: CowTradeGame, seed: int | None = None):
        self.views = CowTradeObserver.build_layout(game).views
        self.worth = game.stake * game.card_value
        self.money = list(game.money)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = self.views(observation)
        hand = view["hand"].astype(int).tolist()
        if view["decision"][RESPONSE]:
            amount = self._counter_amount(view, hand)
            return COUNTER if amount is not None and action_mask[COUNTER] else ACCEPT
        if view["role"][0]:
            plan = cover(hand, int(OFFER_SHARE * self.worth) // 10 * 10) or list(hand)
            plan[0] = min(hand[0], BLUFF_ZEROS)  # look bigger
            if not any(plan):
                plan = cover(hand, 10) or list(hand)
        else:
            plan = cover(hand, self._counter_amount(view, hand) or 10) or list(hand)
        return self._next_card(view["selection"].astype(int).tolist(), plan, action_mask)

    def _counter_amount(self, view: dict, hand: list[int]) -> int | None:
        """The counter-offer with the best gain over accepting, or None to accept."""
        unseen = [m - d for m, d in zip(self.money, view["dealt"].astype(int).tolist())]
        mean = value(unseen) / max(1, sum(unseen))
        rounds = view["rounds"]
        current = 1 if rounds[1][0] else 0
        guess = rounds[current][0] * mean
        return best_counter(hand, sorted({int(guess * f) + 10 for f in COUNTER_STEPS}), guess, self.worth)

    @staticmethod
    def _next_card(selected: list[int], plan: list[int], mask: np.ndarray) -> int:
        """The lowest card of ``plan`` not yet selected (offers are laid in ascending order), else DONE."""
        for d in range(NUM_DENOMS):
            if plan[d] > selected[d] and mask[CARD + d]:
                return CARD + d
        if mask[DONE]:
            return DONE
        return next(CARD + d for d in range(NUM_DENOMS) if mask[CARD + d])

