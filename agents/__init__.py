"""Agents: one interface (``act(observation, action_mask)``, ``reset()``) for every kind.

``load(name_or_path, game)`` returns a ready agent: ``random``, ``heuristic``, a search agent (``pimc``,
``ismcts``, or a spec string such as ``"ismcts:iterations=400:rollout=heuristic"``; options may also be given
as keywords, ``load("ismcts", game, iterations=400)``; see :mod:`hiddenhand.agents.search`), the name of a
shipped trained agent (a file in ``agents/trained/``, e.g. ``david_goliath_4p``; names never lead outside that
folder) or the explicit path of an agent file.

Agents that need the env (search agents) get it through ``agent.bind(env, agent_id)``, which every game loop
calls before a game for every agent (a no-op for the others).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from hiddenhand.envs import load_module
from hiddenhand.envs.core.game import Game
from hiddenhand.envs.registry import entry

from .base import Agent, RandomAgent, bind_agents, play_decisions
from .search import ALGORITHMS as SEARCH_ALGORITHMS
from .search import is_search_spec, make_search_agent
from .trained import AgentFileError, PolicyAgent, load_policy, save_policy

BUILTIN = ("random", "heuristic", *SEARCH_ALGORITHMS)
TRAINED_DIR = Path(__file__).parent / "trained"
_BARE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def shipped() -> list[str]:
    """Names of the trained agents that ship with the package."""
    return sorted(path.stem for path in TRAINED_DIR.glob("*.npz"))


def resolve(name_or_path: str | os.PathLike) -> Path:
    """The file an agent name or path stands for.

    A bare name (letters, digits, ``_``, ``-`` and ``.``, no path separator, not starting with ``.``)
    names a shipped agent: ``agents/trained/<name>.npz``, and nothing outside that folder (never a file
    in the working directory). Anything else (a path with a separator, or ending in ``.npz``) is taken
    literally as the path of an agent file. ``ValueError`` naming the built-in and shipped agents when
    neither exists.
    """
    text = os.fspath(name_or_path)
    if not isinstance(text, str):
        raise ValueError(f"an agent name or path must be a string, got {type(text).__name__}")
    if _BARE_NAME.fullmatch(text) and not text.endswith(".npz"):
        path = TRAINED_DIR / f"{text}.npz"
        # a symlink in the folder must not lead out of it
        if path.is_file() and path.resolve().parent == TRAINED_DIR.resolve():
            return path
        raise ValueError(f"unknown agent {text!r}: not one of {list(BUILTIN)} nor a shipped agent {shipped()}; "
                         f"a bare name never reads the working directory: to load a file, give its path "
                         f"(e.g. ./{text})")
    path = Path(text)
    if not path.is_file():
        raise ValueError(f"unknown agent {text!r}: no such agent file (names of shipped agents: {shipped()}; "
                         f"other agents are given by the path of their .npz file)")
    return path


def load(name_or_path: str, game: Game | None = None, seed: int | None = None, **options) -> Agent:
    """A ready agent. Built-in names and search specs need ``game`` (e.g. ``env.unwrapped.game``);
    ``options`` are a search agent's (e.g. ``iterations=400``). For trained agents ``game``, when given, is
    checked against what the agent was trained for: game, player count, observation size (first layer)
    and action count (last layer)."""
    if is_search_spec(name_or_path):
        if game is None:
            raise ValueError(f"agent {name_or_path!r} needs the game it will play")
        return make_search_agent(name_or_path, game, seed, **options)
    if options:
        raise ValueError(f"agent {name_or_path!r} takes no options (got {sorted(options)}); only search agents "
                         f"{sorted(SEARCH_ALGORITHMS)} do")
    if isinstance(name_or_path, str) and name_or_path in BUILTIN:
        if game is None:
            raise ValueError(f"agent {name_or_path!r} needs the game it will play")
        return _builtin(name_or_path, game, seed)
    path = resolve(name_or_path)
    agent = load_policy(path, seed=seed)
    if game is not None:
        size = load_module(game.name).raw_env.observer_class.build_layout(game).size
        try:
            agent.check_compatible(game.name, game.num_players, size, game.num_actions)
        except AgentFileError as error:
            raise AgentFileError(f"{path}: {error}") from None
    return agent


def env_options_for(names: list[str]) -> dict:
    """The env options the trained agents among ``names`` were trained with (player count and reward
    mode aside), so that they are evaluated on the observations they know. Conflicts are an error."""
    options: dict = {}
    for name in dict.fromkeys(names):
        if name in BUILTIN or is_search_spec(name):
            continue
        trained = load(name).metadata.get("env_options", {})
        for key, value in trained.items():
            if key in ("num_players", "reward_mode"):
                continue
            if options.setdefault(key, value) != value:
                raise ValueError(f"agents disagree on env option {key!r}: {options[key]!r} vs {value!r} ({name})")
    return options


def make(name: str, game: Game, seed: int | None = None, **options) -> Agent:
    """Alias of :func:`load` with the game required."""
    return load(name, game, seed, **options)


def _builtin(name: str, game: Game, seed: int | None) -> Agent:
    if name == "random":
        return RandomAgent(seed)
    return entry(game.name).heuristic_class()(game, seed=seed)


__all__ = ["Agent", "AgentFileError", "PolicyAgent", "RandomAgent", "bind_agents", "play_decisions", "env_options_for", "load", "load_policy", "make",
           "resolve", "save_policy", "shipped"]
