"""Agents: one interface (``act(observation, action_mask)``, ``reset()``) for every kind.

``load(name_or_path, game)`` returns a ready agent: ``random``, ``heuristic``, the name of a shipped
trained agent (a file in ``agents/trained/``, e.g. ``david_goliath_4p``) or the path of an agent file.
"""

from __future__ import annotations

from pathlib import Path

from hiddenhand.envs import load_module
from hiddenhand.envs.core.game import Game
from hiddenhand.envs.registry import entry

from .base import Agent, RandomAgent
from .trained import AgentFileError, PolicyAgent, load_policy, save_policy

BUILTIN = ("random", "heuristic")
TRAINED_DIR = Path(__file__).parent / "trained"


def shipped() -> list[str]:
    """Names of the trained agents that ship with the package."""
    return sorted(path.stem for path in TRAINED_DIR.glob("*.npz"))


def load(name_or_path: str, game: Game | None = None, seed: int | None = None) -> Agent:
    """A ready agent. Built-in names need ``game`` (e.g. ``env.unwrapped.game``); for trained agents
    ``game``, when given, is checked against what the agent was trained for."""
    if name_or_path in BUILTIN:
        if game is None:
            raise ValueError(f"agent {name_or_path!r} needs the game it will play")
        return _builtin(name_or_path, game, seed)
    path = TRAINED_DIR / f"{name_or_path}.npz"
    if not path.is_file():
        path = Path(name_or_path)
        if not path.is_file():
            raise ValueError(
                f"unknown agent {name_or_path!r}: not one of {list(BUILTIN)}, not a shipped agent "
                f"{shipped()}, and no such file"
            )
    agent = load_policy(path, seed=seed)
    if game is not None:
        size = load_module(game.name).raw_env.observer_class.build_layout(game).size
        agent.check_compatible(game.name, game.num_players, size)
    return agent


def env_options_for(names: list[str]) -> dict:
    """The env options the trained agents among ``names`` were trained with (player count and reward
    mode aside), so that they are evaluated on the observations they know. Conflicts are an error."""
    options: dict = {}
    for name in dict.fromkeys(names):
        if name in BUILTIN:
            continue
        trained = load(name).metadata.get("env_options", {})
        for key, value in trained.items():
            if key in ("num_players", "reward_mode"):
                continue
            if options.setdefault(key, value) != value:
                raise ValueError(f"agents disagree on env option {key!r}: {options[key]!r} vs {value!r} ({name})")
    return options


def make(name: str, game: Game, seed: int | None = None) -> Agent:
    """Alias of :func:`load` with the game required."""
    return load(name, game, seed)


def _builtin(name: str, game: Game, seed: int | None) -> Agent:
    if name == "random":
        return RandomAgent(seed)
    return entry(game.name).heuristic_class()(game, seed=seed)


__all__ = ["Agent", "AgentFileError", "PolicyAgent", "RandomAgent", "env_options_for", "load", "load_policy", "make",
           "save_policy", "shipped"]
