"""Rattus Cartus snapshots and invariants.

``to_json`` lists every field of the state; :func:`parse_state` checks the type and range of each
(``SnapshotError`` naming the first problem) and :func:`invariants` the rules that tie them together: the
cards, supplies, influence and buildings here, the records in :mod:`.records`, the round flow in
:mod:`.turn_checks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.game import SnapshotError
from ..core.schema import dump_fields, load_fields
from . import records, turn_checks
from .cards import (
    BUILDINGS, BUILDINGS_IN_GAME, I_GOLD, I_PASS, KIND_COPIES, MAX_RATS, NUM_BUILDING_CARDS, NUM_CLASSES, NUM_ITEMS,
    NUM_KINDS, NUN_ROW_SIZE, SPECIAL_COPIES,
)
from .decisions import D10, NONE, PHASE_B, PHASE_OVER, ST_ACTIONS, ST_START
from .scoring import final_result

if TYPE_CHECKING:
    from .rules import RattusCartusGame, RattusCartusState

#: The most any count of a state may be: far above what a game reaches (a few hundred cards, rounds x
#: actions), and low enough that every value of an observation, sums of up to 35 counts included, stays
#: within the observer's declared high (1e6).
MAX_COUNT = 10**4


#: Field -> (kind, arguments), as :mod:`envs.core.schema` reads them.
def _schema(game: RattusCartusGame) -> dict[str, tuple]:
    n, k = game.num_players, game.k
    return {
        "hands": ("grid", n, NUM_ITEMS, 0, MAX_COUNT),
        "pending": ("grid", n, NUM_ITEMS, 0, MAX_COUNT),
        "committed": ("grid", n, NUM_ITEMS, 0, MAX_COUNT),
        "nun_row": ("ints", NUN_ROW_SIZE, 0, NUM_KINDS - 1),
        "deck": ("ints", None, 0, NUM_KINDS - 1),
        "discard": ("ints", NUM_KINDS, 0, 4),
        "supply": ("ints", 5, 0, MAX_COUNT),
        "token_supply": ("ints", None, 0, MAX_COUNT),
        "tokens": ("lists", n, 0, MAX_COUNT),
        "rats": ("ints", n, 0, MAX_RATS - 1),
        "level": ("grid", n, NUM_CLASSES, 0, MAX_COUNT),
        "stamp": ("grid", n, NUM_CLASSES, 0, MAX_COUNT),
        "clock": ("int", 0, MAX_COUNT),
        "building_set": ("ints", BUILDINGS_IN_GAME, 0, NUM_BUILDING_CARDS - 1),
        "bdeck": ("ints", None, 0, NUM_BUILDING_CARDS - 1),
        "repl": ("ints", game.replacement, 0, NUM_BUILDING_CARDS - 1),
        "repl_known": ("int", 0, game.replacement),
        "used": ("ints", None, 0, NUM_BUILDING_CARDS - 1),
        "row": ("ints", None, 0, NUM_BUILDING_CARDS - 1),
        "round": ("int", 0, game.rounds),
        "phase": ("int", PHASE_B, PHASE_OVER),
        "start": ("int", 0, n - 1),
        "decision": ("int", NONE, D10),
        "current_player": ("int", -1, n - 1),
        "is_terminal": ("bool",),
        "turn": ("int", 0, n),
        "left": ("int", 0, MAX_COUNT),
        "first_pos": ("int", -1, NUN_ROW_SIZE - 1),
        "cands": ("ints", None, 0, n - 1),
        "supply_slot": ("ints", n, -1, k - 1),
        "entered": ("ints", n, -1, k - 1),
        "entry_pos": ("ints", n, -1, n - 1),
        "entry_order": ("ints", n, -1, n - 1),
        "entrants": ("lists", k, 0, n - 1),
        "num_entered": ("int", 0, n),
        "announced": ("ints", n, -1, MAX_COUNT),
        "passes": ("ints", n, 0, MAX_COUNT),
        "rsp": ("int", -1, n - 1),
        "slot": ("int", 0, k),
        "stage": ("int", ST_START, ST_ACTIONS),
        "revealed": ("bools", n),
        "last_reveal": ("grid", n, NUM_ITEMS, 0, MAX_COUNT),
        "sword": ("ints", 2, -1, n - 1),
        "flute": ("int", -1, n - 1),
        "queue": ("grid", None, 2, 0, n - 1),
        "qi": ("int", 0, n),
        "wt_t": ("int", -1, MAX_COUNT),
        "wt_victims": ("ints", None, 0, n - 1),
        "taken": ("grid", n, 5, 0, MAX_COUNT),
        "shown": ("grid", n, 11, 0, MAX_COUNT),
        "hidden_in": ("ints", n, 0, MAX_COUNT),
        "hidden_out": ("ints", n, 0, MAX_COUNT),
        "peek_count": ("grid", n, NUN_ROW_SIZE, 0, MAX_COUNT),
        "reshuffles": ("int", 0, MAX_COUNT),
        "reshuffle_comp": ("ints", NUM_KINDS, 0, 4),
        "peeked": ("boolgrid", n, NUN_ROW_SIZE),
        "seen": ("grid", n, NUM_KINDS, 0, 4),
        "gifts": ("cube", n, n, NUM_ITEMS, 0, MAX_COUNT),
        "gift_flag": ("boolgrid", n, n),
        "hand_size": ("ints", n, 0, MAX_COUNT),
        "flow_count": ("grid", n, n, 0, MAX_COUNT),
        "pend_taken": ("grid", n, 5, 0, MAX_COUNT),
        "pend_drawn": ("ints", n, 0, MAX_COUNT),
        "pend_hidden": ("ints", n, 0, MAX_COUNT),
        "flow": ("cube", n, n, 5, 0, MAX_COUNT),
        "slot_gift": ("cube", n, n, NUM_ITEMS, 0, MAX_COUNT),
    }


def to_json(state: RattusCartusState) -> dict[str, Any]:
    return dump_fields(state, _schema(state.game))


def parse_state(game: RattusCartusGame, data: dict[str, Any]) -> RattusCartusState:
    """The state of ``to_json`` data, every field's type and range checked."""
    state = load_fields("rattus_cartus", game.blank_state(), _schema(game), data)
    if state.is_terminal:
        if state.phase != PHASE_OVER:
            raise SnapshotError("rattus_cartus: state is_terminal but phase is not game over")
        state.result = final_result(state)
    return state


# ====================================================================== invariants
def invariants(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """Everything that is wrong with ``state`` (empty if nothing): see the module docstring. The round flow
    reads the row, so it is checked only on a row of the round's size."""
    out = (_population(game, state) + records.problems(game, state) + _supplies(game, state)
           + _influence(game, state) + _buildings(game, state) + _building_set(game, state))
    if len(state.row) != (0 if state.phase == PHASE_OVER else game.k):
        return out
    return out + turn_checks.problems(game, state)


def _population(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§1.2: every population card in exactly one place; hand sizes; no Pass or Gold committed (R-A9)."""
    count = [0] * NUM_KINDS
    for p in range(game.num_players):
        for where in (state.hands[p], state.pending[p], state.committed[p]):
            for kind in range(NUM_KINDS):
                count[kind] += where[kind]
    for kind in state.nun_row + state.deck:
        count[kind] += 1
    for kind in range(NUM_KINDS):
        count[kind] += state.discard[kind]
    out = []
    if count != list(KIND_COPIES):
        bad = [kind for kind in range(NUM_KINDS) if count[kind] != KIND_COPIES[kind]]
        out.append(f"population cards not conserved: kinds {bad} counted {[count[b] for b in bad]}")
    for p in range(game.num_players):
        if state.committed[p][I_PASS] or state.committed[p][I_GOLD]:
            out.append(f"seat {p} committed a Pass or Gold card (R-A9)")
        if state.hand_size[p] != sum(state.hands[p]):
            out.append(f"hand_size[{p}]={state.hand_size[p]} but the hand holds {sum(state.hands[p])} cards")
    return out


def _supplies(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """R-A2, R-A3: finite supplies plus holdings are constant, unlimited ones never change (a Palace
    action, one a round, gives at most 2 point tokens, §4)."""
    n = game.num_players
    out = []
    if game.finite:
        for s in range(5):
            held = sum(state.hands[p][NUM_KINDS + s] + state.pending[p][NUM_KINDS + s]
                       + state.committed[p][NUM_KINDS + s] for p in range(n))
            if held + state.supply[s] != SPECIAL_COPIES[s]:
                out.append(f"special type {s}: supply {state.supply[s]} + held {held} != {SPECIAL_COPIES[s]}")
        tokens = sorted(state.token_supply + [v for held in state.tokens for v in held])
        if tokens != sorted(game.point_token_values):
            out.append("point tokens not conserved")
    else:
        if state.supply != list(SPECIAL_COPIES) or state.token_supply != sorted(game.point_token_values):
            out.append("unlimited supplies never change")
        if any(v != game.point_token_values[0] for held in state.tokens for v in held):
            out.append("a point token of another value")
        if any(len(held) > 2 * game.rounds for held in state.tokens):
            out.append(f"more than {2 * game.rounds} point tokens, 2 a round")
    if not game.uniform_tokens and any(held != sorted(held) for held in state.tokens):
        out.append("point tokens are kept sorted")
    return out


def _influence(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§3.4.2, R-A24: a disc above level 0 has an arrival stamp of its own, none later than the clock."""
    out = []
    stamps = []
    for p in range(game.num_players):
        for c in range(NUM_CLASSES):
            level, stamp = state.level[p][c], state.stamp[p][c]
            if (level == 0) != (stamp == 0) or stamp > state.clock:
                out.append(f"seat {p} class {c}: level {level} with arrival stamp {stamp} (clock {state.clock})")
            if stamp:
                stamps.append(stamp)
    if len(set(stamps)) != len(stamps):
        out.append("two discs share an arrival stamp")
    return out


def _buildings(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§2.2, §3.1: the 30 building cards, each in one place, as many in the deck, row and used pile as the
    round has left, the row not one building only (R-A6)."""
    k, rounds_done = game.k, state.round
    out = []
    cards = sorted(state.bdeck + state.repl + state.used + state.row)
    if cards != sorted(state.building_set) or len(set(state.building_set)) != BUILDINGS_IN_GAME:
        out.append("building cards are not the game's 30, each in one place")
    per_class = [0] * NUM_CLASSES
    for card in state.building_set:
        per_class[card // 10] += 1
    if per_class != [5] * NUM_CLASSES:
        out.append(f"the building set has {per_class} cards per class, not 5 each")
    if state.phase == PHASE_OVER:
        expect_deck, expect_row, expect_used = 0, 0, game.rounds * k
    else:
        expect_deck, expect_row, expect_used = (game.rounds - 1 - rounds_done) * k, k, rounds_done * k
    if (len(state.bdeck), len(state.row), len(state.used)) != (expect_deck, expect_row, expect_used):
        out.append(f"round {rounds_done}: building deck {len(state.bdeck)}, row {len(state.row)}, used "
                   f"{len(state.used)}; expected {expect_deck}, {expect_row}, {expect_used}")
    if state.row and len({card // 5 for card in state.row}) == 1:
        out.append("the row shows one building only (R-A6)")
    return out


def _building_set(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """The 30 cards fit the selection method (§2.3)."""
    counts = [0] * 12
    for card in state.building_set:
        counts[card // 5] += 1
    if game.building_selection == "agreed":
        expected = [game.agreed_counts.get(name, 0) for name in BUILDINGS]
        if counts != expected:
            return [f"the building set {counts} is not the agreed set {expected}"]
        return []
    if game.num_players == 2 and game.exclude_watchtower_2p and counts[7]:
        return ["a Watchtower in a 2-player game that excludes it"]
    if game.building_selection == "random_building_per_class" and any(
            counts[2 * c] and counts[2 * c + 1] for c in range(NUM_CLASSES)):
        return ["two buildings of one class under random_building_per_class"]
    return []
