"""Snapshot field schemas: each state field declared once with its kind and range, so a game's
``to_json`` copies the fields and its ``state_from_json`` checks every one (``SnapshotError`` naming the
game, the field and the problem).

Kinds: ``("int", low, high)``, ``("bool",)``, ``("ints", length or None, low, high)``, ``("bools", length)``,
``("grid", rows or None, length or None, low, high)``, ``("lists", rows, low, high)`` (rows of any
length), ``("boolgrid", rows, length)``, ``("cube", tables, rows, length or None, low, high)``.
"""

from __future__ import annotations

from typing import Any

from .game import SnapshotError

Schema = dict[str, tuple]


def is_int(value: Any) -> bool:
    """An int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def copy_lists(value: Any) -> Any:
    """``value`` with every nested list copied."""
    return [copy_lists(v) for v in value] if isinstance(value, list) else value


def dump_fields(state: Any, schema: Schema) -> dict[str, Any]:
    """The schema's fields of ``state`` as JSON data (lists copied)."""
    return {key: copy_lists(getattr(state, key)) for key in schema}


def load_fields(game_name: str, state: Any, schema: Schema, data: Any) -> Any:
    """Check ``data`` against ``schema`` (no key missing or unknown, each value's kind and range) and set
    the fields on ``state``; returns it."""
    if not isinstance(data, dict):
        raise SnapshotError(f"{game_name}: state must be a dict, got {type(data).__name__}")
    missing, unknown = sorted(set(schema) - set(data)), sorted(set(data) - set(schema))
    if missing or unknown:
        raise SnapshotError(f"{game_name}: state " + "; ".join(
            [f"lacks {missing}"] * bool(missing) + [f"has unknown key(s) {unknown}"] * bool(unknown)))
    for key, spec in schema.items():
        setattr(state, key, check_field(game_name, key, data[key], spec))
    return state


def check_field(game_name: str, key: str, value: Any, spec: tuple) -> Any:
    """``value`` checked against ``spec`` (a copy of its lists); ``SnapshotError`` naming what is wrong."""
    kind = spec[0]

    def fail(what: str) -> SnapshotError:
        return SnapshotError(f"{game_name}: state {key} {what}")

    def ints(seq: Any, length: int | None, low: int, high: int, where: str) -> list[int]:
        if not isinstance(seq, list) or (length is not None and len(seq) != length):
            raise fail(f"{where}must be a list of {length if length is not None else 'any number of'} ints, "
                       f"got {seq!r:.80}")
        for i, v in enumerate(seq):
            if not is_int(v) or not low <= v <= high:
                raise fail(f"{where}[{i}] is {v!r}, not an int in {low}..{high}")
        return list(seq)

    def bools(seq: Any, length: int, where: str) -> list[bool]:
        if not isinstance(seq, list) or len(seq) != length or not all(isinstance(v, bool) for v in seq):
            raise fail(f"{where}must be a list of {length} bools, got {seq!r:.80}")
        return list(seq)

    def rows(count: int | None, what: str = "rows") -> None:
        if not isinstance(value, list) or (count is not None and len(value) != count):
            raise fail(f"must be a list of {count} {what}, got {value!r:.80}")

    if kind == "int":
        if not is_int(value) or not spec[1] <= value <= spec[2]:
            raise fail(f"is {value!r}, not an int in {spec[1]}..{spec[2]}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise fail(f"is {value!r}, not a bool")
        return value
    if kind == "ints":
        return ints(value, spec[1], spec[2], spec[3], "")
    if kind == "bools":
        return bools(value, spec[1], "")
    if kind == "grid":
        rows(spec[1])
        return [ints(row, spec[2], spec[3], spec[4], f"[{i}] ") for i, row in enumerate(value)]
    if kind == "lists":
        rows(spec[1], "lists")
        return [ints(row, None, spec[2], spec[3], f"[{i}] ") for i, row in enumerate(value)]
    if kind == "boolgrid":
        rows(spec[1])
        return [bools(row, spec[2], f"[{i}] ") for i, row in enumerate(value)]
    if kind == "cube":
        rows(spec[1], "tables")
        out = []
        for i, table in enumerate(value):
            if not isinstance(table, list) or len(table) != spec[2]:
                raise fail(f"[{i}] must be a list of {spec[2]} rows")
            out.append([ints(row, spec[3], spec[4], spec[5], f"[{i}][{j}] ") for j, row in enumerate(table)])
        return out
    raise ValueError(f"{game_name}: unknown schema kind {kind!r} for state field {key!r}")
