"""``env(observer="reference")``: a game played on its readable specification instead of its fast path.

Every game has ``envs/<game>/reference.py`` with two plain functions, obviously correct and slow:
``observation(state, seat)``, the seat's observation written from scratch block by block from the
layout's named blocks, and ``legal_mask(state)``, the current player's legal actions computed plainly
from the rules. The contract suite requires both to equal the fast observer and ``State.legal_mask``
everywhere; this observer lets anyone run a game on them (debugging, or doubting the fast path).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

import numpy as np

from .game import Game, Observer, State
from .layout import ObservationLayout
from .options import ConfigError


def reference_module(observer_class: type[Observer]) -> ModuleType | None:
    """The ``reference`` module beside ``observer_class``'s game package (``envs/<game>/reference.py``), or
    None if the game has none (an import error inside the module is raised as it is)."""
    name = f"{observer_class.__module__.rpartition('.')[0]}.reference"
    return importlib.import_module(name) if importlib.util.find_spec(name) else None


class ReferenceObserver(Observer):
    """The fast observer's layout, dtype and bounds; the vector written by the reference module."""

    def __init__(self, game: Game, fast_class: type[Observer], where: str = "env"):
        self.fast_class = fast_class
        self.module = reference_module(fast_class)
        if self.module is None:
            raise ConfigError(f"{where}: observer='reference' is not allowed; {game.name} has no reference module "
                              f"(envs/{game.name}/reference.py)")
        super().__init__(game)
        fast = fast_class(game)  # its bounds may depend on the game's options
        self.low, self.high, self.dtype, self.policy_input = fast.low, fast.high, fast.dtype, fast.policy_input

    def build_layout(self, game: Game) -> ObservationLayout:
        return self.fast_class.build_layout(game)

    def encode(self, state: State, player: int) -> np.ndarray:
        return self.module.observation(state, player)

    def legal_mask(self, state: State) -> np.ndarray:
        return self.module.legal_mask(state)

    def __reduce__(self):
        return type(self), (self.game, self.fast_class)
