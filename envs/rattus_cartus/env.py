"""Rattus Cartus AEC adapter: the rules engine and observer wired into the shared core."""

from __future__ import annotations

from ..core.aec import HiddenInfoAECEnv
from .observation import RattusCartusObserver
from .rules import RattusCartusGame


class RattusCartusEnv(HiddenInfoAECEnv):
    metadata = {**HiddenInfoAECEnv.metadata, "name": "rattus_cartus_v0"}
    game_class = RattusCartusGame
    observer_class = RattusCartusObserver
