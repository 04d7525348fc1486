"""Rattus scoring and winners (spec §7.4, RA-21): cubes in regions plus palace; ties to the tied player
who would have played next (``e+1, e+2, …, e``), or shared after a turn cap or no-progress ending and
with ``tie_break="shared"``. Reads the state duck-typed."""

from __future__ import annotations

from typing import Any

from .decisions import END_REASONS, NO_PROGRESS, TURN_CAP


def cubes_on_board(state) -> list[int]:
    """Each seat's cubes in the regions."""
    return list(map(sum, zip(*state.cubes)))


def final_scores(state) -> list[int]:
    return [board + palace for board, palace in zip(cubes_on_board(state), state.palace)]


def tie_priority(state) -> list[int]:
    """Seats from the one after the ender round to the ender (the ender loses every tie)."""
    e = state.ender if state.ender >= 0 else state.active
    return [(e + 1 + i) % state.n for i in range(state.n)]


def _decide(state) -> tuple[list[int], bool]:
    scores = final_scores(state)
    top = max(scores)
    tied = [p for p in range(state.n) if scores[p] == top]
    shared = (state.game.tie_break == "shared" or state.end_reason in (NO_PROGRESS, TURN_CAP)
              or not state.is_terminal)
    if len(tied) == 1 or shared:
        return tied, False
    return [next(p for p in tie_priority(state) if p in tied)], True


def winners(state) -> list[int]:
    """Winners in ascending seat order (provisional, ties shared, before the end)."""
    return _decide(state)[0]


def breakdown(state) -> dict[str, Any]:
    """The terminal details of §10.4 (provisional before the end)."""
    won, applied = _decide(state)
    return {
        "scores": final_scores(state),
        "cubes_on_board": cubes_on_board(state),
        "palace": list(state.palace),
        "winner": won,
        "tie_break_applied": applied,
        "tie_priority": tie_priority(state),
        "end_reason": END_REASONS[state.end_reason] if state.end_reason >= 0 else None,
        "regular_turns": state.regular_turns,
    }
