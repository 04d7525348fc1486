"""Rattus on the web table: the map one seat may see, its moves and the table's log in the game's words.

The map comes from the game's data (``configs/games/rattus.yaml`` or a user's board file): every region
with its neighbours, a position for drawing it (:mod:`.rattus_map`), its cubes per seat and its tokens in
slot order. A token shows its starting mark (when marks are public, RA-3), who has peeked at it and who
last swapped it (AM-2), and its face only to a seat that knows it (§8); faces of revealed tokens are public.
Token ids never leave the server (they are dealt at random, but a view keeps to slots). ``seat=None``
is the spectator of a finished game's replay, who sees every face.
"""

from __future__ import annotations

from typing import Any

from hiddenhand.envs.rattus import actions as A
from hiddenhand.envs.rattus.config import CARDS, CLASSES
from hiddenhand.envs.rattus.decisions import (
    END_REASONS, FINAL_ROUND, KNIGHT_STEP, MAIN, OPENING, OVER, PLAGUE_MOVE, SPREAD, WITCH_DECIDE, WITCH_SECOND,
)
from hiddenhand.envs.rattus.rules import RattusState

from .rattus_map import positions

POWERS = (
    "Peasant: place one more cube (even where there is no token)",
    "Merchant: move 1-3 of your cubes to a neighbouring region",
    "Monk: move one rat token to a neighbouring region with room",
    "Knight: the plague may take a second step",
    "Witch: look at two face-down tokens in different regions, then swap them or not",
    "King: move one of your cubes from a region without tokens to the palace",
)
CLASS_WORDS = tuple(name.title() for name in CLASSES)
PHASES = {OPENING: "opening placements", MAIN: "main phase", WITCH_SECOND: "the Witch looks again",
          WITCH_DECIDE: "the Witch decides", PLAGUE_MOVE: "the plague moves", KNIGHT_STEP: "the Knight's second step",
          SPREAD: "the rats spread", FINAL_ROUND: "final round", OVER: "game over"}
ENDINGS = {"rat_supply_empty": "the rat supply ran out", "all_cubes_placed": "a player placed all cubes",
           "no_progress": "no progress for many turns", "turn_cap": "the turn limit was reached"}


def face(game, face_index: int) -> dict[str, Any]:
    """A token face in words: its limit and symbols (M: the majority, classes: the card holders, A: all)."""
    tt = game.types[face_index]
    symbols = ["M"] * tt.m + [CLASS_WORDS[c] for c, k in enumerate(tt.classes) for _ in range(k)] + ["A"] * tt.a
    hits = ([f"the majority{' ' + str(tt.m) + ' times' if tt.m > 1 else ''}"] if tt.m else []) + \
        [f"the {CARDS[c]}'s holder" + (f" {k} times" if k > 1 else "") for c, k in enumerate(tt.classes) if k] + \
        ([f"everyone there{' ' + str(tt.a) + ' times' if tt.a > 1 else ''}"] if tt.a else [])
    return {"limit": tt.limit, "symbols": symbols,
            "text": f"from {tt.limit} cube{'s' if tt.limit > 1 else ''}: hits " + ", ".join(hits)}


def seat_view(state: RattusState, seat: int | None, memory: dict[str, Any]) -> dict[str, Any]:
    game, n = state.game, state.n
    marks = game.starting_mark_public
    xy = positions(tuple(game.regions), tuple(map(tuple, game.data.adjacency)))
    regions = []
    for r, name in enumerate(game.regions):
        tokens = []
        for tid in state.slots[r]:
            knows = seat is None or state.known[seat][tid]
            tokens.append({"starting": bool(game.starting_type[state.face[tid]]) if marks else None,
                           "face": face(game, state.face[tid]) if knows else None,
                           "known_by": [q for q in range(n) if state.known[q][tid]],
                           "swapped_by": state.swapped_by[tid] if state.swapped_by[tid] >= 0 else None})
        regions.append({"index": r, "name": name, "in_play": game.play_flag[r], "x": xy[r][0], "y": xy[r][1],
                        "neighbours": list(game.data.adjacency[r]), "cubes": list(state.cubes[r]), "tokens": tokens})
    view: dict[str, Any] = {
        "kind": "rattus", "regions": regions, "plague": state.plague, "palace": list(state.palace),
        "supply": list(state.supply), "active": state.active if state.phase != OVER else None,
        "phase": PHASES[state.phase], "turn": state.regular_turns + (state.phase != OVER),
        "max_turns": game.max_regular_turns,
        "cards": [{"name": CARDS[k], "holder": h if h >= 0 else None, "power": POWERS[k],
                   "used": state.used[k] and state.phase in (MAIN, FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE)}
                  for k, h in enumerate(state.holder)],
        "rat_supply": len(state.rat_supply),
        "rat_supply_starting": sum(game.starting_type[state.face[t]] for t in state.rat_supply) if marks else None,
        "removed": len(state.removed),
        "revealed": [face(game, state.face[t]) for t in state.revealed][::-1],
        "spread": None, "witch": None, "end": None,
    }
    if state.phase == SPREAD:
        view["spread"] = {"due": state.spread_due,
                          "starting": bool(game.starting_type[state.face[state.pending]]) if marks else None}
    if state.phase in (WITCH_SECOND, WITCH_DECIDE):
        view["witch"] = [_where(state, t) for t in state.witch if t >= 0]
    if state.phase == KNIGHT_STEP:
        view["knight_from"] = state.origin
    if state.phase == OVER:
        view["end"] = {"reason": ENDINGS[END_REASONS[state.end_reason]] if state.end_reason >= 0 else None,
                       "scores": state.scores(), "winners": state.winners()}
    return view


def _where(state: RattusState, tid: int) -> dict[str, int]:
    region, slot = state.locate(tid)
    return {"region": region, "slot": slot}


def action_move(state: RattusState, action: int) -> dict[str, Any]:
    """A legal action as the page's map reads it: its kind and the regions, slot, card or count it names."""
    game = state.game
    kind, args = game.kinds[action], game.args[action]
    name = A.KIND_NAMES[kind]
    if kind in (A.PLACE, A.PEASANT_PLACE, A.KING, A.MOVE, A.SPREAD):
        return {"kind": name, "region": args[0]}
    if kind == A.TAKE:
        return {"kind": name, "card": args[0]}
    if kind == A.MERCHANT:
        return {"kind": name, "from": args[0], "to": args[1], "count": args[2]}
    if kind == A.MONK:
        return {"kind": name, "from": args[0], "slot": args[1], "to": args[2]}
    if kind == A.PEEK:
        return {"kind": name, "region": args[0], "slot": args[1]}
    return {"kind": name}


def action_label(state: RattusState, action: int) -> str:
    """What a legal action of the seat to move will do, in words."""
    game, p = state.game, state.current_player
    kind, args = game.kinds[action], game.args[action]
    region = game.regions.__getitem__
    if kind == A.END:
        return "end your final turn" if state.phase == FINAL_ROUND else "end your turn: the plague moves next"
    if kind == A.TAKE:
        holder = state.holder[args[0]]
        return f"take the {CARDS[args[0]]}" + (f" from player_{holder}" if holder >= 0 else "")
    if kind in (A.PLACE, A.PEASANT_PLACE):
        r = args[0]
        if state.phase == OPENING:
            k = min(game.opening_cubes, state.supply[p])
        else:
            k = min(state.counts[r] + (game.peasant_bonus if kind == A.PEASANT_PLACE else 0), state.supply[p])
        return f"place {_cubes(k)} in {region(r)}" + (" with the Peasant's bonus" if kind == A.PEASANT_PLACE else "")
    if kind == A.STOP:
        return f"stop the plague in {region(state.plague)}"
    return LABELS[kind](region, args)


#: Labels that depend on the action's arguments alone (region names through ``r``).
LABELS = {
    A.MERCHANT: lambda r, a: f"move {_cubes(a[2])} from {r(a[0])} to {r(a[1])}",
    A.MONK: lambda r, a: f"move the rat token in slot {a[1] + 1} of {r(a[0])} to {r(a[2])}",
    A.PEEK: lambda r, a: f"look at the token in slot {a[1] + 1} of {r(a[0])}",
    A.SWAP: lambda r, a: "swap the two tokens you looked at",
    A.KEEP: lambda r, a: "leave both tokens where they are",
    A.KING: lambda r, a: f"move one of your cubes from {r(a[0])} to the palace",
    A.MOVE: lambda r, a: f"move the plague to {r(a[0])}",
    A.SPREAD: lambda r, a: f"put the drawn rat token in {r(a[0])}",
}


def announce(state: RattusState, action: int) -> str:
    """The move as the table saw it (every Rattus action is public; a peeked face is not in it)."""
    label = action_label(state, action)
    if label.startswith("look at"):
        return label.replace("look at", "looks at", 1)
    for mine, theirs in (("your ", "their "), ("you ", "they ")):
        label = label.replace(mine, theirs)
    verb, _, rest = label.partition(" ")
    return {"end": "ends", "take": "takes", "place": "places", "move": "moves", "swap": "swaps", "leave": "leaves",
            "stop": "stops", "put": "puts"}.get(verb, verb) + " " + rest


def _cubes(k: int) -> str:
    return f"{k} cube{'' if k == 1 else 's'}"
