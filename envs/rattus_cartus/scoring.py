"""Rattus Cartus end of game (docs/rattus_cartus_rules.md §6): VP, the plague check and the winners."""

from __future__ import annotations

from operator import add
from typing import Any

from .cards import GOLD_TIE_POOL_FIRST, GOLD_TIE_POOL_SECOND, KIND_NUNS, MAJORITY_VP, NUM_CLASSES, NUM_KINDS, TREASURY


def majority(counts: list[int]) -> list[int]:
    """§6.3 / §6.4: a sole leader 2 VP, tied leaders 1 VP each, nothing if the top count is 0 (R-A26)."""
    top = max(counts)
    if top <= 0:
        return [0] * len(counts)
    leaders = [p for p, c in enumerate(counts) if c == top]
    vp = MAJORITY_VP[0] if len(leaders) == 1 else MAJORITY_VP[1]
    return [vp if p in leaders else 0 for p in range(len(counts))]


def gold_vp(gold: list[int], first: int, second: int) -> list[int]:
    """§6.5 (R-A25, R-A27): 6 to a sole leader, then 3 (shared by floor) to the next count among the
    eligible; tied leaders share 9 by floor and nobody is second. ``second == 0``: 2 players."""
    n = len(gold)
    out = [0] * n
    eligible = [p for p in range(n) if gold[p] >= 1]
    if not eligible:
        return out
    m1 = max(gold[p] for p in eligible)
    leaders = [p for p in eligible if gold[p] == m1]
    if len(leaders) > 1:
        share = GOLD_TIE_POOL_FIRST // len(leaders)
        if n == 2:  # R-A25: a 2-player tie gives 4 each (the 9 shared)
            share = GOLD_TIE_POOL_FIRST // 2
        for p in leaders:
            out[p] = share
        return out
    out[leaders[0]] = first
    if second:
        rest = [p for p in eligible if p != leaders[0]]
        if rest:
            m2 = max(gold[p] for p in rest)
            seconds = [p for p in rest if gold[p] == m2]
            for p in seconds:
                out[p] = second if len(seconds) == 1 else GOLD_TIE_POOL_SECOND // len(seconds)
    return out


def influence_vp(level: list[list[int]], stamp: list[list[int]], awards: tuple[int, ...]) -> list[list[int]]:
    """§6.1: per class, players at level >= 1 ranked by level, then by the earlier arrival (R-A24)."""
    n = len(level)
    out = [[0] * NUM_CLASSES for _ in range(n)]
    for c in range(NUM_CLASSES):
        ranked = sorted((p for p in range(n) if level[p][c] >= 1), key=lambda p: (-level[p][c], stamp[p][c]))
        for place, p in enumerate(ranked[:len(awards)]):
            out[p][c] = awards[place]
    return out


def final_result(state) -> dict[str, Any]:
    """The VP items of every player, the nun total, who survives and the outcome (§6.6-§6.8)."""
    game = state.game
    n = state.n
    influence = influence_vp(state.level, state.stamp, game.influence_vp)
    holdings = [list(map(add, hand, pending)) for hand, pending in zip(state.hands, state.pending)]
    tokens = [sum(state.tokens[p]) for p in range(n)]
    hand = majority([sum(h[:NUM_KINDS]) + h[NUM_KINDS] for h in holdings])
    specials = {name: majority([h[NUM_KINDS + i] for h in holdings])
                for i, name in ((1, "sword"), (2, "flute"), (3, "pass"))}
    gold_on = any(card // 5 == TREASURY for card in state.building_set)  # R-A27
    gold = gold_vp([h[NUM_KINDS + 4] for h in holdings], *game.gold_vp) if gold_on else [0] * n
    vp = [sum(influence[p]) + tokens[p] + hand[p] + sum(s[p] for s in specials.values()) + gold[p] for p in range(n)]
    nuns = sum(KIND_NUNS[k] for k in state.nun_row)
    survived = [state.rats[p] <= nuns for p in range(n)]  # R-A28
    alive = [p for p in range(n) if survived[p]]
    if alive:
        best = max((vp[p], -state.rats[p]) for p in alive)
        winners = [p for p in alive if (vp[p], -state.rats[p]) == best]
    elif game.all_dead_variant:  # R-A29
        best = max((-state.rats[p], vp[p]) for p in range(n))
        winners = [p for p in range(n) if (-state.rats[p], vp[p]) == best]
    else:
        winners = []
    outcome = ["loss"] * n
    for p in winners:
        outcome[p] = "win" if len(winners) == 1 else "shared_win"
    return {
        "vp": vp, "influence": influence, "point_tokens": tokens, "hand_majority": hand,
        "special_majorities": specials, "gold": gold, "gold_scoring": gold_on,
        "rats": list(state.rats), "nuns_in_row": nuns, "survived": survived,
        "winners": winners, "outcome": outcome, "final": bool(state.is_terminal),
    }


def ranking_scores(game, result: dict[str, Any]) -> list[float]:
    """Scores whose top holders are exactly the winners of §6.8, for the core's rewards: a survivor
    scores its VP less rats / 1000 (fewer rats break VP ties; rats stay below 1000); a dead player
    -1 - rats / 1000 (below every survivor). With the variant and nobody alive, -rats + VP / 10^5 (VP
    stay below 10^5). Nobody alive without the variant: everybody 0, and ``State.winners`` is empty:
    all lose together (−1 each under ``win_loss``)."""
    vp, rats, survived = result["vp"], result["rats"], result["survived"]
    n = len(vp)
    if any(survived):
        return [vp[p] - rats[p] / 1000 if survived[p] else -1 - rats[p] / 1000 for p in range(n)]
    if game.all_dead_variant:
        return [-rats[p] + vp[p] / 100000 for p in range(n)]
    return [0.0] * n
