"""An evaluation of a Rattus Cartus position before the end, for search agents (``value="estimate"``).

``evaluate(state)`` estimates every seat's expected win/loss reward (+1 a win, -1 a loss, so
``2 * P(win) - 1``) from the VP the position would score now and the plague check (§6.7, §6.8). It is
meant for a *re-dealt* copy (``env.determinize``): there the nun row is a draw from what the searching
seat knows, and averaging over re-deals averages over that knowledge.

Model, with ``L`` rounds still to play (the current one included): a seat's rats at the end are its rats
now plus a change of mean 0 and spread ``RAT_SPREAD * L ** 0.4``; it survives when they do not exceed the
row's nuns. Survivals are independent given the row. Every seat's final VP are its VP now plus a common
gain plus its own noise of spread ``VP_SPREAD * sqrt(L)`` (capped at ``VP_SPREAD_MAX``). The winner is
the survivor with the most VP (pairwise normal comparisons, normalised over the survivors); when nobody
survives everybody loses, or with the all-dead variant the fewest rats win. Both spreads were fitted to
400 four-player games of heuristic players (spread of the rat change and of the VP gain relative to the
table, by rounds left).
"""

from __future__ import annotations

import math

from .cards import KIND_NUNS
from .scoring import final_result

RAT_SPREAD = 1.7
VP_SPREAD = 4.0
VP_SPREAD_MAX = 7.8


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def survival(margin: float, rounds_left: int) -> float:
    """Probability of ending with at most the row's nuns from ``margin = nuns - rats`` now."""
    if rounds_left <= 0:
        return 1.0 if margin >= 0 else 0.0
    return _normal_cdf((margin + 0.5) / (RAT_SPREAD * rounds_left ** 0.4))


def evaluate(state) -> list[float]:
    """Every seat's expected win/loss reward (``2 * P(win) - 1``) in a position before the end."""
    n = state.n
    if state.is_terminal:
        raise ValueError("evaluate: the game is over; score it with its rewards")
    rounds_left = state.game.rounds - state.round
    vp = final_result(state)["vp"]
    rats = state.rats
    nuns = sum(KIND_NUNS[k] for k in state.nun_row)
    alive = [survival(nuns - r, rounds_left) for r in rats]
    spread = min(VP_SPREAD_MAX, VP_SPREAD * math.sqrt(rounds_left)) * math.sqrt(2.0)
    # beats[i][j]: probability that i ends with more VP than j
    beats = [[_normal_cdf((vp[i] - vp[j]) / spread) for j in range(n)] for i in range(n)]
    win = [0.0] * n
    for subset in range(1, 1 << n):  # the survivors
        members = [p for p in range(n) if subset >> p & 1]
        chance = 1.0
        for p in range(n):
            chance *= alive[p] if subset >> p & 1 else 1.0 - alive[p]
        if chance < 1e-9:
            continue
        top = [math.prod(beats[i][j] for j in members if j != i) for i in members]
        total = sum(top)
        for i, t in zip(members, top):
            win[i] += chance * t / total
    if state.game.all_dead_variant:  # R-A29: nobody survives, the fewest rats win
        nobody = math.prod(1.0 - a for a in alive)
        fewest = [p for p in range(n) if rats[p] == min(rats)]
        for p in fewest:
            win[p] += nobody / len(fewest)
    return [2.0 * w - 1.0 for w in win]
