"""Agents: one interface (``act(observation, action_mask)``, ``reset()``) for every kind.

``make("random" | "heuristic", game)`` builds a baseline for a configured game (a ``Game`` object,
e.g. ``env.unwrapped.game``).
"""

from __future__ import annotations

import importlib

from hiddenhand.envs.core.game import Game

from .base import Agent, RandomAgent

#: Game name -> "module:class" of its heuristic baseline.
HEURISTICS = {
    "david_goliath": "hiddenhand.agents.heuristics.david_goliath:DavidGoliathHeuristic",
}
BUILTIN = ("random", "heuristic")


def make(name: str, game: Game, seed: int | None = None) -> Agent:
    """A built-in agent for ``game``: ``random`` or ``heuristic``."""
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        if game.name not in HEURISTICS:
            raise ValueError(f"no heuristic agent for game {game.name!r}")
        module, cls = HEURISTICS[game.name].split(":")
        return getattr(importlib.import_module(module), cls)(game, seed=seed)
    raise ValueError(f"unknown agent {name!r}; built-in agents: {list(BUILTIN)}")


__all__ = ["Agent", "RandomAgent", "make"]
