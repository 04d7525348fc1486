"""The re-dealt copy (``determinize``; docs/koehandel_rules.md §11.2, Appendix C).

:func:`resample_hidden` draws a history consistent with what the viewer saw (:mod:`.sampler`) and
writes the state from it: hands, cards in transit (offer, pedigree stake, rat pot), every event of the
research record (hidden compositions, offer values, ``cash_before`` and ``cash_after``, sealed pedigree
commitments and tie lists), every player's private record (the :class:`~.records.Memory` replayed from
the re-dealt events), others' private build steps (reset), the deck order (drawn afresh from its public
composition) and, with 2 players, the unseen money cards. When the search runs out of its work budget
(or the record does not replay, as in an approximate copy), :mod:`.fallback` draws the hidden
compositions from the public record alone and deals the hands by their public sizes: the copy keeps
every public fact and the viewer's observation, and is flagged ``approximate`` (kept in its snapshot).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import actions as A
from . import fallback, sampler
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, PEDIGREE
from .money import legal_payments, value
from .records import Memory
from .sampler import (
    MAX_SLAP, OutOfWork, _history, _random_cards, _replay, _search, _start_hands, _unseen_pool, _World, _WORK,
)

if TYPE_CHECKING:  # no runtime import: rules imports this module
    from .rules import KoehandelState


def resample_hidden(s: KoehandelState, viewer: int, rng: np.random.Generator, budget: int | None = None) -> None:
    """Re-deal, in place, everything about ``s`` that ``viewer`` cannot know (module docstring); the
    search may spend ``budget`` units of work (default :data:`.sampler.WORK_BUDGET`)."""
    start = _start_hands(s)
    history = _history(s, viewer)
    world = _World([list(hand) for hand in start], {}, _unseen_pool(s, viewer, start))
    try:
        if s.approximate:  # its record does not replay: no search
            raise OutOfWork("an approximate copy")
        token = _WORK.set([sampler.WORK_BUDGET if budget is None else budget])
        try:
            chosen = _search(history.steps, world.copy(), rng)
        finally:
            _WORK.reset(token)
    except OutOfWork:
        _approximate(s, viewer, history, world, rng)
        return
    results = _replay(history.steps, world, lambda k, step, world: chosen[k])
    final = results["world"]
    for seat in range(s.n):
        s.hands[seat] = list(final.hands[seat])
        s.cash[seat] = value(final.hands[seat])
    _rebuild_events(s, viewer, results, rng, exact=True)
    _rebuild_current(s, viewer, results, final.transit, rng, exact=True)
    _reshuffle_deck(s, viewer, final.pool, rng)
    s.memory = rebuild_memory(s)


def _approximate(s: KoehandelState, viewer: int, history, world: _World, rng: np.random.Generator) -> None:
    """The copy past the budget (:mod:`.fallback`): the record's hidden compositions drawn from the public
    record alone, the hands dealt by their public sizes."""
    results = fallback.free_replay(history.steps, world, s.cfg, rng)
    hands, transit, shares, pool = fallback.deal_present(s, viewer, rng)
    results.update(shares)
    for seat in range(s.n):
        s.hands[seat] = hands[seat]
        s.cash[seat] = value(hands[seat])
    _rebuild_events(s, viewer, results, rng, exact=False)
    _rebuild_current(s, viewer, results, transit, rng, exact=False)
    _reshuffle_deck(s, viewer, pool, rng)
    s.memory = rebuild_memory(s)
    s.approximate = True


def _cash(hands: list[list[int]]) -> list[int]:
    return [value(hand) for hand in hands]


def _rebuild_events(s: KoehandelState, viewer: int, results: dict, rng: np.random.Generator, exact: bool) -> None:
    """Every event with the sampled compositions in place of the hidden ones, as new dicts (a clone
    shares its settled events with the state it was copied from). An approximate copy knows no seat's
    cash at the events (None)."""
    n = s.n
    for i, old in enumerate(s.events):
        s.events[i] = e = dict(old)
        kind = e["kind"]
        before = results[("begin", i)]
        e["cash_before"] = _cash(before) if exact else [None] * n
        e["cash_after"] = _cash(results[("end", i)]) if exact else [None] * n
        if kind == "auction":
            if e["payment"] is not None:
                e["payment"] = list(results[("payment", i)])
        elif kind == "pedigree":
            sizes = [sum(hand) for hand in before]  # public: right in an approximate copy too
            _sample_commitments(s, e, viewer, sizes, rng)
            if e["payment"] is not None:
                if ("stake_hands", i) in results:  # a bought pedigree's stake went back unseen
                    e["stake"] = (_random_cards(results[("stake_hands", i)][e["winner"]], e["count"], rng) if exact
                                  else fallback.free_cards(e["count"], s.cfg, rng))
                else:
                    e["stake"] = list(results[("stake", i)])
                e["payment"] = list(e["stake"]) if e["decision"] == "decline" else list(results[("payment", i)])
        elif kind == "rat":
            e["pot"] = _relabel_pot(e["pot"], results, i, viewer, n)
        elif kind == "trade":
            e["rounds"] = [dict(rnd) for rnd in e["rounds"]]
            for r, rnd in enumerate(e["rounds"]):
                _fill_round(rnd, results.get(("round", i, r)), results, ("round", i, r))
        else:
            for name in ("x", "y"):
                if e[name] is not None and e[name] >= MONEY:
                    got = results[(name, i)]
                    e[name] = MONEY + (got if isinstance(got, int) else got.index(1))


def _fill_round(rnd: dict[str, Any], joint, results: dict, tag) -> None:
    """A trade round's offer and counter from the sample (drawn together, or one by one)."""
    if joint is not None:
        offer, counter = joint
    else:
        offer = results[(*tag, "offer")]
        counter = results.get((*tag, "counter")) if rnd["counter"] is not None else None
    rnd["offer"] = list(offer)
    if counter is None:
        rnd["values"] = [value(offer), None]
    else:
        rnd["counter"] = list(counter)
        rnd["values"] = [value(offer), value(counter)]


def _relabel_pot(pot: list[list[int]], results: dict, i, viewer: int, n: int) -> list[list[int]]:
    """The pot's lays with the sampled denominations: the viewer's own lays as they were, every other
    seat's lays in its laying slots in ascending order of value (their order is known to nobody)."""
    out = [list(lay) for lay in pot]
    for seat in range(n):
        if seat == viewer:
            continue
        share = results.get(("pot", i, seat))
        if share is None:
            continue
        cards = [d for d in range(NUM_DENOMS) for _ in range(share[d])]
        for lay in out:
            if lay[0] == seat:
                lay[1] = cards.pop(0)
    return out


def _sample_commitments(s: KoehandelState, e: dict[str, Any], viewer: int, sizes: list[int],
                        rng: np.random.Generator) -> None:
    """A settled pedigree auction's sealed commitments, drawn afresh for every seat but the viewer."""
    rounds, defaults = e["commit_rounds"], e["defaults"]
    new_rounds = []
    for r, commits in enumerate(rounds):
        if r < len(defaults):
            new_rounds.append(_defaulted_round(s, commits, viewer, defaults[r], rng))
        else:
            final, ties = _final_round(s, commits, viewer, sizes, e["winner"], e["count"],
                                       e["tied"], e["auctioneer"], rng)
            new_rounds.append(final)
            e["ties"] = ties
    e["commit_rounds"] = new_rounds
    if len(rounds) > len(defaults):
        e["commitments"] = list(new_rounds[-1])
    if len(rounds) == len(defaults) or e["count"] == 0:
        e["ties"] = []


def _limit(s: KoehandelState, seat: int, sizes: list[int]) -> int:
    return MAX_SLAP if s.cfg.overbid_mode != "mask" else min(MAX_SLAP, sizes[seat])


def _queue(s: KoehandelState, commits: list, auctioneer: int) -> list[int]:
    """The committing seats in their public order, clockwise from the auctioneer's left."""
    return [(auctioneer + o) % s.n for o in range(1, s.n) if commits[(auctioneer + o) % s.n] is not None]


def _defaulted_round(s: KoehandelState, commits: list, viewer: int, default: dict[str, Any],
                     rng: np.random.Generator) -> list:
    """A round whose winner could not pay (reveal_and_restart): he committed more cards than he held
    and at least as many as anyone else; nothing else about it is known."""
    w = default["player"]
    out = [None if c is None else 0 for c in commits]
    own = commits[viewer]
    if own is not None:
        out[viewer] = own
    if w != viewer:
        low = min(max(sum(default["hand"]) + 1, own or 0), MAX_SLAP)
        out[w] = int(rng.integers(low, MAX_SLAP + 1))
    for seat, c in enumerate(commits):
        if c is not None and seat not in (viewer, w):
            out[seat] = int(rng.integers(out[w] + 1))
    return out


def _final_round(s: KoehandelState, commits: list, viewer: int, sizes: list[int], winner, count: int,
                 tied: list[int], auctioneer: int, rng: np.random.Generator) -> tuple[list, list[int]]:
    """The deciding round: the winner committed ``count``; with ties announced the tied seats did too
    and the others less, without, the others at most as much. Returns the round and its tie list."""
    out = [None if c is None else 0 for c in commits]
    if commits[viewer] is not None:
        out[viewer] = commits[viewer]
    if not count:  # everybody said NEVER (public)
        return out, []
    reveal = s.cfg.reveal_pedigree_ties
    for seat, c in enumerate(commits):
        if c is None or seat == viewer:
            continue
        if seat == winner or (reveal and seat in tied):
            out[seat] = count
        else:
            top = min(_limit(s, seat, sizes), count - 1 if reveal else count)
            out[seat] = int(rng.integers(top + 1))
    ties = [seat for seat in _queue(s, out, auctioneer) if out[seat] == count]
    return out, ties if len(ties) > 1 else []


def _rebuild_current(s: KoehandelState, viewer: int, results: dict, transit: dict, rng: np.random.Generator,
                     exact: bool) -> None:
    """The event in progress: cards in transit, sealed commitments, others' private build steps."""
    if ("begin", "now") in results:
        s.event_start = _cash(results[("begin", "now")]) if exact else [None] * s.n
    elif s.events:
        s.event_start = list(s.events[-1]["cash_before"])
    if "stake" in transit:
        s.stake = list(transit["stake"])
    if "offer" in transit:
        s.offers[0] = list(transit["offer"])
    if s.pot:
        s.pot = _relabel_pot(s.pot, results, "now", viewer, s.n)
    if s.challenger >= 0:
        for r, rnd in enumerate(s.rounds):
            if "result" in rnd:
                _fill_round(rnd, results.get(("round", "now", r)), results, ("round", "now", r))
    mover = s.current_player
    if mover != viewer and not s.is_terminal:
        if s.decision in (A.D_PAY, A.D_OFFER, A.D_COUNTER, A.D_STAKE, A.D_PED_CARDS):
            s.selection = [0] * NUM_DENOMS
        if s.decision == A.D_BID:
            s.pending = 0
    if s.decision == A.D_PAY:
        s.options = [list(f) for f in legal_payments(s.hands[s.payer], s.amount, s.cfg.payment_rule)]
    if s.n > 2 and s.auctioneer >= 0 and PEDIGREE <= s.card < MONEY:
        _current_commitments(s, viewer, rng)


def _current_commitments(s: KoehandelState, viewer: int, rng: np.random.Generator) -> None:
    """The pedigree auction in progress: earlier (defaulted) rounds, and the current round's sealed
    commitments (all of them while it runs, those below the result once it is decided)."""
    sizes = list(s.sizes)
    done = len(s.commit_rounds)
    decided = s.kstar > 0  # the current round is over and has a winner: it is the last entry
    new_rounds = []
    for r, commits in enumerate(s.commit_rounds):
        if r < len(s.defaults):
            new_rounds.append(_defaulted_round(s, commits, viewer, s.defaults[r], rng))
        else:
            final, ties = _final_round(s, commits, viewer, sizes, s.winner, s.kstar,
                                       s.tied if s.cfg.reveal_pedigree_ties else [], s.auctioneer, rng)
            new_rounds.append(final)
            s.tied = ties
    s.commit_rounds = new_rounds
    if decided and done > len(s.defaults):
        s.commits = list(new_rounds[-1])
    else:  # commitments of the running round: each as its committer could have chosen
        for seat, c in enumerate(s.commits):
            if c is not None and seat != viewer:
                s.commits[seat] = int(rng.integers(_limit(s, seat, sizes) + 1))


def _reshuffle_deck(s: KoehandelState, viewer: int, pool: list[int], rng: np.random.Generator) -> None:
    """3-6 players: the deck in a fresh order. 2 players: the unseen money dealt between the deck and
    the removed pile, keeping the public back colours of the top card and of a card being looked at."""
    if s.n > 2:
        s.deck = sorted(s.deck)
        rng.shuffle(s.deck)
        s.deck = [int(c) for c in s.deck]
        return
    hidden_look = s.decision == A.D_DISTRIBUTE and s.current_player != viewer and not s.is_terminal
    cards = sorted(c for c in s.deck + ([s.looked] if hidden_look else []) if c < MONEY)
    slots = sum(1 for c in s.deck if c >= MONEY) + (1 if hidden_look and s.looked >= MONEY else 0)
    money = [d for d in range(NUM_DENOMS) for _ in range(pool[d])]
    rng.shuffle(money)
    randomly_removed = len(money) - slots
    removed = [s.removed[0]] + [0] * (NUM_DENOMS - 1)
    for d in money[:randomly_removed]:
        removed[d] += 1
    s.removed = removed
    cards += [MONEY + d for d in money[randomly_removed:]]
    order = [int(c) for c in rng.permutation(len(cards))]
    cards = [cards[j] for j in order]
    wanted = ([s.looked >= MONEY] if hidden_look else []) + ([s.deck[-1] >= MONEY] if s.deck else [])
    chosen = []
    for is_money in wanted:
        index = next(j for j, c in enumerate(cards) if (c >= MONEY) == is_money)
        chosen.append(cards.pop(index))
    if hidden_look:
        s.looked = s.card = chosen.pop(0)
    s.deck = cards + chosen  # the top card (if any) last


def rebuild_memory(s: KoehandelState) -> Memory:
    """Every player's record replayed from the events (and the auction in progress), in the order the
    rules engine fed them to the memory."""
    memory = Memory(s.cfg, [value(hand) for hand in s.start_hands])  # the opponents' first cash bounds
    for e in s.events:
        kind = e["kind"]
        if kind == "auction" and e["donkey_payout"]:
            memory.payout(DENOMINATIONS.index(e["donkey_payout"]))
        elif kind == "distribution":
            for amount in e["donkey_payouts"]:
                if amount:
                    memory.payout(DENOMINATIONS.index(amount))
        if kind in ("auction", "pedigree"):
            for default in e["defaults"]:
                memory.default(default["seq"], 1 if kind == "auction" else 2, e["species"], default["player"],
                               default["hand"])
        memory.settle(e)
    if s.n > 2 and s.auctioneer >= 0 and s.card >= 0:
        if s.payout:
            memory.payout(DENOMINATIONS.index(s.payout))
        for default in s.defaults:
            memory.default(default["seq"], 1 if s.card < NUM_ANIMALS else 2, s.card % PEDIGREE,
                           default["player"], default["hand"])
    return memory
