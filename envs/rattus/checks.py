"""Rattus snapshots and invariants (docs/rattus_rules.md §10.6).

``to_json`` lists every field of the state; :func:`parse_state` bounds every list by the game's sizes
before reading it, then checks the type and range of each field (``SnapshotError`` naming the first
problem); :func:`invariants` checks the rules that tie the fields together, so that every field is either
checked or follows from checked ones. Reads the state duck-typed.
"""

from __future__ import annotations

from typing import Any

from ..core.game import SnapshotError
from ..core.schema import dump_fields, load_fields
from .config import KNIGHT, NUM_REGIONS, NUM_TOKENS, PEASANT, SLOTS, WITCH
from .decisions import (
    FINAL_ROUND, KNIGHT_STEP, MAIN, NO_PROGRESS, OPENING, OVER, PLAGUE_MOVE, RAT_SUPPLY_EMPTY, SPREAD, TURN_CAP,
    WITCH_DECIDE, WITCH_SECOND,
)

T = NUM_TOKENS - 1
WITCH_PHASES = (WITCH_SECOND, WITCH_DECIDE)


def _schema(game) -> dict[str, tuple]:
    """Field -> (kind, arguments), as :mod:`envs.core.schema` reads them."""
    n, cap = game.num_players, game.cubes_per_player
    return {
        "cubes": ("grid", NUM_REGIONS, n, 0, cap), "palace": ("ints", n, 0, cap), "supply": ("ints", n, 0, cap),
        "slots": ("grid", NUM_REGIONS, None, 0, T), "face": ("ints", NUM_TOKENS, 0, len(game.types) - 1),
        "rat_supply": ("ints", None, 0, T), "removed": ("ints", game.removed_count, 0, T),
        "revealed": ("ints", None, 0, T),
        "pending": ("int", -1, T), "known": ("boolgrid", n, NUM_TOKENS), "swapped_by": ("ints", NUM_TOKENS, -1, n - 1),
        "setup_token": ("bools", NUM_TOKENS), "holder": ("ints", 6, -1, n - 1),
        "plague": ("int", 0, NUM_REGIONS - 1), "origin": ("int", -1, NUM_REGIONS - 1), "phase": ("int", OPENING, OVER),
        "active": ("int", 0, n - 1), "current_player": ("int", -1, n - 1), "start_seat": ("int", 0, n - 1),
        "opening_order": ("ints", len(game.snake_order(0)), 0, n - 1), "opening_step": ("int", 0, 10 * n),
        "card_taken": ("bool",), "placed": ("bool",), "used": ("bools", 6), "spread_due": ("int", 0, 3),
        "witch": ("ints", 2, -1, T), "witch_return": ("int", MAIN, FINAL_ROUND),
        "regular_turns": ("int", 0, game.max_regular_turns), "no_progress": ("int", 0, game.no_progress_turns),
        "productive": ("bool",), "ender": ("int", -1, n - 1), "final_order": ("ints", None, 0, n - 1),
        "final_pos": ("int", -1, n), "end_reason": ("int", -1, TURN_CAP), "is_terminal": ("bool",),
        "is_truncated": ("bool",),
    }


def to_json(state) -> dict[str, Any]:
    return dump_fields(state, _schema(state.game))


def parse_state(game, data: dict[str, Any]):
    """The state of ``to_json`` data, every list's length bounded first, every field's type and range checked."""
    _check_lengths(game, data)
    state = load_fields("rattus", game.blank_state(), _schema(game), data)
    state.counts = bytearray(map(len, state.slots))  # kept by the engine with the slots
    state.holder_code = bytearray(h + 1 for h in state.holder)  # and with the holders
    return state


def _check_lengths(game, data: Any) -> None:
    """The lists the schema leaves open, bounded by the game's sizes before any item is read."""
    if not isinstance(data, dict):
        return  # load_fields names the problem
    bounds = {"rat_supply": NUM_TOKENS, "revealed": NUM_TOKENS, "final_order": game.num_players - 1}
    for key, bound in bounds.items():
        value = data.get(key)
        if isinstance(value, list) and len(value) > bound:
            raise SnapshotError(f"rattus: state {key} holds {len(value)} entries, more than {bound}")
    slots = data.get("slots")
    if isinstance(slots, list) and len(slots) == NUM_REGIONS:
        for r, slot in enumerate(slots):
            if isinstance(slot, list) and len(slot) > SLOTS:
                raise SnapshotError(f"rattus: state slots[{r}] ({game.regions[r]}) holds {len(slot)} tokens, "
                                    f"more than {SLOTS}")


# ====================================================================== invariants (§10.6)
def invariants(game, state) -> list[str]:
    """Everything that ties the fields together: what is conserved, the board, the records of who knows and
    who swapped which token, and the phase's own fields; then a legal action for the player on turn."""
    board = {t for slot in state.slots for t in slot}
    problems = _conserved(game, state) + _board(game, state) + _records(game, state, board)
    problems += _flow(game, state, board)
    if not problems and not state.is_terminal and not state.legal_ids():
        problems.append(f"no legal action in phase {state.phase}")
    return problems


def _conserved(game, state) -> list[str]:
    """Cubes per seat, the 49 token ids each in one place, the token table's faces (§10.6)."""
    problems = []
    for p in range(game.num_players):
        total = state.supply[p] + sum(row[p] for row in state.cubes) + state.palace[p]
        if total != game.cubes_per_player:
            problems.append(f"seat {p} has {total} cubes, not {game.cubes_per_player}")
    places = [t for slot in state.slots for t in slot] + state.rat_supply + state.removed + state.revealed
    places += [state.pending] if state.pending >= 0 else []
    if sorted(places) != list(range(NUM_TOKENS)):
        problems.append(f"the {NUM_TOKENS} token ids are not each in exactly one place (board, supply, removed, "
                        "revealed, pending)")
    if sorted(state.face) != sorted(game.faces):
        problems.append("the token faces are not the token table's")
    return problems


def _board(game, state) -> list[str]:
    """Region limits, nothing out of play, the kept counts and codes, the plague in play, sets in id order."""
    problems = []
    for r in range(NUM_REGIONS):
        if len(state.slots[r]) > SLOTS:
            problems.append(f"{game.regions[r]} holds {len(state.slots[r])} tokens, more than {SLOTS}")
        if not game.play_flag[r] and (state.slots[r] or any(state.cubes[r])):
            problems.append(f"{game.regions[r]} is not in play but holds tokens or cubes")
    if list(state.counts) != list(map(len, state.slots)):
        problems.append("the kept token counts per region are not the slots' lengths")
    if list(state.holder_code) != [h + 1 for h in state.holder]:
        problems.append("the kept holder codes are not the card holders")
    if not game.play_flag[state.plague]:
        problems.append(f"the plague is in {game.regions[state.plague]}, not in play")
    for key in ("rat_supply", "removed"):  # sets: their order would steer the draws
        ids = getattr(state, key)
        if any(a >= b for a, b in zip(ids, ids[1:])):
            problems.append(f"{key} must list distinct token ids in ascending order")
    return problems


def _records(game, state, board: set[int]) -> list[str]:
    """Witch knowledge (§8), swap marks (AM-2) and setup marks (§3.3) only where the game can have put them."""
    problems = []
    seen = board | set(state.revealed)
    for p in range(game.num_players):
        if any(state.known[p][t] and t not in seen for t in range(NUM_TOKENS)):
            problems.append(f"seat {p} knows a token that never was on the board")
    swapped = [t for t in range(NUM_TOKENS) if state.swapped_by[t] >= 0]
    if any(t not in board for t in swapped):
        problems.append("swapped_by marks a token that is not on the board")
    elif any(not state.known[state.swapped_by[t]][t] for t in swapped):
        problems.append("a token is marked swapped by a seat that does not know it (a Witch swap shows both faces)")
    setup = [t for t in range(NUM_TOKENS) if state.setup_token[t]]
    if any(not game.starting_type[state.face[t]] for t in setup):
        problems.append("a token placed at setup has no starting face")
    if any(t not in seen for t in setup) or len(setup) > len(game.in_play):
        problems.append(f"tokens placed at setup must be at most {len(game.in_play)} (one per region in play), "
                        "each on the board or revealed")
    return problems


def _flow(game, state, board: set[int]) -> list[str]:
    """Whose turn it is and the phase's own fields."""
    phase, terminal = state.phase, state.is_terminal
    if (phase == OVER) != terminal or (state.current_player == -1) != terminal:
        return ["is_terminal, the phase OVER and current_player -1 must go together"]
    problems = _ending(game, state) + _opening(game, state) + _witch(game, state, board) + _movement(game, state)
    if not terminal:
        problems += _turn(game, state)
    return problems


def _ending(game, state) -> list[str]:
    """The ender, the end reason and truncation (§7.1, RA-17, RA-23, RA-24)."""
    problems = []
    ended, reason = state.ender >= 0, state.end_reason
    if ended != (reason >= 0) or (state.is_terminal and not ended):
        problems.append("the ender and the end reason are set together, and both once the game is over")
    if not state.is_terminal and ended != _in_final_round(state):
        problems.append("an ender exists exactly from the final round on (not in a regular turn)")
    if state.is_truncated != (state.is_terminal and reason == TURN_CAP and game.turn_cap_mode == "truncate"):
        problems.append("is_truncated means a turn-cap ending with turn_cap_mode='truncate'")
    if (reason == RAT_SUPPLY_EMPTY) != (ended and not state.rat_supply):
        problems.append("the end reason rat_supply_empty goes with an empty rat supply (RA-17 precedence)")
    if reason == NO_PROGRESS and state.no_progress != game.no_progress_turns or \
            reason == TURN_CAP and state.regular_turns != game.max_regular_turns:
        problems.append("the end reason's limit (no_progress_turns, max_regular_turns) was not reached")
    return problems + _final_round(game, state)


def _in_final_round(state) -> bool:
    return state.phase == FINAL_ROUND or state.phase in WITCH_PHASES and state.witch_return == FINAL_ROUND


def _final_round(game, state) -> list[str]:
    """The final round's order from the ender and the position in it (§7.2, RA-19, AM-4)."""
    order = game.final_order(state.ender) if state.ender >= 0 and not state.is_truncated else []
    if state.final_order != order:
        return [f"final_order {state.final_order} is not the final round's order {order} from the ender"]
    if _in_final_round(state):
        if not (0 <= state.final_pos < len(order) and order[state.final_pos] == state.active):
            return ["the final-round seat is not the final order's"]
    elif state.final_pos != (len(order) if state.is_terminal else 0):
        return ["final_pos is 0 before the final round and past its order at the end"]
    return []


def _opening(game, state) -> list[str]:
    """The snake order (§3.8, RA-18) and the placements made so far."""
    order, step = state.opening_order, state.opening_step
    if order != game.snake_order(state.start_seat):
        return [f"opening_order {order} is not the snake order from the start seat {state.start_seat}"]
    if state.phase != OPENING:
        return [] if step == len(order) else ["opening_step must count every opening placement once it is over"]
    if step >= len(order):
        return ["the phase is OPENING while no opening placement remains (opening_step)"]
    return _in_opening(game, state, order, step)


def _in_opening(game, state, order: list[int], step: int) -> list[str]:
    """The seat to place, the cubes placed so far, and a board as dealt (§3.3): nothing else has happened."""
    problems = []
    if state.current_player != order[step] or state.active != order[step]:
        problems.append("the opening seat is not the snake order's")
    for p in range(game.num_players):
        if sum(row[p] for row in state.cubes) != game.opening_cubes * order[:step].count(p) or state.palace[p]:
            problems.append(f"seat {p}'s cubes are not its opening placements so far")
    if state.holder != [-1] * 6 or state.regular_turns or state.revealed:
        problems.append("in the opening no card is held, no turn played and no token revealed")
    setup = [[t] for t in range(len(state.setup_token)) if state.setup_token[t]]
    if sorted(slot for slot in state.slots if slot) != setup or len(setup) != len(game.in_play) or \
            any(map(any, state.known)) or any(t >= 0 for t in state.swapped_by):
        problems.append("in the opening each region in play holds just its setup token, unknown and unswapped")
    return problems


def _witch(game, state, board: set[int]) -> list[str]:
    """The peeked tokens of a Witch use in progress (RA-7)."""
    phase, (first, second) = state.phase, state.witch
    if state.witch_return not in (MAIN, FINAL_ROUND):
        return ["witch_return must be MAIN or FINAL_ROUND"]
    if (first >= 0) != (phase in WITCH_PHASES) or (second >= 0) != (phase == WITCH_DECIDE):
        return ["the Witch's peeked tokens do not match the phase"]
    if phase not in WITCH_PHASES:
        return []
    if first not in board or second >= 0 and second not in board:
        return ["a Witch-peeked token is not on the board"]
    problems = []
    if state.holder[WITCH] != state.active or state.used[WITCH]:
        problems.append("a Witch use in progress needs the Witch held by the player on turn, not yet used")
    knows = state.known[state.active]
    if (phase == WITCH_DECIDE or game.witch_peek_sequential) and not knows[first] or second >= 0 and not knows[second]:
        problems.append("the player on turn does not know a peeked token it has been shown")
    if second >= 0 and (second == first or game.witch_second_token == "other_region"
                        and state.locate(first)[0] == state.locate(second)[0]):
        problems.append(f"the second peeked token breaks witch_second_token={game.witch_second_token!r}")
    return problems


def _movement(game, state) -> list[str]:
    """The plague's origin during movement, the Knight step and the spread (§4.4, §5.1, RA-11, RA-13)."""
    problems = []
    phase = state.phase
    if (state.origin >= 0) != (phase in (PLAGUE_MOVE, KNIGHT_STEP)):
        problems.append("the plague origin is set exactly during movement")
    elif phase == PLAGUE_MOVE and state.origin != state.plague:
        problems.append("before the plague moves, its origin is where it stands")
    elif phase == KNIGHT_STEP and (state.plague not in game.nbrs[state.origin] or state.used[KNIGHT]
                                   or state.holder[KNIGHT] != state.active):
        problems.append("a Knight step follows a first step to a neighbour of the origin, by the Knight's holder")
    if (state.pending >= 0) != (phase == SPREAD):
        problems.append("a pending spread token exists exactly in the SPREAD phase")
    if (state.spread_due > 0) != (phase == SPREAD) or state.spread_due > max(game.spread_table):
        problems.append("spread tokens are due exactly in the SPREAD phase, at most the spread table's")
    return problems


def _turn(game, state) -> list[str]:
    """The seat on turn, the turn counters and the per-turn flags (§9.1) of a game not over."""
    problems = []
    if state.phase != OPENING and state.current_player != state.active:
        problems.append("the player on turn is not the active player")
    if state.no_progress > state.regular_turns:
        problems.append("no_progress counts more turns than regular_turns")
    if state.ender < 0 and (state.regular_turns >= game.max_regular_turns
                            or state.no_progress >= game.no_progress_turns):
        problems.append("a regular turn after the limit of regular_turns or no_progress was reached")
    used = state.used
    if used[KNIGHT] and state.phase != SPREAD:
        problems.append("the Knight counts as used only in the spread after its step")
    if used[PEASANT] and not state.placed:
        problems.append("the Peasant counts as used only with a placement")
    if state.card_taken and state.active not in state.holder:
        problems.append("a card was taken this turn but the player on turn holds none")
    if state.placed and not state.productive:
        problems.append("a turn with a placement is productive")
    if state.ender >= 0 and (state.card_taken or state.placed):
        problems.append("the final round has no card taking or placement")
    return problems
