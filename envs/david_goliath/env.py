"""David & Goliath AEC adapter: the rules engine and observer wired into the shared core."""

from __future__ import annotations

from ..core.aec import HiddenInfoAECEnv
from .observation import DavidGoliathObserver
from .rules import DavidGoliathGame


class DavidGoliathEnv(HiddenInfoAECEnv):
    metadata = {**HiddenInfoAECEnv.metadata, "name": "david_goliath_v0"}
    game_class = DavidGoliathGame
    observer_class = DavidGoliathObserver
