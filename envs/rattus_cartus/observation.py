"""Rattus Cartus observations (docs/rattus_cartus_rules.md §7, §7.2a, §7.5): one seat's view.

Relative seat ``r`` is the player ``r`` places clockwise of the observer (0 = the observer). Values are raw
counts and flags (``policy_input="signed_log"``). What the observer may not see never appears: other
hands, other players' committed cards before their building is revealed, nun-row cards it has not looked
at, other players' point-token values when they differ (R-A2), others' rats with ``rats_public=False``
(R-A30), and anything derived from a hidden building set (R-A32). The definition is :mod:`.reference`,
which writes every value from scratch; this observer gives the same vectors faster.

How: one table (``table_layout``) holds every value some seat may be shown, seat rows by absolute seat,
and each seat's own block (its context seats and gifts by relative seat around its private section). A
seat's vector is the table read through that seat's index (rotation, its own block, hidden values
pointing at cells that stay 0), whose runs of consecutive cells are joined as bytes. The table follows
the game by the incremental protocol (:mod:`..core.incremental`): ``apply`` lists the records it changed
as ``(code, seat, index)`` entries (:mod:`.changes`), which :meth:`RattusCartusObserver.replay` rewrites
from the state; the decision values and (when an entry says it may have changed) the game block are
compared with the values last written. Offsets are kept in lists per seat, in cells (``_cell``) or
bytes (``_byte``), so that a write computes none.
"""

from __future__ import annotations

from itertools import compress
from operator import add, ne
from struct import Struct
from typing import TYPE_CHECKING

import numpy as np

from ..core.incremental import IncrementalObserver
from ..core.layout import ObservationLayout
from .cards import (
    NUM_BUILDING_CARDS, NUM_BUILDINGS, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUM_TYPES, NUN_ROW_SIZE, TREASURY,
)
from .changes import (
    ANNOUNCE, COMMIT, DECK, ENTER, GAME, GIFTS, HAND, HOLDINGS, INFLUENCE, LOCATED, PASSES, PEEK, PENDING, RATS, REVEAL,
    SHOWN, SUPPLY_SLOT, TAKEN, TOKENS,
)
from .decisions import PHASE_D, PHASE_OVER

if TYPE_CHECKING:
    from .rules import RattusCartusGame, RattusCartusState

#: One row of ``seats`` (per relative seat, public): rats, hand size, pending cards (phase D), committed
#: cards (the running count, once entered), announced, point tokens; this round's supply slot, entered
#: slot, entry position + 1, entry order + 1, Pass cards played; specials taken (5) and cards shown by
#: type (11); hidden cards received, given; committed cards not yet revealed, revealed; influence levels
#: and ranks (1 = first, 0 = not on the track); start player; the 2-player round's special-action player.
SEAT_FIELDS = ObservationLayout([
    ("rats", (1,)), ("hand_size", (1,)), ("pending", (1,)), ("committed", (1,)), ("announced", (1,)),
    ("tokens", (1,)), ("supply_slot", (3,)), ("entered", (3,)), ("entry_pos", (1,)), ("entry_order", (1,)),
    ("passes", (1,)), ("taken", (5,)), ("shown", (NUM_TYPES,)), ("hidden_in", (1,)), ("hidden_out", (1,)),
    ("unrevealed", (1,)), ("revealed", (1,)), ("level", (NUM_CLASSES,)), ("rank", (NUM_CLASSES,)),
    ("start", (1,)), ("special_player", (1,)),
])
#: ``context``: the slot resolving, looks / cards / discards still due, the D8 first look, whether the
#: action is the special one, the Watchtower owner's hand size + 1.
CONTEXT_FIELDS = ObservationLayout([("slot", (3,)), ("due", (1,)), ("first_look", (NUN_ROW_SIZE,)),
                                    ("special", (1,)), ("watchtower", (1,))])
#: The rows of ``context_seats``, each by relative seat.
CANDIDATE, SWORD_WINNER, SWORD_LOSER, FLUTE_WINNER, WATCHTOWER_VICTIM = range(5)
#: ``game``: round (1-based), rounds, last round, phase one-hot, k, building deck, replacement pile,
#: population deck, discard pile, clock, reshuffles, Gold scoring public, players entered.
GAME_FIELDS = ObservationLayout([
    ("round", (1,)), ("rounds", (1,)), ("last_round", (1,)), ("phase", (4,)), ("k", (1,)),
    ("building_deck", (1,)), ("replacement", (1,)), ("deck", (1,)), ("discard", (1,)), ("clock", (1,)),
    ("reshuffles", (1,)), ("gold", (1,)), ("entered", (1,)),
])
#: One slot of ``row``: its building one-hot, copy one-hot, supply action (draw, discard rats, peek), present.
ROW_SLOT_FIELDS = ObservationLayout([("building", (NUM_BUILDINGS,)), ("copy", (5,)), ("supply_action", (3,)),
                                     ("present", (1,))])
#: ``supply``: jokers, Swords, Flutes, Pass, Gold and point tokens left; unlimited supplies.
SUPPLY_FIELDS = ObservationLayout([("specials", (5,)), ("point_tokens", (1,)), ("unlimited", (1,))])
#: ``own_tokens``: the observer's point tokens, number and total value.
OWN_TOKENS_FIELDS = ObservationLayout([("number", (1,)), ("value", (1,))])
#: The rows of ``buildings``: in the game, not yet revealed (both with a public set only), used,
#: replacement-pile bottom (position + 1).
IN_GAME, UNREVEALED, USED, REPLACEMENT_BOTTOM = range(4)
#: The blocks every seat sees alike (the vector's last ones), and each seat's own blocks (consecutive).
SHARED_BLOCKS = ("game", "row", "supply", "discard", "reshuffled_deck", "buildings")
OWN_BLOCKS = ("context_seats", "own_hand", "own_pending", "own_committed", "own_tokens", "nun_row", "seen_outside",
              "gifts")

# The cells of a seat row the observer writes (offsets into a row of SEAT_FIELDS).
RATS_CELL = SEAT_FIELDS.offset("rats")
HAND_SIZE_CELL = SEAT_FIELDS.offset("hand_size")
PENDING_CELL = SEAT_FIELDS.offset("pending")
COMMITTED_CELL = SEAT_FIELDS.offset("committed")
ANNOUNCED_CELL = SEAT_FIELDS.offset("announced")
TOKENS_CELL = SEAT_FIELDS.offset("tokens")
SUPPLY_SLOT_CELL = SEAT_FIELDS.offset("supply_slot")
ENTERED_CELL = SEAT_FIELDS.offset("entered")
ENTRY_POS_CELL = SEAT_FIELDS.offset("entry_pos")
ENTRY_ORDER_CELL = SEAT_FIELDS.offset("entry_order")
PASSES_CELL = SEAT_FIELDS.offset("passes")
TAKEN_CELL = SEAT_FIELDS.offset("taken")
SHOWN_CELL = SEAT_FIELDS.offset("shown")
HIDDEN_IN_CELL = SEAT_FIELDS.offset("hidden_in")
HIDDEN_OUT_CELL = SEAT_FIELDS.offset("hidden_out")
UNREVEALED_CELL = SEAT_FIELDS.offset("unrevealed")
REVEALED_CELL = SEAT_FIELDS.offset("revealed")
LEVEL_CELL = SEAT_FIELDS.offset("level")
RANK_CELL = SEAT_FIELDS.offset("rank")
START_CELL = SEAT_FIELDS.offset("start")
SPECIAL_PLAYER_CELL = SEAT_FIELDS.offset("special_player")


class RattusCartusObserver(IncrementalObserver):
    low = 0.0
    high = 1.0e6
    dtype = np.float32
    policy_input = "signed_log"
    __slots__ = (  # (see IncrementalObserver)
        "n", "table_layout", "table", "cells", "raw", "pieces", "size", "row_slot_bytes", "decision_actor_rows",
        "seat_row", "hand_cell", "pending_cell", "committed_cell", "holding_bytes", "own_tokens_cell", "nun_row_cell",
        "seen_cell", "context_seats_cell", "gift_byte", "gift_flag_cell", "looks_cell", "reveal_cell", "reveal_bytes",
        "decision_actor_bytes", "start_player_cell", "context_cell", "game_cell", "row_cell", "buildings_cell",
        "supply_byte", "discard_cell", "reshuffled_byte",
        "_counts_due", "_seen_cells_due", "_seen_kinds_due", "_any_kind_due", "_ranks_due", "_gold",
        "_supply_slot", "_entered", "_start", "_special_player", "_phase", "_context", "_context_seats", "_round",
        "_game_phase", "_deck", "_clock", "_num_entered", "_reshuffles", "_used", "_repl_known", "_supply",
        "_token_supply", "_discard",
    )

    @staticmethod
    def build_layout(game: RattusCartusGame) -> ObservationLayout:
        n = game.num_players
        return ObservationLayout([
            ("decision", (11,)),            # one-hot decision D1..D10 (index 0: none)
            ("actor", (n,)),                # relative seat to decide
            ("start_player", (n,)),         # relative seat of this round's start player
            ("context", (CONTEXT_FIELDS.size,)),
            ("context_seats", (5, n)),      # per relative seat: D5/D7 candidate, Sword winner, Sword loser,
                                            # Flute winner, Watchtower victim still to give
            ("own_hand", (NUM_ITEMS,)),     # 30 class x nuns (class * 5 + nuns), joker, Sword, Flute, Pass, Gold
            ("own_pending", (NUM_ITEMS,)),
            ("own_committed", (NUM_ITEMS,)),
            ("own_tokens", (OWN_TOKENS_FIELDS.size,)),
            ("nun_row", (NUN_ROW_SIZE, NUM_KINDS + 1)),  # own knowledge per position: kind one-hot, known flag
            ("seen_outside", (NUM_KINDS,)),  # most cards of each kind located outside the nun row at once
            ("gifts", (n, NUM_ITEMS + 1)),  # cards the observer gave each seat in hidden transfers, not since
                                            # shown; flag: that seat has given hidden cards itself
            ("seats", (n, SEAT_FIELDS.size)),  # public per relative seat
            ("looks", (n, NUN_ROW_SIZE)),   # times each relative seat looked at each nun-row position
            ("reveals", (n, NUM_ITEMS)),    # cards each relative seat revealed this round
            ("game", (GAME_FIELDS.size,)),
            ("row", (3, ROW_SLOT_FIELDS.size)),
            ("supply", (SUPPLY_FIELDS.size,)),
            ("discard", (NUM_KINDS,)),      # discard pile by class x nuns
            ("reshuffled_deck", (NUM_KINDS,)),  # make-up of the newest deck formed by a reshuffle
            ("buildings", (4, NUM_BUILDING_CARDS)),
        ])

    def __init__(self, game: RattusCartusGame):
        super().__init__(game)
        self.n = n = game.num_players
        self.table_layout = _table_layout(self.layout, n)
        self.table = np.zeros(self.table_layout.size, np.float32)
        self.cells = memoryview(self.table)  # element writes through the buffer cost a third of numpy's
        self.raw = self.cells.cast("B")  # the table's bytes, for rows written whole
        self._offsets()
        # a seat's vector is its index's runs of consecutive cells, joined (memoryviews of the table's
        # bytes); the runs depend only on the player count and rats_public, so observers share them
        key = (n, game.rats_public)
        runs = _RUNS.get(key)
        if runs is None:
            runs = _RUNS[key] = [_runs(self._gather_for(v)) for v in range(n)]
        self.pieces = [[self.raw[start:stop] for start, stop in seat] for seat in runs]
        self.size = self.layout.size  # (an int shape costs np.ndarray less than a tuple)
        self.row_slot_bytes = _row_slot_bytes(game)
        self.decision_actor_rows = _decision_actor_rows(n)
        # work found while replaying, done once at the end: seats whose counts (pending, committed) to
        # rewrite, single seen_outside cells (seat, kind), kinds for every seat, classes to rank
        self._counts_due = [False] * n
        self._seen_cells_due: list[tuple[int, int]] = []
        self._seen_kinds_due = list(_NO_KINDS)
        self._any_kind_due = False
        self._ranks_due = [False] * NUM_CLASSES

    def _offsets(self) -> None:
        """Where things are in the table, kept per seat."""
        n, cell, own = self.n, self.table_layout.offset, self.layout.offset
        table = self.table_layout.views(np.arange(self.table_layout.size))  # each block's cells

        first = {name: [int(at) for at in table["own"][:, own(name) - own(OWN_BLOCKS[0])]] for name in OWN_BLOCKS}

        def own_cells(name: str, count: int) -> list[list[int]]:  # per seat, the cells of its block ``name``
            return [list(range(at, at + count)) for at in first[name]]

        self.seat_row = [row.tolist() for row in table["seats"]]
        self.hand_cell, self.pending_cell, self.committed_cell = (
            own_cells(name, NUM_ITEMS) for name in ("own_hand", "own_pending", "own_committed"))
        #: per seat: its hand, pending and committed rows' bytes (slices), written whole by HOLDINGS
        self.holding_bytes = [[_items_bytes(rows[v][0]) for rows in (self.hand_cell, self.pending_cell,
                                                                     self.committed_cell)] for v in range(n)]
        self.own_tokens_cell = first["own_tokens"]
        self.nun_row_cell = [[at + q * (NUM_KINDS + 1) for q in range(NUN_ROW_SIZE)] for at in first["nun_row"]]
        self.seen_cell = own_cells("seen_outside", NUM_KINDS)
        self.context_seats_cell = first["context_seats"]  # 5 rows of n, relative
        #: seat v's gift row about absolute seat q (relative (q - v) % n): first byte, and the flag's cell
        gifts = [[first["gifts"][v] + (q - v) % n * (NUM_ITEMS + 1) for q in range(n)] for v in range(n)]
        self.gift_byte = [[4 * at for at in row] for row in gifts]
        self.gift_flag_cell = [[at + NUM_ITEMS for at in row] for row in gifts]
        self.looks_cell = [row.tolist() for row in table["looks"]]
        self.reveal_cell = [row.tolist() for row in table["reveals"]]
        self.reveal_bytes = [_items_bytes(cells[0]) for cells in self.reveal_cell]
        self.decision_actor_bytes = slice(4 * cell("decision"), 4 * cell("start_player"))
        self.start_player_cell = cell("start_player")  # doubled: seat q at q and q + n
        self.context_cell = {name: cell("context") + CONTEXT_FIELDS.offset(name) for name in CONTEXT_FIELDS.shapes}
        self.game_cell = {name: cell("game") + GAME_FIELDS.offset(name) for name in GAME_FIELDS.shapes}
        self.row_cell, self.buildings_cell = cell("row"), cell("buildings")
        self.supply_byte, self.discard_cell = 4 * cell("supply"), cell("discard")
        self.reshuffled_byte = 4 * cell("reshuffled_deck")

    def _gather_for(self, v: int) -> np.ndarray:
        """Indices into the table of seat ``v``'s vector."""
        n, zero = self.n, self.table_layout.offset("zero")
        index = np.full(self.layout.size, -1, np.intp)
        block = self.layout.views(index)
        table = self.table_layout.views(np.arange(self.table_layout.size))
        for name in SHARED_BLOCKS + ("decision", "context"):
            block[name][...] = table[name]
        block["actor"][:] = table["actor"].ravel()[v:v + n]  # doubled: relative r is absolute v + r
        block["start_player"][:] = table["start_player"].ravel()[v:v + n]
        own = self.layout.offset(OWN_BLOCKS[0])
        index[own:own + table["own"].shape[1]] = table["own"][v]
        for r in range(n):
            q = (v + r) % n
            block["seats"][r] = table["seats"][q]
            if r and not self.game.rats_public:  # R-A30: others' rats stay hidden
                block["seats"][r, RATS_CELL] = zero
            block["looks"][r] = table["looks"][q]
            block["reveals"][r] = table["reveals"][q]
        assert (index >= 0).all()
        index.flags.writeable = False
        return index

    # ------------------------------------------------------------------ the protocol
    def view(self, seat: int) -> np.ndarray:
        return _ndarray(self.size, _FLOAT32, _join(self.pieces[seat]))

    def rebuild(self, state: RattusCartusState) -> None:
        """The table from zeros: the values a zero table shows, then every record of every seat that is
        not zero as changed (the turn records and reveals with the new round a zero table sees)."""
        n, cells = self.n, self.cells
        self.table.fill(0.0)
        self._forget()
        self._gold = _gold_public(self.game, state)  # the building set is fixed
        cells[self.game_cell["rounds"]], cells[self.game_cell["k"]] = self.game.rounds, self.game.k
        changes = [(GIFTS, v, q) for v in range(n) for q in range(n)
                   if q != v and (state.gift_flag[v][q] or state.gifts[v][q] != _NO_ITEMS)]
        for p in range(n):
            row = self.seat_row[p]
            cells[row[HIDDEN_IN_CELL]], cells[row[HIDDEN_OUT_CELL]] = state.hidden_in[p], state.hidden_out[p]
            changes += [(HOLDINGS, p, 0), (RATS, p, 0)]
            if state.tokens[p]:
                changes.append((TOKENS, p, 0))
            changes += [(TAKEN, p, i) for i, count in enumerate(state.taken[p]) if count]
            changes += [(SHOWN, p, i) for i, count in enumerate(state.shown[p]) if count]
            changes += [(INFLUENCE, p, i) for i, level in enumerate(state.level[p]) if level]  # (and the ranks)
            changes += [(PEEK, p, i) for i, count in enumerate(state.peek_count[p]) if count or state.peeked[p][i]]
        changes.append((GAME, 0, 0))
        self._replay_changes(state, changes)
        self._write_seen_rows(state)

    def _forget(self) -> None:
        """The values last written, as a table of zeros shows them."""
        n = self.n
        self._supply_slot, self._entered = [-1] * n, [-1] * n  # one-hots
        self._start, self._special_player, self._phase = -1, -1, -1
        self._context = (0, -1, -1, 0, 0)  # the context values (see _sync_decision)
        self._context_seats: tuple | None = None
        self._round, self._game_phase, self._deck, self._clock, self._num_entered = -1, -1, 0, 0, 0
        self._reshuffles = -1  # (the reshuffled deck not written)
        self._used = self._repl_known = 0  # used building cards, replacement-pile cards face up
        self._supply, self._token_supply = [0] * 5, 0
        self._discard = [0] * NUM_KINDS

    def replay(self, state: RattusCartusState, changes: list[tuple[int, int, int]]) -> None:
        if len(changes) == 1 and changes[0][0] == COMMIT:  # a lone D4 commit: one card of ``item`` from
            # ``p``'s hand to its committed cards (``p`` has entered and is not revealed; its cards seen
            # outside the nun row stay; the decision and its context too)
            _, p, item = changes[0]
            cells, row = self.cells, self.seat_row[p]
            cells[self.hand_cell[p][item]] = state.hands[p][item]
            cells[self.committed_cell[p][item]] = state.committed[p][item]
            cells[row[HAND_SIZE_CELL]] = state.hand_size[p]
            cells[row[COMMITTED_CELL]] = cells[row[UNREVEALED_CELL]] = cells[row[COMMITTED_CELL]] + 1.0
        else:
            self._replay_changes(state, changes)

    def _replay_changes(self, state: RattusCartusState, changes: list[tuple[int, int, int]]) -> None:
        """Each entry's record rewritten from the state (see :mod:`.changes`), the groups the entries imply
        compared, then the counts, ranks and seen_outside values the entries touched."""
        cells, S = self.cells, self.seat_row
        counts, seen_cells, seen_kinds = self._counts_due, self._seen_cells_due, self._seen_kinds_due
        due = shared = False  # anything for _write_due; the game block may have changed
        for code, p, i in changes:  # the most frequent first
            if code == HAND:
                cells[self.hand_cell[p][i]] = state.hands[p][i]
                cells[S[p][HAND_SIZE_CELL]] = state.hand_size[p]
                if i < NUM_KINDS:
                    seen_cells.append((p, i))
                    due = True
            elif code == LOCATED:
                seen_kinds[i] = due = shared = self._any_kind_due = True
            elif code == SHOWN:
                cells[S[p][SHOWN_CELL + i]] = state.shown[p][i]
            elif code == REVEAL:
                self._write_reveal(state, p)
                counts[p] = True
            elif code == RATS:
                cells[S[p][RATS_CELL]] = state.rats[p]
            elif code == ENTER:  # (its counts stay 0: nothing committed yet, no pending cards before phase D)
                self._write_entered(state, p)
                cells[S[p][ENTRY_POS_CELL]] = state.entry_pos[p] + 1
                cells[S[p][ENTRY_ORDER_CELL]] = state.entry_order[p] + 1
                cells[self.game_cell["entered"]] = self._num_entered = state.num_entered
            elif code == SUPPLY_SLOT:
                self._write_supply_slot(state, p)
            elif code == DECK:
                cells[self.game_cell["deck"]] = self._deck = len(state.deck)
            elif code == ANNOUNCE:
                cells[S[p][ANNOUNCED_CELL]] = state.announced[p] >= 0
            elif code == HOLDINGS:
                self._write_holdings(state, p)
                counts[p] = shared = True
            elif code == PENDING:
                cells[self.pending_cell[p][i]] = state.pending[p][i]
                counts[p] = True
                if i < NUM_KINDS:
                    seen_cells.append((p, i))
                    due = True
            elif code == INFLUENCE:
                cells[S[p][LEVEL_CELL + i]] = state.level[p][i]
                self._ranks_due[i] = due = shared = True
            elif code == GAME:
                shared = True
            elif code == PEEK:
                self._write_peek(state, p, i)
            elif code == TAKEN:
                cells[S[p][TAKEN_CELL + i]] = state.taken[p][i]
                shared = True
            elif code == GIFTS:  # p gave to i, or i showed cards p had given it
                _GIFT.pack_into(self.table, self.gift_byte[p][i], *state.gifts[p][i], state.gift_flag[p][i])
                cells[S[p][HIDDEN_OUT_CELL]] = state.hidden_out[p]
                cells[S[i][HIDDEN_IN_CELL]] = state.hidden_in[i]
            elif code == PASSES:
                cells[S[p][PASSES_CELL]] = state.passes[p]
            elif code == TOKENS:
                self._write_tokens(state, p)
                shared = True
            elif code == COMMIT:  # (the committer may have been revealed since, with auto_resolve_forced)
                cells[self.hand_cell[p][i]] = state.hands[p][i]
                cells[self.committed_cell[p][i]] = state.committed[p][i]
                cells[S[p][HAND_SIZE_CELL]] = state.hand_size[p]
                counts[p] = True
            else:  # GIFT_FLAGS: every other seat's flag about p
                for other in range(self.n):
                    if other != p:
                        cells[self.gift_flag_cell[other][p]] = state.gift_flag[other][p]
        self._sync_after(state, shared or state.phase != self._phase, due)  # (a new round comes with a new phase)

    def _sync_after(self, state: RattusCartusState, shared: bool, due: bool) -> None:
        """After the entries: the seats' round values and the game block if ``shared``, the counts, ranks
        and seen_outside values due, the decision."""
        if shared:
            self._sync_seats(state)
        counts = self._counts_due
        if True in counts:
            for p in range(self.n):
                if counts[p]:
                    counts[p] = False
                    self._write_counts(state, p)
        if due:
            self._write_due(state)
        self._sync_decision(state)
        if shared:
            self._sync_game(state)

    # ------------------------------------------------------------------ per-seat records
    def _write_reveal(self, state: RattusCartusState, p: int) -> None:
        """The cards ``p`` revealed this round, one by one on a zeroed row (a few kinds of cards)."""
        self.raw[self.reveal_bytes[p]] = _ZERO_ITEMS_BYTES
        if state.revealed[p]:
            cells, row, revealed = self.cells, self.reveal_cell[p], state.last_reveal[p]
            for item in compress(_ITEM_RANGE, revealed):
                cells[row[item]] = revealed[item]

    def _write_turn(self, state: RattusCartusState, p: int) -> bool:
        """``p``'s records of this round's turn; True when its entered slot changed (the counts follow)."""
        cells, row = self.cells, self.seat_row[p]
        self._write_supply_slot(state, p)
        cells[row[ANNOUNCED_CELL]] = state.announced[p] >= 0
        cells[row[ENTRY_POS_CELL]] = state.entry_pos[p] + 1
        cells[row[ENTRY_ORDER_CELL]] = state.entry_order[p] + 1
        cells[row[PASSES_CELL]] = state.passes[p]
        return self._write_entered(state, p)

    def _write_holdings(self, state: RattusCartusState, p: int) -> None:
        """``p``'s hand, pending and committed rows whole, and its hand size."""
        for where, row in zip(self.holding_bytes[p], (state.hands[p], state.pending[p], state.committed[p])):
            if row != _NO_ITEMS:  # (a list compare stops at the first difference, like any(), but costs less)
                _ITEMS.pack_into(self.table, where.start, *row)
            else:
                self.raw[where] = _ZERO_ITEMS_BYTES
        self.cells[self.seat_row[p][HAND_SIZE_CELL]] = state.hand_size[p]

    def _write_peek(self, state: RattusCartusState, p: int, position: int) -> None:
        """How often ``p`` looked at nun-row ``position``, and the card there if it knows it."""
        cells = self.cells
        cells[self.looks_cell[p][position]] = state.peek_count[p][position]
        if state.peeked[p][position]:
            row = self.nun_row_cell[p][position]
            cells[row + state.nun_row[position]] = 1.0
            cells[row + NUM_KINDS] = 1.0

    def _write_tokens(self, state: RattusCartusState, p: int) -> None:
        """``p``'s point tokens: their number (public) and their number and value (its own)."""
        tokens, cells = state.tokens[p], self.cells
        cells[self.seat_row[p][TOKENS_CELL]] = len(tokens)
        cells[self.own_tokens_cell[p]] = len(tokens)
        cells[self.own_tokens_cell[p] + OWN_TOKENS_FIELDS.offset("value")] = sum(tokens)

    def _write_supply_slot(self, state: RattusCartusState, p: int) -> None:
        if state.supply_slot[p] != self._supply_slot[p]:
            self._move_one_hot(self.seat_row[p][SUPPLY_SLOT_CELL], self._supply_slot[p], state.supply_slot[p])
            self._supply_slot[p] = state.supply_slot[p]

    def _write_entered(self, state: RattusCartusState, p: int) -> bool:
        """Seat ``p``'s entered slot; True when it changed (the committed counts follow it)."""
        if state.entered[p] == self._entered[p]:
            return False
        self._move_one_hot(self.seat_row[p][ENTERED_CELL], self._entered[p], state.entered[p])
        self._entered[p] = state.entered[p]
        return True

    def _move_one_hot(self, first: int, was: int, now: int) -> None:
        """The one-hot whose first cell is ``first`` from position ``was`` to ``now`` (-1: none)."""
        if was >= 0:
            self.cells[first + was] = 0.0
        if now >= 0:
            self.cells[first + now] = 1.0

    def _write_counts(self, state: RattusCartusState, p: int) -> None:
        """Seat ``p``'s pending cards (phase D), committed cards (once entered), committed cards not yet
        revealed and revealed flag."""
        cells, row = self.cells, self.seat_row[p]
        committed = sum(state.committed[p]) if state.entered[p] >= 0 else 0
        revealed = state.revealed[p]
        cells[row[PENDING_CELL]] = sum(state.pending[p]) if state.phase == PHASE_D else 0
        cells[row[COMMITTED_CELL]] = committed
        cells[row[UNREVEALED_CELL]] = 0 if revealed else committed
        cells[row[REVEALED_CELL]] = revealed

    # ------------------------------------------------------------------ values that follow from several records
    def _write_due(self, state: RattusCartusState) -> None:
        """The ranks and seen_outside values the entries changed."""
        if True in self._ranks_due:
            self._write_ranks(state)
        if self._any_kind_due:
            self._write_seen_kinds(state)
        if self._seen_cells_due:
            self._write_seen_cells(state)

    def _write_seen_cells(self, state: RattusCartusState) -> None:
        """The seen_outside cells (seat, kind) due: what the seat locates now, or more (``state.seen``)."""
        cells, seen_at = self.cells, self.seen_cell
        hands, pending, committed, discard = state.hands, state.pending, state.committed, state.discard
        revealed, seen = state.revealed, state.seen
        shown = list(compress(range(self.n), revealed)) if True in revealed else ()
        for v, k in self._seen_cells_due:
            t = hands[v][k] + pending[v][k] + committed[v][k] + discard[k]
            for q in shown:
                if q != v:
                    t += committed[q][k]
            s = seen[v][k]
            cells[seen_at[v][k]] = t if t > s else s
        self._seen_cells_due.clear()

    def _write_seen_kinds(self, state: RattusCartusState) -> None:
        """Every seat's seen_outside cells of the kinds due (a card located by everybody: discarded or
        revealed), kind by kind."""
        cells, kinds = self.cells, self._seen_kinds_due
        self._any_kind_due = False
        committed, revealed = state.committed, state.revealed
        shown = list(compress(committed, revealed))
        # per seat: hand, pending, own committed cards while not revealed, seen, seen_outside cells
        seats = [(state.hands[v], state.pending[v], _NO_CARDS if revealed[v] else committed[v], state.seen[v],
                  self.seen_cell[v]) for v in range(self.n)]
        for k in compress(_KIND_RANGE, kinds):
            table = state.discard[k]  # located by everybody
            for cards in shown:
                table += cards[k]
            for hand, pending, own, seen, cell in seats:
                t = hand[k] + pending[k] + own[k] + table
                s = seen[k]
                cells[cell[k]] = t if t > s else s
        kinds[:] = _NO_KINDS

    def _write_seen_rows(self, state: RattusCartusState) -> None:
        """Every seat's seen_outside row (``state.seen_now``, with the cards located by everybody added up
        once)."""
        revealed, committed = state.revealed, state.committed
        table = state.discard
        for q in range(self.n):
            if revealed[q]:
                table = list(map(add, table, committed[q]))
        for v in range(self.n):
            located = map(add, map(add, state.hands[v], state.pending[v]), table)
            if not revealed[v]:
                located = map(add, located, committed[v])
            seen = state.seen[v]
            _KINDS.pack_into(self.table, 4 * self.seen_cell[v][0],
                             *([a if a > b else b for a, b in zip(located, seen)] if any(seen) else located))

    def _write_ranks(self, state: RattusCartusState) -> None:
        """Every seat's influence rank in the classes whose levels changed (1 = first, 0 = level 0; ties by
        arrival, §6.1). Levels only rise within a game, so a seat at level 0 still shows 0."""
        cells, due, n, rows = self.cells, self._ranks_due, self.n, self.seat_row
        level, stamp = state.level, state.stamp
        for c in compress(range(NUM_CLASSES), due):
            ranked = sorted((-level[p][c], stamp[p][c], p) for p in range(n) if level[p][c])
            for place, (_, _, p) in enumerate(ranked, 1):
                cells[rows[p][RANK_CELL + c]] = place
        due[:] = _NO_CLASSES

    # ------------------------------------------------------------------ values compared with those last written
    def _sync_seats(self, state: RattusCartusState) -> None:
        """A new round's turn records and reveals of every seat, the start player (its row flag and
        one-hot), the special-action player and the phase (the counts of pending cards, if any, follow
        it)."""
        cells, rows = self.cells, self.seat_row
        if state.round != self._round:
            for p in range(self.n):
                self._write_turn(state, p)
                self._write_reveal(state, p)
                self._counts_due[p] = True
        if state.start != self._start:
            if self._start >= 0:
                cells[rows[self._start][START_CELL]] = 0.0
                self._write_start_player(self._start, 0.0)
            cells[rows[state.start][START_CELL]] = 1.0
            self._write_start_player(state.start, 1.0)
            self._start = state.start
        if state.rsp != self._special_player:
            if self._special_player >= 0:
                cells[rows[self._special_player][SPECIAL_PLAYER_CELL]] = 0.0
            if state.rsp >= 0:
                cells[rows[state.rsp][SPECIAL_PLAYER_CELL]] = 1.0
            self._special_player = state.rsp
        if state.phase != self._phase:  # pending cards show in phase D only
            self._phase = state.phase
            drawn, hidden, taken = state.pend_drawn, state.pend_hidden, state.pend_taken
            for p in range(self.n):
                if drawn[p] or hidden[p] or any(taken[p]):  # pending cards (how they came, checks.invariants)
                    self._counts_due[p] = True

    def _write_start_player(self, q: int, value: float) -> None:
        """The start player one-hot, kept twice over (cells q and q + n: any rotation reads one run)."""
        self.cells[self.start_player_cell + q] = self.cells[self.start_player_cell + q + self.n] = value

    def _sync_decision(self, state: RattusCartusState) -> None:
        """decision and actor (one-hots, as bytes), the context when its values changed and, in phase D,
        the context seats when they changed."""
        self.raw[self.decision_actor_bytes] = self.decision_actor_rows[state.decision][state.current_player]
        if state.phase == PHASE_D:
            queue, qi = state.queue, state.qi
            context = (state.left, state.first_pos, state.slot if state.slot < self.game.k else -1,
                       queue[qi][1] if qi < len(queue) else 0, state.wt_t + 1)
            seats = (state.flute, state.cands, state.sword, state.wt_victims)
        else:
            context, seats = (state.left, state.first_pos, -1, 0, 0), None
        if context != self._context:
            self._write_context(context, self._context)
            self._context = context
        if seats != self._context_seats:
            self._write_context_seats(seats)
            self._context_seats = seats and (seats[0], *map(list, seats[1:]))  # (the state changes them in place)

    def _write_context(self, context: tuple[int, int, int, int, int], was: tuple[int, int, int, int, int]) -> None:
        """The context values that differ from ``was``: looks / cards / discards due, D8 first look, slot
        resolving, special action, Watchtower t + 1 (one-hots at -1: none)."""
        cells, at = self.cells, self.context_cell
        due, first_look, slot, special, watchtower = context
        if due != was[0]:
            cells[at["due"]] = due
        if first_look != was[1]:
            self._move_one_hot(at["first_look"], was[1], first_look)
        if slot != was[2]:
            self._move_one_hot(at["slot"], was[2], slot)
        if special != was[3]:
            cells[at["special"]] = special
        if watchtower != was[4]:
            cells[at["watchtower"]] = watchtower

    def _write_context_seats(self, seats: tuple | None) -> None:
        """Every seat's context seats (by relative seat, in its own block): D5/D7 candidates, Sword winner
        and loser, Flute winner, Watchtower victims (none outside phase D)."""
        n = self.n
        for v in range(n):
            at = self.context_seats_cell[v]
            self.raw[4 * at:4 * (at + 5 * n)] = bytes(4 * 5 * n)
        if seats is None:
            return
        flute, candidates, sword, victims = seats
        marks = [(CANDIDATE, q) for q in candidates] + [(WATCHTOWER_VICTIM, q) for q in victims]
        marks += [(row, q) for row, q in ((SWORD_WINNER, sword[0]), (SWORD_LOSER, sword[1]), (FLUTE_WINNER, flute))
                  if q >= 0]
        for row, q in marks:
            for v in range(n):
                self.cells[self.context_seats_cell[v] + row * n + (q - v) % n] = 1.0

    def _sync_game(self, state: RattusCartusState) -> None:
        """The game, row, supply, discard, reshuffled deck and buildings blocks. The row, the building
        deck, the replacement pile and the used cards change only between rounds: the row is rewritten,
        the new row's cards leave the cards not yet revealed, the last row joins the used cards; the game
        values are compared one by one."""
        game, cells, at = self.game, self.cells, self.game_cell
        if state.round != self._round:
            self._write_round(state, first=self._round < 0)
        if state.phase != self._game_phase:
            self._move_one_hot(at["phase"], self._game_phase, state.phase)
            cells[at["last_round"]] = state.round == game.rounds - 1 and state.phase != PHASE_OVER
            self._game_phase = state.phase
        if len(state.deck) != self._deck:
            cells[at["deck"]] = self._deck = len(state.deck)
        if state.clock != self._clock:
            cells[at["clock"]] = self._clock = state.clock
        if state.reshuffles != self._reshuffles:  # and with it the reshuffled deck
            cells[at["reshuffles"]] = self._reshuffles = state.reshuffles
            _KINDS.pack_into(self.table, self.reshuffled_byte, *state.reshuffle_comp)
        if state.num_entered != self._num_entered:
            cells[at["entered"]] = self._num_entered = state.num_entered
        if game.finite:
            if state.supply != self._supply or len(state.token_supply) != self._token_supply:
                self._token_supply, self._supply = len(state.token_supply), list(state.supply)
                _SUPPLY.pack_into(self.table, self.supply_byte, *state.supply, self._token_supply, 0)
        elif self._token_supply >= 0:  # unlimited supplies
            self._token_supply = -1
            _SUPPLY.pack_into(self.table, self.supply_byte, 0, 0, 0, 0, 0, 0, 1)
        discard = state.discard
        if discard != self._discard:  # the kinds that changed, one by one (a pack of 30 costs more)
            for k in compress(_KIND_RANGE, map(ne, discard, self._discard)):
                cells[self.discard_cell + k] = discard[k]
            cells[at["discard"]] = sum(discard)
            self._discard = list(discard)

    def _write_round(self, state: RattusCartusState, first: bool) -> None:
        """A new round's values: the row, the buildings, the round, the building deck, the replacement
        pile, Gold scoring and the last round flag (``first``: on a table of zeros)."""
        game, cells, at = self.game, self.cells, self.game_cell
        buildings = self.buildings_cell
        for slot in range(3):  # the row block's slots, as bytes by building card
            start = 4 * (self.row_cell + slot * ROW_SLOT_FIELDS.size)
            self.raw[start:start + 4 * ROW_SLOT_FIELDS.size] = \
                self.row_slot_bytes[state.row[slot]] if slot < len(state.row) else _NO_ROW_SLOT
        if first and game.building_set_public:
            for card in state.building_set:
                cells[buildings + IN_GAME * NUM_BUILDING_CARDS + card] = 1.0
            for card in state.bdeck + state.repl:
                cells[buildings + UNREVEALED * NUM_BUILDING_CARDS + card] = 1.0
        elif game.building_set_public:
            for card in state.row:
                cells[buildings + UNREVEALED * NUM_BUILDING_CARDS + card] = 0.0
        for card in state.used[self._used:]:
            cells[buildings + USED * NUM_BUILDING_CARDS + card] = 1.0
        if state.repl_known or self._repl_known:  # the cards put under the replacement pile face up (§3.1)
            bottom = buildings + REPLACEMENT_BOTTOM * NUM_BUILDING_CARDS
            self.raw[4 * bottom:4 * (bottom + NUM_BUILDING_CARDS)] = bytes(4 * NUM_BUILDING_CARDS)
            for position in range(state.repl_known):
                cells[bottom + state.repl[position]] = position + 1
        self._used, self._repl_known = len(state.used), state.repl_known
        cells[at["round"]] = min(state.round + 1, game.rounds)
        cells[at["building_deck"]], cells[at["replacement"]] = len(state.bdeck), len(state.repl)
        cells[at["gold"]] = self._gold
        cells[at["last_round"]] = state.round == game.rounds - 1 and state.phase != PHASE_OVER
        self._round = state.round


def _table_layout(layout: ObservationLayout, n: int) -> ObservationLayout:
    """The observer's table: the shared blocks first (as in the vector); the decision; the actor and start
    player one-hots twice over (seat q at q and q + n, so that any rotation reads one run); the context;
    each seat's own block (its context seats and gifts by relative seat around its private section, as
    in its vector); seat rows, looks and reveals by absolute seat; cells that stay 0."""
    own = layout.slices[OWN_BLOCKS[-1]].stop - layout.offset(OWN_BLOCKS[0])
    assert own == sum(layout.slices[name].stop - layout.offset(name) for name in OWN_BLOCKS), "own blocks apart"
    return ObservationLayout([*((name, layout.shapes[name]) for name in SHARED_BLOCKS),
                              ("decision", layout.shapes["decision"]), ("actor", (2, n)), ("start_player", (2, n)),
                              ("context", layout.shapes["context"]), ("own", (n, own)),
                              ("seats", (n, SEAT_FIELDS.size)), ("looks", (n, NUN_ROW_SIZE)),
                              ("reveals", (n, NUM_ITEMS)), ("zero", (NUM_ITEMS + 1,))])


def _decision_actor_rows(n: int) -> list[list[bytes]]:
    """The decision and (doubled) actor one-hots as bytes, by decision and actor (-1, the last: none)."""
    rows = _DECISION_ACTOR.get(n)
    if rows is None:
        table = np.zeros((11, n + 1, 11 + 2 * n), np.float32)
        for d in range(11):
            table[d, :, d] = 1.0
            table[d, range(n), range(11, 11 + n)] = table[d, range(n), range(11 + n, 11 + 2 * n)] = 1.0
        rows = _DECISION_ACTOR[n] = [[actor.tobytes() for actor in decision] for decision in table]
    return rows


def _row_slot_bytes(game: RattusCartusGame) -> list[bytes]:
    """Each building card's row slot (building, copy, supply action, present) as bytes."""
    key = tuple(game.supply_action)
    rows = _ROW_SLOTS.get(key)
    if rows is None:
        rows = _ROW_SLOTS[key] = []
        for card in range(NUM_BUILDING_CARDS):
            row = np.zeros(ROW_SLOT_FIELDS.size, np.float32)
            slot = ROW_SLOT_FIELDS.views(row)
            slot["building"][card // 5] = slot["copy"][card % 5] = slot["present"][0] = 1.0
            slot["supply_action"][:] = game.supply_action[card]
            rows.append(row.tobytes())
    return rows


def _runs(index: np.ndarray) -> list[tuple[int, int]]:
    """The byte ranges of the float32 cells that ``index`` reads, one per run of consecutive cells."""
    breaks = np.flatnonzero(np.diff(index) != 1) + 1
    return [(4 * int(run[0]), 4 * int(run[-1]) + 4) for run in np.split(index, breaks)]


def _gold_public(game: RattusCartusGame, state: RattusCartusState) -> bool:
    return game.building_set_public and not _TREASURY_CARDS.isdisjoint(state.building_set)


def _items_bytes(cell: int) -> slice:
    """The bytes of a row of NUM_ITEMS cells from ``cell``."""
    return slice(4 * cell, 4 * (cell + NUM_ITEMS))


# a vector: an array over the joined bytes (np.ndarray on the buffer costs less than np.frombuffer)
_ndarray, _join, _FLOAT32 = np.ndarray, bytearray().join, np.dtype(np.float32)
_RUNS: dict[tuple[int, bool], list[list[tuple[int, int]]]] = {}
_DECISION_ACTOR: dict[int, list[list[bytes]]] = {}
_ROW_SLOTS: dict[tuple, list[bytes]] = {}
_NO_ROW_SLOT = bytes(4 * ROW_SLOT_FIELDS.size)
_TREASURY_CARDS = frozenset(range(5 * TREASURY, 5 * TREASURY + 5))
_NO_KINDS = [False] * NUM_KINDS
_NO_CLASSES = [False] * NUM_CLASSES
_NO_CARDS = (0,) * NUM_KINDS
_NO_ITEMS = [0] * NUM_ITEMS
_KIND_RANGE = range(NUM_KINDS)
_ITEM_RANGE = range(NUM_ITEMS)
# float32 writes of whole rows (one C call instead of a write per value)
_KINDS, _ITEMS, _GIFT, _SUPPLY = (Struct(f"{size}f") for size in (NUM_KINDS, NUM_ITEMS, NUM_ITEMS + 1,
                                                                   SUPPLY_FIELDS.size))
_ZERO_ITEMS_BYTES = bytes(4 * NUM_ITEMS)  # a row of 35 items at 0 (an int-to-float pack costs far more)
