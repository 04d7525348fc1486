"""An evaluation of a David & Goliath position for search and training (``value="estimate"``,
``potential: evaluation``).

``evaluate(state, viewer)`` estimates every seat's expected win/loss reward (``2 * P(win) - 1``). It reads
only what the whole table sees (docs/david_goliath_rules.md §3.5, §6): the totals of the finished rounds,
the cards each seat took this round, the cards still out (in hands or in the current trick) and the
rounds left. No hand is read, the viewer's included, so the value is the same for every viewer and for
every re-deal of a position: nothing hidden can reach it.

Model. Each card still out ends with one of the table's seats, each with chance ``1 / seats``,
independently: seat ``p`` takes ``X ~ Binomial(m, 1 / seats)`` more of a colour of which ``m`` cards are
out. Its colour score (§4) is then exact given ``X`` when it ends with three or more cards (one point
each); with one or two it is the points it holds plus the values it adds, drawn from the cards out
(a uniform draw of them without replacement). That gives every seat's mean and variance of this round's
score; every round still to be dealt adds the same mean to every seat and a variance ``ROUND_SD ** 2``. A seat wins when its
final total is the highest: pairwise normal comparisons of the totals (the spread of a difference scaled
by ``SPREAD``), normalised over the seats. A finished game is valued exactly (the win/loss rewards, ties
shared). In the two-player dummy variant (DG-5) the dummy takes cards like a player but scores for
nobody.

The two constants were fitted by maximum likelihood to the winners of 600 four-player games of
heuristic players (every fourth position; the log loss of the winners, 1.002 against 1.386 for a
uniform guess; a grid of 0.1 and 1 point steps is flat near the optimum), with
``python -m hiddenhand.training.fit_evaluation``. The same constants give 0.80 at 3 players (uniform:
1.10) and 0.54 at 2 (0.69).
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.core.estimates import win_chances
from hiddenhand.envs.core.rewards import winner_rewards

from .cards import MAX_VALUE, NUM_COLOURS

SPREAD = 1.7
ROUND_SD = 14.0
_VALUES = np.arange(1, MAX_VALUE + 1)
_SQUARES = _VALUES * _VALUES


def colour_moments(count: int, points: int, out: int, share: float, mean: float, var: float) -> tuple[float, float]:
    """Mean and second moment of a colour's final score (§4) for a seat holding ``count`` cards worth
    ``points`` of it, when it takes ``X ~ Binomial(out, share)`` of the ``out`` cards still out, whose
    values have mean ``mean`` and variance ``var`` (the taken ones a uniform draw of ``X`` of them)."""
    q = 1.0 - share
    p0 = q ** out
    p1 = out * share * q ** (out - 1) if out >= 1 else 0.0
    p2 = out * (out - 1) / 2 * share * share * q ** (out - 2) if out >= 2 else 0.0
    ex = out * share
    ex2 = out * share * q + ex * ex
    if count >= 3:  # one point per card whatever comes
        return count + ex, count * count + 2 * count * ex + ex2
    # beyond two cards the score is the count; below it, the points plus the values added
    small = [(points, 0.0)]  # (score mean, score variance) after taking x = 0, 1, ... cards, while <= 2
    for x in range(1, 3 - count):  # x of the out cards, drawn without replacement
        small.append((points + x * mean, x * var * (out - x) / (out - 1) if out > 1 else 0.0))
    probs = (p0, p1, p2)[:len(small)]
    # E[(count + X) 1{count + X >= 3}] and its square, as the full moments less the small-x terms
    mean_big = count + ex - sum(p * (count + x) for x, p in enumerate(probs))
    square_big = count * count + 2 * count * ex + ex2 - sum(p * (count + x) ** 2 for x, p in enumerate(probs))
    first = mean_big + sum(p * m for p, (m, _) in zip(probs, small))
    second = square_big + sum(p * (m * m + v) for p, (m, v) in zip(probs, small))
    return first, second


def score_moments(state, round_sd: float = ROUND_SD) -> tuple[list[float], list[float]]:
    """Every player's mean and variance of its final total (``round_sd``: the spread of a round to come)."""
    game = state.game
    seats, players = game.seats, game.num_players
    share = 1.0 / seats
    out = 1 - state.played.reshape(NUM_COLOURS, MAX_VALUE)[:, :game.max_value]  # cards not yet taken
    sizes = out.sum(axis=1).tolist()
    sums = (out @ _VALUES[:game.max_value]).tolist()
    squares = (out @ _SQUARES[:game.max_value]).tolist()
    colours = []
    for m, total, square in zip(sizes, sums, squares):
        mean = total / m if m else 0.0
        colours.append((m, mean, square / m - mean * mean if m else 0.0))
    counts, points, totals = state.taken_count.tolist(), state.colour_points.tolist(), state.totals.tolist()
    future = (game.rounds - state.round - 1) * round_sd * round_sd
    means, variances = [], []
    for p in range(players):
        total = float(totals[p])
        variance = future
        for c, (m, mean, var) in enumerate(colours):
            first, second = colour_moments(counts[p][c], points[p][c], m, share, mean, var)
            total += first
            variance += max(0.0, second - first * first)
        means.append(total)
        variances.append(variance)
    return means, variances


def evaluate(state, viewer: int) -> list[float]:
    """Every player's expected win/loss reward (``2 * P(win) - 1``); the same for every ``viewer``."""
    if state.is_terminal:
        return winner_rewards(state.winners(), state.game.num_players)
    return [2.0 * w - 1.0 for w in win_chances(*score_moments(state), spread=SPREAD)]
