"""Rattus observations (spec §8, §10.3, AM-2, AM-5): one seat's view, seat-relative, in named blocks.

Seats are relative (column ``j`` of a seat block is the seat ``j`` places clockwise of the observer); the
layout always has 4 seat columns, absent seats are 0. Token faces appear only where the observer knows
them (its Witch peeks, which follow the token); others' knowledge shows as public "known by" bits. The
definition is :mod:`.reference`, which writes every value from scratch; this observer gives the same
vectors faster.

How: one table for all seats (``table_layout``): the observation's blocks with absolute seats in the
seat columns, then each seat's known faces (block ``faces``) and a cell that stays 0 (``zero``). A
seat's observation is the table gathered through that seat's index, which rotates the seat columns and
points absent seats and other seats' faces at ``zero``. The table follows the game by the incremental
protocol (:mod:`..core.incremental`): ``apply`` lists the regions whose cubes or tokens it changed and
the tokens whose knowers changed (codes of :mod:`.decisions`); :meth:`RattusObserver.replay` rewrites
those and compares the few other values itself. Rows are written as bytes from tables made once: a
slot row per token type, knowers and swapper, a face row per token type, and the per-step blocks by the
values they show. Offsets are kept in lists per region and seat, in cells (``_cell``) or bytes
(``_byte``), so that a write computes none.
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
RATS_FIELDS = ObservationLayout([("supply", (1,)), ("removed", (1,)), ("supply_marks", (1,)),
                                 ("removed_marks", (1,))])
FLAGS_FIELDS = ObservationLayout([("card_taken", (1,)), ("placed", (1,)), ("used", (6,))])
SPREAD_FIELDS = ObservationLayout([("due", (1,)), ("pending_mark", (1,))])
FINAL_FIELDS = ObservationLayout([("final_round", (1,)), ("ender", (P,))])
TURNS_FIELDS = ObservationLayout([("regular", (1,)), ("no_progress", (1,))])
FINAL_PHASES = (FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE, OVER)
#: The per-step blocks, ``phase`` to ``final``: one span of the table, written from packed bytes by value.
PER_STEP_BLOCKS = ("phase", "flags", "spread", "witch", "origin", "final")
PER_STEP_CACHE_SIZE = 20_000
#: Per-step spans by (first cell, end cell) and their key (see ``RattusObserver._sync_compared``): observers
#: of the same layout share them.
_PER_STEP: dict[tuple[int, int], dict[tuple, bytes]] = {}
#: Each seat's gather index by (player count, observation size).
_GATHER: dict[tuple[int, int], list[np.ndarray]] = {}


def _row(fields: ObservationLayout, **values) -> np.ndarray:
    """A float32 row of ``fields`` with the named fields set (a scalar, or the field's cells)."""
    row = np.zeros(fields.size, np.float32)
    for name, value in values.items():
        fields.view(row, name)[:] = value
    return row


def _one_hot(size: int, index: int) -> list[float]:
    return [1.0 if i == index else 0.0 for i in range(size)]


@functools.lru_cache(maxsize=None)
def _slot_rows(mark: float) -> tuple[bytes, ...]:
    """A token's slot rows (absolute seats) by ``knowers * (P + 1) + swapper + 1`` (knowers: a seat bit
    mask; swapper -1: none). The face stays 0: faces are in the seats' sections of the table."""
    return tuple(_row(SLOT_FIELDS, present=1.0, mark=mark, known_by=[know >> q & 1 for q in range(P)],
                      swapped_by=_one_hot(P, swapper)).tobytes()
                 for know in range(1 << P) for swapper in range(-1, P))


@functools.lru_cache(maxsize=None)
def _face_row(token_type) -> bytes:
    """A token type's face row, as a seat that knows the face sees it."""
    tt = token_type
    return _row(FACE_FIELDS, limit=tt.limit, m=tt.m, a=tt.a, classes=tt.classes).tobytes()


NO_FACE = bytes(4 * FACE_SIZE)
#: zero bytes after k slot rows, and after k face rows
EMPTY_SLOTS = [bytes(4 * SLOT_SIZE * (SLOTS - k)) for k in range(SLOTS + 1)]
EMPTY_FACES = [bytes(4 * FACE_SIZE * (SLOTS - k)) for k in range(SLOTS + 1)]
#: a card's row by holder (absolute seat); -1: unheld
CARD_ROWS = [_row(CARD_FIELDS, holder=_one_hot(P, q)).tobytes() for q in range(P)] + \
    [_row(CARD_FIELDS, unheld=1.0).tobytes()]
#: the actor block by seat; -1: nobody (game over)
ACTOR_ROWS = [np.array(_one_hot(P, q), np.float32).tobytes() for q in range(P)] + [bytes(4 * P)]


class RattusObserver(IncrementalObserver):
    high = 1000.0
    policy_input = "signed_log"
    __slots__ = (  # (see IncrementalObserver)
        "table_layout", "table", "cells", "raw", "marks", "face_rows", "slot_rows", "per_step_layout", "per_step_bytes",
        "per_step_blocks", "pack_cubes", "cubes_bytes", "pack_holdings", "gather", "in_play_cell", "plague_cell",
        "tokens_cell", "cubes_byte", "slot_byte", "face_byte", "holdings_byte", "cards_byte", "card_bytes", "rats_cell",
        "revealed_cell", "witch_cell", "start_seat_cell", "seats_cell", "actor_byte", "regular_turns_cell",
        "no_progress_cell", "_showing", "_know", "_plague", "_slots", "_holder", "_rats", "_rat_marks", "_revealed",
        "_actor", "_turns", "_no_progress",
    )

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
        n = game.num_players
        self.table_layout = ObservationLayout([*self.layout.shapes.items(),
                                               ("faces", (n, NUM_REGIONS, SLOTS, FACE_SIZE)), ("zero", (1,))])
        self.table = np.zeros(self.table_layout.size, np.float32)
        self.cells = memoryview(self.table)  # element writes through the buffer cost a third of numpy's
        self.raw = self.cells.cast("B")  # the table's bytes, for rows written whole
        #: per token type: its starting mark as shown (0 where marks are not public, RA-3), its face row and
        #: its slot rows (:func:`_slot_rows`)
        self.marks = [float(tt.starting) if game.starting_mark_public else 0.0 for tt in game.types]
        self.face_rows = [_face_row(tt) for tt in game.types]
        self.slot_rows = [_slot_rows(mark) for mark in self.marks]
        self._offsets(n)
        cells = self.layout.slices
        assert all(cells[a].stop == cells[b].start for a, b in zip(PER_STEP_BLOCKS, PER_STEP_BLOCKS[1:]))
        per_step = (cells[PER_STEP_BLOCKS[0]].start, cells[PER_STEP_BLOCKS[-1]].stop)
        self.per_step_layout = ObservationLayout([(name, self.layout.shapes[name]) for name in PER_STEP_BLOCKS])
        self.per_step_bytes = slice(4 * per_step[0], 4 * per_step[1])
        self.per_step_blocks = _PER_STEP.setdefault(per_step, {})
        self.pack_cubes, self.cubes_bytes = struct.Struct(f"{n}f").pack, 4 * n
        self.pack_holdings = struct.Struct(f"{n}f{4 * (P - n)}x{n}f")  # palace, absent seats, supply
        gather = _GATHER.get((n, self.layout.size))  # the same for every observer of this layout (determinize)
        if gather is None:
            gather = _GATHER[n, self.layout.size] = [self._gather_for(v) for v in range(n)]
        self.gather = gather

    def _offsets(self, n: int) -> None:
        """Where things are in the table, kept per region and seat."""
        cell, region = self.table_layout.offset, REGION_FIELDS.offset
        region_cell = [cell("regions") + r * REGION_SIZE for r in range(NUM_REGIONS)]
        self.in_play_cell = [at + region("in_play") for at in region_cell]
        self.plague_cell = [at + region("plague") for at in region_cell]
        self.tokens_cell = [at + region("tokens") for at in region_cell]
        self.cubes_byte = [4 * (at + region("cubes")) for at in region_cell]
        #: per region, its slot rows' first bytes (and their end)
        self.slot_byte = [[4 * (at + region("slots") + s * SLOT_SIZE) for s in range(SLOTS + 1)] for at in region_cell]
        #: per seat and region, the first bytes of the seat's face rows there (and their end)
        faces = self.table_layout.offset("faces")
        self.face_byte = [[[4 * (faces + ((v * NUM_REGIONS + r) * SLOTS + s) * FACE_SIZE) for s in range(SLOTS + 1)]
                           for r in range(NUM_REGIONS)] for v in range(n)]
        assert cell("cube_supply") == cell("palace") + P, "palace and supply are written as one span"
        self.holdings_byte = 4 * cell("palace")
        self.cards_byte, self.card_bytes = 4 * cell("cards"), 4 * CARD_FIELDS.size
        self.rats_cell = {name: cell("rats") + RATS_FIELDS.offset(name) for name in RATS_FIELDS.shapes}
        self.revealed_cell, self.witch_cell = cell("revealed"), cell("witch")
        self.start_seat_cell, self.seats_cell, self.actor_byte = cell("start_seat"), cell("seats"), 4 * cell("actor")
        self.regular_turns_cell = cell("turns") + TURNS_FIELDS.offset("regular")
        self.no_progress_cell = cell("turns") + TURNS_FIELDS.offset("no_progress")

    def _gather_for(self, v: int) -> np.ndarray:
        """Indices into the table of seat ``v``'s observation."""
        n, zero = self.game.num_players, self.table_layout.offset("zero")
        index = np.arange(self.layout.size, dtype=np.intp)
        block = self.layout.views(index)

        def rotate(columns: np.ndarray) -> None:  # relative column j shows absolute seat (v + j) % n
            columns[:] = [columns[0] + (v + j) % n if j < n else zero for j in range(P)]

        faces = self.table_layout.view(np.arange(self.table_layout.size), "faces")
        for r in range(NUM_REGIONS):
            region = REGION_FIELDS.views(block["regions"][r])
            rotate(region["cubes"])
            for s in range(SLOTS):
                slot = SLOT_FIELDS.views(region["slots"][s])
                rotate(slot["known_by"])
                rotate(slot["swapped_by"])
                slot["face"][:] = faces[v, r, s]
        for name in ("palace", "cube_supply", "seats", "start_seat", "actor"):
            rotate(block[name])
        for row in block["cards"]:
            rotate(CARD_FIELDS.view(row, "holder"))
        rotate(FINAL_FIELDS.view(block["final"], "ender"))
        index.flags.writeable = False
        return index

    def view(self, seat: int) -> np.ndarray:
        return self.table[self.gather[seat]]

    # ------------------------------------------------------------------ table upkeep
    def rebuild(self, state) -> None:
        """The table from zeros: what is set once, then every region with cubes or tokens and every
        compared value as changed."""
        self.table.fill(0.0)
        cells = self.cells
        for r in self.game.in_play:
            cells[self.in_play_cell[r]] = 1.0
        self._showing = [0] * NUM_REGIONS  # per region: the seats (bit mask) whose section there holds faces
        self._know = [0] * NUM_TOKENS  # per token: the seats (bit mask) knowing it
        for q, mine in enumerate(state.known):
            if True in mine:
                for t in range(NUM_TOKENS):
                    if mine[t]:
                        self._know[t] |= 1 << q
        # the values last written, as a table of zeros shows them
        self._plague = -1
        self._slots: list[list[int]] = [[] for _ in range(NUM_REGIONS)]  # token ids
        self._holder = [-2] * len(CARDS)  # no holder: every card's row is written
        self._rats = -1  # the rat supply's size
        self._rat_marks = 0.0  # and its mark count
        self._revealed = 0
        self._actor = None
        self._turns = self._no_progress = 0
        cells[self.start_seat_cell + state.start_seat] = 1.0
        for q in range(state.n):
            cells[self.seats_cell + q] = 1.0
        cells[self.rats_cell["removed"]] = len(state.removed)  # set at setup
        cells[self.rats_cell["removed_marks"]] = sum([self.marks[state.face[t]] for t in state.removed])
        self._write_holdings(state)
        self._write_revealed(state)  # also where no region holds tokens
        self.replay(state, [CUBES + r for r in self.game.in_play if any(state.cubes[r])]
                    + [TOKENS + r for r in self.game.in_play if state.slots[r]])

    def replay(self, state, changes) -> None:
        """The regions ``changes`` lists, then the values compared with those last written."""
        if changes:
            self._write_regions(state, changes)
        self._sync_compared(state)

    def _write_regions(self, state, changes) -> None:
        """The cubes and tokens of the regions listed (with any cubes, the holdings; with any tokens, the
        revealed tokens), and the slot rows of tokens whose knowers changed."""
        tokens, learned, cubes = [], [], False
        for code in changes:
            if code < TOKENS:
                at = self.cubes_byte[code - CUBES]
                self.raw[at:at + self.cubes_bytes] = self.pack_cubes(*state.cubes[code - CUBES])
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

    def _sync_compared(self, state) -> None:
        """The plague, the card holders, the rat supply, the per-step blocks, ``actor`` and ``turns``,
        where they differ from what the table shows."""
        cells, raw = self.cells, self.raw
        if self._plague != state.plague:
            if self._plague >= 0:
                cells[self.plague_cell[self._plague]] = 0.0
            self._plague = state.plague
            cells[self.plague_cell[state.plague]] = 1.0
        if self._holder != state.holder:  # the rows of the cards whose holder changed
            old, size = self._holder, self.card_bytes
            for k, h in enumerate(state.holder):
                if h != old[k]:
                    at = self.cards_byte + size * k
                    raw[at:at + size] = CARD_ROWS[h]
            self._holder = state.holder[:]
        if self._rats != len(state.rat_supply):
            self._write_rats(state)
        phase, pending = state.phase, state.pending
        key = (phase, state.card_taken, state.placed, tuple(state.used), state.spread_due,  # what they show
               pending >= 0 and self.marks[state.face[pending]] != 0.0, state.ender,
               state.origin if phase == KNIGHT_STEP else -1)
        block = self.per_step_blocks.get(key)  # written every step: the key changes at nearly every step
        if block is None:
            block = self.per_step_blocks[key] = self._per_step_block(key)
            if len(self.per_step_blocks) > PER_STEP_CACHE_SIZE:
                self.per_step_blocks.clear()
        raw[self.per_step_bytes] = block
        if phase == WITCH_SECOND or phase == WITCH_DECIDE:  # the peeked tokens, on the block's zeros
            for i, tid in enumerate(state.witch):
                if tid >= 0:
                    r, s = state.locate(tid)
                    cells[self.witch_cell + i * NUM_REGIONS * SLOTS + SLOTS * r + s] = 1.0
        actor = state.current_player if phase != OVER else -1
        if actor != self._actor:
            raw[self.actor_byte:self.actor_byte + 4 * P] = ACTOR_ROWS[actor]
            self._actor = actor
        if self._turns != state.regular_turns or self._no_progress != state.no_progress:
            self._turns, self._no_progress = state.regular_turns, state.no_progress
            cells[self.regular_turns_cell] = state.regular_turns / self.game.max_regular_turns
            cells[self.no_progress_cell] = state.no_progress  # AM-5

    def _write_holdings(self, state) -> None:
        """The palace and cube supply blocks (adjacent), in one write."""
        pack = self.pack_holdings
        self.raw[self.holdings_byte:self.holdings_byte + pack.size] = pack.pack(*state.palace, *state.supply)

    def _write_revealed(self, state) -> None:
        """The revealed tokens' faces added since the last write."""
        cells, at, face = self.cells, self.revealed_cell, state.face
        for t in state.revealed[self._revealed:]:
            cells[at + face[t]] += 1.0
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
        self.cells[self.tokens_cell[r]] = len(slot)
        face, swapped_by, know, rows, at = state.face, state.swapped_by, self._know, self.slot_rows, self.slot_byte[r]
        k = len(old)
        if len(slot) == k + 1 and not know[slot[-1]] and slot[:-1] == old:
            tid = slot[-1]
            self.raw[at[k]:at[k + 1]] = rows[face[tid]][swapped_by[tid] + 1]
            return
        self.raw[at[0]:at[SLOTS]] = b"".join(
            [rows[face[tid]][know[tid] * (P + 1) + swapped_by[tid] + 1] for tid in slot]) + EMPTY_SLOTS[len(slot)]
        knowing = 0
        for tid in slot:
            knowing |= know[tid]
        seats = knowing | self._showing[r]
        if seats:
            self._showing[r] = knowing  # face rows are never all zero (limits >= 1)
            faces, empty = self.face_rows, EMPTY_FACES[len(slot)]
            for v in range(state.n):
                if seats >> v & 1:
                    mine, at = state.known[v], self.face_byte[v][r]
                    self.raw[at[0]:at[SLOTS]] = b"".join(
                        [faces[face[tid]] if mine[tid] else NO_FACE for tid in slot]) + empty

    def _write_known(self, state, r: int, s: int, tid: int) -> None:
        """The slot row of token ``tid`` (region ``r``, slot ``s``) and its face in its knowers' sections."""
        know = self._know[tid]
        at = self.slot_byte[r]
        self.raw[at[s]:at[s + 1]] = self.slot_rows[state.face[tid]][know * (P + 1) + state.swapped_by[tid] + 1]
        self._showing[r] |= know
        row = self.face_rows[state.face[tid]]
        for v in range(state.n):
            if know >> v & 1:
                at = self.face_byte[v][r]
                self.raw[at[s]:at[s + 1]] = row

    def _write_rats(self, state) -> None:
        """The rat supply's size and mark count (where marks are public): less the drawn token's mark when
        one token was drawn."""
        size = len(state.rat_supply)
        self.cells[self.rats_cell["supply"]] = size
        if self.game.starting_mark_public:
            if size == self._rats - 1 and state.pending >= 0:
                self._rat_marks -= self.marks[state.face[state.pending]]
            else:
                self._rat_marks = sum([self.marks[state.face[t]] for t in state.rat_supply])
            self.cells[self.rats_cell["supply_marks"]] = self._rat_marks
        self._rats = size

    def _per_step_block(self, key: tuple) -> bytes:
        """The per-step blocks' bytes for a key of :meth:`_sync_compared` (absolute seats); the Witch's
        peeked tokens are written on them."""
        phase, card_taken, placed, used, spread_due, pending_mark, ender, origin = key
        span = np.zeros(self.per_step_layout.size, np.float32)
        block = self.per_step_layout.views(span)
        if phase != OVER:
            block["phase"][phase] = 1.0
        block["flags"][:] = _row(FLAGS_FIELDS, card_taken=card_taken, placed=placed, used=used)
        block["spread"][:] = _row(SPREAD_FIELDS, due=spread_due, pending_mark=pending_mark)
        if phase == KNIGHT_STEP:
            block["origin"][origin] = 1.0
        if ender >= 0:
            block["final"][:] = _row(FINAL_FIELDS, final_round=phase in FINAL_PHASES, ender=_one_hot(P, ender))
        return span.tobytes()
