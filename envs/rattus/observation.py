"""Rattus observations (spec §8, §10.3, AM-2, AM-5): one seat's view, seat-relative, in named blocks.

Seats are relative (row ``i`` is the seat ``i`` places clockwise of the observer); the layout always
has 4 seat columns, absent seats are 0. Token faces appear only where the observer knows them (its
Witch peeks, which follow the token); others' knowledge shows as public "known by" bits.
"""

from __future__ import annotations

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from .config import NUM_REGIONS, NUM_TOKENS, SLOTS
from .decisions import FINAL_ROUND, KNIGHT_STEP, OVER, PHASE_NAMES, WITCH_DECIDE, WITCH_SECOND

P = 4  # seat columns
SLOT_SIZE = 2 + 2 * P + 9  # present, mark, known by (4), swapped by (4), limit, #M, #A, class counts (6)
REGION_SIZE = 3 + P + SLOTS * SLOT_SIZE  # in play, plague, tokens, cubes (4), slots
EMPTY_SLOTS = [[0.0] * (SLOT_SIZE * (SLOTS - k)) for k in range(SLOTS + 1)]


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
        #: seat -> [faces, swap marks, knowledge (copies: the key), vector, slots and cubes per region and the
        #: plague region as last written, starting mark by token id, slot row by token id]
        self._memo: dict[int, list] = {}
        first = lay.offset("palace")
        self.g = {name: lay.offset(name) - first for name in lay.shapes if name != "regions"}
        self.global_size = lay.size - first

    def invalidate(self) -> None:
        self._memo = {}

    def encode(self, state, player: int) -> np.ndarray:
        """Region rows are memoised per seat on the exact values they show (the region's tokens, cubes and
        plague flag, and every face, knowledge bit and swap mark of the state): only regions that changed
        are written again, from per-token rows built once per knowledge state; the global blocks are
        written afresh in one assignment."""
        game = self.game
        memo = self._memo.get(player)
        if memo is None:
            memo = self._memo[player] = [
                list(state.face), list(state.swapped_by), [list(row) for row in state.known],
                np.zeros(self.layout.size, np.float32), [None] * NUM_REGIONS, [None] * NUM_REGIONS, [-1],
                [int(game.starting_type[f]) for f in state.face], self._token_rows(state, player, range(NUM_TOKENS))]
        elif memo[0] != state.face or memo[1] != state.swapped_by or memo[2] != state.known:
            self._refresh_tokens(state, player, memo)
        out, seen_slots, seen_cubes, seen_plague, token_rows = memo[3], memo[4], memo[5], memo[6], memo[8]
        plague, slots, cubes = state.plague, state.slots, state.cubes
        n = state.n
        rel = [(q - player) % n for q in range(n)]
        moved = seen_plague[0] != plague
        for r in game.in_play:
            slot, here = slots[r], cubes[r]
            if seen_slots[r] != slot or seen_cubes[r] != here or (moved and (r == plague or r == seen_plague[0])):
                seen_slots[r], seen_cubes[r] = list(slot), list(here)
                row = [1.0, float(r == plague), float(len(slot)), 0.0, 0.0, 0.0, 0.0]
                for q in range(n):
                    row[3 + rel[q]] = here[q]
                for tid in slot:
                    row += token_rows[tid]
                row += EMPTY_SLOTS[len(slot)]
                base = self.o["regions"] + r * REGION_SIZE
                out[base:base + REGION_SIZE] = row
        seen_plague[0] = plague
        out[self.o["palace"]:] = self._globals(state, rel, memo[7])
        return out.copy()

    def _refresh_tokens(self, state, player: int, memo: list) -> None:
        """Rebuild the rows of tokens whose face, swap mark or knowledge changed, and forget the regions
        holding them."""
        faces, swaps, known = memo[0], memo[1], memo[2]
        changed = [t for t in range(NUM_TOKENS) if faces[t] != state.face[t] or swaps[t] != state.swapped_by[t]
                   or any(known[q][t] != state.known[q][t] for q in range(state.n))]
        memo[0], memo[1], memo[2] = list(state.face), list(state.swapped_by), [list(row) for row in state.known]
        memo[7] = [int(self.game.starting_type[f]) for f in state.face]
        for t, row in zip(changed, self._token_rows(state, player, changed)):
            memo[8][t] = row
        changed_set = set(changed)
        for r, slot in enumerate(state.slots):
            if changed_set.intersection(slot):
                memo[4][r] = None

    def _token_rows(self, state, player: int, tokens) -> list[list[float]]:
        """Per token id of ``tokens``, its slot row as ``player`` sees it (mark, knowledge, swap, face if
        known)."""
        game, n = self.game, state.n
        rel = [(q - player) % n for q in range(n)]
        rows = []
        for tid in tokens:
            row = [0.0] * SLOT_SIZE
            row[0] = 1.0
            face = state.face[tid]
            if game.starting_mark_public:
                row[1] = float(game.starting_type[face])
            for q in range(n):
                if state.known[q][tid]:
                    row[2 + rel[q]] = 1.0
            if state.swapped_by[tid] >= 0:
                row[2 + P + rel[state.swapped_by[tid]]] = 1.0
            if state.known[player][tid]:
                row[2 + 2 * P:] = self.face_rows[face]
            rows.append(row)
        return rows

    def _globals(self, state, rel: list[int], marks: list[int]) -> list[float]:
        """Every block after ``regions``, as one list."""
        game, o = self.game, self.g
        out = [0.0] * self.global_size
        for q in range(state.n):
            out[o["palace"] + rel[q]] = state.palace[q]
            out[o["cube_supply"] + rel[q]] = state.supply[q]
            out[o["seats"] + rel[q]] = 1.0
        for k, h in enumerate(state.holder):
            out[o["cards"] + k * (1 + P) + (0 if h < 0 else 1 + rel[h])] = 1.0
        rats = o["rats"]
        out[rats] = len(state.rat_supply)
        out[rats + 1] = len(state.removed)
        mark_public = game.starting_mark_public
        if mark_public:
            out[rats + 2] = sum(map(marks.__getitem__, state.rat_supply))
            out[rats + 3] = sum(map(marks.__getitem__, state.removed))
        face = state.face
        for t in state.revealed:
            out[o["revealed"] + face[t]] += 1.0
        phase = state.phase
        if phase != OVER:
            out[o["phase"] + phase] = 1.0
        flags = o["flags"]
        out[flags] = float(state.card_taken)
        out[flags + 1] = float(state.placed)
        out[flags + 2:flags + 8] = map(float, state.used)
        out[o["spread"]] = state.spread_due
        if state.pending >= 0 and mark_public:
            out[o["spread"] + 1] = float(marks[state.pending])
        if phase == WITCH_SECOND or phase == WITCH_DECIDE:
            for i, tid in enumerate(state.witch):
                if tid >= 0:
                    r, s = state.locate(tid)
                    out[o["witch"] + i * NUM_REGIONS * SLOTS + 3 * r + s] = 1.0
        if phase == KNIGHT_STEP:
            out[o["origin"] + state.origin] = 1.0
        if state.ender >= 0:
            out[o["final"]] = float(phase in (FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE, OVER))
            out[o["final"] + 1 + rel[state.ender]] = 1.0
        out[o["start_seat"] + rel[state.start_seat]] = 1.0
        out[o["turns"]] = state.regular_turns / game.max_regular_turns
        out[o["turns"] + 1] = state.no_progress  # AM-5
        if state.current_player >= 0:
            out[o["actor"] + rel[state.current_player]] = 1.0
        return out
