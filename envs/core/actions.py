"""Action layouts: one Discrete space made of named, shaped ranges (OpenSpiel-style action ids).

A game lists its ranges once; the layout gives every action an id, a name, and back:

>>> layout = ActionLayout([
...     ActionRange("pass", label=lambda: "PASS"),
...     ActionRange("play", (2, 3), label=lambda colour, value: f"{'RB'[colour]}{value + 1}"),
... ])
>>> layout.size, layout.encode("play", 1, 2), layout.decode(6), layout.name(6), layout.parse("r2")
(7, 6, ('play', (1, 2)), 'B3', 2)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ActionRange:
    """``math.prod(shape)`` consecutive actions; ``label(*index)`` names one of them."""

    name: str
    shape: tuple[int, ...] = ()
    label: Callable[..., str] | None = None

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class ActionLayout:
    """Consecutive named ranges of action ids; see the module docstring."""

    def __init__(self, ranges: Sequence[ActionRange]):
        self.ranges: dict[str, ActionRange] = {}
        self.starts: dict[str, int] = {}
        start = 0
        for rng in ranges:
            if rng.name in self.ranges:
                raise ValueError(f"duplicate action range {rng.name!r}")
            self.ranges[rng.name] = rng
            self.starts[rng.name] = start
            start += rng.size
        self.size = start
        self._owner = np.repeat(np.arange(len(ranges)), [r.size for r in ranges])
        self._order = list(self.ranges)
        self.names: list[str] = [self._label(a) for a in range(self.size)]
        self._by_key = {_key(name): action for action, name in enumerate(self.names)}

    def start(self, name: str) -> int:
        return self.starts[name]

    def stop(self, name: str) -> int:
        return self.starts[name] + self.ranges[name].size

    def encode(self, name: str, *index: int) -> int:
        """The id of action ``index`` of range ``name`` (row-major over its shape)."""
        rng = self.ranges[name]
        if len(index) != len(rng.shape) or any(not 0 <= i < n for i, n in zip(index, rng.shape)):
            raise ValueError(f"action {name}{tuple(index)} is outside the range's shape {rng.shape}")
        offset = 0
        for i, n in zip(index, rng.shape):
            offset = offset * n + i
        return self.starts[name] + offset

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """``(range name, index)`` of an action id."""
        if not 0 <= action < self.size:
            raise ValueError(f"action {action} is outside 0..{self.size - 1}")
        name = self._order[self._owner[action]]
        rng = self.ranges[name]
        return name, tuple(int(i) for i in np.unravel_index(action - self.starts[name], rng.shape)) if rng.shape else ()

    def name(self, action: int) -> str:
        return self.names[action]

    def parse(self, text: str, aliases: Iterable[tuple[str, int]] = ()) -> int:
        """The action a human typed: its name (case and spaces ignored), an alias, or its id."""
        key = _key(text)
        if key in self._by_key:
            return self._by_key[key]
        for alias, action in aliases:
            if _key(alias) == key:
                return action
        if key.isdigit() and int(key) < self.size:
            return int(key)
        examples = ", ".join(self.names[self.starts[name]] for name in self._order[:3])
        raise ValueError(f"no action named {text!r}; names look like {examples}, or give an id 0..{self.size - 1}")

    def _label(self, action: int) -> str:
        name, index = self.decode(action)
        label = self.ranges[name].label
        if label is None:
            return name.upper() + (f"({','.join(map(str, index))})" if index else "")
        return label(*index)


def _key(text: str) -> str:
    return text.strip().lower().replace(" ", "")
