"""The event record walked with full information (docs/koehandel_rules.md §3-§9, §12.5).

A position keeps its research record (``events``), from which every player's private record (the
:class:`~.records.Memory`) is built. :class:`Walk` replays the record from the public starting hands:
every event's fields are checked for type and range and then against the money, holdings and deck of
that moment (a payment is a legal payment from the payer's hand, a trade's result follows the totals, a
pot is laid in turn, the turn passes to the left, ...), and the memory is rebuilt as the engine builds
it. Every value of an event is either checked or recomputed. One pass, linear in the record.

The record may start at a set-up position (``set_position``): its hands are the public ``start_hands``,
its holdings, pedigree owners, deck and bank are derived backwards from the position. :mod:`.progress`
finishes the walk with the event in progress and compares the result with the position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.game import SnapshotError
from ..core.options import is_int
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, PEDIGREE, RAT
from .money import auto_payment, has_exact_payment, legal_payments, value
from .records import Memory

if TYPE_CHECKING:  # no runtime import: rules imports checks, which imports this module
    from .rules import KoehandelState

MAX_CARDS = 127  # money cards of one denomination (config.MAX_CARDS_PER_DENOMINATION)
MAX_SLAP = 10  # the highest pedigree count (actions.MAX_SLAP)
MAX_SEQ = 2**31 - 1
ZERO = [0] * NUM_DENOMS
SALE_DECISIONS = (None, "decline", "buy")
RESPONSES = ("accept", "counter")
RESULTS = ("challenger", "challenged", "tie")
#: The memory's code of the auction kind a default happened in (R5, §12.5).
DEFAULT_KIND = {"auction": 1, "pedigree": 2}

Test = Callable[[Any], bool]


# ---------------------------------------------------------------------------- field kinds
def seat_of(n: int, none: bool = False) -> Test:
    return lambda x: (none and x is None) or (is_int(x) and 0 <= x < n)


def int_in(low: int, high: int) -> Test:
    return lambda x: is_int(x) and low <= x <= high


def is_hand(x: Any) -> bool:
    """A count vector of money cards."""
    return isinstance(x, list) and len(x) == NUM_DENOMS and all(is_int(k) and 0 <= k <= MAX_CARDS for k in x)


def _maybe_hand(x: Any) -> bool:
    return x is None or is_hand(x)


def list_of(test: Test, length: int | None = None) -> Test:
    return lambda x: isinstance(x, list) and (length is None or len(x) == length) and all(map(test, x))


def commit_row(n: int) -> Test:
    """Sealed pedigree commitments per seat (None: not committing)."""
    return list_of(lambda c: c is None or int_in(0, MAX_SLAP)(c), n)


def check_fields(where: str, data: Any, kinds: dict[str, Test]) -> dict[str, Any]:
    """``data`` as a dict with exactly the keys of ``kinds``, each value passing its test."""
    if not isinstance(data, dict):
        raise SnapshotError(f"koehandel: {where} must be a dict, got {type(data).__name__}")
    if set(data) != set(kinds):
        missing, unknown = sorted(set(kinds) - set(data)), sorted(map(str, set(data) - set(kinds)))
        raise SnapshotError(f"koehandel: {where} " + "; ".join(
            [f"lacks {missing}"] * bool(missing) + [f"has unknown key(s) {unknown}"] * bool(unknown)))
    for key, test in kinds.items():
        if not test(data[key]):
            text = repr(data[key])
            raise SnapshotError(f"koehandel: {where} {key}={text if len(text) <= 80 else text[:77] + '...'} "
                                f"is out of range")
    return data


def default_kinds(n: int) -> dict[str, Test]:
    """A defaulting bidder's shown hand (``reveal_and_restart``, §4.5, §5.4)."""
    return {"seq": int_in(1, MAX_SEQ), "player": seat_of(n), "hand": is_hand}


def round_kinds(settled: bool) -> dict[str, Test]:
    """A cow-trade round (§7.4): settled, or a counter-offer being laid (``response`` and ``forced``)."""
    kinds = {"response": lambda x: x in RESPONSES, "forced": lambda x: isinstance(x, bool)}
    if settled:
        cards = int_in(0, NUM_DENOMS * MAX_CARDS)
        kinds.update(offer=is_hand, counter=_maybe_hand, offer_cards=cards, counter_cards=cards,
                     values=list_of(lambda v: v is None or is_int(v), 2), result=lambda x: x in RESULTS)
    return kinds


def event_kinds(n: int, bid_bound: int, approximate: bool = False) -> dict[str, dict[str, Test]]:
    """Keys of each kind of event (as ``KoehandelState._record`` writes them) and their ranges (an
    approximate copy's cash is unknown: None)."""
    seat, maybe_seat = seat_of(n), seat_of(n, none=True)
    payout = lambda x: x == 0 or x in DENOMINATIONS[1:]  # noqa: E731
    cash = list_of(lambda c: (approximate and c is None) or int_in(0, MAX_SEQ)(c), n)
    common = {"seq": int_in(1, MAX_SEQ), "kind": lambda x: isinstance(x, str), "turn": int_in(1, MAX_SEQ),
              "players": lambda x: isinstance(x, list), "cash_before": cash, "cash_after": cash}
    sale = {"winner": maybe_seat, "decision": lambda x: x in SALE_DECISIONS, "payer": maybe_seat,
            "payee": maybe_seat, "payment": _maybe_hand, "owner": seat, "defaults": lambda x: isinstance(x, list),
            "species": int_in(0, NUM_ANIMALS - 1), "auctioneer": seat}
    pair = lambda first, second: list_of(lambda x: isinstance(x, list) and len(x) == 2 and first(x[0])  # noqa: E731
                                         and second(x[1]))
    return {
        "auction": {**common, **sale, "donkey_payout": payout, "bids": pair(seat, int_in(10, bid_bound)),
                    "max_bids": list_of(int_in(0, bid_bound), n), "price": int_in(0, bid_bound)},
        "pedigree": {**common, **sale, "commitments": commit_row(n), "commit_rounds": list_of(commit_row(n)),
                     "tied": list_of(seat), "ties": list_of(seat), "count": int_in(0, MAX_SLAP),
                     "stake": _maybe_hand},
        "rat": {**common, "auctioneer": seat, "taker": seat, "pot": pair(seat, int_in(0, NUM_DENOMS - 1))},
        "trade": {**common, "challenger": seat, "challenged": seat, "species": int_in(0, RAT),
                  "stake": int_in(1, 2), "rounds": lambda x: isinstance(x, list) and 1 <= len(x) <= 2,
                  "winner": seat, "final_phase": lambda x: isinstance(x, bool)},
        "distribution": {**common, "distributor": seat, "decision": lambda x: x in ("keep", "give"),
                         "x": int_in(0, MONEY + NUM_DENOMS - 1), "x_to": seat,
                         "y": lambda x: x is None or int_in(0, MONEY + NUM_DENOMS - 1)(x), "y_to": maybe_seat,
                         "donkey_payouts": lambda x: list_of(payout)(x) and 1 <= len(x) <= 2},
    }


def check_shapes(events: Any, kinds: dict[str, dict[str, Test]]) -> None:
    """Every event a dict of its kind's keys and ranges (the walk's start is derived from them)."""
    if not isinstance(events, list):
        raise SnapshotError("koehandel: state events must be a list")
    for i, e in enumerate(events):
        if not isinstance(e, dict) or e.get("kind") not in kinds:
            raise SnapshotError(f"koehandel: events[{i}] must be a dict whose kind is one of {sorted(kinds)}")
        check_fields(f"events[{i}] ({e['kind']})", e, kinds[e["kind"]])


def actor(e: dict[str, Any]) -> int:
    """The player on turn who began the event."""
    kind = e["kind"]
    return e["challenger"] if kind == "trade" else e["distributor"] if kind == "distribution" else e["auctioneer"]


def _revealed(e: dict[str, Any]) -> list[int]:
    """The cards the event took from the deck."""
    kind = e["kind"]
    if kind == "auction":
        return [e["species"]]
    if kind == "pedigree":
        return [PEDIGREE + e["species"]]
    if kind == "rat":
        return [RAT]
    if kind == "distribution":
        return [e["x"]] + ([] if e["y"] is None else [e["y"]])
    return []


def _payouts(e: dict[str, Any]) -> list[int]:
    """The donkey payouts of an event (one per donkey revealed or placed)."""
    return [p for p in (e["donkey_payouts"] if e["kind"] == "distribution" else [e.get("donkey_payout", 0)]) if p]


def holding_moves(e: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(seat, species, cards) the event adds to the holdings (negative: takes away)."""
    kind = e["kind"]
    if kind == "auction":
        return [(e["owner"], e["species"], 1)]
    if kind == "rat":
        return [(e["taker"], RAT, 1)]
    if kind == "distribution":
        return [(to, card, 1) for card, to in ((e["x"], e["x_to"]), (e["y"], e["y_to"]))
                if card is not None and card < PEDIGREE and to is not None]
    if kind == "trade":
        c, d, species, k, winner = e["challenger"], e["challenged"], e["species"], e["stake"], e["winner"]
        loser = d if winner == c else c
        gainer, giver = (loser, winner) if species == RAT else (winner, loser)  # §7.7: the winner passes rats on
        return [(giver, species, -k), (gainer, species, k)]
    return []


def outcome(offer: int, counter: int) -> str:
    return "challenger" if offer > counter else "challenged" if counter > offer else "tie"


def _top(commits: list) -> int:
    return max(c for c in commits if c is not None)


# ---------------------------------------------------------------------------- the walk
class Walk:
    """The game as the record goes: money (hands, bank), holdings, pedigree owners, deck, turns, the
    event counter, and every player's private record (``memory``) rebuilt event by event.

    An approximate re-deal (``state.approximate``, Appendix C) has a record whose hidden compositions
    were drawn from the public record alone: its walk keeps every check but those of money against the
    hands (cards in hand, cash, and what cash proves), and follows the hand sizes, which stay exact."""

    def __init__(self, s: KoehandelState):
        self.s, self.cfg, self.n = s, s.cfg, s.n
        self.exact = not s.approximate
        self.hands = [list(hand) for hand in s.start_hands]
        self.memory = Memory(s.cfg, [value(hand) for hand in s.start_hands])
        self.seq, self.turn, self.actor, self.last = 0, 0, -1, None
        self.where = "the record"
        self._start_of_the_record()

    def _start_of_the_record(self) -> None:
        """Holdings, pedigree owners, deck, donkeys and bank at the start, derived backwards."""
        s, cfg = self.s, self.cfg
        self.holdings = [list(h) for h in s.holdings]
        self.owner = list(s.pedigree_owner)
        self.deck = [0] * (MONEY + NUM_DENOMS)
        for card in s.deck + ([s.card] if s.card >= 0 else []):
            self.deck[card] += 1
        payouts = [p for e in s.events for p in _payouts(e)] + ([s.payout] if s.payout else [])
        for e in s.events:
            for card in _revealed(e):
                self.deck[card] += 1
                if PEDIGREE <= card < MONEY:
                    self.owner[card - PEDIGREE] = -1
            for seat, species, k in holding_moves(e):
                self.holdings[seat][species] -= k
        for seat, row in enumerate(self.holdings):
            if min(row) < 0:
                raise SnapshotError(f"koehandel: the record gives seat {seat} more cards than it holds {s.holdings[seat]}")
        self.donkeys = s.donkeys - len(payouts)  # every donkey revealed (2 players: placed) paid out
        self.bank = list(s.bank)
        for payout in payouts:
            self.bank[DENOMINATIONS.index(payout)] += self.n
        start = list(cfg.two_player_reserve) if self.n == 2 else [
            have - sum(hand[d] for hand in s.start_hands) for d, have in enumerate(cfg.money_composition)]
        if self.donkeys < 0 or self.bank != start:
            raise SnapshotError(f"koehandel: the bank {s.bank}, donkeys={s.donkeys} and the {len(payouts)} donkey "
                                f"payouts of the record do not fit the bank at its start {start}")

    # ------------------------------------------------------------------ primitive facts
    def fail(self, problem: str) -> SnapshotError:
        return SnapshotError(f"koehandel: {self.where}: {problem}")

    def cash(self) -> list[int]:
        return [value(hand) for hand in self.hands]

    def take(self, seat: int, counts: list[int], what: str) -> None:
        hand = self.hands[seat]
        if self.exact and any(k > h for k, h in zip(counts, hand)):
            raise self.fail(f"{what} {counts} is not in seat {seat}'s hand {hand}")
        for d, k in enumerate(counts):
            hand[d] -= k

    def give(self, seat: int, counts: list[int]) -> None:
        for d, k in enumerate(counts):
            self.hands[seat][d] += k

    def reveal(self, card: int) -> None:
        if self.deck[card] < 1:
            raise self.fail(f"card {card} is not in the deck")
        self.deck[card] -= 1

    def donkey_payout(self) -> int:
        """Every seat receives the payout of the donkey just revealed (§4.1; 2 players placed, K-A27)."""
        self.donkeys += 1
        amount = self.cfg.donkey_payouts[min(self.donkeys, 4) - 1]
        d = DENOMINATIONS.index(amount)
        self.bank[d] -= self.n
        for hand in self.hands:
            hand[d] += 1
        self.memory.payout(d)
        return amount

    def deck_size(self) -> int:
        return sum(self.deck)

    def has_trade(self, seat: int) -> bool:
        own = self.holdings[seat]
        return any(0 < own[sp] < 4 and any(self.holdings[q][sp] for q in range(self.n) if q != seat)
                   for sp in range(NUM_SPECIES))

    def next_turn_player(self, seat: int) -> int:
        """The turn passes to the left; in the final phase a seat without a trade is skipped (K-A31)."""
        seat = (seat + 1) % self.n
        for _ in range(self.n if not self.deck_size() else 0):
            if self.has_trade(seat):
                break
            seat = (seat + 1) % self.n
        return seat

    def turn_goes_on(self) -> bool:
        """Whether the last event leaves its turn going on: a rat with cards left (K-A19), or a trade in
        the deck phase of Super-Koehandel (K-A29, unless the player ends the turn)."""
        last = self.last
        return last is not None and self.deck_size() > 0 and (
            last["kind"] == "rat" or last["kind"] == "trade" and self.cfg.super_koehandel)

    def can_offer(self, seat: int) -> bool:
        return sum(self.hands[seat]) > 0 or self.cfg.allow_empty_offer

    # ------------------------------------------------------------------ events
    def event(self, i: int, e: dict[str, Any]) -> None:
        """Replay settled event ``i`` (its shape already checked)."""
        self.where = f"events[{i}] ({e['kind']})"
        self.begin_turn(e["turn"], actor(e))
        players = [e["challenger"], e["challenged"]] if e["kind"] == "trade" else (
            [0, 1] if e["kind"] == "distribution" else list(range(self.n)))
        if e["players"] != players:
            raise self.fail(f"players {e['players']} should be {players}")
        if self.exact and e["cash_before"] != self.cash():
            raise self.fail(f"cash_before {e['cash_before']} is not the cash {self.cash()} then")
        getattr(self, "_" + e["kind"])(e)
        if self.exact and e["cash_after"] != self.cash():
            raise self.fail(f"cash_after {e['cash_after']} is not the cash {self.cash()} then")
        if e["seq"] != self.seq + 1:
            raise self.fail(f"seq {e['seq']} does not follow seq {self.seq}")
        self.seq = e["seq"]
        self.memory.settle(e)
        self.last = e

    def begin_turn(self, turn: int, seat: int) -> None:
        """Every turn settles at least one event and passes to the left; it goes on after a rat or a
        Super-Koehandel trade (§3, §6.2, §8.2, §9.1)."""
        if turn == self.turn and self.turn_goes_on():
            if seat != self.actor:
                raise self.fail(f"turn {turn} is seat {self.actor}'s, not seat {seat}'s")
            return
        if self.turn_goes_on() and self.last["kind"] == "rat":
            raise self.fail(f"the rat auction of turn {self.turn} has cards left: the turn goes on (K-A19)")
        if turn != self.turn + 1:
            raise self.fail(f"turn {turn} does not follow turn {self.turn}")
        if self.last is not None and seat != self.next_turn_player(self.actor):
            raise self.fail(f"turn {turn} is seat {self.next_turn_player(self.actor)}'s, not seat {seat}'s")
        self.turn, self.actor = turn, seat

    def defaults(self, defaults: list, auctioneer: int, kind: str, species: int) -> list[int]:
        """Defaulting bidders show their hands (``reveal_and_restart`` only, §4.5, §5.4); returns them."""
        seats: list[int] = []
        for j, default in enumerate(defaults):
            check_fields(f"{self.where} defaults[{j}]", default, default_kinds(self.n))
            seat = default["player"]
            if self.cfg.overbid_mode == "mask" or seat == auctioneer or seat in seats:
                raise self.fail(f"defaults[{j}] by seat {seat} cannot happen here (K-A9)")
            if (self.exact and default["hand"] != self.hands[seat]) or default["seq"] != self.seq + 1:
                raise self.fail(f"defaults[{j}] shows {default['hand']} (seq {default['seq']}), not seat {seat}'s "
                                f"hand {self.hands[seat]} (seq {self.seq + 1})")
            self.seq += 1
            seats.append(seat)
            self.memory.default(default["seq"], DEFAULT_KIND[kind], species, seat, default["hand"])
        return seats

    def bids(self, auctioneer: int, bids: list, defaulters: list[int]) -> tuple[list[int], list]:
        """An animal auction's bids (§4.2, K-A7..K-A9): each raises the high bid of its run and comes from
        another seat than the one before; a run ends with the last bid of a seat that then defaulted on
        it (§4.5), and the auction starts again. Returns each seat's highest bid (R1 columns 5-10) and the
        bids since the last default."""
        top, cash = [0] * self.n, self.cash()
        ends = [max((j for j, (seat, _) in enumerate(bids) if seat == p), default=-1) for p in defaulters]
        if any(end < 0 for end in ends) or ends != sorted(set(ends)):
            raise self.fail(f"the defaulters {defaulters} are not the last bidders of runs of bids {bids}")
        start = 0
        for r, end in enumerate([*ends, len(bids) - 1]):
            run, asker, passed = bids[start:end + 1], auctioneer, set()
            for j, (seat, level) in enumerate(run):
                if seat == auctioneer or level % 10 or (j and (level <= run[j - 1][1] or seat == run[j - 1][0])):
                    raise self.fail(f"bid {level} by seat {seat} does not raise the high bid {run[j - 1] if j else 0}")
                if self.exact and self.cfg.overbid_mode == "mask" and level > cash[seat]:
                    raise self.fail(f"bid {level} by seat {seat} exceeds its cash {cash[seat]} (K-A9)")
                if self.cfg.pass_is_final:
                    self._passes_before(asker, seat, auctioneer, defaulters[:r], passed)
                top[seat], asker = max(top[seat], level), seat
            start = end + 1
        for p, end in zip(defaulters, ends):
            if self.exact and cash[p] >= bids[end][1]:
                raise self.fail(f"seat {p} defaulted on a bid of {bids[end][1]} its cash {cash[p]} covers (§4.5)")
        return top, bids[(ends[-1] + 1) if ends else 0:]

    def _passes_before(self, asker: int, seat: int, auctioneer: int, excluded: list[int], passed: set[int]) -> None:
        """``pass_is_final`` (K-A7): the bidders polled clockwise after ``asker`` before ``seat`` passed and
        are out of this run of the auction; ``seat`` must not be one of them."""
        if seat in passed:
            raise self.fail(f"seat {seat} bid after passing (pass_is_final, K-A7)")
        q = (asker + 1) % self.n
        while q != seat:
            if q != auctioneer and q not in excluded:
                passed.add(q)
            q = (q + 1) % self.n

    def payment(self, payer: int, counts: list[int], price: int) -> None:
        """A legal auction payment (§4.4, K-A11; ``auto_payment`` §12.3) leaves the payer's hand."""
        hand, worth = list(self.hands[payer]), value(counts)
        smallest = min((DENOMINATIONS[d] for d in range(1, NUM_DENOMS) if counts[d]), default=0)
        if counts[0] or worth < price or worth - smallest >= price:
            raise self.fail(f"payment {counts} is not a sufficient payment of {price} without a redundant card")
        self.take(payer, counts, "payment")
        if not self.exact:
            return
        if self.cfg.payment_rule == "strict" and worth > price and has_exact_payment(hand, price):
            raise self.fail(f"payment {counts} overpays {price} though the hand {hand} pays it exactly (K-A11)")
        if self.cfg.auto_payment and list(auto_payment(legal_payments(hand, price, self.cfg.payment_rule))) != counts:
            raise self.fail(f"payment {counts} is not the automatic payment of {price} from {hand} (§12.3)")

    def _auction(self, e: dict[str, Any]) -> None:
        a, species = e["auctioneer"], e["species"]
        self.auction_reveal(species)
        payout = self.donkey_payout() if species == self.cfg.donkey_species else 0
        if e["donkey_payout"] != payout:
            raise self.fail(f"donkey_payout {e['donkey_payout']} should be {payout}")
        defaulters = self.defaults(e["defaults"], a, "auction", species)
        top, run = self.bids(a, e["bids"], defaulters)
        if e["max_bids"] != top:
            raise self.fail(f"max_bids {e['max_bids']} are not the highest bids {top}")
        self._animal_sale(e, a, run[-1] if run else None)
        self.holdings[e["owner"]][species] += 1

    def auction_reveal(self, card: int) -> None:
        if self.n == 2:
            raise self.fail("the 2-player game holds no auctions (§8.1)")
        self.reveal(card)

    def _animal_sale(self, e: dict[str, Any], a: int, high: list[int] | None) -> None:
        """The high bid since the last default wins; the auctioneer buys or sells (§4.3); nobody bid: the
        auctioneer keeps the card."""
        w = e["winner"]
        if high is None:
            if (w, e["price"], e["decision"], e["payer"], e["payee"], e["payment"], e["owner"]) != (
                    None, 0, None, None, None, None, a):
                raise self.fail("an unsold card has no winner, price, decision or payment and goes to the auctioneer")
            return
        buy = e["decision"] == "buy"
        if [w, e["price"]] != high or e["payment"] is None or e["decision"] is None or \
                (e["payer"], e["payee"], e["owner"]) != ((a, w, a) if buy else (w, a, w)):
            raise self.fail(f"winner {w} at {e['price']}, decision {e['decision']}, payer {e['payer']}, payee "
                            f"{e['payee']}, owner {e['owner']} do not fit the high bid {high}")
        if buy and self.exact and value(self.hands[a]) < e["price"]:
            raise self.fail(f"the auctioneer bought at {e['price']} with cash {value(self.hands[a])} (K-A10)")
        self.payment(e["payer"], e["payment"], e["price"])
        self.give(e["payee"], e["payment"])

    def _pedigree(self, e: dict[str, Any]) -> None:
        a, species = e["auctioneer"], e["species"]
        self.auction_reveal(PEDIGREE + species)
        if self.owner[species] >= 0:
            raise self.fail(f"the pedigree of species {species} is owned already")
        sizes = [sum(hand) for hand in self.hands]
        defaulters = self.defaults(e["defaults"], a, "pedigree", species)
        final = self.commit_rounds(e["commit_rounds"], defaulters, a, sizes, settled=True)
        count = 0 if final is None else _top(final)
        ties = tie_list(final, a, count)
        expected = {"commitments": final or [None] * self.n, "count": count, "ties": ties,
                    "tied": ties if self.cfg.reveal_pedigree_ties else []}
        for key, want in expected.items():
            if e[key] != want:
                raise self.fail(f"{key} {e[key]} should be {want}")
        if count:
            self._pedigree_sale(e, a, final, sizes)
        elif (e["winner"], e["decision"], e["stake"], e["payer"], e["payee"], e["payment"], e["owner"]) != (
                None, None, None, None, None, None, a):
            raise self.fail("an unsold pedigree has no winner, decision, stake or payment and goes to the auctioneer")
        self.owner[species] = e["owner"]

    def commit_rounds(self, rounds: list, defaulters: list[int], a: int, sizes: list[int],
                      settled: bool) -> list | None:
        """The sealed commitment rounds of a pedigree auction (§5.2, K-A14, K-A15, K-A39): the seats not
        excluded commit; every round but a final one ends in a default by its insolvent winner. Returns
        the final round (None if there is none, or if it is still going on: ``settled=False``)."""
        n, excluded = self.n, []
        for r, commits in enumerate(rounds):
            committing = [seat for seat in range(n) if seat != a and seat not in excluded]
            if not committing or [seat for seat in range(n) if commits[seat] is not None] != committing:
                raise self.fail(f"commit_rounds[{r}] {commits}: the committing seats are {committing}")
            if self.cfg.overbid_mode == "mask" and any(commits[seat] > sizes[seat] for seat in committing):
                raise self.fail(f"commit_rounds[{r}] {commits} exceeds the hand sizes {sizes} (K-A15)")
            if r < len(defaulters):
                seat = defaulters[r]
                if commits[seat] != _top(commits) or commits[seat] <= sizes[seat]:
                    raise self.fail(f"commit_rounds[{r}]: seat {seat} defaulted without the highest count above "
                                    f"its {sizes[seat]} cards")
                excluded.append(seat)
        finals = len(rounds) - len(defaulters)
        if finals not in (0, 1):
            raise self.fail(f"{len(rounds)} commitment rounds for {len(defaulters)} default(s)")
        if finals == 0 and settled and any(seat != a and seat not in excluded for seat in range(n)):
            raise self.fail("the pedigree auction ended before its bidders committed")
        return rounds[-1] if finals else None

    def _pedigree_sale(self, e: dict[str, Any], a: int, final: list, sizes: list[int]) -> None:
        """The winner's k* cards lie face down; the auctioneer takes them or buys with k* cards (§5.2)."""
        w, k, stake, payment = e["winner"], e["count"], e["stake"], e["payment"]
        if w is None or final[w] != k or sizes[w] < k or stake is None or sum(stake) != k:
            raise self.fail(f"winner {w} with stake {stake} does not fit the count {k} (K-A39)")
        buy = e["decision"] == "buy"
        if e["decision"] is None or (e["payer"], e["payee"], e["owner"]) != ((a, w, a) if buy else (w, a, w)) \
                or payment is None or sum(payment) != k or (not buy and payment != stake):
            raise self.fail(f"decision {e['decision']}: payer {e['payer']}, payee {e['payee']}, payment {payment}, "
                            f"owner {e['owner']}")
        self.take(w, stake, "stake")
        if buy:
            if sizes[a] < k:
                raise self.fail(f"the auctioneer bought with {sizes[a]} cards for k*={k} (K-A10)")
            self.give(w, stake)
            self.take(a, payment, "payment")
        self.give(e["payee"], payment)

    def _rat(self, e: dict[str, Any]) -> None:
        a = e["auctioneer"]
        self.auction_reveal(RAT)
        taker = self.lay_pot(e["pot"], a)
        if e["taker"] != taker:
            raise self.fail(f"taker {e['taker']} is not seat {taker}, the next after the pot's last lay")
        for _, d in e["pot"]:
            self.hands[taker][d] += 1
        self.holdings[taker][RAT] += 1

    def lay_pot(self, pot: list, a: int) -> int:
        """The rat pot's lays, one card at a time in turn from the auctioneer's left, from the hands
        (§6.1); returns the seat after the last lay, which takes (or answers) the pot."""
        for j, (seat, d) in enumerate(pot):
            if seat != (a + 1 + j) % self.n:
                raise self.fail(f"pot lay {j} is by seat {seat}, not by seat {(a + 1 + j) % self.n}")
            one = [0] * NUM_DENOMS
            one[d] = 1
            self.take(seat, one, "a laid card")
        return (a + 1 + len(pot)) % self.n

    def _trade(self, e: dict[str, Any]) -> None:
        c, d = e["challenger"], e["challenged"]
        self.trade_start(c, d, e["species"], e["stake"])
        if e["final_phase"] != (self.deck_size() == 0):
            raise self.fail(f"final_phase={e['final_phase']} with {self.deck_size()} cards in the deck")
        rounds = e["rounds"]
        for r, rnd in enumerate(rounds):
            check_fields(f"{self.where} rounds[{r}]", rnd, round_kinds(True))
            self.trade_round(c, d, r + 1, rnd, last=r == len(rounds) - 1)
        result = rounds[-1]["result"]
        if e["winner"] != (d if result == "challenged" else c):
            raise self.fail(f"winner {e['winner']} does not fit the result {result!r} (K-A23, K-A25)")
        for seat, species, k in holding_moves(e):
            self.holdings[seat][species] += k

    def trade_start(self, c: int, d: int, species: int, stake: int) -> None:
        """A trade of a species both hold, 1..3 cards each (§7.1, K-A20), stake 2 if both hold 2 (§7.2)."""
        own, other = self.holdings[c][species], self.holdings[d][species]
        if c == d or not (0 < own < 4 and 0 < other < 4):
            raise self.fail(f"seats {c} and {d} hold {own} and {other} of species {species}: no trade (K-A20)")
        if stake != (2 if own == other == 2 else 1):
            raise self.fail(f"stake {stake} with {own} and {other} cards held (§7.2, K-A24)")
        if self.deck_size() and not self.can_offer(c):
            raise self.fail(f"seat {c} traded without money in the deck phase (K-A21)")

    def trade_round(self, c: int, d: int, number: int, rnd: dict[str, Any], last: bool) -> None:
        """A settled round (§7.3, §7.4, K-A21..K-A23, K-A25): the offer from C's hand, then D accepts (it
        goes to him) or counters from his own hand (the two swap); the higher total wins."""
        offer, counter = rnd["offer"], rnd["counter"]
        self.offer(c, d, offer)
        accept = rnd["response"] == "accept"
        forced = not self.can_offer(d) if accept else self.counter_forced(d, number)
        if rnd["forced"] != forced:
            raise self.fail(f"round {number}: forced={rnd['forced']} should be {forced}")
        if not accept:
            self.counter(c, d, counter)
        self.give(d, offer)
        expected = {"counter": None if accept else counter, "offer_cards": sum(offer),
                    "counter_cards": sum(counter or ZERO),
                    "values": [value(offer), None if accept else value(counter)],
                    "result": "challenger" if accept else outcome(value(offer), value(counter))}
        for key, want in expected.items():
            if rnd[key] != want:
                raise self.fail(f"round {number}: {key} {rnd[key]} should be {want}")
        if (rnd["result"] == "tie" and number == 1) == last:
            raise self.fail(f"round {number} ends the trade {'after' if last else 'before'} its result says (K-A23)")

    def offer(self, c: int, d: int, offer: list[int]) -> None:
        """C's offer leaves his hand and lies face down (an empty one only when allowed, K-A21)."""
        if not (sum(offer) or self.cfg.allow_empty_offer or not sum(self.hands[c])):
            raise self.fail("an empty offer (K-A21)")
        self.take(c, offer, "offer")

    def counter(self, c: int, d: int, counter: list[int] | None) -> None:
        """D's counter-offer goes to C (an empty one only when allowed, K-A21)."""
        if counter is None or not (sum(counter) or self.cfg.allow_empty_offer):
            raise self.fail(f"counter-offer {counter} (K-A21)")
        self.take(d, counter, "counter-offer")
        self.give(c, counter)

    def counter_forced(self, d: int, number: int) -> bool:
        """Round 2 without the choice to accept (``retrade_allows_accept=False``, K-A23)."""
        return number == 2 and not self.cfg.retrade_allows_accept and self.can_offer(d)

    def _distribution(self, e: dict[str, Any]) -> None:
        """Keep the card looked at and give the next, or the reverse (§8.1, K-A28)."""
        if self.n != 2:
            raise self.fail("only the 2-player game distributes (§8.1)")
        p, y = e["distributor"], e["y"]
        self.reveal(e["x"])
        if (y is None) != (self.deck_size() == 0):
            raise self.fail(f"y={y} with {self.deck_size()} cards left after x (K-A28)")
        if y is not None:
            self.reveal(y)
        first, second = (p, 1 - p) if e["decision"] == "keep" else (1 - p, p)
        if (e["x_to"], e["y_to"]) != (first, None if y is None else second):
            raise self.fail(f"x to {e['x_to']} and y to {e['y_to']} is not a {e['decision']} by seat {p}")
        payouts = [self.place(e["x"], first)] + ([] if y is None else [self.place(y, second)])
        if e["donkey_payouts"] != payouts:
            raise self.fail(f"donkey_payouts {e['donkey_payouts']} should be {payouts} (K-A27)")

    def place(self, card: int, seat: int) -> int:
        """A distributed card placed (§8.1); a donkey pays both players (K-A27)."""
        if card >= MONEY:
            self.hands[seat][card - MONEY] += 1
            return 0
        if card >= PEDIGREE:
            if self.owner[card - PEDIGREE] >= 0:
                raise self.fail(f"the pedigree card {card} is owned already")
            self.owner[card - PEDIGREE] = seat
            return 0
        self.holdings[seat][card] += 1
        return self.donkey_payout() if card == self.cfg.donkey_species else 0


def tie_list(final: list | None, auctioneer: int, count: int) -> list[int]:
    """The seats tied at the winning count ``count`` > 0, clockwise from the auctioneer's left (K-A14)."""
    n = len(final or ())
    tied = [seat for seat in ((auctioneer + o) % n for o in range(1, n)) if count and final[seat] == count]
    return tied if len(tied) > 1 else []
