"""Rattus phases (spec §9.1) and end reasons (§10.4) as small integer codes; a leaf module read by the
engine, the snapshot checks, the observer and the renderer."""

from __future__ import annotations

OPENING, MAIN, WITCH_SECOND, WITCH_DECIDE, PLAGUE_MOVE, KNIGHT_STEP, SPREAD, FINAL_ROUND, OVER = range(9)
PHASE_NAMES = ("OPENING", "MAIN", "WITCH_SECOND", "WITCH_DECIDE", "PLAGUE_MOVE", "KNIGHT_STEP", "SPREAD",
               "FINAL_ROUND", "OVER")
# End reasons in precedence order (RA-17); -1: not ended.
RAT_SUPPLY_EMPTY, ALL_CUBES_PLACED, NO_PROGRESS, TURN_CAP = range(4)
END_REASONS = ("rat_supply_empty", "all_cubes_placed", "no_progress", "turn_cap")
