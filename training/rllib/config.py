"""RLlib presets: the SB3 trainer's config (validated by :func:`hiddenhand.training.config.config_from_dict`)
plus two sections, ``league`` and ``ray``.

The shared keys mean what they mean for SB3, counted in the learner's own steps (``total_timesteps``,
``checkpoint_every``, ``pool.snapshot_every``); ``ppo.n_steps`` is the steps each env collects per
training iteration (RLlib's train batch is ``n_steps`` times the number of envs), ``ppo.batch_size``
the minibatch and ``ppo.n_epochs`` the epochs over it. ``n_envs``, ``vec_env`` and ``imitation`` belong
to the SB3 trainer and are refused here. Presets live in ``configs/train/rllib/``.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from hiddenhand.training.config import (
    PRESET_DIR as SB3_PRESET_DIR,
    ConfigError,
    TrainConfig,
    _build,
    _field,
    read_config_file,
    set_dotted,
)
from hiddenhand.training.config import presets as base_presets
from hiddenhand.training.config import config_from_dict as train_config_from_dict

PRESET_DIR = SB3_PRESET_DIR / "rllib"
SB3_ONLY = ("n_envs", "vec_env", "imitation", "init_from")


@dataclass(frozen=True)
class LeagueConfig:
    """Snapshots besides ``pool.snapshot_every``: when the learner's win rate against the league reaches
    ``win_rate_threshold`` (0: off) over a block of at least ``min_episodes`` games since the last one."""

    win_rate_threshold: float = _field(0.0, min=0, max=1)
    min_episodes: int = _field(50, min=1, max=1_000_000)


@dataclass(frozen=True)
class RayConfig:
    """Where Ray runs and how many workers it uses. ``address`` empty: Ray starts in-process here
    (``RAY_ADDRESS`` or ``--address`` connect to a running cluster instead)."""

    address: str = _field("")
    #: Env runners (-1: one per CPU the cluster has, leaving one for the learner; 0: sample in the driver).
    num_env_runners: int = _field(-1, min=-1, max=4096)
    num_envs_per_env_runner: int = _field(1, min=1, max=64)
    num_cpus_per_env_runner: float = _field(1.0, min=0, max=256)
    #: Remote learners (0: the learner runs in the driver process).
    num_learners: int = _field(0, min=0, max=256)
    #: CPUs Ray may use when it starts locally (0: all of this machine's).
    num_cpus: int = _field(0, min=0, max=4096)
    #: Seconds to wait for a cluster address to answer before giving up.
    connect_timeout_s: float = _field(15.0, gt=0, max=3600)


@dataclass(frozen=True)
class RLlibConfig:
    train: TrainConfig
    league: LeagueConfig = field(default_factory=LeagueConfig)
    ray: RayConfig = field(default_factory=RayConfig)

    @property
    def game(self) -> str:
        return self.train.game

    def to_dict(self) -> dict[str, Any]:
        """The preset's own keys (SB3-only keys left out); :func:`config_from_dict` inverts it."""
        data = {k: v for k, v in self.train.to_dict().items() if k not in SB3_ONLY}
        ray = {k: v for k, v in dataclasses.asdict(self.ray).items() if v != ""}  # no address: local
        return {**data, "league": dataclasses.asdict(self.league), "ray": ray}


def presets() -> list[str]:
    return base_presets(PRESET_DIR)


def load_config(path: str | os.PathLike) -> RLlibConfig:
    """Load and validate a YAML file, or an RLlib preset by name."""
    data, source = read_config_file(path, PRESET_DIR, "rllib ")
    return config_from_dict(data, source=source)


def config_from_dict(data: Any, source: str = "<dict>") -> RLlibConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping, got {type(data).__name__}")
    for key in SB3_ONLY:
        if key in data:
            raise ConfigError(f"{source}: '{key}' is a setting of the SB3 trainer, not of the rllib backend; "
                              f"allowed: leave it out (envs are set by 'ray.num_env_runners' and "
                              f"'ray.num_envs_per_env_runner')")
    data = dict(data)
    league = _build(LeagueConfig, data.pop("league", {}), "league", source)
    ray = _build(RayConfig, data.pop("ray", {}), "ray", source)
    # minibatches are checked against one env's rollout (n_steps * n_envs with n_envs the envs per runner)
    train = train_config_from_dict({**data, "n_envs": ray.num_envs_per_env_runner}, source=source)
    return RLlibConfig(train, league, ray)


def with_overrides(config: RLlibConfig, overrides: dict[str, Any]) -> RLlibConfig:
    """A re-validated copy with dotted keys set, e.g. ``{"ray.num_env_runners": 2}``."""
    return config_from_dict(set_dotted(config.to_dict(), overrides), source="<overrides>")
