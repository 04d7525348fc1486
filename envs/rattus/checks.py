"""Rattus snapshots, invariants (spec §10.6) and the position helper.

``to_json`` lists every field of the state; :func:`parse_state` checks the type and range of each
(``SnapshotError`` naming the first problem) and :func:`invariants` the rules that tie them together.
Reads the state duck-typed.
"""

from __future__ import annotations

from typing import Any

from ..core.game import SnapshotError
from ..core.schema import copy_lists, dump_fields, is_int, load_fields
from .config import CARDS, NUM_REGIONS, NUM_TOKENS, SLOTS
from .decisions import (
    FINAL_ROUND, KNIGHT_STEP, MAIN, OPENING, OVER, PLAGUE_MOVE, SPREAD, TURN_CAP, WITCH_DECIDE, WITCH_SECOND,
)

BIG = 10**6
T = NUM_TOKENS - 1


def _schema(game) -> dict[str, tuple]:
    """Field -> (kind, arguments), as :mod:`envs.core.schema` reads them."""
    n, cap = game.num_players, game.cubes_per_player
    return {
        "cubes": ("grid", NUM_REGIONS, n, 0, cap), "palace": ("ints", n, 0, cap), "supply": ("ints", n, 0, cap),
        "slots": ("grid", NUM_REGIONS, None, 0, T), "face": ("ints", NUM_TOKENS, 0, len(game.types) - 1),
        "rat_supply": ("ints", None, 0, T), "removed": ("ints", None, 0, T), "revealed": ("ints", None, 0, T),
        "pending": ("int", -1, T), "known": ("boolgrid", n, NUM_TOKENS), "swapped_by": ("ints", NUM_TOKENS, -1, n - 1),
        "setup_token": ("bools", NUM_TOKENS), "holder": ("ints", 6, -1, n - 1),
        "plague": ("int", 0, NUM_REGIONS - 1), "origin": ("int", -1, NUM_REGIONS - 1), "phase": ("int", OPENING, OVER),
        "active": ("int", 0, n - 1), "current_player": ("int", -1, n - 1), "start_seat": ("int", 0, n - 1),
        "opening_order": ("ints", None, 0, n - 1), "opening_step": ("int", 0, 10 * n),
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
    """The state of ``to_json`` data, every field's type and range checked."""
    state = load_fields("rattus", game.blank_state(), _schema(game), data)
    for r, slot in enumerate(state.slots):
        if len(slot) > SLOTS:
            raise SnapshotError(f"rattus: state slots of {game.regions[r]} hold {len(slot)} tokens, more than {SLOTS}")
    state.counts = bytearray(map(len, state.slots))  # kept by the engine with the slots
    state.holder_code = bytearray(h + 1 for h in state.holder)  # and with the holders
    return state


# ====================================================================== invariants (§10.6)
def invariants(game, state) -> list[str]:
    problems: list[str] = []
    n = game.num_players
    for p in range(n):  # cubes conserved
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
    board = {t for slot in state.slots for t in slot}
    seen = board | set(state.revealed)
    for p in range(n):
        if any(state.known[p][t] and t not in seen for t in range(NUM_TOKENS)):
            problems.append(f"seat {p} knows a token that never was on the board")
    if any(state.swapped_by[t] >= 0 and t not in board for t in range(NUM_TOKENS)):
        problems.append("swapped_by marks a token that is not on the board")
    if any(state.setup_token[t] and not game.starting_type[state.face[t]] for t in range(NUM_TOKENS)):
        problems.append("a token placed at setup has no starting face")
    problems += _flow(game, state, board)
    return problems


def _flow(game, state, board: set[int]) -> list[str]:
    """Whose turn it is and the phase's own fields."""
    problems = []
    phase, terminal = state.phase, state.is_terminal
    if (phase == OVER) != terminal or (state.current_player == -1) != terminal:
        return ["is_terminal, the phase OVER and current_player -1 must go together"]
    if state.is_truncated and not terminal:
        problems.append("a truncated game must be terminal")
    if (state.pending >= 0) != (phase == SPREAD):
        problems.append("a pending spread token exists exactly in the SPREAD phase")
    if (state.witch[0] >= 0) != (phase in (WITCH_SECOND, WITCH_DECIDE)) or \
            (state.witch[1] >= 0) != (phase == WITCH_DECIDE):
        problems.append("the Witch's peeked tokens do not match the phase")
    if any(t >= 0 and t not in board for t in state.witch):
        problems.append("a Witch-peeked token is not on the board")
    if (state.origin >= 0) != (phase in (PLAGUE_MOVE, KNIGHT_STEP)):
        problems.append("the plague origin is set exactly during movement")
    if phase == SPREAD and state.spread_due <= 0:
        problems.append("SPREAD with no token due")
    if terminal:
        return problems
    if phase == OPENING:
        if not state.opening_step < len(state.opening_order) or \
                state.current_player != state.opening_order[state.opening_step]:
            problems.append("the opening seat is not the snake order's")
    elif state.current_player != state.active:
        problems.append("the player on turn is not the active player")
    if phase == FINAL_ROUND or state.witch_return == FINAL_ROUND and phase in (WITCH_SECOND, WITCH_DECIDE):
        if not 0 <= state.final_pos < len(state.final_order) or state.final_order[state.final_pos] != state.active:
            problems.append("the final-round seat is not the final order's")
    if not problems and not state.legal_ids():
        problems.append(f"no legal action in phase {phase}")
    return problems


# ====================================================================== positions
def position(game, base: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """See :meth:`RattusGame.position`."""
    allowed = {"active", "start_seat", "cubes", "palace", "plague", "holders", "tokens", "rat_supply",
               "removed_unseen", "known", "regular_turns", "no_progress"}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise SnapshotError(f"rattus: unknown position keyword(s) {unknown}; keywords: {sorted(allowed)}")
    n = game.num_players
    data = {key: copy_lists(value) for key, value in base.items()}
    index = {name: r for r, name in enumerate(game.regions)}

    def region(name: Any, where: str) -> int:
        if name not in index:
            raise SnapshotError(f"rattus: position {where}: {name!r} is not a region; regions: {list(game.regions)}")
        return index[name]

    def seat(value: Any, where: str) -> int:
        if not is_int(value) or not 0 <= value < n:
            raise SnapshotError(f"rattus: position {where}: {value!r} is not a seat 0..{n - 1}")
        return value

    active = seat(spec.get("active", 0), "active")
    data.update(phase=MAIN, active=active, current_player=active, start_seat=spec.get("start_seat", active),
                opening_step=len(data["opening_order"]), card_taken=False, placed=False, used=[False] * 6,
                productive=False, regular_turns=spec.get("regular_turns", 0), no_progress=spec.get("no_progress", 0))
    cubes = [[0] * n for _ in range(NUM_REGIONS)]
    for name, row in spec.get("cubes", {}).items():
        cubes[region(name, "cubes")] = list(row)
    data["cubes"] = cubes
    data["palace"] = list(spec.get("palace", [0] * n))
    data["supply"] = [game.cubes_per_player - sum(row[p] for row in cubes) - data["palace"][p] for p in range(n)]
    if "plague" in spec:
        data["plague"] = region(spec["plague"], "plague")
    holders = [-1] * 6
    for card, who in spec.get("holders", {}).items():
        if card not in CARDS:
            raise SnapshotError(f"rattus: position holders: {card!r} is not a card; cards: {list(CARDS)}")
        holders[CARDS.index(card)] = seat(who, f"holders.{card}")
    data["holder"] = holders
    # tokens: free ids in the base deal's order (supply, removed, then the board's)
    order = data["rat_supply"] + data["removed"] + [t for slot in data["slots"] for t in slot]
    free = list(order)
    faces = data["face"]
    type_ids = [tt.id for tt in game.types]
    if "tokens" in spec:
        slots = [[] for _ in range(NUM_REGIONS)]
        for name, names in spec["tokens"].items():
            r = region(name, "tokens")
            for face in names:
                if face != "?" and face not in type_ids:
                    raise SnapshotError(f"rattus: position tokens.{name}: {face!r} is not a token type id")
                match = [t for t in free if face == "?" or faces[t] == type_ids.index(face)]
                if not match:
                    raise SnapshotError(f"rattus: position tokens.{name}: no {face!r} token left")
                free.remove(match[0])
                slots[r].append(match[0])
        data["slots"] = slots
        data["setup_token"] = [False] * NUM_TOKENS
    else:
        free = [t for t in order if t not in {u for slot in data["slots"] for u in slot}]
    removed = spec.get("removed_unseen", game.removed_count)
    supply = spec.get("rat_supply", len(free) - removed)
    if not (is_int(removed) and is_int(supply) and 0 <= removed and 0 <= supply and removed + supply <= len(free)):
        raise SnapshotError(f"rattus: position rat_supply={supply!r} and removed_unseen={removed!r} need ints "
                            f">= 0 summing to at most the {len(free)} tokens off the board")
    data["rat_supply"], data["removed"] = sorted(free[:supply]), sorted(free[supply:supply + removed])
    data["revealed"] = free[supply + removed:]
    known = [[False] * NUM_TOKENS for _ in range(n)]
    for who, places in spec.get("known", {}).items():
        who = seat(who, "known")
        for r_name, s in places:
            slot = data["slots"][region(r_name, "known")]
            if not 0 <= s < len(slot):
                raise SnapshotError(f"rattus: position known: {r_name} has no slot {s}")
            known[who][slot[s]] = True
    data["known"] = known
    data["swapped_by"] = [-1] * NUM_TOKENS
    return data
