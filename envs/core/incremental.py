"""One incremental protocol: how an engine reports what a step changed, and how an observer replays
it or rebuilds (Rattus and Rattus Cartus use it; docs/adding_a_game.md, "Incremental observers").

The engine reports. Its state class derives from :class:`TrackedState` and implements ``play`` and
``redeal`` instead of ``apply`` and ``resample_hidden``. ``apply`` gives the state a new, empty
``changes`` list and one more ``version``, then plays; while it plays, the engine appends an entry for
each thing it changed that an observation shows, in codes of its own (Rattus: ``CUBES + region``;
Rattus Cartus: ``(HAND, seat, item)``). An entry names a place, never a delta: the observer reads the
value there from the state, so repeated entries are harmless. ``resample_hidden`` re-deals and leaves
``changes`` at ``None``: what a re-deal changed is not listed, so it cannot be replayed. Only this
module writes ``version`` and ``changes``, and a subclass that overrides ``apply`` or
``resample_hidden`` is refused when it is defined, so no path can forget them.

The observer replays or rebuilds. It derives from :class:`IncrementalObserver` and implements
``rebuild(state)`` (its table from the state alone), ``replay(state, changes)`` (its table, which showed
the position one apply earlier, brought up to date by the entries) and ``view(seat)`` (a new vector for
``seat`` from its table). ``encode`` replays when it sees the state it last saw one version further on,
with changes listed; it rebuilds for any other state or version; it only views when nothing changed.
``invalidate`` forgets the state (the core calls it after ``restore`` and ``set_position``).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np

from .game import Observer, State


class TrackedState(State):
    """A state that lists what each ``apply`` changed (see the module docstring). A subclass's
    ``__init__`` calls ``super().__init__()``."""

    #: Changes made through the protocol so far (applies and re-deals); a new state starts at 0.
    version: int
    #: What the last ``apply`` changed, in the game's codes; None when the last change was a re-deal.
    changes: list | None

    def __init__(self) -> None:
        self.version = 0
        self.changes = []  # the deal's changes: a new state is rebuilt, never replayed

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("apply", "resample_hidden"):
            if name in vars(cls):
                raise TypeError(f"{cls.__name__} overrides {name}: a TrackedState implements "
                                f"{'play' if name == 'apply' else 'redeal'} instead, so that every change is tracked")

    def apply(self, action: int, rng: np.random.Generator) -> None:
        self.version += 1
        self.changes = []
        self.play(action, rng)

    def resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        self.version += 1
        self.changes = None
        self.redeal(player, rng)

    @abstractmethod
    def play(self, action: int, rng: np.random.Generator) -> None:
        """``apply``'s work: play ``action``, appending to ``self.changes`` what it changed."""

    @abstractmethod
    def redeal(self, player: int, rng: np.random.Generator) -> None:
        """``resample_hidden``'s work: re-deal what ``player`` cannot see."""


class IncrementalObserver(Observer):
    """An observer that keeps a table of what it last encoded (see the module docstring). Observers with
    many attributes declare them in ``__slots__``: past 30 attributes an instance's dict is no longer
    shared with its class's, and every attribute read pays a lookup."""

    __slots__ = ("_state", "_version")  # the state the table shows, and its version then

    def __init__(self, game) -> None:
        super().__init__(game)
        self.invalidate()

    def encode(self, state: TrackedState, seat: int) -> np.ndarray:
        if state.version != self._version or state is not self._state:
            if state.version == self._version + 1 and state is self._state and state.changes is not None:
                self.replay(state, state.changes)
            else:
                self.rebuild(state)
            self._state, self._version = state, state.version
        return self.view(seat)

    def invalidate(self) -> None:
        self._state, self._version = None, -1

    @abstractmethod
    def rebuild(self, state: TrackedState) -> None:
        """The table from ``state`` alone."""

    @abstractmethod
    def replay(self, state: TrackedState, changes: list) -> None:
        """The table, which shows the position one ``apply`` before ``state``, brought up to date by
        ``changes``."""

    @abstractmethod
    def view(self, seat: int) -> np.ndarray:
        """A new vector for ``seat`` from the table."""
