"""The training backends, in one table: what ``hiddenhand train --backend NAME`` offers.

Each backend names the module of its configs (``load_config(path_or_preset)``,
``config_from_dict(data, source)``, ``with_overrides(config, overrides)``; a config has ``game`` and
``to_dict()``) and the module of its trainer (``train(config, run_dir, resume=, progress=, name=,
overwrite=, force=, **options)`` returning a :class:`~hiddenhand.training.runs.TrainResult`). Both are
imported only when used, so the command line lists the backends without importing any learning library.
A backend's own command-line options (``options``: flag -> help) are refused with the others.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType


@dataclass(frozen=True)
class Backend:
    name: str
    summary: str
    #: The extra that installs what the backend needs: ``pip install "hiddenhand[<extra>]"``.
    extra: str
    config_module: str
    trainer_module: str
    #: Appended to the preset's name for the default run directory, ``runs/<preset><suffix>``.
    run_dir_suffix: str = ""
    options: dict[str, str] = field(default_factory=dict)

    def modules(self) -> tuple[ModuleType, ModuleType]:
        """(config module, trainer module); ``ImportError`` when the extra is not installed."""
        return importlib.import_module(self.config_module), importlib.import_module(self.trainer_module)


BACKENDS = {
    "sb3": Backend(
        "sb3", "MaskablePPO (sb3-contrib) on this machine; presets in configs/train/", "train",
        "hiddenhand.training.config", "hiddenhand.training.train"),
    "rllib": Backend(
        "rllib", "Ray RLlib multi-agent PPO with a league, here or on a Ray cluster; presets in "
        "configs/train/rllib/", "rllib", "hiddenhand.training.rllib.config", "hiddenhand.training.rllib.trainer",
        run_dir_suffix="_rllib",
        options={"--address": "a running Ray cluster (host:port printed by `ray start --head`); default "
                              "RAY_ADDRESS, else Ray starts on this machine"}),
    "expert": Backend(
        "expert", "expert iteration: PUCT search with a policy-value network, the network learning the search's "
        "visit shares and values; presets in configs/train/expert/", "train", "hiddenhand.training.expert.config",
        "hiddenhand.training.expert.trainer", run_dir_suffix="_expert"),
}
DEFAULT = "sb3"
