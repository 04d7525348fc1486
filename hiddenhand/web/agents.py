"""Which agents a web client may seat: an allowlist, never a path.

A seat names ``random``, ``heuristic``, a shipped trained agent that fits the game and player count, or a
search agent (``ismcts``, ``pimc``) with options from a fixed set and bounded budgets, e.g.
``ismcts:iterations=50``. Anything else is refused with a message listing the choices.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hiddenhand.agents import BUILTIN, env_options_for, load, shipped
from hiddenhand.agents.search import ALGORITHMS
from hiddenhand.agents.search.common import parse_spec
from hiddenhand.envs import make as make_env

#: Search options a client may set, with their largest value (budgets) or allowed values.
SEARCH_BUDGETS = {"iterations": 2000, "determinizations": 64, "rollouts": 64, "redeals": 64, "horizon": 1000}
SEARCH_CHOICES = {"value": ("margin", "win", "estimate"), "rollout": ("random", "heuristic"),
                  "opponents": ("ucb", "policy")}
HUMAN = "human"


@lru_cache(maxsize=64)
def choices(game: str, players: int) -> tuple[str, ...]:
    """The agent names offered for ``game`` with ``players`` players: the built-in ones and every shipped
    agent that loads for it, in an env with the options it was trained with (:func:`env_options`)."""
    fitting = []
    for name in shipped():
        try:
            options = env_options_for([name])
            load(name, make_env(game, num_players=players, **options).unwrapped.game)
        except ValueError:  # trained for another game, player count or observation
            continue
        fitting.append(name)
    return (*BUILTIN, *fitting)


def env_options(lineup: list[str]) -> dict[str, Any]:
    """The env options the shipped agents of ``lineup`` need (e.g. ``card_features``); ``ValueError`` when
    two of them need different values."""
    return env_options_for([spec for spec in lineup if spec != HUMAN])


def check(spec: Any, game: str, players: int) -> str:
    """``spec`` if a client may seat it in this game; ``ValueError`` naming the problem otherwise."""
    allowed = choices(game, players)
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a seat is 'human' or an agent name, got {spec!r}")
    if spec in allowed:
        return spec
    name, options = parse_spec(spec)  # a ConfigError (ValueError) names a malformed spec
    if name not in ALGORITHMS:
        raise ValueError(f"unknown agent {spec!r} for {game} with {players} players; choose one of {list(allowed)}")
    for key, value in options.items():
        if key == "horizon" and (value is None or value == "round"):
            continue
        if key in SEARCH_BUDGETS:
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= SEARCH_BUDGETS[key]:
                raise ValueError(f"agent {spec!r}: {key} must be an integer 1..{SEARCH_BUDGETS[key]}")
        elif key == "rollout":
            if value not in SEARCH_CHOICES["rollout"] and value not in allowed[len(BUILTIN):]:
                raise ValueError(f"agent {spec!r}: rollout must be one of "
                                 f"{[*SEARCH_CHOICES['rollout'], *allowed[len(BUILTIN):]]}")
        elif key in SEARCH_CHOICES:
            if value not in SEARCH_CHOICES[key]:
                raise ValueError(f"agent {spec!r}: {key} must be one of {list(SEARCH_CHOICES[key])}")
        else:
            raise ValueError(f"agent {spec!r}: option {key!r} cannot be set from the web; allowed: "
                             f"{sorted([*SEARCH_BUDGETS, *SEARCH_CHOICES])}")
    return spec

