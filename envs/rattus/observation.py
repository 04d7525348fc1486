"""Rattus observations (spec §8, §10.3, AM-2, AM-5): one seat's view, seat-relative, in named blocks.

Seats are relative (row ``i`` is the seat ``i`` places clockwise of the observer); the layout always
has 4 seat columns, absent seats are 0. Token faces appear only where the observer knows them (its
Witch peeks, which follow the token); others' knowledge shows as public "known by" bits.
"""

from __future__ import annotations

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from .config import NUM_REGIONS, SLOTS
from .decisions import FINAL_ROUND, KNIGHT_STEP, OVER, PHASE_NAMES, WITCH_DECIDE, WITCH_SECOND

P = 4  # seat columns
SLOT_SIZE = 2 + 2 * P + 9  # present, mark, known by (4), swapped by (4), limit, #M, #A, class counts (6)
REGION_SIZE = 3 + P + SLOTS * SLOT_SIZE  # in play, plague, tokens, cubes (4), slots


class RattusObserver(Observer):
    high = 1000.0
    policy_input = "signed_log"

    @staticmethod
    def build_layout(game) -> ObservationLayout:
        return ObservationLayout([
            ("regions", (NUM_REGIONS, REGION_SIZE)),
            ("palace", (P,)),
            ("cube_supply", (P,)),
            ("seats", (P,)),
            ("cards", (6, 1 + P)),
            ("rats", (4,)),
            ("revealed", (len(game.types),)),
            ("phase", (len(PHASE_NAMES) - 1,)),
            ("flags", (8,)),
            ("spread", (2,)),
            ("witch", (2, NUM_REGIONS * SLOTS)),
            ("origin", (NUM_REGIONS,)),
            ("final", (1 + P,)),
            ("start_seat", (P,)),
            ("turns", (2,)),
            ("actor", (P,)),
        ])

    def __init__(self, game):
        super().__init__(game)
        lay = self.layout
        self.o = {name: lay.offset(name) for name in lay.shapes}
        # per token type: limit, #M, #A, class counts
        self.face_rows = [[tt.limit, tt.m, tt.a, *tt.classes] for tt in game.types]

    def encode(self, state, player: int) -> np.ndarray:
        game, n, o = self.game, state.n, self.o
        out = np.zeros(self.layout.size, np.float32)
        rel = [(q - player) % n for q in range(n)]
        mark_public = game.starting_mark_public
        starting = game.starting_type
        known = state.known
        mine = state.known[player]
        face = state.face
        for r in range(NUM_REGIONS):
            if not game.play_flag[r]:
                continue
            base = o["regions"] + r * REGION_SIZE
            out[base] = 1.0
            out[base + 1] = float(state.plague == r)
            slot = state.slots[r]
            out[base + 2] = len(slot)
            cubes = state.cubes[r]
            for q in range(n):
                out[base + 3 + rel[q]] = cubes[q]
            for s, tid in enumerate(slot):
                at = base + 3 + P + s * SLOT_SIZE
                out[at] = 1.0
                if mark_public:
                    out[at + 1] = float(starting[face[tid]])
                for q in range(n):
                    if known[q][tid]:
                        out[at + 2 + rel[q]] = 1.0
                if state.swapped_by[tid] >= 0:
                    out[at + 2 + P + rel[state.swapped_by[tid]]] = 1.0
                if mine[tid]:
                    out[at + 2 + 2 * P:at + 2 + 2 * P + 9] = self.face_rows[face[tid]]
        for q in range(n):
            out[o["palace"] + rel[q]] = state.palace[q]
            out[o["cube_supply"] + rel[q]] = state.supply[q]
            out[o["seats"] + rel[q]] = 1.0
        for k, h in enumerate(state.holder):
            out[o["cards"] + k * (1 + P) + (0 if h < 0 else 1 + rel[h])] = 1.0
        rats = o["rats"]
        out[rats] = len(state.rat_supply)
        out[rats + 1] = len(state.removed)
        if mark_public:
            out[rats + 2] = sum(starting[face[t]] for t in state.rat_supply)
            out[rats + 3] = sum(starting[face[t]] for t in state.removed)
        for t in state.revealed:
            out[o["revealed"] + face[t]] += 1.0
        if state.phase != OVER:
            out[o["phase"] + state.phase] = 1.0
        flags = o["flags"]
        out[flags] = state.card_taken
        out[flags + 1] = state.placed
        out[flags + 2:flags + 8] = state.used
        out[o["spread"]] = state.spread_due
        if state.pending >= 0 and mark_public:
            out[o["spread"] + 1] = float(starting[face[state.pending]])
        if state.phase in (WITCH_SECOND, WITCH_DECIDE):
            for i, tid in enumerate(state.witch):
                if tid >= 0:
                    r, s = state.locate(tid)
                    out[o["witch"] + i * NUM_REGIONS * SLOTS + 3 * r + s] = 1.0
        if state.phase == KNIGHT_STEP:
            out[o["origin"] + state.origin] = 1.0
        if state.ender >= 0:
            out[o["final"]] = float(state.phase in (FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE, OVER))
            out[o["final"] + 1 + rel[state.ender]] = 1.0
        out[o["start_seat"] + rel[state.start_seat]] = 1.0
        out[o["turns"]] = state.regular_turns / game.max_regular_turns
        out[o["turns"] + 1] = state.no_progress  # AM-5
        if state.current_player >= 0:
            out[o["actor"] + rel[state.current_player]] = 1.0
        return out
