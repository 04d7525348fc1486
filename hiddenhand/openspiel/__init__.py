"""Every hiddenhand game as an OpenSpiel game (docs/openspiel.md).

>>> from hiddenhand.openspiel import load_game, load_tiny
>>> game = load_game("david_goliath", num_players=3, rounds=1)   # a pyspiel.Game
>>> tiny = load_tiny("david_goliath")                             # small enough for exact CFR

Importing the package registers each game of the registry with OpenSpiel as ``hiddenhand_<name>``
(parameters ``players``, ``chance``, ``reward`` and ``options``, the game's own options as escaped JSON),
so ``pyspiel.load_game`` and OpenSpiel's tools find them too. Needs the optional ``open_spiel`` package
(``pip install 'hiddenhand[openspiel]'``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError("hiddenhand.openspiel needs OpenSpiel: pip install 'hiddenhand[openspiel]' "
                      "(the open_spiel wheel from the package index)") from error

from ..envs.registry import entry
from .bridge import bridge_for, encode_options
from .game import PREFIX, BridgeState, register

#: Game options small enough for exact analysis (CFR, exploitability) in seconds to minutes, by game.
TINY: dict[str, dict[str, Any]] = {
    # DG-5 dummy variant; 2 colours x values 1..3, 2 cards to each of the 3 table seats, 1 round; the
    # card_features and trick_outlook blocks the shipped david_goliath_2p agent was trained with
    "david_goliath": {"num_players": 2, "rounds": 1, "colours": 2, "max_value": 3, "hand_size": 2,
                      "card_features": True, "trick_outlook": True, "chance": "outcomes"},
    # the default duel (a Koehandel starting hand's 7 cards, 3 to each trader), its scores as utilities
    "cow_trade": {"chance": "outcomes", "reward": "score"},
}


def load_game(name: str, *, chance: str = "draws", reward: str = "win_loss", **options: Any) -> pyspiel.Game:
    """The registered game ``name`` with ``options`` (``num_players`` and the game's own) as a
    ``pyspiel.Game``; ``chance`` and ``reward`` are the bridge's settings (see :mod:`.bridge`). Bad options
    raise the game's own ``ConfigError`` naming them."""
    num_players = int(options.pop("num_players", entry(name).default_players))
    bridge_for(name, num_players, options, chance, reward)  # checks everything, with the game's own errors
    return pyspiel.load_game(PREFIX + name, {"players": num_players, "chance": chance, "reward": reward,
                                             "options": encode_options(options)})


def resampler(seed: int | None = None) -> Callable[[BridgeState, int], BridgeState]:
    """A resampler for OpenSpiel's Python ISMCTS bot (``bot.set_resampler(resampler(seed))``): the state
    with everything hidden from the player re-dealt by the game's own ``resample_hidden``."""
    rng = np.random.default_rng(seed)
    return lambda state, player: state.resampled(player, rng)


def load_tiny(name: str, **overrides: Any) -> pyspiel.Game:
    """``name`` in its tiny configuration (:data:`TINY`), with ``overrides``."""
    if name not in TINY:
        raise ValueError(f"no tiny configuration for {name!r}; tiny configurations: {sorted(TINY)}")
    return load_game(name, **(TINY[name] | overrides))


register()

__all__ = ["TINY", "BridgeState", "load_game", "load_tiny", "resampler"]
