"""Rattus Cartus observation encoder (docs/rattus_cartus_rules.md §7, §7.2a, §7.5): one seat's view.

Relative seat ``r`` is the player ``r`` places clockwise of the observer (0 = the observer). Values are raw
counts and flags (``policy_input="signed_log"``). What the observer may not see never appears: other
hands, other players' committed cards before their building is revealed, nun-row cards it has not looked
at, other players' point-token values when they differ (R-A2), others' rats with ``rats_public=False``
(R-A30), and anything derived from a hidden building set (R-A32).

Speed: :func:`reference_encode` writes every value from scratch (the definition). The observer gives the
same vectors from one table of every value some seat may see, by absolute seat, gathered through a
per-seat index array (rotation, own private blocks, hidden values pointing at a cell that stays 0). When
the state is one ``apply`` ahead of the table, the table is brought up to date: the holdings and gift
records the engine listed in ``state.changes`` are rewritten item by item, every other group is compared
with the values it was last written from (lists compare in C) and rewritten where it differs; after a lone
D4 commit (``state.quiet``) only the committer's cards are. Otherwise (a new state, a re-deal, a missed
step) the table is rebuilt. Tests compare both encoders at every step and after restores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from .changes import COMMIT, GIFTS, HAND, HOLDINGS, LOCATED, PENDING
from .cards import NUM_BUILDING_CARDS, NUM_BUILDINGS, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUN_ROW_SIZE, TREASURY

if TYPE_CHECKING:
    from .rules import RattusCartusGame, RattusCartusState

SEAT_FEATURES = 49
CONTEXT_FEATURES = 11
GAME_FEATURES = 16
ROW_FEATURES = NUM_BUILDINGS + 5 + 3 + 1


class RattusCartusObserver(Observer):
    low = 0.0
    high = 1.0e6
    dtype = np.float32
    policy_input = "signed_log"

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
        # The table M holds every value some seat may be shown, by absolute seat; a seat's vector is M
        # gathered through that seat's index array, which rotates the seats, picks the seat's own private
        # blocks and points what it may not see at a cell that stays 0.
        self._M_DEC = self.layout.size - off["game"]  # the shared blocks come first, as in the vector
        self._M_ACTOR = self._M_DEC + 11
        self._M_START = self._M_ACTOR + n
        self._M_CTX = self._M_START + n
        self._M_CSEATS = self._M_CTX + CONTEXT_FEATURES
        self._M_PRIV = self._M_CSEATS + 5 * n
        self._PRIVATE = off["gifts"] - off["own_hand"]  # hand, pending, committed, tokens, nun row, seen
        self._M_GIFTS = self._M_PRIV + n * self._PRIVATE
        self._M_SEATS = self._M_GIFTS + n * n * (NUM_ITEMS + 1)
        self._M_LOOKS = self._M_SEATS + n * SEAT_FEATURES
        self._M_REVEALS = self._M_LOOKS + n * NUN_ROW_SIZE
        self._M_ZERO = self._M_REVEALS + n * NUM_ITEMS
        self._SEEN = 3 * NUM_ITEMS + 2 + NUN_ROW_SIZE * (NUM_KINDS + 1)  # seen_outside in a private section
        self._gather = [self._gather_for(v) for v in range(n)]
        self._M = np.zeros(self._M_ZERO + 1, np.float32)
        self._W = memoryview(self._M)  # element writes through the buffer cost a third of numpy's
        # work found while updating, done once at the end: seats whose counts (pending, committed) or
        # whole seen_outside row to rewrite, single seen_outside cells (seat, kind)
        self._counts = [False] * n
        self._seen_rows = [False] * n
        self._seen_cells: list[tuple[int, int]] = []
        self.invalidate()

    def _gather_for(self, v: int) -> np.ndarray:
        n, off, zero = self._n, self._off, self._M_ZERO
        index = np.full(self.layout.size, -1, np.intp)
        index[off["game"]:] = np.arange(self.layout.size - off["game"])
        index[off["decision"]:off["decision"] + 11] = self._M_DEC + np.arange(11)
        index[off["context"]:off["context"] + CONTEXT_FEATURES] = self._M_CTX + np.arange(CONTEXT_FEATURES)
        o = off["own_hand"]
        index[o:o + self._PRIVATE] = self._M_PRIV + v * self._PRIVATE + np.arange(self._PRIVATE)
        for r in range(n):
            q = (v + r) % n
            index[off["actor"] + r] = self._M_ACTOR + q
            index[off["start_player"] + r] = self._M_START + q
            for j in range(5):
                index[off["context_seats"] + j * n + r] = self._M_CSEATS + j * n + q
            g = off["gifts"] + r * (NUM_ITEMS + 1)
            index[g:g + NUM_ITEMS + 1] = (self._M_GIFTS + (v * n + q) * (NUM_ITEMS + 1) + np.arange(NUM_ITEMS + 1)
                                          if r else zero)
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

    def invalidate(self) -> None:
        self._state: RattusCartusState | None = None  # the state M was last brought up to date with
        self._tick = -1  # and its tick then

    # ------------------------------------------------------------------ encode
    def encode(self, state: RattusCartusState, player: int) -> np.ndarray:
        if state is not self._state or state.tick != self._tick:
            if state is self._state and state.tick == self._tick + 1:
                if state.quiet:
                    for _, p, item in state.changes:
                        self._commit(state, p, item)
                else:
                    self._update(state, state.changes)
            else:
                self._rebuild(state)
            self._state = state
            self._tick = state.tick
        return self._M[self._gather[player]]

    def _rebuild(self, state: RattusCartusState) -> None:
        """M from zeros: the memos of a zero table, then every holding and gift record as changed."""
        n = self._n
        self._M.fill(0.0)
        self._reset_memos()
        self._W[1], self._W[7] = self.game.rounds, self.game.k
        self._seen_rows[:] = [True] * n
        self._update(state, [(HOLDINGS, p, 0) for p in range(n)]
                     + [(GIFTS, v, q) for v in range(n) for q in range(n) if q != v])

    def _reset_memos(self) -> None:
        """The values a table of zeros shows, for each group compared with the state."""
        n = self._n
        self._rats, self._hand_size, self._passes = [0] * n, [0] * n, [0] * n
        self._hidden_in, self._hidden_out = [0] * n, [0] * n
        self._announced, self._supply_slot = [-1] * n, [-1] * n
        self._entry_pos, self._entry_order, self._entered = [-1] * n, [-1] * n, [-1] * n
        self._tokens: list[list[int]] = [[] for _ in range(n)]
        self._revealed = [False] * n
        self._last_reveal = [[0] * NUM_ITEMS for _ in range(n)]
        self._taken = [[0] * 5 for _ in range(n)]
        self._shown = [[0] * 11 for _ in range(n)]
        self._level = [[0] * NUM_CLASSES for _ in range(n)]
        self._stamp = [[0] * NUM_CLASSES for _ in range(n)]
        self._rank_rows = [[0] * NUM_CLASSES for _ in range(n)]
        self._start, self._rsp, self._phase = -1, -1, -1
        self._looks = [[0] * NUN_ROW_SIZE for _ in range(n)]
        self._peeked = [[False] * NUN_ROW_SIZE for _ in range(n)]
        self._small = [-1, -1, -1, -1, 0]  # decision, actor, start player, first look, looks due
        self._phase_d_key: tuple | None = None
        # round, phase, building deck, replacement pile, used cards, face-up replacements, population deck,
        # clock, reshuffles, players entered
        self._game = [-1, -1, -1, -1, -1, -1, 0, 0, 0, 0]
        self._supply = [0] * 7
        self._discard = [0] * NUM_KINDS
        self._reshuffled = [0] * NUM_KINDS

    def _commit(self, state: RattusCartusState, p: int, item: int) -> None:
        """A D4 commit: one card of ``item`` from ``p``'s hand to its committed cards (``p``'s cards seen
        outside the nun row stay as they were: it counts both)."""
        W = self._W
        at = self._M_PRIV + p * self._PRIVATE
        W[at + item] = state.hands[p][item]
        W[at + 2 * NUM_ITEMS + item] = state.committed[p][item]
        W[self._M_SEATS + p * SEAT_FEATURES + 1] = self._hand_size[p] = state.hand_size[p]
        self._write_counts(state, p)

    def _update(self, state: RattusCartusState, changes: list[tuple[int, int, int]]) -> None:
        """Replay ``changes`` (see :mod:`.changes`), compare the other groups, then rewrite the counts and
        the seen_outside values the changes touched."""
        W, n = self._W, self._n
        counts, rows, cells = self._counts, self._seen_rows, self._seen_cells
        for code, p, i in changes:
            if code == COMMIT:
                self._commit(state, p, i)
            elif code == HAND:
                W[self._M_PRIV + p * self._PRIVATE + i] = state.hands[p][i]
                if i < NUM_KINDS:
                    cells.append((p, i))
            elif code == PENDING:
                W[self._M_PRIV + p * self._PRIVATE + NUM_ITEMS + i] = state.pending[p][i]
                counts[p] = True
                if i < NUM_KINDS:
                    cells.append((p, i))
            elif code == LOCATED:
                cells.extend((v, i) for v in range(n))
            elif code == HOLDINGS:
                at = self._M_PRIV + p * self._PRIVATE
                _diff_write(W, at, state.hands[p])
                for values in (state.pending[p], state.committed[p]):
                    at += NUM_ITEMS
                    if any(values):
                        _diff_write(W, at, values)
                    else:
                        self._M[at:at + NUM_ITEMS] = 0.0
                counts[p] = True
            elif code == GIFTS:
                at = self._M_GIFTS + (p * n + i) * (NUM_ITEMS + 1)
                _diff_write(W, at, state.gifts[p][i])
                W[at + NUM_ITEMS] = state.gift_flag[p][i]
            else:  # GIFT_FLAGS
                for other in range(n):
                    if other != p:
                        W[self._M_GIFTS + (other * n + p) * (NUM_ITEMS + 1) + NUM_ITEMS] = state.gift_flag[other][p]
        self._sync_seats(state)
        self._sync_small(state)
        self._sync_shared(state)
        if True in counts:
            for p in range(n):
                if counts[p]:
                    counts[p] = False
                    self._write_counts(state, p)
        seen_at = self._M_PRIV + self._SEEN
        if cells:
            if len(cells) > 8 * n:  # a row costs about as much as 8 cells
                rows[:] = [True] * n
            else:
                hands, pending, committed, discard = state.hands, state.pending, state.committed, state.discard
                revealed, seen = state.revealed, state.seen
                for v, k in cells:
                    if not rows[v]:
                        t = hands[v][k] + pending[v][k] + committed[v][k] + discard[k]
                        for q in range(n):
                            if revealed[q] and q != v:
                                t += committed[q][k]
                        s = seen[v][k]
                        W[seen_at + v * self._PRIVATE + k] = t if t > s else s
            cells.clear()
        if True in rows:
            for v in range(n):
                if rows[v]:
                    rows[v] = False
                    _diff_write(W, seen_at + v * self._PRIVATE, state.seen_now(v))

    def _write_counts(self, state: RattusCartusState, p: int) -> None:
        """Seat ``p``'s pending cards (phase D), committed cards (once entered), committed cards not yet
        revealed and revealed flag."""
        W = self._W
        at = self._M_SEATS + p * SEAT_FEATURES
        committed = sum(state.committed[p]) if state.entered[p] >= 0 else 0
        revealed = state.revealed[p]
        W[at + 2] = sum(state.pending[p]) if state.phase == 2 else 0
        W[at + 3] = committed
        W[at + 33] = 0 if revealed else committed
        W[at + 34] = revealed

    def _sync_seats(self, state: RattusCartusState) -> None:
        """The seats' public rows (see :func:`_seat_row`), tokens, looks, reveals and nun-row knowledge:
        each field compared as a whole (lists compare in C), then seat by seat where it differs."""
        n, W, F = self._n, self._W, SEAT_FEATURES
        S = self._M_SEATS
        if state.rats != self._rats:
            _column(W, S, state.rats, self._rats)
        if state.hand_size != self._hand_size:
            _column(W, S + 1, state.hand_size, self._hand_size)
        if state.passes != self._passes:
            _column(W, S + 14, state.passes, self._passes)
        if state.hidden_in != self._hidden_in:
            _column(W, S + 31, state.hidden_in, self._hidden_in)
        if state.hidden_out != self._hidden_out:
            _column(W, S + 32, state.hidden_out, self._hidden_out)
        if state.entry_pos != self._entry_pos:
            _column(W, S + 12, state.entry_pos, self._entry_pos, 1)
        if state.entry_order != self._entry_order:
            _column(W, S + 13, state.entry_order, self._entry_order, 1)
        if state.supply_slot != self._supply_slot:
            _one_hot_column(W, S + 6, state.supply_slot, self._supply_slot)
        if state.entered != self._entered:
            for p in range(n):
                if state.entered[p] != self._entered[p]:
                    self._counts[p] = True
            _one_hot_column(W, S + 9, state.entered, self._entered)
        if state.announced != self._announced:
            old = self._announced
            for p, value in enumerate(state.announced):
                if value != old[p]:
                    W[S + p * F + 4] = value >= 0
            old[:] = state.announced
        if state.tokens != self._tokens:
            old = self._tokens
            for p, tokens in enumerate(state.tokens):
                if tokens != old[p]:
                    W[S + p * F + 5] = len(tokens)
                    at = self._M_PRIV + p * self._PRIVATE + 3 * NUM_ITEMS
                    W[at] = len(tokens)
                    W[at + 1] = sum(tokens)
                    old[p] = list(tokens)
        if state.revealed != self._revealed or state.last_reveal != self._last_reveal:
            for p in range(n):
                revealed, was = state.revealed[p], self._revealed[p]
                if revealed != was or state.last_reveal[p] != self._last_reveal[p]:
                    _diff_write(W, self._M_REVEALS + p * NUM_ITEMS, state.last_reveal[p] if revealed else _NOTHING)
                    self._last_reveal[p] = list(state.last_reveal[p])
                    if revealed != was:
                        self._revealed[p] = revealed
                        self._counts[p] = True
        if state.taken != self._taken:
            _row_column(W, S + 15, state.taken, self._taken)
        if state.shown != self._shown:
            _row_column(W, S + 20, state.shown, self._shown)
        if state.level != self._level or state.stamp != self._stamp:
            _row_column(W, S + 35, state.level, self._level)
            _row_column(W, S + 41, _ranks(state), self._rank_rows)
            self._stamp = [list(row) for row in state.stamp]
        if state.start != self._start:
            if self._start >= 0:
                W[S + self._start * F + 47] = 0.0
            W[S + state.start * F + 47] = 1.0
            self._start = state.start
        if state.rsp != self._rsp:
            if self._rsp >= 0:
                W[S + self._rsp * F + 48] = 0.0
            if state.rsp >= 0:
                W[S + state.rsp * F + 48] = 1.0
            self._rsp = state.rsp
        if state.peek_count != self._looks:
            _row_column(W, self._M_LOOKS, state.peek_count, self._looks, NUN_ROW_SIZE)
        if state.peeked != self._peeked:
            for p in range(n):
                peeked = state.peeked[p]
                if peeked != self._peeked[p]:
                    at = self._M_PRIV + p * self._PRIVATE + 3 * NUM_ITEMS + 2
                    self._M[at:at + NUN_ROW_SIZE * (NUM_KINDS + 1)] = 0.0
                    for q in range(NUN_ROW_SIZE):
                        row = at + q * (NUM_KINDS + 1)
                        if peeked[q]:
                            W[row + state.nun_row[q]] = 1.0
                            W[row + NUM_KINDS] = 1.0
                    self._peeked[p] = list(peeked)
        if state.phase != self._phase:
            self._phase = state.phase
            self._counts[:] = [True] * n

    def _sync_small(self, state: RattusCartusState) -> None:
        """decision, actor, start player, context and context seats (absolute seats), value by value; the
        phase D part (slot, action, Watchtower, context seats) rewritten whenever it differs."""
        W, memo = self._W, self._small
        for at, value, i in ((self._M_DEC, state.decision, 0), (self._M_ACTOR, state.current_player, 1),
                             (self._M_START, state.start, 2), (self._M_CTX + 4, state.first_pos, 3)):
            was = memo[i]
            if value != was:
                if was >= 0:
                    W[at + was] = 0.0
                if value >= 0:
                    W[at + value] = 1.0
                memo[i] = value
        if state.left != memo[4]:
            W[self._M_CTX + 3] = memo[4] = state.left
        if state.phase == 2:
            queue, qi = state.queue, state.qi
            key = (state.slot, queue[qi][1] if qi < len(queue) else -1, state.wt_t, state.flute, state.cands,
                   state.sword, state.wt_victims)
        else:
            key = None
        if key != self._phase_d_key:
            n, M, c, cs = self._n, self._M, self._M_CTX, self._M_CSEATS
            M[c:c + 3] = 0.0
            M[c + 9:c + 11] = 0.0
            M[cs:cs + 5 * n] = 0.0
            if key is not None:
                slot, special, wt_t, flute, cands, sword, victims = key
                if slot < self.game.k:
                    W[c + slot] = 1.0
                if special >= 0:
                    W[c + 9] = special
                if wt_t >= 0:
                    W[c + 10] = wt_t + 1
                for q in cands:
                    W[cs + q] = 1.0
                if sword[0] >= 0:
                    W[cs + n + sword[0]] = 1.0
                if sword[1] >= 0:
                    W[cs + 2 * n + sword[1]] = 1.0
                if flute >= 0:
                    W[cs + 3 * n + flute] = 1.0
                for q in victims:
                    W[cs + 4 * n + q] = 1.0
                key = key[:4] + (list(cands), list(sword), list(victims))
            self._phase_d_key = key

    def _sync_shared(self, state: RattusCartusState) -> None:
        """game, row, supply, discard, reshuffled deck and buildings (the first part of M). The row and
        building blocks change only with the round, the building deck, the replacement pile or the used
        cards (their sizes tell); the game values are compared one by one."""
        game, off, W, g = self.game, self._off, self._W, self._game
        base = off["game"]
        rnd, phase = state.round, state.phase
        nb, nr, nu = len(state.bdeck), len(state.repl), len(state.used)
        if rnd != g[0] or nb != g[2] or nr != g[3] or nu != g[4] or state.repl_known != g[5]:
            M = self._M
            r0, b0 = off["row"] - base, off["buildings"] - base
            M[r0:off["supply"] - base] = 0.0
            M[b0:b0 + 4 * NUM_BUILDING_CARDS] = 0.0
            _write_round_blocks(game, state, M, r0, b0)
            W[0] = min(rnd + 1, game.rounds)
            W[8], W[9] = nb, nr
            W[14] = _gold_public(game, state)
            W[2] = rnd == game.rounds - 1 and phase != 3
            g[0], g[2], g[3], g[4], g[5] = rnd, nb, nr, nu, state.repl_known
        if phase != g[1]:
            if g[1] >= 0:
                W[3 + g[1]] = 0.0
            W[3 + phase] = 1.0
            W[2] = rnd == game.rounds - 1 and phase != 3
            g[1] = phase
        if len(state.deck) != g[6]:
            W[10] = g[6] = len(state.deck)
        if state.clock != g[7]:
            W[12] = g[7] = state.clock
        if state.reshuffles != g[8]:
            W[13] = g[8] = state.reshuffles
        if state.num_entered != g[9]:
            W[15] = g[9] = state.num_entered
        if game.finite:
            if state.supply != self._supply[:5] or len(state.token_supply) != self._supply[5]:
                _write(W, off["supply"] - base, state.supply + [len(state.token_supply), 0], self._supply)
        elif not self._supply[6]:
            _write(W, off["supply"] - base, [0] * 6 + [1], self._supply)
        if state.discard != self._discard:
            _column(W, off["discard"] - base, state.discard, self._discard, stride=1)
            W[11] = sum(state.discard)
        if state.reshuffle_comp != self._reshuffled:
            _write(W, off["reshuffled_deck"] - base, state.reshuffle_comp, self._reshuffled)

_NOTHING = [0] * NUM_ITEMS
_ONE_HOT3 = {-1: [0.0, 0.0, 0.0], 0: [1.0, 0.0, 0.0], 1: [0.0, 1.0, 0.0], 2: [0.0, 0.0, 1.0]}
_ONE_HOT4 = [[1.0 if i == j else 0.0 for i in range(4)] for j in range(4)]


def _write(W: memoryview, start: int, values: list, memo: list) -> None:
    """Write ``values`` into ``W`` from ``start`` where they differ from ``memo`` (what is there, a list as
    long), and remember them."""
    for i, (value, old) in enumerate(zip(values, memo), start):
        if value != old:
            W[i] = value
    memo[:] = values


def _diff_write(W: memoryview, at: int, values: list) -> None:
    """Write ``values`` into ``W`` from ``at`` where they differ from what is there."""
    for i, value in enumerate(values, at):
        if W[i] != value:
            W[i] = value


def _column(W: memoryview, at: int, values: list[int], memo: list[int], plus: int = 0,
            stride: int = SEAT_FEATURES) -> None:
    """One value per seat (seat rows ``stride`` apart from ``at``): write those that changed."""
    for p, value in enumerate(values):
        if value != memo[p]:
            W[at + p * stride] = value + plus
    memo[:] = values


def _one_hot_column(W: memoryview, at: int, values: list[int], memo: list[int]) -> None:
    """A slot per seat as a one-hot of three (-1: none) in each seat's row from ``at``."""
    for p, value in enumerate(values):
        was = memo[p]
        if value != was:
            if was >= 0:
                W[at + p * SEAT_FEATURES + was] = 0.0
            if value >= 0:
                W[at + p * SEAT_FEATURES + value] = 1.0
    memo[:] = values


def _row_column(W: memoryview, at: int, rows: list[list[int]], memo: list[list[int]],
                stride: int = SEAT_FEATURES) -> None:
    """A list per seat (``stride`` apart from ``at``): write the values that changed."""
    for p, row in enumerate(rows):
        if row != memo[p]:
            _write(W, at + p * stride, row, memo[p])


def _seat_row(state: RattusCartusState, p: int, ranks: list[int]) -> list[float]:
    """Seat ``p``'s public row: rats, hand size, pending cards, committed cards (the running count),
    announced flag, point tokens; this round's supply slot (3), entered slot (3), entry position + 1,
    entry order + 1, Pass cards played this round; specials taken (5); cards shown by type (11); hidden
    cards received, given; committed not yet revealed, revealed flag; influence levels (6), ranks (6; 1 =
    first, 0 = not on the track); start player; the 2-player round's special-action player."""
    committed = sum(state.committed[p]) if state.entered[p] >= 0 else 0
    revealed = state.revealed[p]
    return ([state.rats[p], state.hand_size[p], sum(state.pending[p]) if state.phase == 2 else 0, committed,
             float(state.announced[p] >= 0), len(state.tokens[p])]
            + _ONE_HOT3[state.supply_slot[p]] + _ONE_HOT3[state.entered[p]]
            + [state.entry_pos[p] + 1, state.entry_order[p] + 1, state.passes[p]]
            + state.taken[p] + state.shown[p]
            + [state.hidden_in[p], state.hidden_out[p], 0 if revealed else committed, float(revealed)]
            + state.level[p] + ranks + [float(p == state.start), float(p == state.rsp)])


def _ranks(state: RattusCartusState) -> list[list[int]]:
    """Influence rank of every seat per class (1 = first; 0 = level 0), ties by arrival (§6.1)."""
    n = state.n
    level, stamp = state.level, state.stamp
    out = [[0] * NUM_CLASSES for _ in range(n)]
    for c in range(NUM_CLASSES):
        ranked = sorted((-level[p][c], stamp[p][c], p) for p in range(n) if level[p][c])
        for place, (_, _, p) in enumerate(ranked):
            out[p][c] = place + 1
    return out


def _game_values(game: RattusCartusGame, state: RattusCartusState, gold: bool) -> list[float]:
    last = state.round == game.rounds - 1 and state.phase != 3
    return ([min(state.round + 1, game.rounds), game.rounds, float(last)] + _ONE_HOT4[state.phase]
            + [game.k, len(state.bdeck), len(state.repl), len(state.deck), sum(state.discard), state.clock,
               state.reshuffles, float(gold), state.num_entered])


def _gold_public(game: RattusCartusGame, state: RattusCartusState) -> bool:
    return game.building_set_public and any(card // 5 == TREASURY for card in state.building_set)


def _write_round_blocks(game: RattusCartusGame, state: RattusCartusState, out: np.ndarray, row: int,
                        buildings: int) -> None:
    """The row and the building cards into ``out`` at the given block offsets (zeroed by the caller)."""
    for s, card in enumerate(state.row):
        base = row + s * ROW_FEATURES
        out[base + card // 5] = 1.0
        out[base + NUM_BUILDINGS + card % 5] = 1.0
        out[base + NUM_BUILDINGS + 5:base + NUM_BUILDINGS + 8] = game.supply_action[card]
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


def _write_small(observer, state: RattusCartusState, player: int, out: np.ndarray) -> None:
    """decision, actor, start_player, context, context_seats (``out`` zeroed there)."""
    game, off, n = observer.game, observer._off, observer._n
    out[off["decision"] + state.decision] = 1.0
    if state.current_player >= 0:
        out[off["actor"] + (state.current_player - player) % n] = 1.0
    out[off["start_player"] + (state.start - player) % n] = 1.0
    c = off["context"]
    out[c + 3] = state.left
    if state.first_pos >= 0:
        out[c + 4 + state.first_pos] = 1.0
    if state.phase == 2:
        if state.slot < game.k:
            out[c + state.slot] = 1.0
        if state.qi < len(state.queue):
            out[c + 9] = state.queue[state.qi][1]
        if state.wt_t >= 0:
            out[c + 10] = state.wt_t + 1
        cs = off["context_seats"]
        for q in state.cands:
            out[cs + (q - player) % n] = 1.0
        if state.sword[0] >= 0:
            out[cs + n + (state.sword[0] - player) % n] = 1.0
        if state.sword[1] >= 0:
            out[cs + 2 * n + (state.sword[1] - player) % n] = 1.0
        if state.flute >= 0:
            out[cs + 3 * n + (state.flute - player) % n] = 1.0
        for q in state.wt_victims:
            out[cs + 4 * n + (q - player) % n] = 1.0


def reference_encode(observer: RattusCartusObserver, state: RattusCartusState, player: int) -> np.ndarray:
    """The observation written from scratch, block by block (the definition the observer must match)."""
    game, layout, n = observer.game, observer.layout, observer._n
    out = np.zeros(layout.size, np.float32)
    view = layout.views(out)
    off = observer._off
    _write_small(observer, state, player, out)
    view["own_hand"][:] = state.hands[player]
    view["own_pending"][:] = state.pending[player]
    view["own_committed"][:] = state.committed[player]
    view["own_tokens"][:] = [len(state.tokens[player]), sum(state.tokens[player])]
    for q in range(NUN_ROW_SIZE):
        if state.peeked[player][q]:
            view["nun_row"][q, state.nun_row[q]] = 1.0
            view["nun_row"][q, NUM_KINDS] = 1.0
    view["seen_outside"][:] = state.seen_now(player)
    ranks = _ranks(state)
    for r in range(n):
        q = (player + r) % n
        if r:
            view["gifts"][r, :NUM_ITEMS] = state.gifts[player][q]
            view["gifts"][r, NUM_ITEMS] = float(state.gift_flag[player][q])
        view["seats"][r] = _seat_row(state, q, ranks[q])
        if r and not game.rats_public:
            view["seats"][r, 0] = 0.0
        view["looks"][r] = state.peek_count[q]
        if state.revealed[q]:
            view["reveals"][r] = state.last_reveal[q]
    view["game"][:] = _game_values(game, state, _gold_public(game, state))
    _write_round_blocks(game, state, out, off["row"], off["buildings"])
    view["supply"][:] = state.supply + [len(state.token_supply), 0.0] if game.finite else [0.0] * 6 + [1.0]
    view["discard"][:] = state.discard
    view["reshuffled_deck"][:] = state.reshuffle_comp
    return out
