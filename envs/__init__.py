"""hiddenhand environments: one ``<game>_v0`` module per game (PettingZoo AEC)."""

from __future__ import annotations

import importlib
from types import ModuleType

#: Game name -> versioned module (relative to this package).
GAMES = {
    "david_goliath": "david_goliath_v0",
    "koehandel": "koehandel_v0",
}


def load_module(game: str) -> ModuleType:
    """The ``<game>_v0`` module of a game, by name."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; available: {sorted(GAMES)}")
    return importlib.import_module(f"{__name__}.{GAMES[game]}")


def make(game: str, **kwargs):
    """``load_module(game).env(**kwargs)``."""
    return load_module(game).env(**kwargs)
