"""A :class:`~envs.core.game.Game` whose actions are one :class:`~envs.core.actions.ActionLayout` and whose
options recreate it: what such games share, written once.

A subclass sets ``state_class`` (its ``State``, built as ``state_class(game)`` and dealt by
``state.setup(rng)``) and, in ``__init__``, ``self.layout``. It gets the action count, names and parsing
from the layout, new and blank states, shared read-only legal masks, and pickling by rebuilding the game
from ``config()`` (layouts hold lambdas).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .actions import ActionLayout
from .game import Game, State

#: Distinct masks a game keeps before starting its cache afresh (most masks recur; this bounds memory).
MASK_CACHE_SIZE = 20_000


class LayoutGame(Game):
    """Actions from ``self.layout``; states of ``state_class``."""

    state_class: ClassVar[type[State]]
    layout: ActionLayout

    def __init__(self, num_players: int):
        super().__init__(num_players)
        self._masks: dict[tuple[int, ...], np.ndarray] = {}

    @property
    def num_actions(self) -> int:
        return self.layout.size

    def new_initial_state(self, rng: np.random.Generator) -> State:
        state = self.blank_state()
        state.setup(rng)
        return state

    def blank_state(self) -> State:
        """A state before the deal (every field at its initial value), for ``state_from_json`` to fill."""
        return self.state_class(self)

    def action_to_string(self, action: int) -> str:
        return self.layout.names[action]

    def string_to_action(self, text: str) -> int:
        return self.layout.parse(text)

    def mask_of(self, actions: tuple[int, ...]) -> np.ndarray:
        """A shared read-only int8 mask with ``actions`` set (cached: most masks recur)."""
        mask = self._masks.get(actions)
        if mask is None:
            if len(self._masks) >= MASK_CACHE_SIZE:
                self._masks.clear()
            buffer = bytearray(self.layout.size)
            for action in actions:
                buffer[action] = 1
            mask = self._masks[actions] = np.frombuffer(bytes(buffer), np.int8)  # read-only
        return mask

    def __reduce__(self):
        """Pickles and copies rebuild the game from its options."""
        return _rebuild, (type(self), self.config())


def _rebuild(cls: type[LayoutGame], config: dict[str, Any]) -> LayoutGame:
    return cls(**config)
