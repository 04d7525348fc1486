"""Cow trade states checked from outside: the snapshot schema, the invariants and the position helper."""

from __future__ import annotations

from typing import Any

from ..core.game import SnapshotError
from ..koehandel.cards import DENOMINATIONS, NUM_DENOMS
from ..koehandel.money import value
from .vocab import (
    ACCEPTED, C_WINS, CHALLENGED, CHALLENGER, COUNTER_CARDS, COUNTER_OFFER, COUNTERED, D_WINS, NO_RESPONSE,
    OFFER, OFFER_CARDS, OVER, RESPONSE, RESPONSE_CELL, RESULT, ROW, ROW_COUNTER, ROW_OFFER, TIE, UNDECIDED,
)

MOST = 66  # Koehandel's money cards (K-A2): no count can exceed them
SCHEMA = {
    "hands": ("grid", 2, NUM_DENOMS, 0, MOST),
    "start": ("grid", 2, NUM_DENOMS, 0, MOST),
    "selection": ("ints", NUM_DENOMS, 0, MOST),
    "offer": ("ints", NUM_DENOMS, 0, MOST),
    "decision": ("int", OFFER, OVER),
    "round": ("int", 1, 2),
    "record": ("grid", None, len(ROW), 0, MOST),
    "winner": ("int", -1, 1),
    "current_player": ("int", -1, 1),
    "is_terminal": ("bool",),
}


def invariants(game: Any, state: Any) -> list[str]:
    """Everything that breaks the rules in ``state`` (docs/cow_trade_rules.md): the deal within the pool
    (CT-1), whose decision it is, the record of the rounds (§4) and every card accounted for by replaying
    the record from the hands as dealt."""
    problems: list[str] = []
    add = problems.append
    for seat, size in enumerate(game.hand_sizes):
        if sum(state.start[seat]) != size:
            add(f"start[{seat}] holds {sum(state.start[seat])} cards; the hand dealt holds {size} (CT-1)")
    dealt = [a + b for a, b in zip(*state.start)]
    if any(d > m for d, m in zip(dealt, game.money)):
        add(f"the hands dealt {dealt} exceed the money pool {list(game.money)} (CT-1)")
    decision, mover, rows = state.decision, state.current_player, state.record
    expected_mover = {OFFER: CHALLENGER, RESPONSE: CHALLENGED, COUNTER_OFFER: CHALLENGED, OVER: -1}[decision]
    if mover != expected_mover:
        add(f"current_player={mover} but the {('offer', 'response', 'counter', 'end')[decision]} is "
            f"{expected_mover}'s")
    if state.is_terminal != (decision == OVER) or (state.winner >= 0) != state.is_terminal:
        add(f"is_terminal={state.is_terminal}, winner={state.winner} and decision={decision} disagree")
    open_row = decision in (RESPONSE, COUNTER_OFFER)
    if len(rows) != state.round - (decision == OFFER):
        add(f"round {state.round} at decision {decision} with {len(rows)} recorded round(s)")
    building = decision in (OFFER, COUNTER_OFFER)
    if building and any(c > h for c, h in zip(state.selection, state.hands[mover])):
        add(f"the selection {state.selection} is not in the mover's hand {state.hands[mover]}")
    if not building and any(state.selection):
        add(f"a selection {state.selection} while nobody builds an offer")
    if open_row != any(state.offer) or (open_row and rows and sum(state.offer) != rows[-1][OFFER_CARDS]):
        add(f"the offer on the table {state.offer} does not fit the decision and the record")
    problems += _rows(state, open_row)
    if not problems:
        problems += _replay(state, open_row)
    return problems


def _rows(state: Any, open_row: bool) -> list[str]:
    """Each round's record: counts, response and result consistent with its compositions; a tie in round 1
    and only a tie leads to round 2, whose tie goes to C (§4, K-A23)."""
    problems = []
    for r, row in enumerate(state.record):
        offer, counter = row[ROW_OFFER:ROW_COUNTER], row[ROW_COUNTER:]
        where = f"record[{r}]"
        if row[OFFER_CARDS] < 1:
            problems.append(f"{where}: an offer holds at least one card (K-A21)")
        if open_row and r == len(state.record) - 1:
            response = NO_RESPONSE if state.decision == RESPONSE else COUNTERED
            if row[RESPONSE_CELL] != response or row[RESULT] != UNDECIDED or any(row[COUNTER_CARDS:]):
                problems.append(f"{where} is the round in progress but is not open: {row}")
            continue
        if sum(offer) != row[OFFER_CARDS] or sum(counter) != row[COUNTER_CARDS]:
            problems.append(f"{where}: card counts {row[OFFER_CARDS]}/{row[COUNTER_CARDS]} do not match the "
                            f"offers {offer} and {counter}")
        if row[RESPONSE_CELL] == ACCEPTED and not any(counter):
            expected = C_WINS
        elif row[RESPONSE_CELL] == COUNTERED and any(counter):
            vc, vd = value(offer), value(counter)
            expected = C_WINS if vc > vd else D_WINS if vd > vc else TIE
        else:
            expected = None
        if expected is None or row[RESULT] != expected:
            problems.append(f"{where}: response {row[RESPONSE_CELL]} and result {row[RESULT]} do not fit the "
                            f"offers {offer} and {counter}")
    if state.record and (state.round == 2) != (state.record[0][RESULT] == TIE):
        problems.append(f"round {state.round} after a first round with result {state.record[0][RESULT]}: "
                        f"a tie, and only a tie, repeats the trade (K-A23)")
    if state.is_terminal and state.record:
        winner = CHALLENGED if state.record[-1][RESULT] == D_WINS else CHALLENGER  # a second tie: C
        if state.winner != winner:
            problems.append(f"winner={state.winner} but the last round's result is {state.record[-1][RESULT]}")
    return problems


def _replay(state: Any, open_row: bool) -> list[str]:
    """The hands, replayed from the deal through the record, must be the hands held."""
    hands = [list(h) for h in state.start]
    for row in state.record:
        offer, counter = row[ROW_OFFER:ROW_COUNTER], row[ROW_COUNTER:]
        if row is state.record[-1] and open_row:
            offer = state.offer
            hands[CHALLENGER] = [h - o for h, o in zip(hands[CHALLENGER], offer)]
            break
        hands[CHALLENGER] = [h - o + c for h, o, c in zip(hands[CHALLENGER], offer, counter)]
        hands[CHALLENGED] = [h + o - c for h, o, c in zip(hands[CHALLENGED], offer, counter)]
        if any(h < 0 for hand in hands for h in hand):
            return [f"the record gives away money its trader did not hold ({hands})"]
    if hands != state.hands:
        return [f"the hands {state.hands} are not the deal {state.start} played through the record ({hands})"]
    return []


def position(game: Any, base: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """``hands`` (C's and D's money as card values) and optionally ``offer`` (C's cards face down, D to
    respond): a position at the start of the trade. The result is validated like any snapshot."""
    where = f"{game.name}: position"
    unknown = sorted(set(spec) - {"hands", "offer"})
    if unknown:
        raise SnapshotError(f"{where}: unknown keyword(s) {unknown}; keywords: ['hands', 'offer']")
    data = {key: value for key, value in base.items()}
    if "hands" in spec:
        given = spec["hands"]
        if not isinstance(given, (list, tuple)) or len(given) != 2:
            raise SnapshotError(f"{where}: hands must be two lists of card values (C's, D's), got {given!r}")
        data["start"] = [_counts(where, f"hands[{seat}]", cards) for seat, cards in enumerate(given)]
    data["hands"] = [list(hand) for hand in data["start"]]
    data.update(selection=[0] * NUM_DENOMS, offer=[0] * NUM_DENOMS, decision=OFFER, round=1, record=[],
                winner=-1, current_player=CHALLENGER, is_terminal=False)
    if spec.get("offer") is not None:
        offer = _counts(where, "offer", spec["offer"])
        data["hands"][CHALLENGER] = [h - o for h, o in zip(data["hands"][CHALLENGER], offer)]
        data.update(offer=offer, decision=RESPONSE, current_player=CHALLENGED,
                    record=[[sum(offer), NO_RESPONSE, 0, UNDECIDED] + [0] * (2 * NUM_DENOMS)])
    return data


def _counts(where: str, name: str, cards: Any) -> list[int]:
    """Card values such as ``[0, 10, 10, 50]`` as counts per denomination."""
    if not isinstance(cards, (list, tuple)):
        raise SnapshotError(f"{where}: {name} must be a list of card values, got {cards!r}")
    counts = [0] * NUM_DENOMS
    for card in cards:
        if card not in DENOMINATIONS or isinstance(card, bool):
            raise SnapshotError(f"{where}: {name} holds {card!r}, not a money card {list(DENOMINATIONS)}")
        counts[DENOMINATIONS.index(card)] += 1
    return counts
