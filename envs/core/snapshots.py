"""Snapshot data: the format, the checks of the parts that are not derived by replay, and old formats.

A snapshot (format 2) is ``format``, ``game``, ``num_players``, ``config``, ``origin``, ``history``,
``state``, ``rng`` and ``aec``. The **origin** is where play started: ``{"rng": ...}``, the RNG just before
the deal (after ``reset``), or ``{"state": ..., "rng": ..., "aec": ...}``, an explicit position (after
``set_position``, in a re-dealt copy, or an old snapshot). ``restore`` rebuilds the origin, replays
``history`` from it and requires the result to equal ``state``, ``rng`` and ``aec``; so everything but
the origin is derived, and only the origin is checked field by field (this module, the game's
``state_from_json`` and ``invariants``, and the env's AEC checks). A state written by an older revision
of its game is brought to today's form first (:func:`upgraded_states`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .game import Game, SnapshotError

SNAPSHOT_FORMAT = "hiddenhand-snapshot/2"
#: Format 1 had no origin; its history restarted at ``set_position`` and in re-dealt copies.
FORMAT_1 = "hiddenhand-snapshot/1"
SNAPSHOT_KEYS = ("format", "game", "num_players", "config", "origin", "history", "state", "rng", "aec")
AEC_KEYS = ("rewards", "cumulative_rewards", "terminations", "truncations", "infos", "game_over", "steps",
            "illegal_action", "agents", "agent_selection", "skip_agent_selection")
DEALT_ORIGIN_KEYS = ("rng",)
POSITION_ORIGIN_KEYS = ("state", "rng", "aec")
#: In an origin upgraded from format 1: the actions that snapshot recorded, played before the origin
#: (kept, never replayed: format 1 did not say where they started).
PLAYED_BEFORE = "played_before"
_PCG64_KEYS = ("bit_generator", "state", "has_uint32", "uinteger")


def fail(name: str, problem: str) -> SnapshotError:
    return SnapshotError(f"{name}: snapshot {problem}")


def require_keys(name: str, where: str, data: Any, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    """``data`` as a dict holding every key of ``keys`` and nothing but them and ``optional``."""
    if not isinstance(data, dict):
        raise fail(name, f"{where} must be a dict, got {type(data).__name__}")
    missing = [key for key in keys if key not in data]
    unknown = sorted(repr(key) for key in data if key not in keys and key not in optional)
    if missing or unknown:
        raise fail(name, f"{where} " + "; ".join([f"lacks {missing}"] * bool(missing)
                                                  + [f"has unknown key(s) {', '.join(unknown)}"] * bool(unknown))
                   + f" (keys: {list(keys + optional)})")
    return data


def checked_rng(name: str, where: str, data: Any) -> np.random.Generator:
    """A generator in the PCG64 state ``data`` (``bit_generator.state``), every field checked: the exact
    keys, ints (never bools) in range, an odd increment; ``SnapshotError`` naming the field otherwise."""
    data = require_keys(name, where, data, _PCG64_KEYS)
    if data["bit_generator"] != "PCG64":
        raise fail(name, f"{where}.bit_generator is {data['bit_generator']!r}, not 'PCG64'")
    inner = require_keys(name, f"{where}.state", data["state"], ("state", "inc"))
    for field, value, high in ((f"{where}.state.state", inner["state"], 2**128 - 1),
                               (f"{where}.state.inc", inner["inc"], 2**128 - 1),
                               (f"{where}.has_uint32", data["has_uint32"], 1),
                               (f"{where}.uinteger", data["uinteger"], 2**32 - 1)):
        if value.__class__ is not int or not 0 <= value <= high:
            raise fail(name, f"{field} is {value!r:.60}, not an int in 0..{high}")
    if not inner["inc"] % 2:
        raise fail(name, f"{where}.state.inc is even; a PCG64 increment is odd")
    rng = np.random.default_rng()
    rng.bit_generator.state = data
    return rng


def checked_actions(name: str, where: str, actions: Any, num_actions: int, most: int) -> list[int]:
    """``actions`` as a list of at most ``most`` action ids (ints, never bools)."""
    if not isinstance(actions, list):
        raise fail(name, f"{where} must be a list of action ids, got {type(actions).__name__}")
    if len(actions) > most:
        raise fail(name, f"{where} holds {len(actions)} actions, more than {most} (the most that fit here)")
    for index, action in enumerate(actions):
        if action.__class__ is not int or not 0 <= action < num_actions:
            raise fail(name, f"{where}[{index}] is {action!r:.60}, not an action id 0..{num_actions - 1}")
    return list(actions)


def is_finite_number(value: Any) -> bool:
    """An int or a finite float (never a bool, a numpy integer or an array)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def json_copy(value: Any) -> Any:
    """A copy of JSON data sharing no dict or list with it (tuples become lists); several times faster
    than ``copy.deepcopy`` on the small dicts of a snapshot."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_copy(item) for item in value]
    return value


def difference(given: Any, expected: Any, path: str) -> str | None:
    """Where ``given`` first differs from the JSON data ``expected`` (types strict: ``1``, ``1.0`` and
    ``True`` differ; a tuple counts as a list), or None. Linear in the data."""
    if isinstance(expected, dict):
        if not isinstance(given, dict):
            return f"{path} is {type(given).__name__}, expected a dict"
        if given.keys() != expected.keys():
            missing = [key for key in expected if key not in given]
            unknown = sorted(repr(key) for key in given if key not in expected)
            return f"{path} " + "; ".join([f"lacks {missing}"] * bool(missing)
                                          + [f"has unknown key(s) {', '.join(unknown)}"] * bool(unknown))
        for key, value in expected.items():
            found = difference(given[key], value, f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(given, (list, tuple)):
            return f"{path} is {type(given).__name__}, expected a list"
        if len(given) != len(expected):
            return f"{path} holds {len(given)} items, expected {len(expected)}"
        for index, (item, value) in enumerate(zip(given, expected)):
            found = difference(item, value, f"{path}[{index}]")
            if found:
                return found
        return None
    if _kind(given) is not _kind(expected) or given != expected:
        return f"{path} is {given!r:.60}, expected {expected!r:.60}"
    return None


def _kind(value: Any) -> type:
    """A JSON scalar's kind: bool, int and float are three (numpy's float64, a float, is a float)."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind
    return value.__class__


def as_position(snapshot: dict) -> dict:
    """``snapshot`` (format 2) with its current position as an explicit origin and an empty history: the
    same position, checked by the game's state checks alone instead of by replay (a test of those checks,
    or a position to hand on without its history)."""
    position = {"state": snapshot["state"], "rng": snapshot["rng"], "aec": snapshot["aec"]}
    return {**snapshot, "origin": position, "history": []}


def upgraded_states(game: Game, snapshot: dict) -> dict:
    """``snapshot`` with its ``state`` and an explicit origin's as this revision writes them
    (:meth:`~.game.Game.upgraded_state`), copied where they change."""
    snapshot = {**snapshot, "state": game.upgraded_state(snapshot["state"])}
    origin = snapshot["origin"]
    if isinstance(origin, dict) and "state" in origin:
        snapshot["origin"] = {**origin, "state": game.upgraded_state(origin["state"])}
    return snapshot


def upgraded(name: str, snapshot: dict) -> dict:
    """A format-1 snapshot as format 2: its position becomes the origin (its history, kept as the origin's
    ``played_before``, cannot be replayed) and the game-ending illegal action moves into ``aec``."""
    keys = tuple(key for key in SNAPSHOT_KEYS if key != "origin")
    require_keys(name, "(format 1)", snapshot, keys)
    aec = snapshot["aec"]
    if isinstance(aec, dict) and "illegal_action" not in aec:
        infos = aec.get("infos")
        ended = [info["illegal_action"] for info in (infos.values() if isinstance(infos, dict) else ())
                 if isinstance(info, dict) and "illegal_action" in info]
        aec = {**aec, "illegal_action": ended[0] if ended else None}
    upgrade = as_position({**snapshot, "format": SNAPSHOT_FORMAT, "aec": aec})
    upgrade["origin"][PLAYED_BEFORE] = snapshot["history"]
    return upgrade
