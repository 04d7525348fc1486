"""The contract suite: generic tests that every game of the registry gets for free.

Cases come from ``hiddenhand.envs.registry.REGISTRY``: each game at each of its player counts with
default options, plus each of its ``option_sets`` at its default player count. A new game's registry
entry is all it takes to run them.
"""

from __future__ import annotations

import numpy as np
import pytest

import hiddenhand  # noqa: F401  (registers the envs)
from hiddenhand.envs import make
from hiddenhand.envs.registry import REGISTRY
from playing import play_random, trace  # noqa: F401  (the contract tests import them from here)


def _cases() -> list:
    cases = []
    for name, entry in REGISTRY.items():
        for n in entry.player_counts:
            cases.append(pytest.param(name, {"num_players": n}, id=f"{name}-{n}p"))
        for k, options in enumerate(entry.option_sets):
            cases.append(pytest.param(name, {"num_players": entry.default_players, **options},
                                      id=f"{name}-{entry.default_players}p-options{k}"))
    return cases


CASES = _cases()
#: One case per game (its default player count and options), for the slower tests.
GAME_CASES = [pytest.param(name, {"num_players": e.default_players}, id=name) for name, e in REGISTRY.items()]


def played(game: str, options: dict, seed: int, steps: int | None = None, **env_options):
    """An env of ``game`` reset with ``seed`` after ``steps`` seeded random actions (None: to the end)."""
    env = make(game, **options, **env_options)
    env.reset(seed=seed)
    play_random(env, seed, steps=steps)
    return env


def game_length(game: str, options: dict, seed: int = 0) -> int:
    env = make(game, **options)
    env.reset(seed=seed)
    return play_random(env, seed)


def steps_before_end(game: str, options: dict, seed: int, wanted: int) -> int:
    """``wanted`` random actions, or fewer in a game that seeded random play ends sooner (the cow trade
    often ends after three actions): a position where the game still runs."""
    return min(wanted, game_length(game, options, seed) - 1)


#: Positions for the information tests lie within the first this many actions: a re-deal's cost grows
#: with the hidden history (Koehandel's search over long histories can take seconds; see the README).
POSITION_HORIZON = 120


def positions(game: str, options: dict, seed: int, count: int = 4):
    """Envs at ``count`` points spread over the first ``POSITION_HORIZON`` actions of a seeded random game."""
    length = min(game_length(game, options, seed), POSITION_HORIZON)
    for k in range(count):
        env = played(game, options, seed, steps=(length - 1) * k // max(count - 1, 1))
        if env.agents and not env.unwrapped._game_over:
            yield env
