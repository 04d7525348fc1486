"""Rattus Cartus decision points, phases and resolution stages as small integer codes
(docs/rattus_cartus_rules.md §3.0, §3.4, §8.1). A leaf module: the engine, the snapshot checks, the
renderer and the observer all read these names from here."""

from __future__ import annotations

# Decision points (§8.1); 0: none (game over).
NONE, D1, D2, D3, D4, D5, D6, D7, D8, D9, D10 = range(11)
DECISION_NAMES = ("none", "D1 supply choice", "D2 supply peek", "D3 turn start", "D4 commit cards",
                  "D5 Sword loser", "D6 Sword payment", "D7 Flute receiver", "D8 Tent peek",
                  "D9 Hospital discard", "D10 Watchtower payment")
# Phases (§3.0): B supply, C entering, D resolving, OVER after the last round.
PHASE_B, PHASE_C, PHASE_D, PHASE_OVER = range(4)
PHASE_NAMES = ("B supply", "C entering", "D resolving", "game over")
# Stages of the slot being resolved in phase D (§3.4).
ST_START, ST_SWORD, ST_FLUTE, ST_ACTIONS = range(4)
