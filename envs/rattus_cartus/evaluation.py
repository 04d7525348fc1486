"""An evaluation of a Rattus Cartus position for search agents (``value="estimate"``).

``evaluate(state, viewer)`` estimates every seat's expected win/loss reward (+1 a win, -1 a loss, so
``2 * P(win) - 1``) as seat ``viewer`` can judge it, from the VP the position scores now and the plague
check (§6.7, §6.8). It is meant for a *re-dealt* copy (``env.determinize``) and reads of the nun row
only what ``viewer`` knows: the positions it looked at, and for the others the nun values of the cards
it cannot locate (its ``seen_now`` counts, as in the heuristic's estimate). Averaging the row out this
way, instead of reading the re-dealt row, removes most of the noise the row adds to a search's values.

Model, with ``L`` rounds still to play (the current one included): the unknown row positions are drawn
independently from the unlocated cards' nun values; given the row's nuns ``N``, a seat's rats at the
end are its rats now plus a change of mean 0 and spread ``RAT_SPREAD * L ** 0.4`` (none when ``L = 0``),
and it survives when they do not exceed ``N`` (R-A28); survivals are independent given ``N``. Every
seat's final VP are its VP now plus a common gain plus its own noise of spread ``VP_SPREAD * sqrt(L)``
(at most ``VP_SPREAD_MAX``). The winner is the survivor with the most VP (pairwise normal comparisons,
normalised over the survivors; at the end exact, ties by fewer rats, shared); when nobody survives
everybody loses, or with the all-dead variant (R-A29) the fewest rats win. Both spreads were fitted to
400 four-player games of heuristic players (the spread of the rat change and of the VP gain relative to
the table, by rounds left).
"""

from __future__ import annotations

import math

from hiddenhand.envs.core.estimates import normal_cdf

from .cards import KIND_COPIES, KIND_NUNS, NUM_KINDS
from .scoring import final_result

RAT_SPREAD = 1.7
VP_SPREAD = 4.0
VP_SPREAD_MAX = 7.8
#: Row totals less likely than this are left out.
NEGLIGIBLE = 1e-4


def survival(margin: float, rounds_left: int) -> float:
    """Probability of ending with at most the row's nuns from ``margin = nuns - rats`` now."""
    if rounds_left <= 0:
        return 1.0 if margin >= 0 else 0.0
    return normal_cdf((margin + 0.5) / (RAT_SPREAD * rounds_left ** 0.4))


def row_nuns(state, viewer: int) -> dict[int, float]:
    """The distribution of the row's nun total as ``viewer`` knows it: {total: probability}."""
    known = [q for q, looked in enumerate(state.peeked[viewer]) if looked]
    kinds = [state.nun_row[q] for q in known]
    seen = state.seen_now(viewer)
    left = [max(0, KIND_COPIES[k] - seen[k] - kinds.count(k)) for k in range(NUM_KINDS)]
    total = sum(left)
    one = [0.0] * 5
    for k in range(NUM_KINDS):
        one[KIND_NUNS[k]] += left[k] / total if total else 0.0
    if not total:
        one = [0.2] * 5
    dist = {sum(KIND_NUNS[k] for k in kinds): 1.0}
    for _ in range(len(state.nun_row) - len(known)):
        step: dict[int, float] = {}
        for value, p in dist.items():
            for nuns, q in enumerate(one):
                if q:
                    step[value + nuns] = step.get(value + nuns, 0.0) + p * q
        dist = step
    return {value: p for value, p in dist.items() if p >= NEGLIGIBLE}


def evaluate(state, viewer: int) -> list[float]:
    """Every seat's expected win/loss reward (``2 * P(win) - 1``) as ``viewer`` can judge it."""
    n = state.n
    rounds_left = 0 if state.is_terminal else state.game.rounds - state.round
    rats = state.rats
    vp = (state.result if state.is_terminal else final_result(state))["vp"]
    top = _winners_among(_beats(vp, rats, rounds_left), n)
    survivors = _survivor_sets(row_nuns(state, viewer), rats, rounds_left)
    win = [0.0] * n
    for subset in range(1, 1 << n):
        for i, c in top[subset]:
            win[i] += survivors[subset] * c
    nobody = survivors[0]
    if state.game.all_dead_variant:  # R-A29: nobody survives, the fewest rats win
        fewest = [p for p in range(n) if rats[p] == min(rats)]
        for p in fewest:
            win[p] += nobody / len(fewest)
    return [2.0 * w - 1.0 for w in win]


def _beats(vp: list[int], rats: list[int], rounds_left: int) -> list[list[float]]:
    """``beats[i][j]``: the chance that seat ``i`` ends ahead of seat ``j`` (if both survive)."""
    n = len(vp)
    if rounds_left:
        spread = min(VP_SPREAD_MAX, VP_SPREAD * math.sqrt(rounds_left)) * math.sqrt(2.0)
        return [[normal_cdf((vp[i] - vp[j]) / spread) for j in range(n)] for i in range(n)]
    # exact: more VP, then fewer rats (§6.8)
    return [[float((vp[i], -rats[i]) > (vp[j], -rats[j])) + 0.5 * ((vp[i], rats[i]) == (vp[j], rats[j]))
             for j in range(n)] for i in range(n)]


def _winners_among(beats: list[list[float]], n: int) -> dict[int, list[tuple[int, float]]]:
    """Per set of survivors (a bit set), each member's chance to win among them."""
    top = {}
    for subset in range(1, 1 << n):
        members = [p for p in range(n) if subset >> p & 1]
        chances = [math.prod(beats[i][j] for j in members if j != i) for i in members]
        total = sum(chances)
        top[subset] = [(i, c / total) for i, c in zip(members, chances)] if total else \
            [(i, 1.0 / len(members)) for i in members]
    return top


def _survivor_sets(nuns: dict[int, float], rats: list[int], rounds_left: int) -> list[float]:
    """The probability of each set of survivors (a bit set) over the row's nun totals ``nuns``."""
    survivors = [0.0] * (1 << len(rats))
    for total, weight in nuns.items():
        chances = [weight]
        for r in rats:  # after seat p, index bit p says whether p survives
            alive = survival(total - r, rounds_left)
            chances = [c * (1.0 - alive) for c in chances] + [c * alive for c in chances]
        for subset, c in enumerate(chances):
            survivors[subset] += c
    return survivors
