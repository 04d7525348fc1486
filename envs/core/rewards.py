"""Terminal reward conventions shared by every game."""

from __future__ import annotations

from collections.abc import Sequence

REWARD_MODES = ("win_loss", "score_margin")


def winners(scores: Sequence[float]) -> list[int]:
    """Seats sharing the top score."""
    top = max(scores)
    return [seat for seat, score in enumerate(scores) if score == top]


def win_loss_rewards(scores: Sequence[float]) -> list[float]:
    """Sole winner +1, everyone not on top −1; k players sharing the top get 2/k − 1 each."""
    return winner_rewards(winners(scores), len(scores))


def winner_rewards(won: Sequence[int], num_players: int) -> list[float]:
    """A sole winner +1, everyone else −1; k winners sharing the win get 2/k − 1 each; no winner at
    all (a game everybody loses) −1 for everyone."""
    share = 2.0 / len(won) - 1.0 if won else -1.0
    return [share if seat in won else -1.0 for seat in range(num_players)]


def score_margin_rewards(scores: Sequence[float], scale: float) -> list[float]:
    """(own score − mean of the others' scores) / scale."""
    total, n = sum(scores), len(scores)
    return [(score - (total - score) / (n - 1)) / scale for score in scores]
