"""hiddenhand: multi-agent RL environments for hidden-information tabletop games.

Importing the package registers every game in PettingZoo's registry, e.g.
``pettingzoo.make("aec", "hiddenhand/david_goliath-v0", num_players=4)``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pettingzoo

from . import compiled

if compiled.pure_python_requested():
    compiled.use_sources()
elif _stale := compiled.stale(Path(__file__).resolve().parent.parent):
    warnings.warn(f"hiddenhand: {', '.join(_stale)} changed since it was compiled, and the old compiled "
                  f"code is what runs; rebuild with `make install` (or `pip install -e .`), or set "
                  f"{compiled.PURE_PYTHON}=1 to run the sources", stacklevel=2)

from .envs import GAMES  # noqa: E402  (after choosing compiled or source modules)

__version__ = "0.1.0"


def _register() -> None:
    registered = pettingzoo.aec_registry
    for game, module in GAMES.items():
        env_id = f"hiddenhand/{game}-v0"
        if env_id not in registered:
            pettingzoo.register("aec", env_id, entry_point=f"hiddenhand.envs.{module}:env")


_register()
