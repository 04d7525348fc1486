"""hiddenhand environments: one ``<game>_v0`` module per game (PettingZoo AEC), declared in
:mod:`hiddenhand.envs.registry`."""

from __future__ import annotations

from types import ModuleType

from .registry import REGISTRY, entry


def load_module(game: str) -> ModuleType:
    """The ``<game>_v0`` module of a registered game, by name."""
    return entry(game).module()


def make(game: str, **kwargs):
    """``load_module(game).env(**kwargs)``."""
    return load_module(game).env(**kwargs)


__all__ = ["REGISTRY", "entry", "load_module", "make"]
