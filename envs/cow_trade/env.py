"""Cow trade AEC adapter: the rules engine and observer wired into the shared core."""

from __future__ import annotations

from ..core.aec import HiddenInfoAECEnv
from .observation import CowTradeObserver
from .rules import CowTradeGame


class CowTradeEnv(HiddenInfoAECEnv):
    metadata = {**HiddenInfoAECEnv.metadata, "name": "cow_trade_v0"}
    game_class = CowTradeGame
    observer_class = CowTradeObserver
