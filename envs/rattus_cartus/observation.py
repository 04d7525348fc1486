"""Rattus Cartus observation encoder (docs/rattus_cartus_rules.md §7, §7.2a, §7.5): one seat's view.

Relative seat ``r`` is the player ``r`` places clockwise of the observer (0 = the observer). Values are raw
counts and flags (``policy_input="signed_log"``). What the observer may not see never appears: other
hands, other players' committed cards before their building is revealed, nun-row cards it has not looked
at, other players' point-token values when they differ (R-A2), others' rats with ``rats_public=False``
(R-A30), and anything derived from a hidden building set (R-A32).

Speed: :func:`.reference.observation` writes every value from scratch (the definition). The observer gives the
same vectors from one table of every value some seat may see, by absolute seat, gathered through a
per-seat index array (rotation, own private blocks, hidden values pointing at cells that stay 0) whose
runs of consecutive cells are joined as bytes. When the state is one ``apply`` ahead of the table, the
table is brought up to date: what the engine listed in ``state.changes`` (:mod:`.changes`) is rewritten
from the state, cell by cell or row by row, and the decision values and (when an entry says it may have
changed) the game block are compared with the values last written; after a lone D4 commit
(``state.quiet``) only the committer's cards are rewritten. Otherwise (a new state, a re-deal, a missed
step) the table is rebuilt. Tests compare both encoders at every step and after restores.
"""

from __future__ import annotations

from itertools import compress
from operator import add, ne
from struct import Struct
from typing import TYPE_CHECKING

import numpy as np

from ..core.incremental import IncrementalObserver
from ..core.layout import ObservationLayout
from .changes import (
    ANNOUNCE, COMMIT, DECK, ENTER, GAME, GIFTS, HAND, HOLDINGS, INFLUENCE, LOCATED, PASSES, PEEK, PENDING, RATS, REVEAL,
    SHOWN, SUPPLY_SLOT, TAKEN, TOKENS, TURN,
)
from .cards import (
    NUM_BUILDING_CARDS, NUM_BUILDINGS, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUM_TYPES, NUN_ROW_SIZE, TREASURY,
)

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
CONTEXT_FIELDS = ObservationLayout([("slot", (3,)), ("due", (1,)), ("first_look", (NUN_ROW_SIZE,)), ("special", (1,)),
                             ("watchtower", (1,))])
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
SEAT_FEATURES, CONTEXT_FEATURES, GAME_FEATURES, ROW_FEATURES = SEAT_FIELDS.size, CONTEXT_FIELDS.size, GAME_FIELDS.size, ROW_SLOT_FIELDS.size


class RattusCartusObserver(IncrementalObserver):
    low = 0.0
    high = 1.0e6
    dtype = np.float32
    policy_input = "signed_log"
    __slots__ = (
        "game", "layout", "_n", "_off", "_M_DEC", "_M_ACTOR", "_M_START", "_M_CTX", "_M_CSEATS", "_M_PRIV", "_PRIVATE",
        "_BLOCK", "_M_GIFTS", "_M_SEATS", "_M_LOOKS", "_M_REVEALS", "_M_ZERO", "_seat_cell", "_private_cell", "_SEEN",
        "_seen_cell", "_reveal_cell", "_reveal_bytes", "_holding_bytes", "_M", "_W", "_B", "_pieces",
        "_shape", "_row_cells", "_counts", "_seen_cells", "_seen_kinds", "_kinds_due", "_ranks_due",
        "_supply_slot", "_entered", "_start", "_rsp", "_phase", "_context", "_seats", "_dec_at", "_dec_actor", "_game",
        "_supply", "_discard", "_gold", "_used", "_repl_known",
    )

    @staticmethod
    def build_layout(game: RattusCartusGame) -> ObservationLayout:
        n = game.num_players
        return ObservationLayout([
            ("decision", (11,)),            # one-hot decision D1..D10 (index 0: none)
            ("actor", (n,)),                # relative seat to decide
            ("start_player", (n,)),         # relative seat of this round's start player
            ("context", (CONTEXT_FEATURES,)),  # slot resolving (3), cards / looks / discards due, D8 first
                                            # look (5), action is special, Watchtower t + 1
            ("context_seats", (5, n)),      # per relative seat: D5/D7 candidate, Sword winner, Sword loser,
                                            # Flute winner, Watchtower victim still to give
            ("own_hand", (NUM_ITEMS,)),     # 30 class x nuns (class * 5 + nuns), joker, Sword, Flute, Pass, Gold
            ("own_pending", (NUM_ITEMS,)),
            ("own_committed", (NUM_ITEMS,)),
            ("own_tokens", (2,)),           # own point tokens: number, total value
            ("nun_row", (NUN_ROW_SIZE, NUM_KINDS + 1)),  # own knowledge per position: kind one-hot, known flag
            ("seen_outside", (NUM_KINDS,)),  # most cards of each kind located outside the nun row at once
            ("gifts", (n, NUM_ITEMS + 1)),  # cards the observer gave each seat in hidden transfers, not since
                                            # shown; flag: that seat has given hidden cards itself
            ("seats", (n, SEAT_FEATURES)),  # public per relative seat (see _seat_row)
            ("looks", (n, NUN_ROW_SIZE)),   # times each relative seat looked at each nun-row position
            ("reveals", (n, NUM_ITEMS)),    # cards each relative seat revealed this round
            ("game", (GAME_FEATURES,)),     # round, R, last round, phase (4), k, building deck, replacement
                                            # pile, population deck, discard pile, clock, reshuffles,
                                            # Gold scoring, players entered
            ("row", (3, ROW_FEATURES)),     # per slot: building, copy, supply draw / rats / looks, present
            ("supply", (7,)),               # jokers, Swords, Flutes, Pass, Gold, point tokens left; unlimited
            ("discard", (NUM_KINDS,)),      # discard pile by class x nuns
            ("reshuffled_deck", (NUM_KINDS,)),  # make-up of the newest deck formed by a reshuffle
            ("buildings", (4, NUM_BUILDING_CARDS)),  # in the game and not yet revealed (public set only),
                                            # used, replacement-pile bottom (position + 1)
        ])

    def __init__(self, game: RattusCartusGame):
        super().__init__(game)
        n = self._n = game.num_players
        off = self._off = {name: s.start for name, s in self.layout.slices.items()}
        # The table M holds every value some seat may be shown, mostly by absolute seat; a seat's vector is
        # M gathered through that seat's index array, which rotates the seats, picks the seat's own private
        # blocks and points what it may not see at a cell that stays 0. Each seat has a block of its own:
        # context seats and gifts by relative seat (as in its vector) around its private section, so that
        # the vector reads it in one run. The actor and start player one-hots are kept twice over (cell q and
        # q + n), so that any rotation of them is one run too.
        self._M_DEC = self.layout.size - off["game"]  # the shared blocks come first, as in the vector
        self._M_ACTOR = self._M_DEC + 11
        self._M_START = self._M_ACTOR + 2 * n
        self._M_CTX = self._M_START + 2 * n
        self._M_CSEATS = self._M_CTX + CONTEXT_FEATURES  # seat 0's block: context seats,
        self._M_PRIV = self._M_CSEATS + 5 * n  # hand, pending, committed, tokens, nun row, seen,
        self._PRIVATE = off["gifts"] - off["own_hand"]
        self._M_GIFTS = self._M_PRIV + self._PRIVATE  # gifts (relative seat 0: a row that stays 0)
        self._BLOCK = off["seats"] - off["context_seats"]  # seat v's block: v * _BLOCK further
        assert off["own_hand"] - off["context_seats"] == 5 * n, "context_seats, own_hand: not adjacent"
        self._M_SEATS = self._M_CSEATS + n * self._BLOCK
        self._M_LOOKS = self._M_SEATS + n * SEAT_FEATURES
        self._M_REVEALS = self._M_LOOKS + n * NUN_ROW_SIZE
        self._M_ZERO = self._M_REVEALS + n * NUM_ITEMS  # NUM_ITEMS + 1 cells that stay 0
        self._SEEN = 3 * NUM_ITEMS + 2 + NUN_ROW_SIZE * (NUM_KINDS + 1)  # seen_outside in a private section
        # each seat's row, private section and seen_outside cells as lists of offsets: W[row[field]] makes no
        # int object (a sum above 256 does)
        F, P = SEAT_FEATURES, self._BLOCK
        self._seat_cell = [list(range(at, at + SEAT_FEATURES)) for at in range(self._M_SEATS, self._M_LOOKS, F)]
        self._private_cell = [list(range(at, at + self._PRIVATE)) for at in range(self._M_PRIV, self._M_SEATS, P)]
        self._seen_cell = [cells[self._SEEN:self._SEEN + NUM_KINDS] for cells in self._private_cell]
        self._reveal_cell = [list(range(at, at + NUM_ITEMS)) for at in range(self._M_REVEALS, self._M_ZERO, NUM_ITEMS)]
        self._reveal_bytes = [_item_bytes(cells[0]) for cells in self._reveal_cell]
        self._holding_bytes = [[_item_bytes(cells[k * NUM_ITEMS]) for k in range(3)] for cells in self._private_cell]
        self._M = np.zeros(self._M_ZERO + NUM_ITEMS + 1, np.float32)
        self._W = memoryview(self._M)  # element writes through the buffer cost a third of numpy's
        self._B = self._W.cast("B")  # and zeroing its bytes a tenth
        # a seat's vector is its index array's runs of consecutive cells, joined (memoryviews of M's bytes);
        # the runs depend only on the player count and rats_public, so observers (determinize) share them
        key = (n, game.rats_public)
        runs = _RUNS.get(key)
        if runs is None:
            runs = _RUNS[key] = [_runs(self._gather_for(v)) for v in range(n)]
        self._pieces = [[self._B[start:stop] for start, stop in seat] for seat in runs]
        self._shape = self.layout.size  # (an int shape costs np.ndarray less than a tuple)
        self._row_cells = _row_cells(game)
        # the decision and (doubled) actor blocks as bytes, by decision and actor (actor -1, the last: none)
        one_hots = _DEC_ACTOR.get(n)
        if one_hots is None:
            rows = np.zeros((11, n + 1, 11 + 2 * n), np.float32)
            for d in range(11):
                rows[d, :, d] = 1.0
                rows[d, range(n), range(11, 11 + n)] = rows[d, range(n), range(11 + n, 11 + 2 * n)] = 1.0
            one_hots = _DEC_ACTOR[n] = [[actor.tobytes() for actor in decision] for decision in rows]
        self._dec_at, self._dec_actor = slice(4 * self._M_DEC, 4 * self._M_START), one_hots
        # work found while updating, done once at the end: seats whose counts (pending, committed) or
        # whole seen_outside row to rewrite, single seen_outside cells (seat, kind), kinds for every seat,
        # classes to rank
        self._counts = [False] * n
        self._seen_cells: list[tuple[int, int]] = []
        self._seen_kinds = list(_NO_KINDS)  # kinds whose seen_outside cells to rewrite for every seat
        self._kinds_due = False  # any of them
        self._ranks_due = [False] * NUM_CLASSES  # classes whose ranks to rewrite
        self.invalidate()

    def _gather_for(self, v: int) -> np.ndarray:
        n, off, zero = self._n, self._off, self._M_ZERO
        index = np.full(self.layout.size, -1, np.intp)
        index[off["game"]:] = np.arange(self.layout.size - off["game"])
        index[off["decision"]:off["decision"] + 11] = self._M_DEC + np.arange(11)
        index[off["context"]:off["context"] + CONTEXT_FEATURES] = self._M_CTX + np.arange(CONTEXT_FEATURES)
        c = off["context_seats"]
        index[c:c + self._BLOCK] = self._M_CSEATS + v * self._BLOCK + np.arange(self._BLOCK)
        for r in range(n):
            q = (v + r) % n
            index[off["actor"] + r] = self._M_ACTOR + v + r
            index[off["start_player"] + r] = self._M_START + v + r
            s = off["seats"] + r * SEAT_FEATURES
            index[s:s + SEAT_FEATURES] = self._M_SEATS + q * SEAT_FEATURES + np.arange(SEAT_FEATURES)
            if r and not self.game.rats_public:  # R-A30: others' rats stay hidden
                index[s] = zero
            s = off["looks"] + r * NUN_ROW_SIZE
            index[s:s + NUN_ROW_SIZE] = self._M_LOOKS + q * NUN_ROW_SIZE + np.arange(NUN_ROW_SIZE)
            s = off["reveals"] + r * NUM_ITEMS
            index[s:s + NUM_ITEMS] = self._M_REVEALS + q * NUM_ITEMS + np.arange(NUM_ITEMS)
        assert (index >= 0).all()
        index.flags.writeable = False
        return index

    # ------------------------------------------------------------------ encode
    def view(self, seat: int) -> np.ndarray:
        return _ndarray(self._shape, _FLOAT32, _join(self._pieces[seat]))

    def replay(self, state: RattusCartusState, changes: list[tuple[int, int, int]]) -> None:
        if len(changes) == 1 and changes[0][0] == COMMIT:  # a lone D4 commit: one card of ``item`` from
            # ``p``'s hand to its committed cards (``p`` has entered and is not revealed; its cards seen
            # outside the nun row stay; the decision and its context too)
            _, p, item = changes[0]
            W = self._W
            private, row = self._private_cell[p], self._seat_cell[p]
            W[private[item]] = state.hands[p][item]
            W[private[2 * NUM_ITEMS + item]] = state.committed[p][item]
            W[row[1]] = state.hand_size[p]
            W[row[3]] = W[row[33]] = W[row[3]] + 1.0  # the committed count, one more
        else:
            self._update(state, changes)

    def rebuild(self, state: RattusCartusState) -> None:
        """M from zeros: the memos of a zero table, then every listed group of every seat as changed."""
        n = self._n
        self._M.fill(0.0)
        self._reset_memos()
        self._gold = _gold_public(self.game, state)  # the building set is fixed
        self._W[1], self._W[7] = self.game.rounds, self.game.k
        # (ranks: the classes with influence, by their INFLUENCE entries)
        # on zeros, only what is not zero needs writing
        changes = [(GIFTS, v, q) for v in range(n) for q in range(n)
                   if q != v and (state.gift_flag[v][q] or state.gifts[v][q] != _NO_ITEMS)]
        for p in range(n):
            row = self._seat_cell[p]
            self._W[row[31]], self._W[row[32]] = state.hidden_in[p], state.hidden_out[p]
            changes += [(HOLDINGS, p, 0), (RATS, p, 0)]
            if state.tokens[p]:
                changes.append((TOKENS, p, 0))
            if state.revealed[p]:
                changes.append((REVEAL, p, 0))
            if state.passes[p] or max(state.supply_slot[p], state.entered[p], state.announced[p]) >= 0:
                changes.append((TURN, p, 0))
            if any(state.taken[p]):
                changes += [(TAKEN, p, i) for i, count in enumerate(state.taken[p]) if count]
            if any(state.shown[p]):
                changes += [(SHOWN, p, i) for i, count in enumerate(state.shown[p]) if count]
            if any(state.level[p]):
                changes += [(INFLUENCE, p, i) for i, level in enumerate(state.level[p]) if level]
            if any(state.peek_count[p]) or True in state.peeked[p]:
                changes += [(PEEK, p, i) for i, count in enumerate(state.peek_count[p]) if count or state.peeked[p][i]]
        changes.append((GAME, 0, 0))
        self._update(state, changes)
        self._write_seen_rows(state)

    def _reset_memos(self) -> None:
        """The values a table of zeros shows, for each group compared with the state."""
        n = self._n
        self._supply_slot, self._entered = [-1] * n, [-1] * n  # one-hots written
        self._start, self._rsp, self._phase = -1, -1, -1
        self._context = (0, -1, -1, 0, 0)  # the context and context seats written
        self._seats: tuple | None = None
        # round, phase, population deck, clock, reshuffles (-1: the reshuffled deck not written), players
        # entered, point tokens left
        self._game = [-1, -1, 0, 0, -1, 0, 0]
        self._used = self._repl_known = 0  # used building cards, replacement-pile cards face up written
        self._supply = [0] * 5  # and the point tokens left in _game[6]
        self._discard = [0] * NUM_KINDS

    def _update(self, state: RattusCartusState, changes: list[tuple[int, int, int]]) -> None:
        """Replay ``changes`` (see :mod:`.changes`), compare the other groups, then rewrite the counts, ranks
        and seen_outside values the changes touched."""
        W, n, P = self._W, self._n, self._BLOCK
        S, V = self._seat_cell, self._private_cell  # each seat's row and private section cells
        counts, cells, kinds = self._counts, self._seen_cells, self._seen_kinds
        due = shared = False  # anything for _finish; the game block may have changed
        for code, p, i in changes:  # the most frequent first
            if code == HAND:
                W[V[p][i]] = state.hands[p][i]
                W[S[p][1]] = state.hand_size[p]
                if i < NUM_KINDS:
                    cells.append((p, i))
                    due = True
            elif code == LOCATED:
                kinds[i] = due = shared = self._kinds_due = True
            elif code == SHOWN:
                W[S[p][20 + i]] = state.shown[p][i]
            elif code == REVEAL:
                row = self._reveal_cell[p]
                self._B[self._reveal_bytes[p]] = _ZERO_ITEM_BYTES
                if state.revealed[p]:  # a few kinds of cards: one by one (packing 35 values costs more)
                    revealed = state.last_reveal[p]
                    for item in compress(_ITEM_RANGE, revealed):
                        W[row[item]] = revealed[item]
                counts[p] = True
            elif code == RATS:
                W[S[p][0]] = state.rats[p]
            elif code == ENTER:
                self._write_entered(state, p)
                W[S[p][12]] = state.entry_pos[p] + 1
                W[S[p][13]] = state.entry_order[p] + 1
                W[15] = self._game[5] = state.num_entered  # in the game block
                # (its counts stay 0: nothing committed yet, and no pending cards shown before phase D)
            elif code == SUPPLY_SLOT:
                self._write_supply_slot(state, p)
            elif code == DECK:
                W[10] = self._game[2] = len(state.deck)  # in the game block
            elif code == ANNOUNCE:
                W[S[p][4]] = state.announced[p] >= 0
            elif code == TURN:
                self._write_supply_slot(state, p)
                W[S[p][4]] = state.announced[p] >= 0
                W[S[p][12]] = state.entry_pos[p] + 1
                W[S[p][13]] = state.entry_order[p] + 1
                W[S[p][14]] = state.passes[p]
                if self._write_entered(state, p):
                    counts[p] = True
            elif code == HOLDINGS:
                hand, pending, committed = self._holding_bytes[p]
                self._write_items(hand, state.hands[p])
                self._write_items(pending, state.pending[p])
                self._write_items(committed, state.committed[p])
                W[S[p][1]] = state.hand_size[p]
                counts[p] = shared = True
            elif code == PENDING:
                W[V[p][NUM_ITEMS + i]] = state.pending[p][i]
                counts[p] = True
                if i < NUM_KINDS:
                    cells.append((p, i))
                    due = True
            elif code == INFLUENCE:
                W[S[p][35 + i]] = state.level[p][i]
                self._ranks_due[i] = due = shared = True
            elif code == GAME:
                shared = True
            elif code == PEEK:
                W[self._M_LOOKS + p * NUN_ROW_SIZE + i] = state.peek_count[p][i]
                if state.peeked[p][i]:
                    row = V[p][3 * NUM_ITEMS + 2 + i * (NUM_KINDS + 1)]
                    W[row + state.nun_row[i]] = 1.0
                    W[row + NUM_KINDS] = 1.0
            elif code == TAKEN:
                W[S[p][15 + i]] = state.taken[p][i]
                shared = True
            elif code == GIFTS:  # p gave to i, or i showed cards p had given it
                _GIFT.pack_into(self._M, 4 * (self._M_GIFTS + p * P + (i - p) % n * (NUM_ITEMS + 1)),
                                *state.gifts[p][i], state.gift_flag[p][i])
                W[S[p][32]] = state.hidden_out[p]
                W[S[i][31]] = state.hidden_in[i]
            elif code == PASSES:
                W[S[p][14]] = state.passes[p]
            elif code == TOKENS:
                tokens = state.tokens[p]
                W[S[p][5]] = len(tokens)
                at = V[p][3 * NUM_ITEMS]
                W[at] = len(tokens)
                W[at + 1] = sum(tokens)
                shared = True
            elif code == COMMIT:  # the committer may have been revealed since (auto_resolve_forced)
                private = V[p]
                W[private[i]] = state.hands[p][i]
                W[private[2 * NUM_ITEMS + i]] = state.committed[p][i]
                W[S[p][1]] = state.hand_size[p]
                counts[p] = True
            else:  # GIFT_FLAGS
                for other in range(n):
                    if other != p:
                        W[self._M_GIFTS + other * P + (p - other) % n * (NUM_ITEMS + 1) + NUM_ITEMS] = \
                            state.gift_flag[other][p]
        if shared:
            self._sync_seats(state)
        if True in counts:
            for p in range(n):
                if counts[p]:
                    counts[p] = False
                    self._write_counts(state, p)
        if due:
            self._finish(state)
        self._sync_small(state)
        if shared:
            self._sync_shared(state)

    def _finish(self, state: RattusCartusState) -> None:
        """The ranks and seen_outside values the update found changed."""
        W, n, seen_at = self._W, self._n, self._seen_cell
        cells = self._seen_cells
        if True in self._ranks_due:
            self._write_ranks(state)
        if self._kinds_due:
            self._write_seen_kinds(state)
        if cells:
            hands, pending, committed, discard = state.hands, state.pending, state.committed, state.discard
            revealed, seen = state.revealed, state.seen
            shown = list(compress(range(n), revealed)) if True in revealed else ()
            for v, k in cells:
                t = hands[v][k] + pending[v][k] + committed[v][k] + discard[k]
                for q in shown:
                    if q != v:
                        t += committed[q][k]
                s = seen[v][k]
                W[seen_at[v][k]] = t if t > s else s
            cells.clear()

    def _write_seen_kinds(self, state: RattusCartusState) -> None:
        """Every seat's seen_outside cells of the kinds due, kind by kind (cheaper than packing whole rows even
        for 20 kinds; a method of its own, so that ``_finish`` has no comprehension and no closure cells)."""
        W, n, kinds = self._W, self._n, self._seen_kinds
        self._kinds_due = False
        committed, revealed = state.committed, state.revealed
        shown = list(compress(committed, revealed))
        # per seat: hand, pending, own committed cards while not revealed, seen, seen_outside cells
        seats = [(state.hands[v], state.pending[v], _NO_CARDS if revealed[v] else committed[v], state.seen[v],
                  self._seen_cell[v]) for v in range(n)]
        for k in compress(_KIND_RANGE, kinds):
            table = state.discard[k]  # located by everybody
            for cards in shown:
                table += cards[k]
            for hand, pending, own, seen, cell in seats:
                t = hand[k] + pending[k] + own[k] + table
                s = seen[k]
                W[cell[k]] = t if t > s else s
        kinds[:] = _NO_KINDS

    def _write_seen_rows(self, state: RattusCartusState) -> None:
        """Every seat's seen_outside row (``state.seen_now``, with the cards located by everybody added up
        once)."""
        revealed, committed = state.revealed, state.committed
        table = state.discard
        for q in range(self._n):
            if revealed[q]:
                table = list(map(add, table, committed[q]))
        at = 4 * (self._M_PRIV + self._SEEN)
        for v in range(self._n):
            located = map(add, map(add, state.hands[v], state.pending[v]), table)
            if not revealed[v]:
                located = map(add, located, committed[v])
            seen = state.seen[v]
            _KINDS.pack_into(self._M, at + 4 * v * self._BLOCK,
                             *([a if a > b else b for a, b in zip(located, seen)] if any(seen) else located))

    def _write_counts(self, state: RattusCartusState, p: int) -> None:
        """Seat ``p``'s pending cards (phase D), committed cards (once entered), committed cards not yet
        revealed and revealed flag."""
        W, row = self._W, self._seat_cell[p]
        committed = sum(state.committed[p]) if state.entered[p] >= 0 else 0
        revealed = state.revealed[p]
        W[row[2]] = sum(state.pending[p]) if state.phase == 2 else 0
        W[row[3]] = committed
        W[row[33]] = 0 if revealed else committed
        W[row[34]] = revealed

    def _write_ranks(self, state: RattusCartusState) -> None:
        """Every seat's influence rank in the classes whose levels changed (1 = first, 0 = level 0; ties by
        arrival, §6.1). Levels only rise within a game, so a seat at level 0 still shows 0."""
        W, due, n = self._W, self._ranks_due, self._n
        level, stamp = state.level, state.stamp
        at = self._M_SEATS + 41
        for c in compress(range(NUM_CLASSES), due):
            ranked = sorted((-level[p][c], stamp[p][c], p) for p in range(n) if level[p][c])
            for place, (_, _, p) in enumerate(ranked, 1):
                W[at + p * SEAT_FEATURES + c] = place
        due[:] = _NO_CLASSES

    def _write_supply_slot(self, state: RattusCartusState, p: int) -> None:
        slot, was = state.supply_slot[p], self._supply_slot[p]
        if slot != was:
            row = self._seat_cell[p]
            if was >= 0:
                self._W[row[6 + was]] = 0.0
            if slot >= 0:
                self._W[row[6 + slot]] = 1.0
            self._supply_slot[p] = slot

    def _write_entered(self, state: RattusCartusState, p: int) -> bool:
        """Seat ``p``'s entered slot; True when it changed (the committed counts follow it)."""
        slot, was = state.entered[p], self._entered[p]
        if slot == was:
            return False
        row = self._seat_cell[p]
        if was >= 0:
            self._W[row[9 + was]] = 0.0
        if slot >= 0:
            self._W[row[9 + slot]] = 1.0
        self._entered[p] = slot
        return True

    def _sync_seats(self, state: RattusCartusState) -> None:
        """The start player (its row flag and one-hot), the special-action player and the phase (the counts
        of pending cards, if any, follow it)."""
        W, S, F = self._W, self._M_SEATS, SEAT_FEATURES
        if state.start != self._start:
            if self._start >= 0:
                W[S + self._start * F + 47] = 0.0
                W[self._M_START + self._start] = W[self._M_START + self._start + self._n] = 0.0
            W[S + state.start * F + 47] = 1.0
            W[self._M_START + state.start] = W[self._M_START + state.start + self._n] = 1.0
            self._start = state.start
        if state.rsp != self._rsp:
            if self._rsp >= 0:
                W[S + self._rsp * F + 48] = 0.0
            if state.rsp >= 0:
                W[S + state.rsp * F + 48] = 1.0
            self._rsp = state.rsp
        if state.phase != self._phase:  # pending cards show in phase D only
            self._phase = state.phase
            drawn, hidden, taken = state.pend_drawn, state.pend_hidden, state.pend_taken
            for p in range(self._n):
                if drawn[p] or hidden[p] or any(taken[p]):  # pending cards (how they came, checks.invariants)
                    self._counts[p] = True

    def _write_items(self, where: slice, row: list[int]) -> None:
        """A row of NUM_ITEMS counts at the bytes ``where``; an empty row as bytes."""
        if row != _NO_ITEMS:  # (a list compare stops at the first difference, like any(), but costs less)
            _ITEMS.pack_into(self._M, where.start, *row)
        else:
            self._B[where] = _ZERO_ITEM_BYTES

    def _zero(self, start: int, count: int) -> None:
        """Cells ``start`` to ``start + count`` of M set to 0."""
        self._B[4 * start:4 * (start + count)] = bytes(4 * count)

    def _sync_small(self, state: RattusCartusState) -> None:
        """decision and actor (one-hots, as bytes), the context when its values changed and, in phase D,
        the context seats when they changed."""
        self._B[self._dec_at] = self._dec_actor[state.decision][state.current_player]
        if state.phase == 2:
            queue, qi = state.queue, state.qi
            context = (state.left, state.first_pos, state.slot if state.slot < self.game.k else -1,
                       queue[qi][1] if qi < len(queue) else 0, state.wt_t + 1)
            seats = (state.flute, state.cands, state.sword, state.wt_victims)
        else:
            context, seats = (state.left, state.first_pos, -1, 0, 0), None
        if context != self._context:
            self._write_context(context, self._context)
            self._context = context
        if seats != self._seats:
            self._write_context_seats(seats)
            self._seats = seats and (seats[0], *map(list, seats[1:]))  # (the state changes its lists in place)

    def _write_context(self, context: tuple[int, int, int, int, int], was: tuple[int, int, int, int, int]) -> None:
        """The context values that differ from ``was``: looks / cards / discards due, D8 first look, slot
        resolving, special action, Watchtower t + 1 (one-hots at -1: none)."""
        W, c = self._W, self._M_CTX
        left, first_pos, slot, special, wt = context
        if left != was[0]:
            W[c + 3] = left
        if first_pos != was[1]:
            if was[1] >= 0:
                W[c + 4 + was[1]] = 0.0
            if first_pos >= 0:
                W[c + 4 + first_pos] = 1.0
        if slot != was[2]:
            if was[2] >= 0:
                W[c + was[2]] = 0.0
            if slot >= 0:
                W[c + slot] = 1.0
        if special != was[3]:
            W[c + 9] = special
        if wt != was[4]:
            W[c + 10] = wt

    def _write_context_seats(self, seats: tuple | None) -> None:
        """Every seat's context seats (by relative seat, in its block): D5/D7 candidates, Sword winner and
        loser, Flute winner, Watchtower victims (none outside phase D)."""
        W, n, block, cs = self._W, self._n, self._BLOCK, self._M_CSEATS
        for v in range(n):
            self._zero(cs + v * block, 5 * n)
        if seats is None:
            return
        flute, cands, sword, victims = seats
        cells = [(0, q) for q in cands] + [(4, q) for q in victims]
        cells += [(j, q) for j, q in ((1, sword[0]), (2, sword[1]), (3, flute)) if q >= 0]
        for j, q in cells:
            for v in range(n):
                W[cs + v * block + j * n + (q - v) % n] = 1.0

    def _sync_shared(self, state: RattusCartusState) -> None:
        """game, row, supply, discard, reshuffled deck and buildings (the first part of M). The row, the
        building deck, the replacement pile and the used cards change only between rounds (phase A and E):
        the row is rewritten, the new row's cards leave the cards not yet revealed, the last row joins the
        used cards; the game values are compared one by one."""
        game, off, W, g = self.game, self._off, self._W, self._game
        base = off["game"]
        rnd, phase = state.round, state.phase
        if rnd != g[0]:
            r0, b0 = off["row"] - base, off["buildings"] - base
            if g[0] < 0:  # a table of zeros
                _write_round_blocks(game, state, W, r0, b0)
            else:
                for slot in range(3):  # the row block's slots, as bytes by building card
                    at = 4 * (r0 + slot * ROW_FEATURES)
                    self._B[at:at + 4 * ROW_FEATURES] = self._row_cells[state.row[slot]] if slot < len(state.row) \
                        else _NO_ROW_CELLS
                if game.building_set_public:
                    for card in state.row:
                        W[b0 + NUM_BUILDING_CARDS + card] = 0.0
                for card in state.used[self._used:]:
                    W[b0 + 2 * NUM_BUILDING_CARDS + card] = 1.0
                if state.repl_known or self._repl_known:
                    b3 = b0 + 3 * NUM_BUILDING_CARDS
                    self._zero(b3, NUM_BUILDING_CARDS)
                    for position in range(state.repl_known):
                        W[b3 + state.repl[position]] = position + 1
            self._used, self._repl_known = len(state.used), state.repl_known
            W[0] = min(rnd + 1, game.rounds)
            W[8], W[9] = len(state.bdeck), len(state.repl)
            W[14] = self._gold
            W[2] = rnd == game.rounds - 1 and phase != 3
            g[0] = rnd
        if phase != g[1]:
            if g[1] >= 0:
                W[3 + g[1]] = 0.0
            W[3 + phase] = 1.0
            W[2] = rnd == game.rounds - 1 and phase != 3
            g[1] = phase
        if len(state.deck) != g[2]:
            W[10] = g[2] = len(state.deck)
        if state.clock != g[3]:
            W[12] = g[3] = state.clock
        if state.reshuffles != g[4]:  # and with it the reshuffled deck
            W[13] = g[4] = state.reshuffles
            _KINDS.pack_into(self._M, 4 * (off["reshuffled_deck"] - base), *state.reshuffle_comp)
        if state.num_entered != g[5]:
            W[15] = g[5] = state.num_entered
        if game.finite:
            if state.supply != self._supply or len(state.token_supply) != g[6]:
                g[6] = len(state.token_supply)
                _SUPPLY.pack_into(self._M, 4 * (off["supply"] - base), *state.supply, g[6], 0)
                self._supply = list(state.supply)
        elif g[6] >= 0:  # unlimited supplies
            g[6] = -1
            _SUPPLY.pack_into(self._M, 4 * (off["supply"] - base), 0, 0, 0, 0, 0, 0, 1)
        discard = state.discard
        if discard != self._discard:  # the kinds that changed, value by value (a pack of 30 costs more)
            at = off["discard"] - base
            for k in compress(_KIND_RANGE, map(ne, discard, self._discard)):
                W[at + k] = discard[k]
            W[11] = sum(discard)
            self._discard = list(discard)

# a vector: an array over the joined bytes (np.ndarray on the buffer costs less than np.frombuffer)
_ndarray, _join, _FLOAT32 = np.ndarray, bytearray().join, np.dtype(np.float32)


def _row_cells(game: RattusCartusGame) -> list[bytes]:
    """Each building card's cells in a row slot (building, copy, supply action, present) as bytes."""
    key = tuple(game.supply_action)
    cells = _ROW_CELLS.get(key)
    if cells is None:
        rows = np.zeros((NUM_BUILDING_CARDS, ROW_FEATURES), np.float32)
        for card in range(NUM_BUILDING_CARDS):
            rows[card, card // 5] = rows[card, NUM_BUILDINGS + card % 5] = rows[card, NUM_BUILDINGS + 8] = 1.0
            rows[card, NUM_BUILDINGS + 5:NUM_BUILDINGS + 8] = game.supply_action[card]
        cells = _ROW_CELLS[key] = [row.tobytes() for row in rows]
    return cells


def _runs(index: np.ndarray) -> list[tuple[int, int]]:
    """The byte ranges of the float32 cells that ``index`` reads, one per run of consecutive cells."""
    breaks = np.flatnonzero(np.diff(index) != 1) + 1
    return [(4 * int(run[0]), 4 * int(run[-1]) + 4) for run in np.split(index, breaks)]


_RUNS: dict[tuple[int, bool], list[list[tuple[int, int]]]] = {}
_DEC_ACTOR: dict[int, list[list[bytes]]] = {}
_ROW_CELLS: dict[tuple, list[bytes]] = {}
_NO_ROW_CELLS = bytes(4 * ROW_FEATURES)


_NO_KINDS = [False] * NUM_KINDS
_NO_CLASSES = [False] * NUM_CLASSES
_NO_CARDS = (0,) * NUM_KINDS
_NO_ITEMS = [0] * NUM_ITEMS
_KIND_RANGE = range(NUM_KINDS)
_ITEM_RANGE = range(NUM_ITEMS)
# float32 writes of whole rows (one C call instead of a write per value)
_KINDS, _ITEMS, _GIFT, _SUPPLY = (Struct(f"{size}f") for size in (NUM_KINDS, NUM_ITEMS, NUM_ITEMS + 1, 7))
_ITEM_BYTES = 4 * NUM_ITEMS
_ZERO_ITEM_BYTES = bytes(_ITEM_BYTES)  # a row of 35 items at 0 (an int-to-float pack costs far more)


def _gold_public(game: RattusCartusGame, state: RattusCartusState) -> bool:
    return game.building_set_public and not _TREASURY_CARDS.isdisjoint(state.building_set)


_TREASURY_CARDS = frozenset(range(5 * TREASURY, 5 * TREASURY + 5))


def _write_round_blocks(game: RattusCartusGame, state: RattusCartusState, out: np.ndarray | memoryview, row: int,
                        buildings: int) -> None:
    """The row and the building cards into ``out`` at the given block offsets (zeroed by the caller)."""
    for s, card in enumerate(state.row):
        base = row + s * ROW_FEATURES
        out[base + card // 5] = 1.0
        out[base + NUM_BUILDINGS + card % 5] = 1.0
        out[base + NUM_BUILDINGS + 5], out[base + NUM_BUILDINGS + 6], out[base + NUM_BUILDINGS + 7] = \
            game.supply_action[card]
        out[base + NUM_BUILDINGS + 8] = 1.0
    if game.building_set_public:
        for card in state.building_set:
            out[buildings + card] = 1.0
        for card in state.bdeck + state.repl:
            out[buildings + NUM_BUILDING_CARDS + card] = 1.0
    for card in state.used:
        out[buildings + 2 * NUM_BUILDING_CARDS + card] = 1.0
    for position in range(state.repl_known):
        out[buildings + 3 * NUM_BUILDING_CARDS + state.repl[position]] = position + 1


def _item_bytes(cell: int) -> slice:
    """The bytes of a row of NUM_ITEMS cells from ``cell``."""
    return slice(4 * cell, 4 * cell + _ITEM_BYTES)
