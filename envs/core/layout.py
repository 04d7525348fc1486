"""Named slices of a flat observation vector (OpenSpiel's observer tensor views)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


class ObservationLayout:
    """A flat float32 vector split into named, shaped blocks.

    >>> layout = ObservationLayout([("hand", (90,)), ("seats", (4, 96))])
    >>> layout.size, layout.slices["seats"]
    (474, slice(90, 474, None))
    """

    def __init__(self, blocks: Sequence[tuple[str, tuple[int, ...]]]):
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.slices: dict[str, slice] = {}
        start = 0
        for name, shape in blocks:
            if name in self.shapes:
                raise ValueError(f"duplicate observation block {name!r}")
            size = math.prod(shape)
            self.shapes[name] = tuple(shape)
            self.slices[name] = slice(start, start + size)
            start += size
        self.size = start

    def offset(self, name: str) -> int:
        return self.slices[name].start

    def view(self, observation: np.ndarray, name: str) -> np.ndarray:
        """The block ``name`` of ``observation``, reshaped (a view, not a copy)."""
        return observation[self.slices[name]].reshape(self.shapes[name])

    def views(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        return {name: self.view(observation, name) for name in self.shapes}

    def describe(self) -> str:
        """A table of the blocks, for docs and ``--help`` output."""
        rows = [f"{name:<16} {s.start:>6}:{s.stop:<6} {self.shapes[name]}" for name, s in self.slices.items()]
        return "\n".join(rows)
