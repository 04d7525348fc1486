"""An evaluation of a Rattus position for search and training (``value="estimate"``).

``evaluate(state, viewer)`` estimates every seat's expected win/loss reward (``2 * P(win) - 1``) as seat
``viewer`` can judge it. It reads what the whole table sees (§8: cubes, palace, supplies, holders, the
tokens per region with their slot order and public starting marks, the revealed faces, the rat supply's
size) and of the face-down tokens only the faces ``viewer`` peeked with the Witch (§6, RA-7). Every other
face on the board is averaged over the faces ``viewer`` has not seen, as the re-deal (AM-3) draws them, so
the value is the same on the true position and on every ``determinize(viewer)`` copy of it.

Model. A seat's score (§7.4) is its palace cubes plus the cubes of its that survive the final plague
(§7.3), which reveals every token still on the board. Each region's tokens are resolved now, in slot
order (RA-14), on the expected cubes (§5.3: a token whose limit the region's cubes reach hits the
majority once per M, each class card's holder once per symbol, everybody present once per A; an unknown
token hits by the mean over its possible faces). To that an expected ``SUPPLY_VALUE`` per cube still in
supply is added. The final score is that estimate plus a noise of spread ``SPREAD + SPREAD_PER_RAT *
sqrt(rats left in the supply)`` (the game ends when the supply is empty, §4.6), independent per seat; the
winner is the top scorer (pairwise normal comparisons, normalised). A finished game is valued exactly
(its winners, §7.4 RA-21).

The constants come from the log loss of the winners of 400 four-player games of heuristic players
(every fourth position, ``python -m hiddenhand.training.fit_evaluation rattus --games 400``): 1.293
against 1.386 for a uniform guess. The optimum is flat (1.290 at ``SPREAD`` 1.0-1.5, ``SPREAD_PER_RAT``
0.8-1.0, ``SUPPLY_VALUE`` 0); these constants, within 0.003 of it, are the ones the search defaults
were measured with: the registry's ISMCTS default (250 iterations, 12-ply heuristic rollouts with the
heuristic as opponent model, valued by this estimate) won 85.8% [82.0, 88.8] of 400 four-player games
against three heuristics, at 127 ms CPU per move (p50; p95 142 ms)
(``python -m hiddenhand.training.search_strength rattus ismcts --players 4 --games 400``).
"""

from __future__ import annotations

import math

from hiddenhand.envs.core.estimates import win_chances
from hiddenhand.envs.core.rewards import winner_rewards


SPREAD = 1.5
SPREAD_PER_RAT = 0.6
SUPPLY_VALUE = 0.1


def unseen_faces(state, viewer: int) -> list[int]:
    """How many tokens of each face ``viewer`` has not seen: the table less the revealed faces and the
    faces of the board tokens it peeked (the faces the re-deal of §8, AM-3, deals from)."""
    pool = [tt.count for tt in state.game.types]
    face, known = state.face, state.known[viewer]
    for t in state.revealed:
        pool[face[t]] -= 1
    for slot in state.slots:
        for t in slot:
            if known[t]:
                pool[face[t]] -= 1
    return pool


def threat_table(state, pool: list[int], starting: bool) -> list[list[float]]:
    """For a token with a face drawn uniformly from the unseen faces of ``pool`` that carry the starting
    mark (``starting``) or not: per region cube total ``k`` its expected hits ``[M, A, class 0..5]`` (only
    faces whose limit ``k`` reaches hit, §5.3)."""
    types = state.game.types
    top = max(tt.limit for tt in types)
    rows = [[0.0] * 8 for _ in range(top + 1)]
    chosen = [f for f, tt in enumerate(types) if pool[f] > 0 and tt.starting == starting]
    total = sum(pool[f] for f in chosen)
    for f in chosen:
        tt, p = types[f], pool[f] / total
        row = rows[tt.limit]
        row[0] += p * tt.m
        row[1] += p * tt.a
        for cls, k in enumerate(tt.classes):
            row[2 + cls] += p * k
    for k in range(1, top + 1):  # cumulative: every face whose limit is at most k
        rows[k] = [a + b for a, b in zip(rows[k - 1], rows[k])]
    return rows


def _hit(cubes: list[float], hits: list[float], holder: list[int]) -> None:
    """Remove a token's expected ``hits`` ([M, A, class 0..5]) from ``cubes`` in place (§5.3, RA-15, RA-16)."""
    n = len(cubes)
    loss = [hits[1]] * n
    top = max(cubes)
    if top > 0:
        for q in range(n):
            if cubes[q] >= top - 1e-9:
                loss[q] += hits[0]
    for cls in range(6):
        if holder[cls] >= 0:
            loss[holder[cls]] += hits[2 + cls]
    for q in range(n):
        cubes[q] = max(0.0, cubes[q] - loss[q])


def expected_scores(state, viewer: int, supply_value: float = SUPPLY_VALUE) -> list[float]:
    """Every seat's expected score if the final plague struck now, as ``viewer`` knows the tokens,
    plus ``supply_value`` per cube in supply."""
    game, n = state.game, state.n
    types, face, known, holder = game.types, state.face, state.known[viewer], state.holder
    pool = unseen_faces(state, viewer)
    marks = game.starting_mark_public  # RA-3: a face-down token's mark says which faces it may have
    tables = {False: threat_table(state, pool, False), True: threat_table(state, pool, True)} if marks else \
        {None: _mixed_table(state, pool)}
    top = len(tables[next(iter(tables))]) - 1
    scores = [float(state.palace[q]) + supply_value * state.supply[q] for q in range(n)]
    for r in game.in_play:
        cubes = [float(c) for c in state.cubes[r]]
        if not state.slots[r] or not any(cubes):
            scores = [s + c for s, c in zip(scores, cubes)]
            continue
        for t in state.slots[r]:
            total = int(sum(cubes) + 0.5)
            if known[t]:
                tt = types[face[t]]
                if total >= tt.limit:
                    _hit(cubes, [tt.m, tt.a, *tt.classes], holder)
            else:
                _hit(cubes, tables[types[face[t]].starting if marks else None][min(total, top)], holder)
        scores = [s + c for s, c in zip(scores, cubes)]
    return scores


def _mixed_table(state, pool: list[int]) -> list[list[float]]:
    """The threat table of a token whose mark is not public: both kinds of face, by their counts."""
    tables = [threat_table(state, pool, kind) for kind in (False, True)]
    weights = [sum(c for c, tt in zip(pool, state.game.types) if tt.starting == kind) for kind in (False, True)]
    total = sum(weights) or 1
    return [[(weights[0] * a + weights[1] * b) / total for a, b in zip(row0, row1)]
            for row0, row1 in zip(*tables)]


def win_probabilities(scores: list[float], rats_left: int, spread: float = SPREAD,
                      per_rat: float = SPREAD_PER_RAT) -> list[float]:
    """Each seat's chance to end with the top score from its expected ``scores`` with ``rats_left``
    tokens in the rat supply."""
    sd = spread + per_rat * math.sqrt(rats_left)
    return win_chances(scores, [sd * sd] * len(scores), 1.0)


def evaluate(state, viewer: int) -> list[float]:
    """Every seat's expected win/loss reward (``2 * P(win) - 1``) as ``viewer`` can judge it."""
    if state.is_terminal:
        return winner_rewards(state.winners(), state.n)
    chances = win_probabilities(expected_scores(state, viewer), len(state.rat_supply))
    return [2.0 * w - 1.0 for w in chances]
