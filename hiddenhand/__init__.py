"""hiddenhand: multi-agent RL environments for hidden-information tabletop games.

Importing the package registers every game in PettingZoo's registry, e.g.
``pettingzoo.make("aec", "hiddenhand/david_goliath-v0", num_players=4)``.
"""

from __future__ import annotations

import pettingzoo

from .envs import GAMES

__version__ = "0.1.0"


def _register() -> None:
    registered = pettingzoo.aec_registry
    for game, module in GAMES.items():
        env_id = f"hiddenhand/{game}-v0"
        if env_id not in registered:
            pettingzoo.register("aec", env_id, entry_point=f"hiddenhand.envs.{module}:env")


_register()
