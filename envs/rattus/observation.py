"""Rattus observations (spec §8, §10.3, AM-2, AM-5): one seat's view, seat-relative, in named blocks.

Seats are relative (row ``i`` is the seat ``i`` places clockwise of the observer); the layout always
has 4 seat columns, absent seats are 0. Token faces appear only where the observer knows them (its
Witch peeks, which follow the token); others' knowledge shows as public "known by" bits.
"""

from __future__ import annotations

import struct

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from .config import NUM_REGIONS, NUM_TOKENS, SLOTS
from .decisions import FINAL_ROUND, KNIGHT_STEP, OVER, PHASE_NAMES, WITCH_DECIDE, WITCH_SECOND

P = 4  # seat columns
SLOT_SIZE = 2 + 2 * P + 9  # present, mark, known by (4), swapped by (4), limit, #M, #A, class counts (6)
REGION_SIZE = 3 + P + SLOTS * SLOT_SIZE  # in play, plague, tokens, cubes (4), slots
EMPTY_SLOTS = [[0.0] * (SLOT_SIZE * (SLOTS - k)) for k in range(SLOTS + 1)]
PACK_REGION = struct.Struct(f"{REGION_SIZE}f")  # a region row written into the float32 vector in one call


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
        #: plague region as last written, starting mark by token id, slot rows by token id, the key
        #: of the slow global blocks, the indices of the per-step blocks written last]
        self._memo: dict[int, list] = {}
        first = lay.offset("palace")
        self.g = {name: lay.offset(name) - first for name in lay.shapes if name != "regions"}
        self.pack_slow = struct.Struct(f"{lay.offset('phase') - first}f")

    def invalidate(self) -> None:
        self._memo = {}

    def encode(self, state, player: int) -> np.ndarray:
        """Everything is memoised per seat on the exact values shown, compared with copies of what was last
        written: a region row is rewritten when its tokens, cubes or plague flag changed (from per-token
        slot rows rebuilt when a face, knowledge bit or swap mark changes); the slow global blocks when a
        cube count, holding or token count changed; the few entries of the per-step blocks always."""
        game = self.game
        memo = self._memo.get(player)
        if memo is None:
            memo = self._memo[player] = [
                list(state.face), list(state.swapped_by), [list(row) for row in state.known],
                np.zeros(self.layout.size, np.float32), [None] * NUM_REGIONS, [None] * NUM_REGIONS, [-1],
                [int(game.starting_type[f]) for f in state.face],
                self._token_rows(state, player, range(NUM_TOKENS)), None, []]
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
                PACK_REGION.pack_into(out, 4 * (self.o["regions"] + r * REGION_SIZE), *row)
        seen_plague[0] = plague
        key = (tuple(state.palace), tuple(state.supply), tuple(state.holder), tuple(state.rat_supply),
               tuple(state.removed), tuple(state.revealed))
        if memo[9] != key:
            memo[9] = key
            self.pack_slow.pack_into(out, 4 * self.o["palace"], *self._slow(state, rel, memo[7]))
        for i in memo[10]:
            out[i] = 0.0
        memo[10] = []
        for i, v in self._volatile(state, rel):
            out[i] = v
            memo[10].append(i)
        return out.copy()

    def _slow(self, state, rel: list[int], marks: list[int]) -> list[float]:
        """The blocks ``palace`` .. ``revealed`` as one list."""
        o = self.g
        out = [0.0] * (self.g["phase"] - self.g["palace"])
        for q in range(state.n):
            out[o["palace"] + rel[q]] = state.palace[q]
            out[o["cube_supply"] + rel[q]] = state.supply[q]
            out[o["seats"] + rel[q]] = 1.0
        for k, h in enumerate(state.holder):
            out[o["cards"] + k * (1 + P) + (0 if h < 0 else 1 + rel[h])] = 1.0
        rats = o["rats"]
        out[rats] = len(state.rat_supply)
        out[rats + 1] = len(state.removed)
        if self.game.starting_mark_public:
            out[rats + 2] = sum(map(marks.__getitem__, state.rat_supply))
            out[rats + 3] = sum(map(marks.__getitem__, state.removed))
        face = state.face
        for t in state.revealed:
            out[o["revealed"] + face[t]] += 1.0
        return out

    def _volatile(self, state, rel: list[int]) -> list[tuple[int, float]]:
        """(index, value) of the per-step blocks ``phase`` .. ``actor`` (zeros elsewhere)."""
        o, game = self.o, self.game
        phase = state.phase
        out = [(o["flags"], float(state.card_taken)), (o["flags"] + 1, float(state.placed))]
        out += [(o["flags"] + 2 + k, 1.0) for k in range(6) if state.used[k]]
        if phase != OVER:
            out.append((o["phase"] + phase, 1.0))
        if state.spread_due:
            out.append((o["spread"], float(state.spread_due)))
        if state.pending >= 0 and game.starting_mark_public and game.starting_type[state.face[state.pending]]:
            out.append((o["spread"] + 1, 1.0))
        if phase == WITCH_SECOND or phase == WITCH_DECIDE:
            for i, tid in enumerate(state.witch):
                if tid >= 0:
                    r, s = state.locate(tid)
                    out.append((o["witch"] + i * NUM_REGIONS * SLOTS + 3 * r + s, 1.0))
        if phase == KNIGHT_STEP:
            out.append((o["origin"] + state.origin, 1.0))
        if state.ender >= 0:
            out.append((o["final"], float(phase in (FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE, OVER))))
            out.append((o["final"] + 1 + rel[state.ender], 1.0))
        out.append((o["start_seat"] + rel[state.start_seat], 1.0))
        out.append((o["turns"], state.regular_turns / game.max_regular_turns))
        out.append((o["turns"] + 1, float(state.no_progress)))  # AM-5
        if state.current_player >= 0:
            out.append((o["actor"] + rel[state.current_player], 1.0))
        return out

    def _refresh_tokens(self, state, player: int, memo: list) -> None:
        """Rebuild the rows of tokens whose face, swap mark or knowledge changed, and forget the regions
        holding them."""
        faces, swaps, known = memo[0], memo[1], memo[2]
        found: set[int] = set()
        for mine, now in ((faces, state.face), (swaps, state.swapped_by), *zip(known, state.known)):
            if mine != now:
                found.update(t for t in range(NUM_TOKENS) if mine[t] != now[t])
        changed = sorted(found)
        if faces != state.face:
            memo[7] = [int(self.game.starting_type[f]) for f in state.face]
        memo[0], memo[1], memo[2] = list(state.face), list(state.swapped_by), [list(row) for row in state.known]
        for t, row in zip(changed, self._token_rows(state, player, changed)):
            memo[8][t] = row
        memo[9] = None  # the supply's mark count may have changed
        for r, slot in enumerate(state.slots):
            if found.intersection(slot):
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
