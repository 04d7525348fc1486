"""Rattus observations (spec §8, §10.3, AM-2, AM-5): one seat's view, seat-relative, in named blocks.

Seats are relative (row ``i`` is the seat ``i`` places clockwise of the observer); the layout always
has 4 seat columns, absent seats are 0. Token faces appear only where the observer knows them (its
Witch peeks, which follow the token); others' knowledge shows as public "known by" bits.

The observer keeps one table ``M`` for all seats: the observation laid out with absolute seats in the
seat columns, each seat's known faces in a section of their own, and a zero cell. A seat's observation
is ``M`` gathered through that seat's index (seat columns rotated, absent seats and other seats' faces
to zero). ``apply`` lists the regions whose cubes or tokens it changed and the tokens whose knowers changed
(``state.changes``, codes of :mod:`.decisions`); the observer rewrites those, compares the few other
values itself, and rebuilds the table from the state after anything else (``tick`` tells). Writes are
packed bytes from tables: a slot row per (token type, knowers, swapper), a face row per token type, and
the per-step blocks per value of what they show.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from ..core.incremental import IncrementalObserver
from ..core.layout import ObservationLayout
from .config import CARDS, NUM_REGIONS, NUM_TOKENS, SLOTS
from .decisions import (
    CUBES, FINAL_ROUND, KNIGHT_STEP, KNOWLEDGE, OVER, PHASE_NAMES, TOKENS, WITCH_DECIDE, WITCH_SECOND,
)

P = 4  # seat columns
#: A token's face as shown to a seat that knows it: limit, #M, #A, class symbol counts.
FACE_FIELDS = ObservationLayout([("limit", (1,)), ("m", (1,)), ("a", (1,)), ("classes", (6,))])
#: One slot of a region's row (seats relative): a token present, its starting mark, which seats know its
#: face, which seat's Witch swap brought it there (AM-2), and its face if the observer knows it.
SLOT_FIELDS = ObservationLayout([("present", (1,)), ("mark", (1,)), ("known_by", (P,)), ("swapped_by", (P,)),
                          ("face", (FACE_FIELDS.size,))])
#: One row of the ``regions`` block: in play, the plague here, its token count, cubes per seat, its slots.
REGION_FIELDS = ObservationLayout([("in_play", (1,)), ("plague", (1,)), ("tokens", (1,)), ("cubes", (P,)),
                            ("slots", (SLOTS, SLOT_FIELDS.size))])
FACE_SIZE, SLOT_SIZE, REGION_SIZE = FACE_FIELDS.size, SLOT_FIELDS.size, REGION_FIELDS.size
#: The fields of the small blocks.
CARD_FIELDS = ObservationLayout([("unheld", (1,)), ("holder", (P,))])  # a row of ``cards``, one per class card
RATS_FIELDS = ObservationLayout([("supply", (1,)), ("removed", (1,)), ("supply_marks", (1,)), ("removed_marks", (1,))])
FLAGS_FIELDS = ObservationLayout([("card_taken", (1,)), ("placed", (1,)), ("used", (6,))])
SPREAD_FIELDS = ObservationLayout([("due", (1,)), ("pending_mark", (1,))])
FINAL_FIELDS = ObservationLayout([("final_round", (1,)), ("ender", (P,))])
TURNS_FIELDS = ObservationLayout([("regular", (1,)), ("no_progress", (1,))])
FINAL_PHASES = (FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE, OVER)
VOLATILE_CACHE_SIZE = 20_000


def _packed(values) -> bytes:
    return struct.pack(f"{len(values)}f", *values)


NO_FACE = _packed([0.0] * FACE_SIZE)
#: zero bytes after k slot rows, and after k face rows
EMPTY_ROWS = [bytes(4 * SLOT_SIZE * (SLOTS - k)) for k in range(SLOTS + 1)]
EMPTY_FACES = [bytes(4 * FACE_SIZE * (SLOTS - k)) for k in range(SLOTS + 1)]
#: the actor block by seat; -1: nobody (game over)
ACTOR = [_packed([1.0 if j == q else 0.0 for j in range(P)]) for q in range(P)] + [bytes(4 * P)]
#: packed per-step blocks by the span they fill and their key (see ``RattusObserver.replay``)
_BLOCKS: dict[tuple[int, int], dict[tuple, bytes]] = {}


@functools.lru_cache(maxsize=None)
def _slot_rows(mark: float) -> tuple[bytes, ...]:
    """A token's slot rows by ``knowers * (P + 1) + swapper + 1`` (knowers: a seat bit mask; swapper -1:
    none); the face cells stay 0 (faces are in the seats' sections)."""
    return tuple(_packed([1.0, mark, *[float(know >> q & 1) for q in range(P)],
                          *[1.0 if q == swapper else 0.0 for q in range(P)], *[0.0] * FACE_SIZE])
                 for know in range(1 << P) for swapper in range(-1, P))


#: a card's row (none, held by seat 0..P-1) by holder; -1: none
CARD_ROWS = [_packed([0.0] + [1.0 if j == q else 0.0 for j in range(P)]) for q in range(P)]
CARD_ROWS.append(_packed([1.0] + [0.0] * P))


class RattusObserver(IncrementalObserver):
    high = 1000.0
    policy_input = "signed_log"

    @staticmethod
    def build_layout(game) -> ObservationLayout:
        return ObservationLayout([
            ("regions", (NUM_REGIONS, REGION_SIZE)),
            ("palace", (P,)),
            ("cube_supply", (P,)),
            ("seats", (P,)),
            ("cards", (len(CARDS), CARD_FIELDS.size)),
            ("rats", (RATS_FIELDS.size,)),
            ("revealed", (len(game.types),)),
            ("phase", (len(PHASE_NAMES) - 1,)),  # (none when OVER)
            ("flags", (FLAGS_FIELDS.size,)),
            ("spread", (SPREAD_FIELDS.size,)),
            ("witch", (2, NUM_REGIONS * SLOTS)),
            ("origin", (NUM_REGIONS,)),
            ("final", (FINAL_FIELDS.size,)),
            ("start_seat", (P,)),
            ("turns", (TURNS_FIELDS.size,)),
            ("actor", (P,)),
        ])

    def __init__(self, game):
        super().__init__(game)
        lay, n = self.layout, game.num_players
        self.o = {name: lay.offset(name) for name in lay.shapes}
        #: per token type: its public mark as shown (0 where marks are not public)
        self.marks = [float(tt.starting) if game.starting_mark_public else 0.0 for tt in game.types]
        #: per token type: its face row, and its slot rows (:func:`_slot_rows`)
        self.face_bytes = [_packed([tt.limit, tt.m, tt.a, *tt.classes]) for tt in game.types]
        self.row_bytes = [_slot_rows(mark) for mark in self.marks]
        self.region_at = [self.o["regions"] + r * REGION_SIZE for r in range(NUM_REGIONS)]
        #: per region: its token count's cell, the byte offsets of its cubes and of its slot rows (and of their
        #: end), kept so that a write makes no offset ints
        self.count_at = [at + 2 for at in self.region_at]
        self.cubes_at = [4 * (at + 3) for at in self.region_at]
        self.slot_at = [[4 * (at + 3 + P + s * SLOT_SIZE) for s in range(SLOTS + 1)] for at in self.region_at]
        #: the per-step blocks ``phase`` .. ``final`` are one span of M, written from packed blocks by value
        self.volatile = (self.o["phase"], self.o["final"] + 1 + P)
        self.volatile_bytes = slice(4 * self.volatile[0], 4 * self.volatile[1])
        self._blocks = _BLOCKS.setdefault(self.volatile, {})  # shared by observers of the same layout
        self.palace_at = 4 * self.o["palace"]
        self.cards_at, self.actor_at, self.turns_at = 4 * self.o["cards"], 4 * self.o["actor"], self.o["turns"]
        self.witch_at = self.o["witch"]
        self.faces_at = lay.size  # seat v's faces of region r, slot s at faces_at + (v * 3 * R + 3 r + s) * 9
        self.zero = lay.size + n * NUM_REGIONS * SLOTS * FACE_SIZE
        #: per seat and region: the byte offsets of the seat's face rows there (and of their end)
        self.face_at = [[[4 * (self.faces_at + ((v * NUM_REGIONS + r) * SLOTS + s) * FACE_SIZE)
                          for s in range(SLOTS + 1)] for r in range(NUM_REGIONS)] for v in range(n)]
        self.pack_seats, self.seats_size = struct.Struct(f"{n}f").pack, 4 * n
        assert self.o["cube_supply"] == self.o["palace"] + P, "palace and supply are written as one span"
        self.pack_holdings = struct.Struct(f"{n}f{4 * (P - n)}x{n}f")  # palace, zeros, supply
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

    def view(self, seat: int) -> np.ndarray:
        return self.M[self.gather[seat]]

    # ------------------------------------------------------------------ table upkeep
    def rebuild(self, state) -> None:
        """``M`` from zeros: every region in play and every compared value as changed."""
        self.M.fill(0.0)
        W = self.W
        for r in self.game.in_play:
            W[self.region_at[r]] = 1.0
        self._showing = [0] * NUM_REGIONS  # per region: the seats (bit mask) whose section there holds faces
        self._know = [0] * NUM_TOKENS  # per token: the seats (bit mask) knowing it
        for q, mine in enumerate(state.known):
            if True in mine:
                for t in range(NUM_TOKENS):
                    if mine[t]:
                        self._know[t] |= 1 << q
        self._plague = -1
        self._slots: list[list[int]] = [[] for _ in range(NUM_REGIONS)]  # token ids as last written
        self._holder = [-2] * 6  # no holder: every card's row is written
        self._rats = -1  # the rat supply's size
        self._rat_marks = 0.0  # and its mark count
        self._revealed = 0
        self._actor = None
        self._turns = self._no_progress = 0
        W[self.o["start_seat"] + state.start_seat] = 1.0
        for q in range(state.n):
            W[self.o["seats"] + q] = 1.0
        W[self.o["rats"] + 1] = len(state.removed)  # set at setup
        W[self.o["rats"] + 3] = sum([self.marks[state.face[t]] for t in state.removed])
        self._write_holdings(state)
        self._write_revealed(state)  # also where no region holds tokens
        # on zeros, only regions with cubes or tokens need writing
        self.replay(state, [CUBES + r for r in self.game.in_play if any(state.cubes[r])]
                     + [TOKENS + r for r in self.game.in_play if state.slots[r]])

    def replay(self, state, changes) -> None:
        """Rewrite the regions ``changes`` lists (and the holdings with any region's cubes), then whatever
        else differs from what ``M`` shows (revealed tokens change only with some region's tokens); the
        per-step blocks
        ``phase`` .. ``final`` as one packed span by the values they show, ``actor`` when the actor changed,
        ``turns`` when the counters changed (``start_seat``: with the rebuild)."""
        W, B = self.W, self.B
        if changes:
            tokens, learned, cubes = [], [], False
            for code in changes:
                if code < TOKENS:  # slice writes: pack_into costs 3x
                    at = self.cubes_at[code - CUBES]
                    B[at:at + self.seats_size] = self.pack_seats(*state.cubes[code - CUBES])
                    cubes = True
                elif code < KNOWLEDGE:
                    tokens.append(code - TOKENS)
                else:
                    t = code - KNOWLEDGE
                    self._know[t] = sum([1 << q for q in range(state.n) if state.known[q][t]])
                    learned.append(t)
            for r in tokens:
                self._write_tokens(state, r, learned)
            if cubes:
                self._write_holdings(state)
            if self._revealed != len(state.revealed):
                self._write_revealed(state)
        if self._plague != state.plague:
            if self._plague >= 0:
                W[self.region_at[self._plague] + 1] = 0.0
            self._plague = state.plague
            W[self.region_at[state.plague] + 1] = 1.0
        if self._holder != state.holder:  # the rows of the cards whose holder changed
            old, size = self._holder, 4 * (1 + P)
            for k, h in enumerate(state.holder):
                if h != old[k]:
                    at = self.cards_at + size * k
                    B[at:at + size] = CARD_ROWS[h]
            self._holder = state.holder[:]
        if self._rats != len(state.rat_supply):
            self._write_rats(state)
        phase, pending = state.phase, state.pending
        key = (phase, state.card_taken, state.placed, tuple(state.used), state.spread_due,  # (cheaper than *used)
               pending >= 0 and self.marks[state.face[pending]] != 0.0, state.ender,
               state.origin if phase == KNIGHT_STEP else -1)
        block = self._blocks.get(key)  # written every step: the key changes at nearly every step
        if block is None:
            block = self._blocks[key] = self._volatile_block(key)
            if len(self._blocks) > VOLATILE_CACHE_SIZE:
                self._blocks.clear()
        B[self.volatile_bytes] = block
        if phase == WITCH_SECOND or phase == WITCH_DECIDE:  # the peeked cells, on the block's zeros
            for i, tid in enumerate(state.witch):
                if tid >= 0:
                    r, s = state.locate(tid)
                    W[self.witch_at + i * NUM_REGIONS * SLOTS + 3 * r + s] = 1.0
        actor = state.current_player if phase != OVER else -1
        if actor != self._actor:
            B[self.actor_at:self.actor_at + 4 * P] = ACTOR[actor]
            self._actor = actor
        if self._turns != state.regular_turns or self._no_progress != state.no_progress:
            self._turns, self._no_progress = state.regular_turns, state.no_progress
            W[self.turns_at] = state.regular_turns / self.game.max_regular_turns
            W[self.turns_at + 1] = state.no_progress  # AM-5

    def _write_holdings(self, state) -> None:
        """The palace and cube supply blocks (adjacent), in one write."""
        pack = self.pack_holdings
        self.B[self.palace_at:self.palace_at + pack.size] = pack.pack(*state.palace, *state.supply)

    def _write_revealed(self, state) -> None:
        """The revealed tokens' faces added since the last write."""
        W, at, face = self.W, self.o["revealed"], state.face
        for t in state.revealed[self._revealed:]:
            W[at + face[t]] += 1.0
        self._revealed = len(state.revealed)

    def _write_tokens(self, state, r: int, learned: list[int]) -> None:
        """Region ``r``'s token count, slot rows and the faces seats know there: only the last slot row
        where the one change is a token nobody knows added, only the rows of the tokens in ``learned``
        (whose knowers changed) where the tokens are the same."""
        slot, old = state.slots[r], self._slots[r]
        if slot == old:
            for s, tid in enumerate(slot):
                if tid in learned:
                    self._write_known(state, r, s, tid)
            return
        self._slots[r] = slot[:]
        self.W[self.count_at[r]] = len(slot)
        face, swapped_by, know, rows, at = state.face, state.swapped_by, self._know, self.row_bytes, self.slot_at[r]
        k = len(old)
        if len(slot) == k + 1 and not know[slot[-1]] and slot[:-1] == old:
            tid = slot[-1]
            self.B[at[k]:at[k + 1]] = rows[face[tid]][swapped_by[tid] + 1]
            return
        self.B[at[0]:at[SLOTS]] = b"".join(
            [rows[face[tid]][know[tid] * (P + 1) + swapped_by[tid] + 1] for tid in slot]) + EMPTY_ROWS[len(slot)]
        knowing = 0
        for tid in slot:
            knowing |= know[tid]
        seats = knowing | self._showing[r]
        if seats:
            self._showing[r] = knowing  # face rows are never all zero (limits >= 1)
            faces, empty = self.face_bytes, EMPTY_FACES[len(slot)]
            for v in range(state.n):
                if seats >> v & 1:
                    mine, at = state.known[v], self.face_at[v][r]
                    self.B[at[0]:at[SLOTS]] = b"".join(
                        [faces[face[tid]] if mine[tid] else NO_FACE for tid in slot]) + empty

    def _write_known(self, state, r: int, s: int, tid: int) -> None:
        """The slot row of token ``tid`` (region ``r``, slot ``s``) and its face in its knowers' sections."""
        know = self._know[tid]
        at = self.slot_at[r]
        self.B[at[s]:at[s + 1]] = self.row_bytes[state.face[tid]][know * (P + 1) + state.swapped_by[tid] + 1]
        self._showing[r] |= know
        row = self.face_bytes[state.face[tid]]
        for v in range(state.n):
            if know >> v & 1:
                at = self.face_at[v][r]
                self.B[at[s]:at[s + 1]] = row

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

    def _volatile_block(self, key: tuple) -> bytes:
        """The packed span ``phase`` .. ``final`` for a key of :meth:`replay`."""
        phase, card_taken, placed, used, spread_due, pending_mark, ender, origin = key
        start, end = self.volatile
        values = [0.0] * (end - start)

        def at(name: str, i: int = 0) -> int:
            return self.o[name] - start + i

        if phase != OVER:
            values[at("phase", phase)] = 1.0
        values[at("flags")] = 1.0 if card_taken else 0.0
        values[at("flags", 1)] = 1.0 if placed else 0.0
        for k, u in enumerate(used):
            if u:
                values[at("flags", 2 + k)] = 1.0
        values[at("spread")] = spread_due
        if pending_mark:
            values[at("spread", 1)] = 1.0
        if phase == KNIGHT_STEP:
            values[at("origin", origin)] = 1.0
        if ender >= 0:
            values[at("final")] = 1.0 if phase in FINAL_PHASES else 0.0
            values[at("final", 1 + ender)] = 1.0
        return _packed(values)
