"""Shared core of every hiddenhand environment: the game contract and the AEC adapter."""

from .aec import HiddenInfoAECEnv
from .game import Game, Observer, State
from .layout import ObservationLayout
from .rewards import score_margin_rewards, win_loss_rewards, winners

__all__ = [
    "Game", "HiddenInfoAECEnv", "ObservationLayout", "Observer", "State",
    "score_margin_rewards", "win_loss_rewards", "winners",
]
