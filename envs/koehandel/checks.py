"""Koehandel states checked from outside: snapshot parsing and the invariants (docs/koehandel_rules.md).

:func:`parse_state` checks every field of a state's JSON data for type and range (``SnapshotError``
naming the first problem); if the position keeps the rules (:func:`invariants`), it then walks the event
record against the position (:mod:`.ledger`, :mod:`.progress`) and rebuilds every player's private
record from it, which the data's ``memory`` must equal (an approximate re-deal, marked ``approximate``,
is walked without its money against the hands: Appendix C). :func:`invariants` lists what breaks the rules in
a position: conservation of money and cards, and a decision the rules could have reached (the right seat,
fields of other phases empty, some legal action). The position helper is :mod:`.position`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.game import SnapshotError
from ..core.options import is_int
from ..core.schema import check_field
from . import actions as A
from . import progress
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, PEDIGREE, RAT, card_name
from .ledger import (
    MAX_CARDS, MAX_SEQ, MAX_SLAP, Walk, check_fields, check_shapes, commit_row, default_kinds, event_kinds,
)
from .money import legal_payments, value

if TYPE_CHECKING:
    from .rules import KoehandelGame, KoehandelState


def bid_bound(cfg) -> int:
    """The highest bid the options allow: the money of the game, or ``overbid_cap`` (K-A9)."""
    return max(cfg.overbid_cap or 0, value(cfg.money_composition))


def _schema(game: KoehandelGame) -> dict[str, tuple]:
    """Field -> (kind, arguments) as :func:`~hiddenhand.envs.core.schema.check_field` reads them."""
    n, cfg = game.num_players, game.cfg
    cash, cards, bids = value(cfg.money_composition), sum(cfg.money_composition), bid_bound(cfg)
    hand, seat, maybe_seat = ("ints", NUM_DENOMS, 0, MAX_CARDS), ("int", 0, n - 1), ("int", -1, n - 1)
    last_card = MONEY + NUM_DENOMS - 1
    return {
        "hands": ("grid", n, NUM_DENOMS, 0, MAX_CARDS), "cash": ("ints", n, 0, cash), "sizes": ("ints", n, 0, cards),
        "start_hands": ("grid", n, NUM_DENOMS, 0, MAX_CARDS), "holdings": ("grid", n, NUM_SPECIES, 0, 4),
        "pedigree_owner": ("ints", NUM_ANIMALS, -1, n - 1),
        "deck": ("ints", None, 0, last_card if n == 2 else MONEY - 1), "bank": hand, "removed": hand,
        "donkeys": ("int", 0, 4), "turns": ("int", 0, cfg.max_turns), "turn_player": seat,
        "decision": ("int", 0, A.D_DISTRIBUTE), "current_player": seat, "is_terminal": ("bool",),
        "is_truncated": ("bool",), "seq": ("int", 0, MAX_SEQ),
        "card": ("int", -1, last_card), "auctioneer": maybe_seat, "excluded": ("ints", None, 0, n - 1),
        "bidders": ("ints", None, 0, n - 1), "high": ("int", 0, bids), "high_bidder": maybe_seat,
        "passes": ("int", 0, n), "pending": ("int", 0, bids), "max_bid": ("ints", n, 0, bids),
        "bids": ("grid", None, 2, 0, bids), "queue": ("ints", None, 0, n - 1), "kstar": ("int", 0, MAX_SLAP),
        "tied": ("ints", None, 0, n - 1), "winner": maybe_seat, "stake": hand,
        "pot": ("grid", None, 2, 0, max(n, NUM_DENOMS) - 1), "payer": maybe_seat, "payee": maybe_seat,
        "amount": ("int", 0, bids), "options": ("grid", None, NUM_DENOMS, 0, MAX_CARDS), "selection": hand,
        "challenger": maybe_seat, "challenged": maybe_seat, "species": ("int", -1, RAT),
        "trade_stake": ("int", 0, 2), "trade_round": ("int", 0, 2), "offers": ("grid", 2, NUM_DENOMS, 0, MAX_CARDS),
        "looked": ("int", -1, last_card), "payout": ("int", 0, DENOMINATIONS[-1]),
    }


#: Fields of lists of dicts (or of None), checked here rather than by the schema.
_SPECIAL = ("events", "defaults", "commits", "commit_rounds", "rounds", "event_start")
FIELDS = (*_SPECIAL, "memory")  # with the schema's: every key of ``to_json`` (and ``approximate``, if true)


def field_names(game: KoehandelGame) -> tuple[str, ...]:
    return (*_schema(game), *_SPECIAL)


def parse_state(game: KoehandelGame, state: KoehandelState, data: Any) -> KoehandelState:
    """``state`` (a new one) set from ``to_json`` data, everything checked (module docstring)."""
    if not isinstance(data, dict):
        raise SnapshotError(f"koehandel: state data must be a dict, got {type(data).__name__}")
    if data.get("approximate", True) is not True:
        raise SnapshotError(f"koehandel: state approximate={data['approximate']!r}: only an approximate re-deal has "
                            f"the key, set to true")
    state.approximate = "approximate" in data  # its record's hidden money is not tied to the hands (Appendix C)
    schema, n = _schema(game), game.num_players
    missing = [name for name in (*schema, *FIELDS) if name not in data]
    unknown = sorted(map(str, set(data) - {*schema, *FIELDS, "approximate"}))
    if missing or unknown:
        raise SnapshotError("koehandel: state data " + "; ".join(
            [f"lacks {missing}"] * bool(missing) + [f"has unknown field(s) {unknown}"] * bool(unknown)))
    for name, spec in schema.items():
        setattr(state, name, check_field("koehandel", name, data[name], spec))
    _check_special(data, n, game.cfg, state.approximate)
    for name in _SPECIAL:
        setattr(state, name, _copied(data[name]))
    _check_lists(state)
    problems = invariants(state)
    if not problems:  # the record, only for a position that keeps the rules
        state.memory = _walk(game, state)
        if state.memory.to_json() != data["memory"]:
            raise SnapshotError(f"koehandel: state memory {_first_difference(state.memory.to_json(), data['memory'])} "
                                f"does not match the record (every player's record is rebuilt from the events)")
    return state


def upgraded_state(data: Any) -> Any:
    """``data`` without the change counters that older revisions saved for the observer's caches (the
    state's ``version``, its memory's ``epoch``), each checked to be a count; ``data`` itself if it has
    none. The observer keys on the state's own values and the incremental protocol's ``version`` now."""
    if isinstance(data, dict) and "version" in data:
        data = _without(data, "version", "version")
    memory = data.get("memory") if isinstance(data, dict) else None
    if isinstance(memory, dict) and "epoch" in memory:
        data = {**data, "memory": _without(memory, "epoch", "memory epoch")}
    return data


def _without(holder: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    check_field("koehandel", where, holder[key], ("int", 0, MAX_SEQ))
    return {name: value for name, value in holder.items() if name != key}


def _copied(data: Any) -> Any:
    """A copy of JSON data made of dicts, lists and immutable values (``copy.deepcopy`` without its memo)."""
    if isinstance(data, list):
        return [_copied(x) for x in data]
    if isinstance(data, dict):
        return {key: _copied(x) for key, x in data.items()}
    return data


def _check_special(data: dict[str, Any], n: int, cfg, approximate: bool) -> None:
    """The fields of lists of dicts or None (the events: in the walk)."""
    if not isinstance(data["events"], list):
        raise SnapshotError("koehandel: state events must be a list")
    cash = value(cfg.money_composition)
    rows: dict[str, Callable[[Any], bool]] = {
        "event_start": lambda x: isinstance(x, list) and len(x) in (0, n) and all(
            (approximate and c is None) or (is_int(c) and 0 <= c <= cash) for c in x),
        "commits": commit_row(n),
        "commit_rounds": lambda x: isinstance(x, list) and all(map(commit_row(n), x)),
        "defaults": lambda x: isinstance(x, list),
        "rounds": lambda x: isinstance(x, list) and len(x) <= 2 and all(isinstance(r, dict) for r in x),
    }
    for name, test in rows.items():
        if not test(data[name]):
            raise SnapshotError(f"koehandel: state {name}={data[name]!r:.80} is out of range")
    for j, default in enumerate(data["defaults"]):
        check_fields(f"state defaults[{j}]", default, default_kinds(n))


def _check_lists(s: KoehandelState) -> None:
    """Seat lists without repeats; bids by seats; pot lays by seats with denominations."""
    for name in ("excluded", "bidders", "queue", "tied"):
        seats = getattr(s, name)
        if len(set(seats)) != len(seats):
            raise SnapshotError(f"koehandel: state {name}={seats} repeats a seat")
    if any(seat >= s.n for seat, _ in s.bids) or any(seat >= s.n or d >= NUM_DENOMS for seat, d in s.pot):
        raise SnapshotError(f"koehandel: state bids {s.bids} or pot {s.pot} names a seat or denomination out of range")


def _walk(game: KoehandelGame, s: KoehandelState):
    """The record walked against the position (:mod:`.ledger`, :mod:`.progress`); the rebuilt memory."""
    check_shapes(s.events, event_kinds(s.n, bid_bound(game.cfg), s.approximate))
    walk = Walk(s)
    for i, e in enumerate(s.events):
        walk.event(i, e)
    progress.finish(walk)
    return walk.memory


def _first_difference(mine: dict[str, Any], theirs: Any) -> str:
    if not isinstance(theirs, dict) or set(theirs) != set(mine):
        return f"keys {sorted(theirs) if isinstance(theirs, dict) else type(theirs).__name__}"
    return next((key for key in mine if mine[key] != theirs[key]), "")


# ---------------------------------------------------------------------------- invariants
_ANIMAL_DECISIONS = (A.D_BID, A.D_BUYRIGHT, A.D_PAY)
_PEDIGREE_DECISIONS = (A.D_COMMIT, A.D_STAKE, A.D_PED_BUYRIGHT, A.D_PED_CARDS)
_PEDIGREE_SALE = (A.D_STAKE, A.D_PED_BUYRIGHT, A.D_PED_CARDS)
_AUCTION_DECISIONS = (*_ANIMAL_DECISIONS, *_PEDIGREE_DECISIONS, A.D_RAT)
_TRADE_DECISIONS = (A.D_OFFER, A.D_RESPONSE, A.D_COUNTER)
_SELECTIONS = (A.D_PAY, A.D_STAKE, A.D_PED_CARDS, A.D_OFFER, A.D_COUNTER)
_ON_TURN = (A.D_TURN, A.D_TARGET, A.D_FOLLOWUP, A.D_DISTRIBUTE)

#: Fields only some decisions use: (field, whether it is in use, those decisions). Elsewhere it is empty.
_PHASE_FIELDS: tuple[tuple[str, Callable[[Any], bool], tuple[int, ...]], ...] = (
    ("selection", lambda s: any(s.selection), _SELECTIONS),
    ("pending", lambda s: s.pending > 0, (A.D_BID,)),
    ("pot", lambda s: bool(s.pot), (A.D_RAT,)),
    ("stake", lambda s: any(s.stake), (A.D_PED_BUYRIGHT, A.D_PED_CARDS)),
    ("offers", lambda s: any(s.offers[0]) or any(s.offers[1]), (A.D_RESPONSE, A.D_COUNTER)),
    ("payment", lambda s: s.options != [] or s.amount or s.payer >= 0 or s.payee >= 0, (A.D_PAY,)),
    ("bidding", lambda s: bool(s.bidders or s.bids or any(s.max_bid) or s.high or s.high_bidder >= 0 or s.passes),
     _ANIMAL_DECISIONS),
    ("donkey payout", lambda s: s.payout > 0, _ANIMAL_DECISIONS),
    ("defaults", lambda s: bool(s.defaults or s.excluded), _ANIMAL_DECISIONS + _PEDIGREE_DECISIONS),
    ("commitments", lambda s: bool(s.commit_rounds or s.queue) or s.commits != [None] * s.n, _PEDIGREE_DECISIONS),
    ("pedigree winner", lambda s: bool(s.kstar or s.tied) or s.winner >= 0, _PEDIGREE_SALE),
    ("trade", lambda s: bool(s.rounds or s.trade_stake or s.trade_round) or s.species >= 0 or s.challenged >= 0,
     _TRADE_DECISIONS),
    ("looked", lambda s: s.looked >= 0, (A.D_DISTRIBUTE,)),
)


def invariants(s: KoehandelState) -> list[str]:
    """What is wrong with ``s``: conservation of money and cards, then the pending decision."""
    return _conservation(s) or _decision_problems(s)


def _conservation(s: KoehandelState) -> list[str]:
    """Money: hands match cash and sizes, every money card somewhere; red cards: 4 of each animal and
    rat, 1 of each pedigree, each in one place; the deck, the donkeys and the turn count."""
    n, cfg = s.n, s.cfg
    problems = []
    for p in range(n):
        if s.cash[p] != value(s.hands[p]) or s.sizes[p] != sum(s.hands[p]):
            problems.append(f"cash[{p}]={s.cash[p]} and sizes[{p}]={s.sizes[p]} do not match hands[{p}]={s.hands[p]}")
    money = [sum(hand[d] for hand in s.hands) + s.bank[d] + s.removed[d] + s.stake[d] + s.offers[0][d]
             + s.offers[1][d] for d in range(NUM_DENOMS)]
    for _, d in s.pot:
        money[d] += 1
    for card in s.deck + ([s.looked] if s.looked >= 0 else []):
        if card >= MONEY:
            money[card - MONEY] += 1
    if money != list(cfg.money_composition):
        problems.append(f"money cards per denomination {money} (hands, bank, removed, deck, pot, stake and "
                        f"offers) are not the composition {list(cfg.money_composition)}")
    if n > 2 and any(s.removed):
        problems.append(f"removed={s.removed}: only the 2-player game removes money cards (§2.2)")
    problems += _red_card_problems(s)
    if s.donkeys != 4 - s.deck.count(cfg.donkey_species) - (n == 2 and s.looked == cfg.donkey_species):
        problems.append(f"donkeys={s.donkeys} but {s.deck.count(cfg.donkey_species)} donkeys are in the deck")
    due = [0] * NUM_DENOMS  # every seat receives each donkey payout still to come (§4.1, K-A27)
    for k in range(s.donkeys, 4):
        due[DENOMINATIONS.index(cfg.donkey_payouts[k])] += n
    if any(b < d for b, d in zip(s.bank, due)):
        problems.append(f"the bank {s.bank} cannot pay the donkey money still to come {due}")
    return problems


def red_counts(holdings: list[list[int]], pedigree_owner: list[int]) -> list[int]:
    """Animal and rat cards per species and pedigree cards per card code (0..20) held by the seats."""
    counts = [sum(h[s] for h in holdings) for s in range(NUM_SPECIES)]
    return counts + [int(owner >= 0) for owner in pedigree_owner]


def _red_card_problems(s: KoehandelState) -> list[str]:
    held, deck = red_counts(s.holdings, s.pedigree_owner), [0] * MONEY
    for card in s.deck:
        if card < MONEY:
            deck[card] += 1
    block = s.card if 0 <= s.card < MONEY else -1
    problems = []
    for card in range(MONEY):
        have = held[card] + deck[card] + (block == card)
        if have != (4 if card <= RAT else 1):
            problems.append(f"{card_name(card)}: {have} cards (held {held[card]}, in the deck {deck[card]}, "
                            f"on the block {int(block == card)}); the game has {4 if card <= RAT else 1}")
    if s.n > 2 and any(card >= MONEY for card in s.deck):
        problems.append("the deck holds money cards (only the 2-player deck has them)")
    return problems


def _decision_problems(s: KoehandelState) -> list[str]:
    """The pending decision against the phase: the game's end, fields of other phases empty, the card
    on the block, the seat that acts, some legal action."""
    decision, p = s.decision, s.current_player
    if s.is_terminal or s.is_truncated or not decision:
        return _end_problems(s)
    problem = _phase_problem(s, decision) or _card_problem(s, decision) or _who_acts(s, decision, p)
    if not problem and any(k > h for k, h in zip(s.selection, s.hands[p])):
        problem = f"the selection {s.selection} is not in the hand {s.hands[p]}"
    if not problem:
        problem = next((f"seat {q} bid {bid}, more than its cash {s.cash[q]} (overbid_mode mask, K-A9)"
                        for q, bid in enumerate(s.covered_bids()) if bid > s.cash[q]), None)
    if not problem and not s._legal():
        problem = "no legal action"
    return [f"decision {decision} ({A.DECISION_NAMES[decision]}) by seat {p}: {problem}"] if problem else []


def _end_problems(s: KoehandelState) -> list[str]:
    """A finished game has no decision and ended by the rules (K-A30) or by truncation (K-A32)."""
    cfg = s.cfg
    if not s.is_terminal:
        return ["is_truncated without is_terminal"] if s.is_truncated else ["a running game has no decision pending"]
    if s.decision:
        return [f"a finished game has decision {s.decision} ({A.DECISION_NAMES[s.decision]}) pending"]
    phase = [name for name, used, _ in _PHASE_FIELDS if used(s)]
    if phase or s.auctioneer >= 0 or s.challenger >= 0 or s.card >= 0:
        return [f"a finished game has an auction or trade going on ({', '.join(phase) or 'card, seats'})"]
    if s.is_truncated:
        return [] if s.turns >= cfg.max_turns else [f"truncated after {s.turns} of max_turns={cfg.max_turns} turns"]
    return [] if not s.deck and s.all_complete() else ["the game ended with cards in the deck or incomplete species"]


def _phase_problem(s: KoehandelState, decision: int) -> str | None:
    """The seats of the auction or trade fit the decision; fields of other phases are empty."""
    if s.turns < 1:
        return "a running game is in turn 0"
    auction = decision in _AUCTION_DECISIONS
    if auction != (s.auctioneer >= 0) or (auction and s.auctioneer != s.turn_player):
        return f"auctioneer={s.auctioneer} (player on turn {s.turn_player}) does not fit the decision"
    if (decision in _TRADE_DECISIONS) != (s.challenger >= 0):
        return f"challenger={s.challenger} does not fit the decision"
    for name, used, decisions in _PHASE_FIELDS:
        if used(s) and decision not in decisions:
            return f"the {name} fields are in use outside their phase"
    return None


def _card_problem(s: KoehandelState, decision: int) -> str | None:
    """The card on the block fits the decision (an animal, a pedigree, the rat, the card looked at)."""
    card = s.card
    if decision in _ANIMAL_DECISIONS:
        fits = 0 <= card < NUM_ANIMALS
    elif decision in _PEDIGREE_DECISIONS:
        fits = PEDIGREE <= card < MONEY
    elif decision == A.D_RAT:
        fits = card == RAT
    elif decision == A.D_DISTRIBUTE:
        fits = card == s.looked
    else:
        fits = card == -1
    return None if fits else f"card {card} does not fit the decision"


# ---------------------------------------------------------------------------- who acts
def _who_acts(s: KoehandelState, decision: int, p: int) -> str | None:
    """Why seat ``p`` may not take ``decision`` here (None if it may)."""
    if s.n == 2 and decision in _AUCTION_DECISIONS:
        return "the 2-player game holds no auctions (§8.1)"
    return _WHO_ACTS[decision](s, p, decision)


def _on_turn(s: KoehandelState, p: int, decision: int) -> str | None:
    """D1-D3, D15: the player on turn, who can do what the decision offers (§3, §8)."""
    if p != s.turn_player:
        return f"the player on turn is {s.turn_player}"
    if decision == A.D_TURN and not s.deck and not s.has_trade(p):
        return "the deck is empty and the player has no trade (he would have been skipped, K-A31)"
    if decision == A.D_TARGET and not s.has_trade(p):
        return "the player has no trade"
    if decision == A.D_FOLLOWUP and not (s.cfg.super_koehandel and s.deck):
        return "a follow-up auction needs super_koehandel and cards in the deck (K-A29)"
    if decision == A.D_DISTRIBUTE and s.n != 2:
        return "only the 2-player game distributes (§8.1)"
    return None


def _bidder_asked(s: KoehandelState, p: int, decision: int) -> str | None:
    """D4: the next bidder clockwise after the high bidder (or the auctioneer), passes counted (K-A7)."""
    a, w, n = s.auctioneer, s.high_bidder, s.n
    if p == a or p in s.excluded or p not in s.bidders or p == w:
        return f"the seat is not a bidder to ask (bidders {s.bidders}, high bidder {w})"
    if a in s.bidders or any(q in s.excluded for q in s.bidders):
        return f"bidders {s.bidders} include the auctioneer or an excluded seat"
    if w >= 0 and (w == a or w in s.excluded):
        return f"high bidder {w} may not bid"
    if s.high % 10 or s.pending % 10 or s.high + s.pending > max(s.bid_limit(p), s.high):
        return f"bid {s.high} + raise {s.pending} is not a reachable bid (K-A8, K-A9)"
    after = a if w < 0 else w
    order = sorted((q for q in s.bidders if q != w), key=lambda q: (q - after) % n)
    asked = 0 if s.cfg.pass_is_final else s.passes
    if asked >= len(order) or order[asked] != p:
        return f"after {s.passes} passes since the last bid the seat to ask is not {p} (bidders {s.bidders})"
    return None


def _buyright(s: KoehandelState, p: int, decision: int) -> str | None:
    """D5: the auctioneer, after a bid (§4.3)."""
    if p != s.auctioneer or s.high_bidder < 0 or s.high_bidder == s.auctioneer or s.high <= 0:
        return f"the buy-right is the auctioneer's after a bid (high {s.high} by {s.high_bidder})"
    return None


def _payer(s: KoehandelState, p: int, decision: int) -> str | None:
    """D6: the buyer pays the sale's price with a legal payment (§4.4, §12.3)."""
    a, w = s.auctioneer, s.high_bidder
    if {s.payer, s.payee} != {a, w} or p != s.payer or s.amount != s.high:
        return f"payer {s.payer} pays {s.amount} to {s.payee}, not the sale of {s.high} between {a} and {w}"
    payments = [list(f) for f in legal_payments(s.hands[p], s.amount, s.cfg.payment_rule)]
    if s.options != payments or not payments:
        return "the payment options are not the legal payments of the payer's hand"
    if not any(all(k <= f for k, f in zip(s.selection, option)) for option in payments):
        return f"the selection {s.selection} is part of no legal payment"
    return None


def _rat_answerer(s: KoehandelState, p: int, decision: int) -> str | None:
    """D11: the seat to the left of the last to lay, or of the auctioneer (§6.1)."""
    if p != s.left(s.pot[-1][0] if s.pot else s.auctioneer):
        return "the seat to the left of the last to lay (or of the auctioneer) answers the rat pot"
    return None


def _next_committer(s: KoehandelState, p: int, decision: int) -> str | None:
    """D7: the next seat of the queue without a commitment (§5.2)."""
    queue, commits = s.queue, s.commits
    if p not in queue or p == s.auctioneer or s.auctioneer in queue or commits[p] is not None \
            or any(commits[q] is None for q in queue[:queue.index(p)]) \
            or any(commits[q] is not None for q in range(s.n) if q not in queue):
        return f"the seat is not the next to commit (queue {queue}, commitments {commits})"
    return None


def _pedigree_sale(s: KoehandelState, p: int, decision: int) -> str | None:
    """D8-D10: the winner lays k* cards, then the auctioneer decides and perhaps lays k* (§5.2, K-A16)."""
    w, k, a = s.winner, s.kstar, s.auctioneer
    stake = decision == A.D_STAKE
    if w < 0 or w == a or k < 1 or stake != (p == w) or (not stake) != (p == a):
        return f"winner {w} at k*={k} with auctioneer {a} do not fit"
    chosen, holder = sum(s.selection), w if stake else a
    if decision != A.D_PED_BUYRIGHT and not chosen < k <= s.sizes[holder]:
        return f"seat {holder} holds {s.sizes[holder]} cards, has chosen {chosen}, for k*={k}"
    if not stake and sum(s.stake) != k:
        return f"the stake {s.stake} is not k*={k} cards"
    return None


def _trader(s: KoehandelState, p: int, decision: int) -> str | None:
    """D12-D14: the challenger offers, the challenged answers (§7.1-§7.4)."""
    c, d, sp = s.challenger, s.challenged, s.species
    if c != s.turn_player or not 0 <= d < s.n or d == c or not 0 <= sp <= RAT:
        return f"the trade of {sp} between {c} and {d} is not the turn player's"
    if not (0 < s.holdings[c][sp] < 4 and 0 < s.holdings[d][sp] < 4):
        return f"the traders hold {s.holdings[c][sp]} and {s.holdings[d][sp]} of species {sp}"
    both_two = s.holdings[c][sp] == 2 and s.holdings[d][sp] == 2
    if s.trade_stake != (2 if both_two else 1) or s.trade_round not in (1, 2):
        return f"stake {s.trade_stake} or round {s.trade_round} does not fit (§7.2, K-A23)"
    if p != (c if decision == A.D_OFFER else d):
        return f"the {'challenger' if decision == A.D_OFFER else 'challenged player'} acts here"
    return None


_WHO_ACTS: dict[int, Callable[[Any, int, int], str | None]] = {
    **dict.fromkeys(_ON_TURN, _on_turn), A.D_BID: _bidder_asked, A.D_BUYRIGHT: _buyright, A.D_PAY: _payer,
    A.D_RAT: _rat_answerer, A.D_COMMIT: _next_committer, **dict.fromkeys(_PEDIGREE_SALE, _pedigree_sale),
    **dict.fromkeys(_TRADE_DECISIONS, _trader),
}
