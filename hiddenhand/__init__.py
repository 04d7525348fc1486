"""hiddenhand: multi-agent RL environments for hidden-information tabletop games.

Importing the package registers every game of :data:`hiddenhand.envs.registry.REGISTRY` in PettingZoo's
registry, e.g. ``pettingzoo.make("aec", "hiddenhand/david_goliath-v0", num_players=4)``.
"""

from __future__ import annotations

import pettingzoo

from .envs.registry import REGISTRY

__version__ = "0.1.0"


def _register() -> None:
    for entry in REGISTRY.values():
        if entry.env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", entry.env_id, entry_point=f"{entry.module_name}:env")


_register()
