"""The end of the record walk: the event in progress and the position it must arrive at (§3-§9).

After the settled events (:class:`~.ledger.Walk`), the walk plays the event that is going on (the
revealed card and its donkey money, the bids and defaults so far, the sealed rounds, the rat pot, the
pedigree stake, a cow trade's tied first round and the offer lying face down) and must then hold exactly
the position's hands, bank, event counter and turn. Fields that only an event in progress uses must be
empty outside it (checked with the decision in :mod:`.checks`).
"""

from __future__ import annotations

from . import actions as A
from .cards import NUM_ANIMALS, PEDIGREE, RAT
from .ledger import Walk, check_fields, round_kinds, tie_list


def finish(walk: Walk) -> None:
    """Walk the event in progress and compare the walk's end with the position."""
    s = walk.s
    walk.where = "the position"
    _turn(walk)
    if s.n > 2 and s.auctioneer >= 0 and s.card >= 0:
        _auction(walk)
    elif s.challenger >= 0:
        _trade(walk)
    else:
        if s.n == 2 and s.card >= 0:  # the card being looked at (§8.1)
            walk.reveal(s.card)
        stale = walk.last["cash_before"] if walk.last is not None else []
        if walk.exact and s.event_start != stale:
            raise walk.fail(f"event_start {s.event_start} should be {stale} (the last event's cash_before)")
    ends = (("hands", walk.hands) if walk.exact else ("sizes", [sum(hand) for hand in walk.hands]),
            ("bank", walk.bank), ("seq", walk.seq))
    for name, want in ends:
        if getattr(s, name) != want:
            raise walk.fail(f"{name}={getattr(s, name)} but the record leads to {want}")


def _turn(walk: Walk) -> None:
    """The position is the record's last turn going on, or the next turn, or the finished game."""
    s, last = walk.s, walk.last
    if last is None:
        if s.turns != 1 or s.is_terminal:
            raise walk.fail(f"turns={s.turns} with an empty record: the first turn is going on")
        return
    goes_on = walk.turn_goes_on()
    if s.is_terminal:
        if goes_on or s.turns != walk.turn:
            raise walk.fail(f"the game ended in turn {s.turns} after the record's last event in turn {walk.turn}")
        return
    if s.turns == walk.turn and goes_on:
        ongoing = s.decision == A.D_FOLLOWUP if last["kind"] == "trade" else False
        ongoing = ongoing or s.auctioneer >= 0 or (s.n == 2 and s.decision == A.D_DISTRIBUTE)
        if not ongoing or s.turn_player != walk.actor:
            raise walk.fail(f"turn {s.turns} goes on after a {last['kind']}: seat {walk.actor}'s follow-up")
        return
    if goes_on and last["kind"] == "rat":
        raise walk.fail(f"the rat auction of turn {walk.turn} has cards left: the turn goes on (K-A19)")
    if s.turns != walk.turn + 1 or s.turn_player != walk.next_turn_player(walk.actor):
        raise walk.fail(f"turn {s.turns} by seat {s.turn_player} does not follow turn {walk.turn} by seat "
                        f"{walk.actor} (next: seat {walk.next_turn_player(walk.actor)})")


def _auction(walk: Walk) -> None:
    """An auction going on (§4-§6): the revealed card, its donkey money, then by kind."""
    s = walk.s
    if walk.exact and s.event_start != walk.cash():
        raise walk.fail(f"event_start {s.event_start} is not the cash {walk.cash()} when the card was revealed")
    walk.reveal(s.card)
    payout = walk.donkey_payout() if s.card == s.cfg.donkey_species else 0
    if s.payout != payout:
        raise walk.fail(f"payout={s.payout} should be {payout}")
    if s.card == RAT:
        walk.lay_pot(s.pot, s.auctioneer)
        return
    kind = "auction" if s.card < NUM_ANIMALS else "pedigree"
    defaulters = walk.defaults(s.defaults, s.auctioneer, kind, s.card % PEDIGREE)
    if s.excluded != defaulters:
        raise walk.fail(f"excluded={s.excluded} are not the defaulters {defaulters}")
    if kind == "auction":
        _bidding(walk, defaulters)
    else:
        _sealed_count(walk, defaulters)


def _bidding(walk: Walk, defaulters: list[int]) -> None:
    """The bids so far (§4.2): the highest of each seat, the high bid the last one since a default."""
    s, n, a = walk.s, walk.n, walk.s.auctioneer
    everyone = [(a + o) % n for o in range(1, n) if (a + o) % n not in defaulters]
    if s.bidders != everyone and not (s.cfg.pass_is_final and s.bidders == [q for q in everyone if q in s.bidders]):
        raise walk.fail(f"bidders {s.bidders} are not the seats {everyone} clockwise from the auctioneer's left "
                        f"(less those who passed, with pass_is_final; K-A7)")
    top, run = walk.bids(a, s.bids, defaulters)
    if s.max_bid != top:
        raise walk.fail(f"max_bid {s.max_bid} are not the highest bids {top}")
    if [s.high_bidder, s.high] != (run[-1] if run else [-1, 0]):
        raise walk.fail(f"high bid {s.high} by seat {s.high_bidder} is not the last bid since a default")


def _sealed_count(walk: Walk, defaulters: list[int]) -> None:
    """The sealed rounds so far (§5.2): defaulted ones, then the final one once k* is set; the stake."""
    s = walk.s
    sizes = [sum(hand) for hand in walk.hands]
    final = walk.commit_rounds(s.commit_rounds, defaulters, s.auctioneer, sizes, settled=False)
    if (final is not None) != (s.kstar > 0):
        raise walk.fail(f"k*={s.kstar} with commit_rounds {s.commit_rounds}")
    if walk.cfg.overbid_mode == "mask" and any(c is not None and c > size for c, size in zip(s.commits, sizes)):
        raise walk.fail(f"commitments {s.commits} exceed the hand sizes {sizes} (K-A15)")
    if final is not None:
        wrong = final != s.commits or s.kstar != max(c for c in final if c is not None) or \
            s.tied != tie_list(final, s.auctioneer, s.kstar) or final[s.winner] != s.kstar or sizes[s.winner] < s.kstar
        if wrong:
            raise walk.fail(f"commitments {s.commits}, k*={s.kstar}, tied {s.tied} and winner {s.winner} do not "
                            f"fit the final round {final} (K-A14, K-A39)")
    if s.decision in (A.D_PED_BUYRIGHT, A.D_PED_CARDS):
        walk.take(s.winner, s.stake, "the stake")


def _trade(walk: Walk) -> None:
    """A cow trade going on (§7): its start, a tied first round, the offer lying face down."""
    s = walk.s
    c, d = s.challenger, s.challenged
    if walk.exact and s.event_start != walk.cash():
        raise walk.fail(f"event_start {s.event_start} is not the cash {walk.cash()} when the trade began")
    walk.trade_start(c, d, s.species, s.trade_stake)
    settled = s.trade_round - 1  # a tied first round
    laid = s.decision in (A.D_RESPONSE, A.D_COUNTER)
    if len(s.rounds) != settled + (s.decision == A.D_COUNTER):
        raise walk.fail(f"{len(s.rounds)} rounds recorded in round {s.trade_round} at decision {s.decision}")
    for r, rnd in enumerate(s.rounds):
        check_fields(f"the position rounds[{r}]", rnd, round_kinds(r < settled))
    if settled:
        walk.trade_round(c, d, 1, s.rounds[0], last=False)
    if laid:
        walk.offer(c, d, s.offers[0])
    elif any(s.offers[0]):
        raise walk.fail(f"an offer {s.offers[0]} lies on the table before it is laid")
    if s.decision == A.D_COUNTER and s.rounds[-1] != {"response": "counter",
                                                      "forced": walk.counter_forced(d, s.trade_round)}:
        raise walk.fail(f"the counter-offer being laid is recorded as {s.rounds[-1]}")

