"""Rattus AEC adapter: the rules engine and observer wired into the shared core, with the spec's
``reward`` option (§10.4) applied to the core's winners."""

from __future__ import annotations

from ..core.aec import HiddenInfoAECEnv
from .observation import RattusObserver
from .rules import RattusGame


class RattusEnv(HiddenInfoAECEnv):
    metadata = {**HiddenInfoAECEnv.metadata, "name": "rattus_v0"}
    game_class = RattusGame
    observer_class = RattusObserver

    def _terminal_rewards(self, state) -> list[float]:
        """``win_loss``: a sole winner ``win``, others ``loss``, k co-winners ``(win + (k-1) loss) / k``;
        with ``zero_sum``, others ``loss / (n-1)`` and co-winners ``-(n-k) loss / (k (n-1))`` (§10.4)."""
        reward = self.game.reward
        if self.reward_mode != "win_loss" or reward == {"win": 1.0, "loss": -1.0, "zero_sum": False}:
            return super()._terminal_rewards(state)
        won, n = state.winners(), self.game.num_players
        k, win, loss = len(won), reward["win"], reward["loss"]
        if reward["zero_sum"]:
            share, other = -(n - k) * loss / (k * (n - 1)), loss / (n - 1)
        else:
            share, other = (win + (k - 1) * loss) / k, loss
        return [share if seat in won else other for seat in range(n)]
