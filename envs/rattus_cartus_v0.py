"""Rattus Cartus (card: written below)

Version History

* v0: Initial release.
"""

from .rattus_cartus.env import RattusCartusEnv as raw_env


def env(**kwargs) -> raw_env:
    """The environment. Order and legality are validated by the core itself, so no wrappers are
    stacked (they would cost several times the step)."""
    return raw_env(**kwargs)


__all__ = ["env", "raw_env"]
