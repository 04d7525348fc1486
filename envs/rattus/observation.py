"""Rattus observations (spec §8, §10.3, AM-2, AM-5): one seat's view, seat-relative, in named blocks.

Seats are relative (row ``i`` is the seat ``i`` places clockwise of the observer); the layout always
has 4 seat columns, absent seats are 0. Token faces appear only where the observer knows them (its
Witch peeks, which follow the token); others' knowledge shows as public "known by" bits.

The observer keeps each seat's observation as a table of its own (:class:`SeatTable`); an observation is
a copy of it. ``apply`` lists the regions whose cubes or tokens it changed and the tokens whose knowers
changed (``state.changes``, codes of :mod:`.decisions`). A table observed at the previous tick rewrites
those and compares the few other values itself; a table further behind starts from the table observed
last, its seat columns rotated and its rows of faces either seat knows rewritten; the first table
observed after anything else is rebuilt from the state (``tick`` tells). Writes are packed bytes from
per-seat tables: a slot row per (token type, knowers, swapper) with the face where the seat knows the
token, and the per-step blocks per value of what they show.
"""

from __future__ import annotations

import functools
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
FINAL_PHASES = (FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE, OVER)
VOLATILE_CACHE_SIZE = 20_000


def _packed(values) -> bytes:
    return struct.pack(f"{len(values)}f", *values)


NO_FACE = _packed([0.0] * FACE_SIZE)
#: zero bytes after k slot rows
EMPTY_ROWS = [bytes(4 * SLOT_SIZE * (SLOTS - k)) for k in range(SLOTS + 1)]
#: packed per-step blocks by the span they fill and the player count, and their key (see ``SeatTable.update``)
_BLOCKS: dict[tuple, dict[tuple, bytes]] = {}


def _columns(v: int, n: int, seats) -> list[float]:
    """Seat ``v``'s P relative seat columns: 1.0 where the absolute seat ``(v + j) % n`` is in ``seats``."""
    return [1.0 if j < n and (v + j) % n in seats else 0.0 for j in range(P)]


@functools.lru_cache(maxsize=None)
def _slot_rows(mark: float, face: bytes, v: int, n: int) -> tuple[bytes, ...]:
    """Seat ``v``'s slot rows of a token by ``knowers * (P + 1) + swapper + 1`` (knowers: an absolute seat
    bit mask; swapper -1: none), with the token's ``face`` where ``v`` knows it."""
    return tuple(_heads(mark, v, n)[know * (P + 1) + swapper + 1] + (face if know >> v & 1 else NO_FACE)
                 for know in range(1 << n) for swapper in range(-1, P))


@functools.lru_cache(maxsize=None)
def _heads(mark: float, v: int, n: int) -> tuple[bytes, ...]:
    """The slot rows of :func:`_slot_rows` without the face cells."""
    return tuple(_packed([1.0, mark, *_columns(v, n, {q for q in range(n) if know >> q & 1}),
                          *_columns(v, n, {swapper})])
                 for know in range(1 << n) for swapper in range(-1, P))


def _write_seats(W: memoryview, values: list[int], shown: list[int], cells: list[int]) -> None:
    """The ``cells`` (by absolute seat) of the per-seat ``values`` that differ from those ``shown``; element
    writes: a packed slice costs more where one or two seats change."""
    for q, k in enumerate(values):
        if k != shown[q]:
            W[cells[q]] = k


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
        #: per token type: its public mark as shown (0 where marks are not public)
        self.marks = [float(tt.starting) if game.starting_mark_public else 0.0 for tt in game.types]
        self.faces = [_packed([tt.limit, tt.m, tt.a, *tt.classes]) for tt in game.types]
        #: the per-step blocks ``phase`` .. ``final`` are one span, written from packed blocks by value
        self.volatile = (self.o["phase"], self.o["final"] + 1 + P)
        self.know = [0] * NUM_TOKENS  # per token: the seats (bit mask) knowing it
        self.known = [set() for _ in range(game.num_players)]  # per seat: the tokens it knows
        self.tables = [SeatTable(self, v) for v in range(game.num_players)]
        self._epoch = 0  # counts the states seen other than by one ``apply`` after the last
        self.invalidate()

    def invalidate(self) -> None:
        self._state = None  # the state last seen
        self._tick = -1  # and its tick then
        self._last = self.tables[0]  # the table brought up to date last

    def encode(self, state, player: int) -> np.ndarray:
        tick = state.tick
        if tick != self._tick or state is not self._state:
            if tick == self._tick + 1 and state is self._state:
                changes = state.changes
                if changes and max(changes) >= KNOWLEDGE:
                    self._learn(state, changes)
            else:  # every table is behind
                self._epoch += 1
                self._learn(state, range(KNOWLEDGE, KNOWLEDGE + NUM_TOKENS))
            self._state, self._tick = state, tick
        table = self.tables[player]
        if table.tick != tick or table.epoch != self._epoch:
            if table.tick == tick - 1 and table.epoch == self._epoch:
                table.update(state, state.changes)
            elif self._last.epoch == self._epoch:  # the last table is at this tick or the previous one
                table.follow(self._last, state, self.known)
            else:
                table.rebuild(state)
            table.epoch, table.tick = self._epoch, tick
            self._last = table
        return table.M.copy()

    def _learn(self, state, codes) -> None:
        """``know`` and ``known`` of the tokens of the KNOWLEDGE ``codes``."""
        known, seats = state.known, range(state.n)
        for code in codes:
            if code >= KNOWLEDGE:
                t = code - KNOWLEDGE
                self.know[t] = sum([1 << q for q in seats if known[q][t]])
                for q in seats:
                    if known[q][t]:
                        self.known[q].add(t)
                    else:
                        self.known[q].discard(t)


class SeatTable:
    """Seat ``v``'s observation ``M`` and the values it shows that :meth:`update` compares."""

    def __init__(self, observer: RattusObserver, v: int):
        game, o = observer.game, observer.o
        n = game.num_players
        self.game, self.o, self.v, self.know = game, o, v, observer.know
        self.M = np.zeros(observer.layout.size, np.float32)
        self.W = memoryview(self.M)  # element writes through the buffer cost a third of numpy's
        self.B = self.W.cast("B")  # bytes, for packed rows
        self.marks = observer.marks
        self.rows = [_slot_rows(mark, face, v, n) for mark, face in zip(observer.marks, observer.faces)]
        self.seat_of = [(q - v) % n for q in range(n)]  # the relative seat of an absolute one
        #: a card's row (none, held by relative seat 0..P-1) by absolute holder; -1: none
        self.card_rows = [_packed([0.0, *_columns(v, n, {h})]) for h in range(n)] + [_packed([1.0] + [0.0] * P)]
        #: the actor block by absolute seat; -1: nobody (game over)
        self.actor_rows = [_packed(_columns(v, n, {q})) for q in range(n)] + [bytes(4 * P)]
        self.region_at = [o["regions"] + r * REGION_SIZE for r in range(NUM_REGIONS)]
        self.faces = observer.faces
        #: per region: its token count's cell; the byte offsets of its slot rows and of its first slot's face cells
        self.count_at = [at + 2 for at in self.region_at]
        self.rows_at = [4 * (at + 3 + P) for at in self.region_at]
        self.faces_at = [4 * (at + 3 + P + 2 + 2 * P) for at in self.region_at]
        self.volatile = observer.volatile
        self.volatile_bytes = slice(4 * self.volatile[0], 4 * self.volatile[1])
        self._blocks = _BLOCKS.setdefault((self.volatile, n), {})  # shared by tables of the same layout
        self.cards_at, self.actor_at = 4 * o["cards"], 4 * o["actor"]
        self.turns_at, self.witch_at = o["turns"], o["witch"]
        #: by absolute seat: its cube cell in each region, its palace and supply cells
        self.cubes_cell = [[at + 3 + (q - v) % n for q in range(n)] for at in self.region_at]
        self.palace_cell = [o["palace"] + (q - v) % n for q in range(n)]
        self.supply_cell = [o["cube_supply"] + (q - v) % n for q in range(n)]
        #: by seat ``u``: indices into seat ``u``'s table of this one (seat columns rotated)
        self.from_seat = [self._rotation((v - u) % n) for u in range(n)]
        self.epoch, self.tick = -1, -1  # the observer's epoch and the state's tick ``M`` shows

    def _rotation(self, d: int) -> np.ndarray:
        """Indices into the table of the seat ``d`` places counterclockwise: its seat columns rotated."""
        n, o = self.game.num_players, self.o
        index = np.arange(len(self.M), dtype=np.intp)

        def rotate(at: int) -> None:  # P seat columns from ``at``: column j shows its column (j + d) % n
            index[at:at + n] = [at + (j + d) % n for j in range(n)]

        for r in range(NUM_REGIONS):
            rotate(self.region_at[r] + 3)
            for s in range(SLOTS):
                at = self.region_at[r] + 3 + P + s * SLOT_SIZE
                rotate(at + 2)
                rotate(at + 2 + P)
        for name in ("palace", "cube_supply", "seats", "start_seat", "actor"):
            rotate(o[name])
        for k in range(6):
            rotate(o["cards"] + k * (1 + P) + 1)
        rotate(o["final"] + 1)
        return index

    def follow(self, table: SeatTable, state, known: list[set[int]]) -> None:
        """``M`` from another seat's ``table`` (at this tick or the previous one): its seat columns rotated,
        the face cells of the tokens one of the two seats knows rewritten (``known``: by seat, the tokens
        it knows)."""
        # the method skips np.take's wrapper; the indices are in range, and "wrap" skips the buffered bounds check
        table.M.take(self.from_seat[table.v], out=self.M, mode="wrap")
        self._slots, self._plague, self._holder = table._slots[:], table._plague, table._holder
        self._cubes, self._palace, self._supply = table._cubes[:], table._palace, table._supply
        self._rats, self._rat_marks, self._revealed = table._rats, table._rat_marks, table._revealed
        self._actor, self._turns, self._no_progress = table._actor, table._turns, table._no_progress
        differ = known[self.v] ^ known[table.v]  # the tokens whose faces one of the tables shows
        if differ:
            mine, face, faces, B = known[self.v], state.face, self.faces, self.B
            for r, slot in enumerate(self._slots):
                if not differ.isdisjoint(slot):
                    at = self.faces_at[r]
                    for t in slot:
                        if t in differ:
                            B[at:at + 4 * FACE_SIZE] = faces[face[t]] if t in mine else NO_FACE
                        at += 4 * SLOT_SIZE
        if table.tick != state.tick:
            self.update(state, state.changes)

    def rebuild(self, state) -> None:
        """``M`` from zeros: every region in play and every compared value as changed."""
        self.M.fill(0.0)
        W, o, n = self.W, self.o, state.n
        for r in self.game.in_play:
            W[self.region_at[r]] = 1.0
        self._plague = -1
        self._slots: list[list[int]] = [[] for _ in range(NUM_REGIONS)]  # token ids as last written
        self._holder = [-2] * 6  # no holder: every card's row is written
        self._cubes = [[0] * n for _ in range(NUM_REGIONS)]  # per region, per seat (as shown: from zeros)
        self._palace, self._supply = [0] * n, [0] * n
        self._rats = -1  # the rat supply's size
        self._rat_marks = 0.0  # and its mark count
        self._revealed = 0
        self._actor = None
        self._turns = self._no_progress = 0
        W[o["start_seat"] + (state.start_seat - self.v) % n] = 1.0
        for j in range(n):
            W[o["seats"] + j] = 1.0
        W[o["rats"] + 1] = len(state.removed)  # set at setup
        W[o["rats"] + 3] = sum([self.marks[state.face[t]] for t in state.removed])
        self._write_holdings(state)
        self._write_revealed(state)  # also where no region holds tokens
        # on zeros, only regions with cubes or tokens need writing
        self.update(state, [CUBES + r for r in self.game.in_play if any(state.cubes[r])]
                    + [TOKENS + r for r in self.game.in_play if state.slots[r]])

    def update(self, state, changes) -> None:
        """Rewrite the regions ``changes`` lists (and the holdings with any region's cubes), then whatever
        else differs from what ``M`` shows (revealed tokens change only with some region's tokens); the
        per-step blocks ``phase`` .. ``final`` as one packed span by the values they show, ``actor`` when
        the actor changed, ``turns`` when the counters changed (``start_seat``: with the rebuild)."""
        W, B = self.W, self.B
        if changes:
            tokens, learned, holdings = [], [], False
            for code in changes:
                if code < TOKENS:
                    r = code - CUBES
                    cubes, shown = state.cubes[r], self._cubes[r]
                    if cubes != shown:
                        cell = self.cubes_cell[r]
                        for q, k in enumerate(cubes):
                            if k != shown[q]:
                                W[cell[q]] = k
                        self._cubes[r] = cubes[:]
                    holdings = True
                elif code < KNOWLEDGE:
                    tokens.append(code - TOKENS)
                else:
                    learned.append(code - KNOWLEDGE)
            for r in tokens:
                self._write_tokens(state, r, learned)
            if holdings:
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
                    B[at:at + size] = self.card_rows[h]
            self._holder = state.holder[:]
        if self._rats != len(state.rat_supply):
            self._write_rats(state)
        phase, pending, ender = state.phase, state.pending, state.ender
        key = (phase, state.card_taken, state.placed, *state.used, state.spread_due,
               pending >= 0 and self.marks[state.face[pending]] != 0.0, ender if ender < 0 else self.seat_of[ender],
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
            B[self.actor_at:self.actor_at + 4 * P] = self.actor_rows[actor]
            self._actor = actor
        if self._turns != state.regular_turns or self._no_progress != state.no_progress:
            self._turns, self._no_progress = state.regular_turns, state.no_progress
            W[self.turns_at] = state.regular_turns / self.game.max_regular_turns
            W[self.turns_at + 1] = state.no_progress  # AM-5

    def _write_holdings(self, state) -> None:
        """The palace and cube supply cells that changed."""
        if state.supply != self._supply:
            _write_seats(self.W, state.supply, self._supply, self.supply_cell)
            self._supply = state.supply[:]
        if state.palace != self._palace:
            _write_seats(self.W, state.palace, self._palace, self.palace_cell)
            self._palace = state.palace[:]

    def _write_revealed(self, state) -> None:
        """The revealed tokens' faces added since the last write."""
        W, at, face = self.W, self.o["revealed"], state.face
        for t in state.revealed[self._revealed:]:
            W[at + face[t]] += 1.0
        self._revealed = len(state.revealed)

    def _write_tokens(self, state, r: int, learned: list[int]) -> None:
        """Region ``r``'s token count and slot rows: only the last slot row where the one change is a token
        nobody knows added, only the rows of the tokens in ``learned`` (whose knowers changed) where the
        tokens are the same."""
        slot, old = state.slots[r], self._slots[r]
        face, swapped_by, know, rows = state.face, state.swapped_by, self.know, self.rows
        at = self.rows_at[r]
        if slot == old:
            for s, tid in enumerate(slot):
                if tid in learned:
                    row = at + 4 * SLOT_SIZE * s
                    self.B[row:row + 4 * SLOT_SIZE] = rows[face[tid]][know[tid] * (P + 1) + swapped_by[tid] + 1]
            return
        self._slots[r] = slot[:]
        self.W[self.count_at[r]] = len(slot)
        if len(slot) == len(old) + 1 and not know[slot[-1]] and slot[:-1] == old:
            at += 4 * SLOT_SIZE * len(old)
            tid = slot[-1]
            self.B[at:at + 4 * SLOT_SIZE] = rows[face[tid]][swapped_by[tid] + 1]
            return
        self.B[at:at + 4 * SLOTS * SLOT_SIZE] = b"".join(
            [rows[face[tid]][know[tid] * (P + 1) + swapped_by[tid] + 1] for tid in slot]) + EMPTY_ROWS[len(slot)]

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
        """The packed span ``phase`` .. ``final`` for a key of :meth:`update` (its ender relative)."""
        phase, card_taken, placed, *used, spread_due, pending_mark, ender, origin = key
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
