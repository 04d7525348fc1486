"""Small pieces of the games' position evaluations (the registry's search hooks): the normal CDF and the
chance of each player to finish with the top total, given the mean and variance of every total."""

from __future__ import annotations

import math


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def win_chances(means: list[float], variances: list[float], spread: float, min_spread: float = 0.0) -> list[float]:
    """Each player's chance to have the top total: the product of its pairwise normal comparisons (the
    spread of a difference scaled by ``spread``, at least ``min_spread``; no spread: a sure comparison,
    a tie half), normalised to sum to one."""
    n = len(means)
    raw = []
    for i in range(n):
        chance = 1.0
        for j in range(n):
            if j != i:
                sd = max(min_spread, spread * math.sqrt(variances[i] + variances[j]))
                diff = means[i] - means[j]
                chance *= normal_cdf(diff / sd) if sd > 0 else (diff > 0) + 0.5 * (diff == 0)
        raw.append(chance)
    total = sum(raw)
    return [r / total for r in raw] if total > 0 else [1.0 / n] * n
