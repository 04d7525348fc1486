"""Rattus observations (spec §8, §10.3, AM-2, AM-5): one seat's view, seat-relative, in named blocks.

Seats are relative (row ``i`` is the seat ``i`` places clockwise of the observer); the layout always
has 4 seat columns, absent seats are 0. Token faces appear only where the observer knows them (its
Witch peeks, which follow the token); others' knowledge shows as public "known by" bits.

The observer keeps one table ``M`` for all seats: the observation laid out with absolute seats in the
seat columns, each seat's known faces in a section of their own, and a zero cell. A seat's observation
is ``M`` gathered through that seat's index (seat columns rotated, absent seats and other seats' faces
to zero). ``apply`` lists the regions whose cubes or tokens it changed and the tokens whose knowers changed
(``state.changes``, codes of :mod:`.decisions`); the observer rewrites those, compares the few other
values itself, and rebuilds the table from the state after anything else (``tick`` tells).
"""

from __future__ import annotations

import itertools
import struct

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from .config import NUM_REGIONS, NUM_TOKENS, SLOTS
from .decisions import (
    CUBES, FINAL_ROUND, KNIGHT_STEP, KNOWLEDGE, OVER, PHASE_NAMES, TOKENS, WITCH_DECIDE, WITCH_SECOND,
)

P = 4  # seat columns
FACE_SIZE = 9  # limit, #M, #A, class counts (6)
SLOT_SIZE = 2 + 2 * P + FACE_SIZE  # present, mark, known by (4), swapped by (4), face
REGION_SIZE = 3 + P + SLOTS * SLOT_SIZE  # in play, plague, tokens, cubes (4), slots
PACK_SLOTS = struct.Struct(f"{SLOTS * SLOT_SIZE}f")  # a region's slot rows in one call
PACK_FACES = struct.Struct(f"{SLOTS * FACE_SIZE}f")  # a region's faces in one seat's section
NO_FACE = [0.0] * FACE_SIZE
NO_FACES = [0.0] * (SLOTS * FACE_SIZE)
EMPTY_SLOTS = [[0.0] * (SLOT_SIZE * (SLOTS - k)) for k in range(SLOTS + 1)]
FINAL_PHASES = (FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE, OVER)


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
        lay, n = self.layout, game.num_players
        self.o = {name: lay.offset(name) for name in lay.shapes}
        self.face_rows = [[float(v) for v in (tt.limit, tt.m, tt.a, *tt.classes)] for tt in game.types]
        #: per token type: its public mark as shown (0 where marks are not public)
        self.marks = [float(tt.starting) if game.starting_mark_public else 0.0 for tt in game.types]
        #: a region's slot rows, packed, by the marks of its tokens when nobody knows or swapped them
        self.packed_rows = {marks: PACK_SLOTS.pack(*[v for m in marks for v in [1.0, m] + [0.0] * (SLOT_SIZE - 2)],
                                                   *EMPTY_SLOTS[len(marks)])
                            for k in range(SLOTS + 1) for marks in itertools.product(set(self.marks), repeat=k)}
        self.volatile_at = tuple(self.o[name] for name in (
            "flags", "phase", "spread", "witch", "origin", "final", "turns", "actor"))
        self.faces_at = lay.size  # seat v's faces of region r, slot s at faces_at + (v * 3 * R + 3 r + s) * 9
        self.zero = lay.size + n * NUM_REGIONS * SLOTS * FACE_SIZE
        self.pack_seats = struct.Struct(f"{n}f")
        self.M = np.zeros(self.zero + 1, np.float32)
        self.W = memoryview(self.M)  # element writes through the buffer cost a third of numpy's
        self.B = self.W.cast("B")  # bytes, for packed rows
        self.gather = [self._gather_for(v) for v in range(n)]
        self.invalidate()

    def _gather_for(self, v: int) -> np.ndarray:
        """Indices into ``M`` of seat ``v``'s observation."""
        n, o = self.game.num_players, self.o
        index = np.arange(self.layout.size, dtype=np.intp)

        def rotate(at: int) -> None:  # P seat columns from ``at``: relative j shows absolute (v + j) % n
            index[at:at + P] = [at + (v + j) % n if j < n else self.zero for j in range(P)]

        for r in range(NUM_REGIONS):
            row = o["regions"] + r * REGION_SIZE
            rotate(row + 3)
            for s in range(SLOTS):
                at = row + 3 + P + s * SLOT_SIZE
                rotate(at + 2)
                rotate(at + 2 + P)
                face = self.faces_at + (v * NUM_REGIONS * SLOTS + 3 * r + s) * FACE_SIZE
                index[at + 2 + 2 * P:at + SLOT_SIZE] = np.arange(face, face + FACE_SIZE)
        for name in ("palace", "cube_supply", "seats", "start_seat", "actor"):
            rotate(o[name])
        for k in range(6):
            rotate(o["cards"] + k * (1 + P) + 1)
        rotate(o["final"] + 1)
        index.flags.writeable = False
        return index

    def invalidate(self) -> None:
        self._state = None  # the state M was last brought up to date with
        self._tick = -1  # and its tick then

    def encode(self, state, player: int) -> np.ndarray:
        if state is not self._state or state.tick != self._tick:
            if state is self._state and state.tick == self._tick + 1:
                self._update(state, state.changes)
            else:
                self._rebuild(state)
            self._state, self._tick = state, state.tick
        return self.M[self.gather[player]]

    # ------------------------------------------------------------------ table upkeep
    def _rebuild(self, state) -> None:
        """``M`` from zeros: every region in play and every compared value as changed."""
        self.M.fill(0.0)
        W = self.W
        for r in self.game.in_play:
            W[self.o["regions"] + r * REGION_SIZE] = 1.0
        self._showing: list[set[int]] = [set() for _ in range(NUM_REGIONS)]  # seats whose section there holds faces
        self._knowers: list[list[int]] = [[] for _ in range(NUM_TOKENS)]  # seats knowing each token, ascending
        for q, mine in enumerate(state.known):
            if True in mine:
                for t in range(NUM_TOKENS):
                    if mine[t]:
                        self._knowers[t].append(q)
        self._plague = -1
        self._slots: list[list[int]] = [[] for _ in range(NUM_REGIONS)]  # token ids as last written
        self._palace: list[int] | None = None
        self._supply: list[int] | None = None
        self._holder: list[int] | None = None
        self._rats = -1  # the rat supply's size
        self._rat_marks = 0.0  # and its mark count
        self._revealed = 0
        self._ones: list[int] = []  # indices of the per-step one-hot entries written last
        self._turns = self._no_progress = 0
        W[self.o["start_seat"] + state.start_seat] = 1.0
        for q in range(state.n):
            W[self.o["seats"] + q] = 1.0
        W[self.o["rats"] + 1] = len(state.removed)  # set at setup
        W[self.o["rats"] + 3] = sum([self.marks[state.face[t]] for t in state.removed])
        # on zeros, only regions with cubes or tokens need writing
        self._update(state, [CUBES + r for r in self.game.in_play if any(state.cubes[r])]
                     + [TOKENS + r for r in self.game.in_play if state.slots[r]])

    def _update(self, state, changes) -> None:
        """Rewrite the regions ``changes`` lists, then whatever else differs from what ``M`` shows (holdings
        and revealed tokens change only with some region's cubes or tokens)."""
        W = self.W
        if changes:
            regions, tokens = self.o["regions"], []
            for code in changes:
                if code < TOKENS:
                    r = code - CUBES
                    self.pack_seats.pack_into(self.B, 4 * (regions + r * REGION_SIZE + 3), *state.cubes[r])
                elif code < KNOWLEDGE:
                    tokens.append(code - TOKENS)
                else:
                    t = code - KNOWLEDGE
                    self._knowers[t] = [q for q in range(state.n) if state.known[q][t]]
            if len(changes) == 1 and tokens and self._appended(state, tokens[0]):
                tokens = []
            for r in tokens:
                self._write_tokens(state, r)
            if self._palace != state.palace or self._supply != state.supply:
                self._palace, self._supply = list(state.palace), list(state.supply)
                self.pack_seats.pack_into(self.B, 4 * self.o["palace"], *state.palace)
                self.pack_seats.pack_into(self.B, 4 * self.o["cube_supply"], *state.supply)
            if self._revealed != len(state.revealed):
                at, face = self.o["revealed"], state.face
                for t in state.revealed[self._revealed:]:
                    W[at + face[t]] += 1.0
                self._revealed = len(state.revealed)
        if self._plague != state.plague:
            at = self.o["regions"] + 1
            if self._plague >= 0:
                W[at + self._plague * REGION_SIZE] = 0.0
            self._plague = state.plague
            W[at + state.plague * REGION_SIZE] = 1.0
        if self._holder != state.holder:
            self._write_cards(state)
        if self._rats != len(state.rat_supply):
            self._write_rats(state)
        self._write_volatile(state)

    def _appended(self, state, r: int) -> bool:
        """Write region ``r``'s token count and last slot row and say so if its only change was a token
        nobody knows appended (a spread)."""
        slot, old = state.slots[r], self._slots[r]
        tid = slot[-1] if len(slot) == len(old) + 1 else -1
        if tid < 0 or slot[:-1] != old or self._knowers[tid] or state.swapped_by[tid] >= 0:
            return False
        row = self.o["regions"] + r * REGION_SIZE
        self.W[row + 2] = len(slot)
        at = 4 * (row + 3 + P + len(old) * SLOT_SIZE)
        self.B[at:at + 4 * SLOT_SIZE] = self.packed_rows[(self.marks[state.face[tid]],)][:4 * SLOT_SIZE]
        self._slots[r] = list(slot)
        return True

    def _write_tokens(self, state, r: int) -> None:
        """Region ``r``'s token count, slot rows and faces. Slot rows of tokens nobody knows or swapped
        depend on their marks only: those come packed from a table."""
        face, swapped_by, marks, knowers = state.face, state.swapped_by, self.marks, self._knowers
        row = self.o["regions"] + r * REGION_SIZE
        slot = state.slots[r]
        self.W[row + 2] = len(slot)
        self._slots[r] = list(slot)
        if not any([knowers[tid] or swapped_by[tid] >= 0 for tid in slot]):
            at = 4 * (row + 3 + P)
            self.B[at:at + 4 * SLOTS * SLOT_SIZE] = self.packed_rows[tuple([marks[face[tid]] for tid in slot])]
        else:
            values = []
            for tid in slot:
                token = [1.0, marks[face[tid]]] + [0.0] * (SLOT_SIZE - 2)
                for q in knowers[tid]:
                    token[2 + q] = 1.0
                if swapped_by[tid] >= 0:
                    token[2 + P + swapped_by[tid]] = 1.0
                values += token
            values += EMPTY_SLOTS[len(slot)]
            PACK_SLOTS.pack_into(self.B, 4 * (row + 3 + P), *values)
        knowing = [q for tid in slot for q in knowers[tid]]
        if knowing or self._showing[r]:
            for v in self._showing[r].union(knowing):
                self._write_faces(state, r, v)

    def _write_faces(self, state, r: int, v: int) -> None:
        """Seat ``v``'s section of region ``r``: the faces it knows there."""
        mine, face, faces = state.known[v], state.face, []
        for tid in state.slots[r]:
            faces += self.face_rows[face[tid]] if mine[tid] else NO_FACE
        faces += NO_FACES[:FACE_SIZE * (SLOTS - len(state.slots[r]))]
        PACK_FACES.pack_into(self.B, 4 * (self.faces_at + (v * NUM_REGIONS + r) * SLOTS * FACE_SIZE), *faces)
        if any(faces):
            self._showing[r].add(v)
        else:
            self._showing[r].discard(v)

    def _write_rats(self, state) -> None:
        """The rat supply's size and mark count (where marks are public): less the drawn token's mark when
        one token was drawn."""
        W, at, size = self.W, self.o["rats"], len(state.rat_supply)
        W[at] = size
        if self.game.starting_mark_public:
            if size == self._rats - 1 and state.pending >= 0:
                self._rat_marks -= self.marks[state.face[state.pending]]
            else:
                self._rat_marks = sum([self.marks[state.face[t]] for t in state.rat_supply])
            W[at + 2] = self._rat_marks
        self._rats = size

    def _write_cards(self, state) -> None:
        W, at = self.W, self.o["cards"]
        for k, h in enumerate(state.holder):
            if self._holder is None or self._holder[k] != h:
                W[at + k * (1 + P)] = 1.0 if h < 0 else 0.0
                for q in range(P):
                    W[at + k * (1 + P) + 1 + q] = 1.0 if q == h else 0.0
        self._holder = list(state.holder)

    def _write_volatile(self, state) -> None:
        """The per-step blocks ``phase`` .. ``actor`` (start seat: with the rebuild): the one-hot entries
        rewritten when they differ from last step's, the counters when they changed."""
        W = self.W
        flags, phases, spread, witch, origin, final, turns, actor = self.volatile_at
        phase, used = state.phase, state.used
        W[flags] = 1.0 if state.card_taken else 0.0
        W[flags + 1] = 1.0 if state.placed else 0.0
        W[spread] = state.spread_due
        ones = [flags + 2 + k for k in range(6) if used[k]] if True in used else []
        if phase != OVER:
            ones.append(phases + phase)
            ones.append(actor + state.current_player)
        if state.pending >= 0 and self.marks[state.face[state.pending]]:
            ones.append(spread + 1)
        if phase == WITCH_SECOND or phase == WITCH_DECIDE:
            for i, tid in enumerate(state.witch):
                if tid >= 0:
                    r, s = state.locate(tid)
                    ones.append(witch + i * NUM_REGIONS * SLOTS + 3 * r + s)
        elif phase == KNIGHT_STEP:
            ones.append(origin + state.origin)
        if state.ender >= 0:
            W[final] = 1.0 if phase in FINAL_PHASES else 0.0
            ones.append(final + 1 + state.ender)
        if ones != self._ones:
            for i in self._ones:
                W[i] = 0.0
            for i in ones:
                W[i] = 1.0
            self._ones = ones
        if self._turns != state.regular_turns or self._no_progress != state.no_progress:
            self._turns, self._no_progress = state.regular_turns, state.no_progress
            W[turns] = state.regular_turns / self.game.max_regular_turns
            W[turns + 1] = state.no_progress  # AM-5
