"""Expert-iteration presets (``configs/train/expert/``): YAML -> a validated, immutable :class:`ExpertConfig`.

Keys left out take the defaults below; every problem is a ``ConfigError`` naming the file, the dotted key
and what is allowed (the rules of :mod:`hiddenhand.training.config`, whose reader and checks this reuses).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from hiddenhand import envs
from hiddenhand.agents import load as load_agent
from hiddenhand.agents.search import ALGORITHMS, PUCTAgent, is_search_spec, parse_spec
from hiddenhand.envs.core.options import ConfigError

from ..config import (BASELINES, PRESET_DIR as SB3_PRESET_DIR, EvalConfig, _build, _field, init_agent, read_config_file,
                      set_dotted)
from ..config import presets as base_presets

PRESET_DIR = SB3_PRESET_DIR / "expert"
#: Keys a resumed run may change without ``force``: run more (or fewer) iterations.
RESUMABLE = ("iterations",)


@dataclass(frozen=True)
class SelfPlayGames:
    """The games each iteration plays: search in one seat (rotating) at least, each other seat a baseline
    with probability ``baseline_prob`` and else the search too. Only the searching seats' decisions are
    learned, labelled by the search."""

    games: int = _field(40, min=1, max=100_000)
    baseline_prob: float = _field(0.0, min=0, max=1)
    baselines: list[str] = _field(["heuristic"], choices=BASELINES, nonempty=True)
    #: Processes playing the games (the records do not depend on it).
    workers: int = _field(2, min=1, max=256)
    #: Who moves in the searching seats once there is a network: ``search`` (expert iteration), or
    #: ``network``, the latest network, the search only labelling each of its decisions (DAgger, Ross et
    #: al. 2011: the network learns the positions its own play reaches).
    plays: str = _field("search", choices=("search", "network"))


@dataclass(frozen=True)
class NetworkConfig:
    """The policy-value network: a trunk of ``net_arch`` layers, the policy head (one logit per action) and
    a value head of ``value_arch`` layers then one ``tanh`` output, all on the trunk's last layer.

    ``kind: per_action`` shares one scorer over the actions (for games whose observation has blocks laid
    out per action, such as David & Goliath's cards): each action's ``net_arch[0]`` units read that
    action's entries of those blocks, the whole observation and a learned embedding of the action, and
    its logit is a shared linear function of its units (see :mod:`.network`)."""

    kind: str = _field("mlp", choices=("mlp", "per_action"))
    net_arch: list[int] = _field([256, 256], min=1, max=8192, nonempty=True, max_len=16)
    value_arch: list[int] = _field([64], min=1, max=8192, max_len=8)
    activation: str = _field("tanh", choices=("tanh", "relu"))


@dataclass(frozen=True)
class FitConfig:
    """How the network learns each iteration, from the positions of the last ``window`` iterations."""

    window: int = _field(4, min=1, max=1000)
    epochs: int = _field(4, min=1, max=1000)
    batch_size: int = _field(256, min=2, max=1_000_000)
    learning_rate: float = _field(1e-3, gt=0, max=1)
    weight_decay: float = _field(1e-5, min=0, max=1)
    #: The value target: ``(1 - value_mix) * the seat's final reward + value_mix * the search's value``.
    value_mix: float = _field(0.5, min=0, max=1)
    value_weight: float = _field(1.0, min=0, max=100)


@dataclass(frozen=True)
class ExpertConfig:
    """An expert-iteration run: ``env`` as for ``hiddenhand.envs.make(game, **env)``."""

    game: str = field(metadata={"choices": tuple(envs.REGISTRY)})
    env: dict = field(default_factory=dict)
    seed: int = _field(0, min=0, max=2**31 - 1)
    iterations: int = _field(10, min=1, max=1_000_000)
    #: The teacher of the first iteration (no network yet): a search spec, e.g. PUCT with a uniform prior
    #: and rollouts, ``"puct:leaf=rollout:horizon=4:value=estimate:rollout=heuristic"``, or ISMCTS, PIMC.
    search: str = _field("puct:leaf=rollout:value=win")
    #: The search of the later iterations, given the latest network (``network=`` is added); ``"none"``:
    #: the first teacher throughout (the network then only learns from it).
    guided_search: str = _field("puct")
    #: A trained agent (shipped name or file) whose policy layers start the network (its value head starts
    #: fresh), so the first iteration already searches with it (``"none"``: a random start, the first
    #: iteration taught by ``search``). Its layers must fit an ``mlp`` of ``network.net_arch``.
    init_from: str = _field("none")
    torch_threads: int = _field(1, min=1, max=256)
    self_play: SelfPlayGames = field(default_factory=SelfPlayGames)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    fit: FitConfig = field(default_factory=FitConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable dict. ``init_from`` appears only when set, so that runs recorded before it
        existed resume unchanged."""
        data = dataclasses.asdict(self)
        if data["init_from"] == "none":
            del data["init_from"]
        return data

    def first_network(self) -> str | None:
        """The network the first iteration's search reads: ``init_from``, if set."""
        return None if self.init_from == "none" else self.init_from

    def teacher(self, network: str | None) -> tuple[str, dict[str, Any]]:
        """(search spec, keyword options) of an iteration: the first teacher without a network (or with
        ``guided_search: none``), else the guided search reading ``network``."""
        if network is None or self.guided_search == "none":
            return self.search, {}
        return self.guided_search, {"network": network}


def action_blocks(layout, actions: int) -> list[str]:
    """The observation blocks laid out per action (their last dimension is the number of actions)."""
    return [name for name, shape in layout.shapes.items() if shape[-1] == actions]


def presets() -> list[str]:
    return base_presets(PRESET_DIR)


def load_config(path: str | os.PathLike) -> ExpertConfig:
    """Load and validate a YAML file, or an expert-iteration preset by name."""
    data, source = read_config_file(path, PRESET_DIR, "expert ")
    return config_from_dict(data, source=source)


def config_from_dict(data: Any, source: str = "<dict>") -> ExpertConfig:
    """Validate a mapping: each key's type and range, then that the env builds and both searches load
    for it (the guided one needs the PUCT algorithm, which reads the network)."""
    config = _build(ExpertConfig, data, "", source)
    try:
        env = envs.make(config.game, **config.env)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{source}: invalid 'env' options for game {config.game!r}: {exc}") from None
    game = env.unwrapped.game
    if config.network.kind == "per_action":
        if len(config.network.net_arch) != 1:
            raise ConfigError(f"{source}: 'network.net_arch' must be one width with kind per_action, got "
                              f"{config.network.net_arch}")
        if not action_blocks(env.unwrapped.observer.layout, game.num_actions):
            raise ConfigError(f"{source}: 'network.kind' = 'per_action' needs observation blocks laid out per "
                              f"action, which {config.game} has not; allowed: 'mlp'")
    if config.init_from != "none":
        _check_init(config, env.unwrapped, source)
    for key, spec in (("search", config.search), ("guided_search", config.guided_search)):
        if key == "guided_search" and spec == "none":
            continue
        if not is_search_spec(spec):
            raise ConfigError(f"{source}: '{key}' must be a search agent spec ({sorted(ALGORITHMS)}), got {spec!r}")
        name, options = parse_spec(spec)
        if key == "guided_search" and (name != PUCTAgent.algorithm or "network" in options):
            raise ConfigError(f"{source}: 'guided_search' must be a puct spec without 'network' (the run adds "
                              f"its latest network), got {spec!r}")
        try:  # (the guided search is tried without its network: leaf=network would need one)
            load_agent(spec if key == "search" else f"{spec}:leaf=rollout", game)
        except (ConfigError, ValueError) as exc:
            raise ConfigError(f"{source}: '{key}' = {spec!r}: {exc}") from None
    return config


def _check_init(config: ExpertConfig, env, source: str) -> None:
    """``init_from`` loads for the game and its layers, activation and input are the network's."""
    network = config.network
    agent = init_agent(config.init_from, env.game, source)
    shapes = [w.shape[0] for w, _ in agent.weights]
    expected = [*network.net_arch, env.game.num_actions]
    found = (network.kind, shapes, agent.metadata.get("activation"), agent.metadata.get("input_transform"))
    if found != ("mlp", expected, network.activation, env.observer.policy_input):
        raise ConfigError(f"{source}: 'init_from' = {config.init_from!r} has layers {shapes} with "
                          f"{found[2]} on {found[3]} inputs; the run's network is {network.kind} {expected} with "
                          f"{network.activation} on {env.observer.policy_input} inputs (set network.kind: mlp, "
                          f"net_arch and activation to match, and the env options it was trained with)")


def with_overrides(config: ExpertConfig, overrides: dict[str, Any]) -> ExpertConfig:
    """A re-validated copy with dotted keys set, e.g. ``{"self_play.games": 20}``."""
    return config_from_dict(set_dotted(config.to_dict(), overrides), source="<overrides>")
