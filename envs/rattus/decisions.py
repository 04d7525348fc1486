"""Rattus phases (spec §9.1), end reasons (§10.4) and the engine's change codes as small integer codes; a
leaf module read by the engine, the snapshot checks, the observer and the renderer."""

from __future__ import annotations

OPENING, MAIN, WITCH_SECOND, WITCH_DECIDE, PLAGUE_MOVE, KNIGHT_STEP, SPREAD, FINAL_ROUND, OVER = range(9)
PHASE_NAMES = ("OPENING", "MAIN", "WITCH_SECOND", "WITCH_DECIDE", "PLAGUE_MOVE", "KNIGHT_STEP", "SPREAD",
               "FINAL_ROUND", "OVER")
# End reasons in precedence order (RA-17); -1: not ended.
RAT_SUPPLY_EMPTY, ALL_CUBES_PLACED, NO_PROGRESS, TURN_CAP = range(4)
END_REASONS = ("rat_supply_empty", "all_cubes_placed", "no_progress", "turn_cap")
# What one ``apply`` changed (``state.changes``): ``CUBES + r`` the cubes of region ``r``; ``TOKENS + r`` its
# tokens (which, in which order, their swap marks, what is known of them); ``KNOWLEDGE + t`` who knows token
# id ``t`` (its region is listed too).
CUBES, TOKENS, KNOWLEDGE = 0, 12, 24
