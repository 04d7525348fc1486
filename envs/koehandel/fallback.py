"""The re-deal past its work budget (docs/koehandel_rules.md Appendix C): an approximate copy in bounded time.

:func:`free_replay` walks the viewer's history (:mod:`.sampler`) choosing every hidden composition from
the public record alone: a hidden payment is a random sufficient payment of its price with its number of
cards, a trade's two hidden offers have their card counts and totals ordered as the public result says,
a share of a pot the viewer took is drawn from that pot, any other hidden cards have their number (each
card's denomination drawn as often as the game has it), a 2-player money card received unseen comes from
the unseen ones. The hands it passes through are not the copy's (they may go below zero): only the hand
sizes it ends each event with are used (public, K-A13). :func:`deal_present` deals the copy's hands and
the hidden cards lying on the table from the money the viewer cannot place, every hand its public size;
a defaulting bidder's shown hand is kept, the buyer about to pay can pay and, in ``mask`` mode, every bid
of the auction under way is covered by its bidder's hand (the rules count on it: K-A9); the digest's cash
bounds are met if one of :data:`DEALS` random deals meets them.

Every public fact and the viewer's whole observation are kept. What is lost: the hidden compositions no
longer have to come from the hands that paid them, so the other seats' records may describe a past
their hands did not have; ``cash_before``/``cash_after`` become unknown (None). Such a copy is flagged
(``state.approximate``, ``env.redeal_is_approximate``, kept in its snapshot), and is re-dealt again the
same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import actions as A
from .cards import DENOMINATIONS, MONEY, NUM_DENOMS
from .money import value
from .records import CASH_BOUND, DIGEST_COLUMNS
from .sampler import QUICK_TRADES, _outcome, _random_cards, _replay, _Step, _World, payment_shapes

if TYPE_CHECKING:
    from .config import KoehandelConfig
    from .rules import KoehandelState

DEALS = 32  # random deals tried for the lower bounds before only the buyer's is kept


class _FreeWorld(_World):
    """A world whose hands may go below zero (the free replay's are not the copy's)."""

    __slots__ = ()

    def take(self, seat: int, counts: list[int]) -> bool:
        hand = self.hands[seat]
        for d in range(NUM_DENOMS):
            hand[d] -= counts[d]
        return True


def free_cards(count: int, cfg: KoehandelConfig, rng: np.random.Generator) -> list[int]:
    """``count`` money cards, each of a denomination drawn as often as the game has it."""
    weights = np.asarray(cfg.money_composition, float)
    out = [0] * NUM_DENOMS
    for d in rng.choice(NUM_DENOMS, size=count, p=weights / weights.sum()).tolist():
        out[d] += 1
    return out


def _free_pair(given: int, asked: int, result: str, cfg: KoehandelConfig, rng: np.random.Generator) -> tuple:
    """A trade round's offer and counter-offer with the public card counts and result: a few free draws,
    else 0-cards with a 10 for the winner (the true round shows the winner's side has a card)."""
    for _ in range(QUICK_TRADES):
        offer, counter = free_cards(given, cfg, rng), free_cards(asked, cfg, rng)
        if _outcome(value(offer), value(counter)) == result:
            return offer, counter
    offer, counter = [given] + [0] * (NUM_DENOMS - 1), [asked] + [0] * (NUM_DENOMS - 1)
    for side, wins in ((offer, result == "challenger"), (counter, result == "challenged")):
        if wins and side[0]:
            side[0], side[1] = side[0] - 1, 1
    return offer, counter


def _free_choice(step: _Step, world: _World, cfg: KoehandelConfig, rng: np.random.Generator):
    kind, *data = step.draw
    if kind == "payment":
        price, size = data
        shapes = payment_shapes(price, size)
        return list(shapes[int(rng.integers(len(shapes)))]) if shapes else free_cards(size, cfg, rng)
    if kind == "share":
        key, size, last = data
        left = world.transit[key]
        return list(left) if last else _random_cards(left, size, rng)
    if kind == "pair":
        return _free_pair(*data, cfg, rng)
    if kind == "pool":
        pool = np.maximum(np.asarray(world.pool, float), 0)
        weights = pool if pool.sum() else np.asarray(cfg.money_composition, float)
        return int(rng.choice(NUM_DENOMS, p=weights / weights.sum()))
    return free_cards(data[0], cfg, rng)


def free_replay(steps: list[_Step], world: _World, cfg: KoehandelConfig, rng: np.random.Generator) -> dict:
    """The history with every hidden choice drawn from the public record alone (module docstring)."""
    free = _FreeWorld([list(hand) for hand in world.hands], {}, list(world.pool))
    return _replay(steps, free, lambda k, step, w: _free_choice(step, w, cfg, rng), free=True)


# ---------------------------------------------------------------------------- the present
def deal_present(s: KoehandelState, viewer: int, rng: np.random.Generator):
    """The other seats' hands, the hidden cards on the table (pedigree stake, offer, rat pot lays) and,
    with 2 players, the unseen money left for the deck and the removed pile, dealt from the money the
    viewer cannot place. Returns (hands, transit, pot shares, pool)."""
    n = s.n
    hands = [None] * n
    hands[viewer] = list(s.hands[viewer])
    unplaced = _unplaced(s, viewer)
    for default in s.defaults:  # a defaulting bidder's hand was shown and has not changed since
        seat = default["player"]
        if seat != viewer:
            hands[seat] = list(default["hand"])
            unplaced = [u - k for u, k in zip(unplaced, default["hand"])]
    parts = [(("hand", seat), s.sizes[seat]) for seat in range(n) if hands[seat] is None]
    parts += _hidden_transit(s, viewer)
    rest = sum(unplaced) - sum(size for _, size in parts)
    if n == 2:
        parts.append((("pool",), rest))
    cards = [d for d in range(NUM_DENOMS) for _ in range(unplaced[d])]
    needs = _lower_bounds(s, viewer)
    dealt = _deal(cards, parts, needs, rng)
    transit, shares = {}, {}
    for (name, *where), counts in dealt.items():
        if name == "hand":
            hands[where[0]] = counts
        elif name == "pot":
            shares[("pot", "now", where[0])] = counts
        elif name in ("stake", "offer"):
            transit[name] = counts
    return hands, transit, shares, dealt.get(("pool",), [0] * NUM_DENOMS)


def _unplaced(s: KoehandelState, viewer: int) -> list[int]:
    """Money cards whose place the viewer does not know: all but the bank, the publicly removed 0-cards,
    its own hand, what it laid or saw lying on the table and a money card it is looking at."""
    out = [have - b for have, b in zip(s.cfg.money_composition, s.bank)]
    out = [u - h for u, h in zip(out, s.hands[viewer])]
    if s.n == 2:
        out[0] -= s.removed[0]
        if s.decision == A.D_DISTRIBUTE and s.current_player == viewer and s.looked >= MONEY:
            out[s.looked - MONEY] -= 1
    for seat, d in s.pot:
        if seat == viewer:
            out[d] -= 1
    if s.decision in (A.D_PED_BUYRIGHT, A.D_PED_CARDS) and viewer == s.winner:
        out = [u - k for u, k in zip(out, s.stake)]
    if s.decision in (A.D_RESPONSE, A.D_COUNTER) and viewer == s.challenger:
        out = [u - k for u, k in zip(out, s.offers[0])]
    return out


def _hidden_transit(s: KoehandelState, viewer: int) -> list[tuple[tuple, int]]:
    """(part, number of cards) of the cards lying face down that the viewer has not seen."""
    parts = []
    if s.decision in (A.D_PED_BUYRIGHT, A.D_PED_CARDS) and viewer != s.winner:
        parts.append((("stake",), s.kstar))
    if s.decision in (A.D_RESPONSE, A.D_COUNTER) and viewer != s.challenger:
        parts.append((("offer",), sum(s.offers[0])))
    laid = [0] * s.n
    for seat, _ in s.pot:
        laid[seat] += 1
    parts += [(("pot", seat), k) for seat, k in enumerate(laid) if k and seat != viewer]
    return parts


def _lower_bounds(s: KoehandelState, viewer: int) -> tuple[dict[int, int], dict[int, int]]:
    """(what the deal must meet: the buyer's cash needed to pay and, in ``mask`` mode, the bids of the
    auction under way; those and the other lower bounds the viewer knows, the digest's cash bounds)."""
    must = {seat: bid for seat, bid in enumerate(s.covered_bids()) if bid and seat != viewer}
    if not s.is_terminal and s.decision == A.D_PAY and s.payer != viewer:
        must[s.payer] = max(must.get(s.payer, 0), s.amount)
    wish = dict(must)
    row, n = s.memory.digest[viewer], s.n
    for slot in range(1, n):
        seat = (viewer + slot) % n
        wish[seat] = max(wish.get(seat, 0), row[(slot - 1) * DIGEST_COLUMNS + CASH_BOUND])
    return must, wish


def _deal(cards: list[int], parts: list[tuple[tuple, int]], needs, rng: np.random.Generator) -> dict:
    """``cards`` (denomination indices, sorted) cut into ``parts`` in a random order: the first of
    :data:`DEALS` deals meeting every lower bound, else of as many meeting the hard ones (``must``),
    else the hands with a hard bound take the most valuable cards (:func:`_cover`)."""
    must, wish = needs
    for bounds in (wish, must):
        for _ in range(DEALS):
            dealt = _cut([cards[j] for j in rng.permutation(len(cards)).tolist()], parts)
            if all(value(dealt[("hand", seat)]) >= need for seat, need in bounds.items() if ("hand", seat) in dealt):
                return dealt
    bound = [part for part in parts if part[0][0] == "hand" and part[0][1] in must]
    top = sum(size for _, size in bound)
    order = sorted(cards, reverse=True)
    rest = order[top:]
    dealt = _cover(order[:top], bound, must)
    dealt.update(_cut([rest[j] for j in rng.permutation(len(rest)).tolist()],
                      [part for part in parts if part not in bound]))
    return dealt


def _cover(cards: list[int], parts: list[tuple[tuple, int]], must: dict[int, int]) -> dict:
    """``cards`` (most valuable first) dealt to the hands of ``parts``, each card to the hand with room
    that lacks the most money per place left, so that several bounds are met together."""
    hands = {name: [0] * NUM_DENOMS for name, _ in parts}
    room = dict(parts)
    short = {name: must[name[1]] for name, _ in parts}
    for d in cards:
        name = max((name for name in hands if room[name]), key=lambda name: short[name] / room[name])
        hands[name][d] += 1
        room[name] -= 1
        short[name] -= DENOMINATIONS[d]
    return hands


def _cut(cards: list[int], parts: list[tuple[tuple, int]]) -> dict:
    out, at = {}, 0
    for name, size in parts:
        counts = [0] * NUM_DENOMS
        for d in cards[at:at + size]:
            counts[d] += 1
        out[name] = counts
        at += size
    return out

