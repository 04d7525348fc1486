"""Rattus Cartus observation encoder (docs/rattus_cartus_rules.md §7, §7.2a, §7.5): one seat's view.

Relative seat ``r`` is the player ``r`` places clockwise of the observer (0 = the observer). Values are raw
counts and flags (``policy_input="signed_log"``). What the observer may not see never appears: other
hands, other players' committed cards before their building is revealed, nun-row cards it has not looked
at, other players' point-token values when they differ (R-A2), others' rats with ``rats_public=False``
(R-A30), and anything derived from a hidden building set (R-A32).

Speed: :func:`reference_encode` writes every value from scratch (the definition). The observer gives the
same vectors from one table of every value some seat may see, by absolute seat, gathered through a
per-seat index array (rotation, own private blocks, hidden values pointing at a cell that stays 0). Each
encode writes into the table only what differs from the state values it was last written from (lists
compared whole, in C, then seat by seat); within one ``pub_epoch`` of the state (the engine bumps it on
every action but a D4 commit) only the committer's hand size and cards are compared. Tests compare both
encoders at every step and after restores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
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
        # blocks and points what it may not see at a cell that stays 0. Encoding writes into M only what
        # differs from the state values M was last written from (the memos), then gathers.
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
        self._gather = [self._gather_for(v) for v in range(n)]
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
        n = self._n
        self._M = np.zeros(self._M_ZERO + 1, np.float32)
        self._small_view = self._M[self._M_DEC:self._M_PRIV]
        # memos: the values a table of zeros shows to begin with
        self._epoch: tuple | None = None  # (state, pub_epoch) of the last public sync
        # public, per seat
        self._rats, self._hand_size, self._passes = [0] * n, [0] * n, [0] * n
        self._hidden_in, self._hidden_out = [0] * n, [0] * n
        self._announced, self._supply_slot = [-1] * n, [-1] * n
        self._entry_pos, self._entry_order = [-1] * n, [-1] * n
        self._tokens_pub: list[list[int]] = [[] for _ in range(n)]
        self._committed_pub = [[0] * NUM_ITEMS for _ in range(n)]
        self._entered, self._revealed = [-1] * n, [False] * n
        self._pending_pub: list[list[int]] | None = None  # the pending cards counted (phase D only)
        self._pending_sum = [0] * n
        self._taken = [[0] * 5 for _ in range(n)]
        self._shown = [[0] * 11 for _ in range(n)]
        self._level = [[0] * NUM_CLASSES for _ in range(n)]
        self._stamp = [[0] * NUM_CLASSES for _ in range(n)]
        self._rank_rows = [[0] * NUM_CLASSES for _ in range(n)]
        self._start, self._rsp = -1, -1
        self._looks = [[0] * NUN_ROW_SIZE for _ in range(n)]
        self._last_reveal = [[0] * NUM_ITEMS for _ in range(n)]
        self._reveal_flags = [False] * n
        self._reveals = [[0] * NUM_ITEMS for _ in range(n)]
        # public, shared
        self._small_key: tuple | None = None
        self._round_key: tuple | None = None
        self._gold = False
        self._game_key: tuple | None = None
        self._game_values = [0] * GAME_FEATURES
        self._supply = [0] * 7
        self._discard = [0] * NUM_KINDS
        self._reshuffled = [0] * NUM_KINDS
        self._located_key: tuple | None = None
        self._located: list[int] = []  # discard pile + revealed committed cards, per kind
        # private, per seat
        self._private_epoch: list[tuple | None] = [None] * n  # (state, pub_epoch) of each seat's last sync
        self._hand = [[0] * NUM_ITEMS for _ in range(n)]
        self._pending = [[0] * NUM_ITEMS for _ in range(n)]
        self._committed = [[0] * NUM_ITEMS for _ in range(n)]
        self._tokens = [[] for _ in range(n)]
        self._peeked = [[False] * NUN_ROW_SIZE for _ in range(n)]
        self._peeks = [_UNSEEN for _ in range(n)]
        self._peeks_row: list[list[int]] = [[] for _ in range(n)]  # the nun row the looks were written from
        self._seen = [[0] * NUM_KINDS for _ in range(n)]
        self._seen_source: list[tuple | None] = [None] * n
        self._gifts = [[[0] * NUM_ITEMS for _ in range(n)] for _ in range(n)]
        self._gift_flags = [[False] * n for _ in range(n)]

    # ------------------------------------------------------------------ encode
    def encode(self, state: RattusCartusState, player: int) -> np.ndarray:
        epoch = (state, state.pub_epoch)
        if epoch != self._epoch:
            self._sync_public(state)
            self._sync_small(state)
            self._sync_shared(state)
            self._epoch = epoch
        else:
            self._sync_commits(state)
        self._sync_private(state, player, epoch)
        return self._M.take(self._gather[player])

    def _sync_commits(self, state: RattusCartusState) -> None:
        """Within one epoch of the state (``pub_epoch``, which the engine bumps on every action but a D4
        commit) only D4 commits happened: of the public values, just the committer's hand size and
        committed cards can differ."""
        p = state.current_player
        if p < 0:
            return
        at = self._M_SEATS + p * SEAT_FEATURES
        if state.hand_size[p] != self._hand_size[p]:
            self._M[at + 1] = self._hand_size[p] = state.hand_size[p]
        committed = state.committed[p]
        if committed != self._committed_pub[p]:
            count = sum(committed) if state.entered[p] >= 0 else 0
            self._M[at + 3] = count
            self._M[at + 33] = 0 if state.revealed[p] else count
            self._committed_pub[p] = list(committed)

    def _sync_public(self, state: RattusCartusState) -> None:
        """The seats' rows (see :func:`_seat_row`), looks and reveals: each field compared as a whole
        (lists compare in C), then seat by seat where it differs."""
        n, M, F = self._n, self._M, SEAT_FEATURES
        S = self._M_SEATS
        if state.rats != self._rats:
            _column(M, S, state.rats, self._rats)
        if state.hand_size != self._hand_size:
            _column(M, S + 1, state.hand_size, self._hand_size)
        if state.passes != self._passes:
            _column(M, S + 14, state.passes, self._passes)
        if state.hidden_in != self._hidden_in:
            _column(M, S + 31, state.hidden_in, self._hidden_in)
        if state.hidden_out != self._hidden_out:
            _column(M, S + 32, state.hidden_out, self._hidden_out)
        if state.entry_pos != self._entry_pos:
            _column(M, S + 12, state.entry_pos, self._entry_pos, 1)
        if state.entry_order != self._entry_order:
            _column(M, S + 13, state.entry_order, self._entry_order, 1)
        if state.supply_slot != self._supply_slot:
            _one_hot_column(M, S + 6, state.supply_slot, self._supply_slot)
        if state.announced != self._announced:
            old = self._announced
            for p, value in enumerate(state.announced):
                if value != old[p]:
                    M[S + p * F + 4] = value >= 0
            old[:] = state.announced
        if state.tokens != self._tokens_pub:
            old = self._tokens_pub
            for p, tokens in enumerate(state.tokens):
                if tokens != old[p]:
                    M[S + p * F + 5] = len(tokens)
                    old[p] = list(tokens)
        # committed count (once entered), unrevealed count, revealed flag, entered slot
        if (state.committed != self._committed_pub or state.entered != self._entered
                or state.revealed != self._revealed):
            for p in range(n):
                committed, entered, revealed = state.committed[p], state.entered[p], state.revealed[p]
                was = self._entered[p]
                if committed != self._committed_pub[p] or entered != was or revealed != self._revealed[p]:
                    count = sum(committed) if entered >= 0 else 0
                    at = S + p * F
                    M[at + 3] = count
                    M[at + 33] = 0 if revealed else count
                    M[at + 34] = revealed
                    if entered != was:
                        if was >= 0:
                            M[at + 9 + was] = 0.0
                        if entered >= 0:
                            M[at + 9 + entered] = 1.0
                    self._committed_pub[p] = list(committed)
                    self._entered[p] = entered
                    self._revealed[p] = revealed
        # pending cards, counted in phase D only
        if state.phase == 2:
            if state.pending != self._pending_pub:
                self._pending_pub = [list(row) for row in state.pending]
                for p in range(n):
                    total = sum(state.pending[p])
                    if total != self._pending_sum[p]:
                        M[S + p * F + 2] = self._pending_sum[p] = total
        elif self._pending_pub is not None:
            self._pending_pub = None
            for p in range(n):
                if self._pending_sum[p]:
                    M[S + p * F + 2] = self._pending_sum[p] = 0
        if state.taken != self._taken:
            _row_column(M, S + 15, state.taken, self._taken)
        if state.shown != self._shown:
            _row_column(M, S + 20, state.shown, self._shown)
        if state.level != self._level or state.stamp != self._stamp:
            _row_column(M, S + 35, state.level, self._level)
            _row_column(M, S + 41, _ranks(state), self._rank_rows)
            self._stamp = [list(row) for row in state.stamp]
        if state.start != self._start:
            if self._start >= 0:
                M[S + self._start * F + 47] = 0.0
            M[S + state.start * F + 47] = 1.0
            self._start = state.start
        if state.rsp != self._rsp:
            if self._rsp >= 0:
                M[S + self._rsp * F + 48] = 0.0
            if state.rsp >= 0:
                M[S + state.rsp * F + 48] = 1.0
            self._rsp = state.rsp
        if state.peek_count != self._looks:
            _row_column(M, self._M_LOOKS, state.peek_count, self._looks, NUN_ROW_SIZE)
        if state.revealed != self._reveal_flags or state.last_reveal != self._last_reveal:
            reveals = [state.last_reveal[p] if state.revealed[p] else _NOTHING for p in range(n)]
            _row_column(M, self._M_REVEALS, reveals, self._reveals, NUM_ITEMS)
            self._reveal_flags = list(state.revealed)
            self._last_reveal = [list(row) for row in state.last_reveal]

    def _sync_small(self, state: RattusCartusState) -> None:
        """decision, actor, start player, context and context seats (absolute seats)."""
        d2 = state.phase == 2
        key = (state.decision, state.current_player, state.start, state.left, state.first_pos, d2, state.slot,
               state.qi, state.wt_t, state.cands, state.sword, state.flute, state.wt_victims, state.queue)
        if key == self._small_key:
            return
        self._small_key = key[:9] + (list(state.cands), list(state.sword), state.flute, list(state.wt_victims),
                                     [list(entry) for entry in state.queue])
        n, M = self._n, self._M
        self._small_view.fill(0.0)
        M[self._M_DEC + state.decision] = 1.0
        if state.current_player >= 0:
            M[self._M_ACTOR + state.current_player] = 1.0
        M[self._M_START + state.start] = 1.0
        c = self._M_CTX
        M[c + 3] = state.left
        if state.first_pos >= 0:
            M[c + 4 + state.first_pos] = 1.0
        if d2:
            if state.slot < self.game.k:
                M[c + state.slot] = 1.0
            if state.qi < len(state.queue):
                M[c + 9] = state.queue[state.qi][1]
            if state.wt_t >= 0:
                M[c + 10] = state.wt_t + 1
            cs = self._M_CSEATS
            for q in state.cands:
                M[cs + q] = 1.0
            if state.sword[0] >= 0:
                M[cs + n + state.sword[0]] = 1.0
            if state.sword[1] >= 0:
                M[cs + 2 * n + state.sword[1]] = 1.0
            if state.flute >= 0:
                M[cs + 3 * n + state.flute] = 1.0
            for q in state.wt_victims:
                M[cs + 4 * n + q] = 1.0

    def _sync_shared(self, state: RattusCartusState) -> None:
        """game, row, supply, discard, reshuffled deck and buildings (the first part of M)."""
        game, off, M = self.game, self._off, self._M
        base = off["game"]
        key = (state.row, state.round, state.repl_known, len(state.bdeck), state.building_set, len(state.used))
        if key != self._round_key:
            self._round_key = (list(state.row), state.round, state.repl_known, len(state.bdeck),
                               list(state.building_set), len(state.used))
            r0, b0 = off["row"] - base, off["buildings"] - base
            M[r0:off["supply"] - base] = 0.0
            M[b0:b0 + 4 * NUM_BUILDING_CARDS] = 0.0
            _write_round_blocks(game, state, M, r0, b0)
            self._gold = _gold_public(game, state)
        key = (state.round, state.phase, len(state.bdeck), len(state.repl), len(state.deck), state.clock,
               state.reshuffles, state.num_entered, self._gold, state.discard)
        if key != self._game_key:
            self._game_key = key[:9] + (list(state.discard),)
            _write(M, 0, _game_values(game, state, self._gold), self._game_values)
        if game.finite:
            if state.supply != self._supply[:5] or len(state.token_supply) != self._supply[5]:
                _write(M, off["supply"] - base, state.supply + [len(state.token_supply), 0], self._supply)
        elif not self._supply[6]:
            _write(M, off["supply"] - base, [0] * 6 + [1], self._supply)
        if state.discard != self._discard:
            _write(M, off["discard"] - base, state.discard, self._discard)
        if state.reshuffle_comp != self._reshuffled:
            _write(M, off["reshuffled_deck"] - base, state.reshuffle_comp, self._reshuffled)

    def _sync_private(self, state: RattusCartusState, v: int, epoch: tuple) -> None:
        """Seat ``v``'s own blocks: hand, pending and committed cards, tokens, nun-row looks, cards seen,
        gifts. Within one epoch (only D4 commits) just the committer's hand and committed cards change,
        by one card of ``state.last_item`` each (checked against the values, else written in full)."""
        M = self._M
        at = self._M_PRIV + v * self._PRIVATE
        hand, committed = state.hands[v], state.committed[v]
        old_hand, old_committed = self._hand[v], self._committed[v]
        if hand != old_hand or committed != old_committed:
            item = state.last_item
            if 0 <= item < NUM_ITEMS and hand[item] == old_hand[item] - 1 and \
                    committed[item] == old_committed[item] + 1:
                old_hand[item] -= 1
                old_committed[item] += 1
                if hand == old_hand and committed == old_committed:
                    M[at + item] = hand[item]
                    M[at + 2 * NUM_ITEMS + item] = committed[item]
                else:
                    old_hand[item] += 1
                    old_committed[item] -= 1
            if hand != old_hand:
                _write(M, at, hand, old_hand)
            if committed != old_committed:
                _write(M, at + 2 * NUM_ITEMS, committed, old_committed)
        if epoch == self._private_epoch[v]:
            return
        self._private_epoch[v] = epoch
        pending = state.pending[v]
        if pending != self._pending[v]:
            _write(M, at + NUM_ITEMS, pending, self._pending[v])
        tokens = state.tokens[v]
        if tokens != self._tokens[v]:
            M[at + 3 * NUM_ITEMS] = len(tokens)
            M[at + 3 * NUM_ITEMS + 1] = sum(tokens)
            self._tokens[v] = list(tokens)
        peeked = state.peeked[v]
        if peeked != self._peeked[v] or (True in peeked and state.nun_row != self._peeks_row[v]):
            view = [state.nun_row[q] if peeked[q] else -1 for q in range(NUN_ROW_SIZE)]
            o = at + 3 * NUM_ITEMS + 2
            for q, (kind, old) in enumerate(zip(view, self._peeks[v])):
                if kind != old:
                    row = o + q * (NUM_KINDS + 1)
                    if old >= 0:
                        M[row + old] = 0.0
                    if kind >= 0:
                        M[row + kind] = 1.0
                    M[row + NUM_KINDS] = kind >= 0
            self._peeks[v] = view
            self._peeked[v] = list(peeked)
            self._peeks_row[v] = list(state.nun_row)
        # seen_outside: the state's seen_now(v), the most cards of each kind v located at once; what v
        # locates changes only with its own cards, the discard pile and reveals
        source = (hand, pending, committed, state.discard, state.revealed, state.reshuffles, state.seen[v])
        if source != self._seen_source[v]:
            self._seen_source[v] = (list(hand), list(pending), list(committed), list(state.discard),
                                    list(state.revealed), state.reshuffles, list(state.seen[v]))
            table = self._table_located(state)  # discard pile + every revealed player's committed cards
            if state.revealed[v]:  # its committed cards are in the table
                seen = [t if (t := a + b + c) > s else s for a, b, c, s in zip(hand, pending, table, state.seen[v])]
            else:
                seen = [t if (t := a + b + c + d) > s else s
                        for a, b, c, d, s in zip(hand, pending, committed, table, state.seen[v])]
            if seen != self._seen[v]:
                _write(M, at + 3 * NUM_ITEMS + 2 + NUN_ROW_SIZE * (NUM_KINDS + 1), seen, self._seen[v])
        gifts, flags = state.gifts[v], state.gift_flag[v]
        if gifts != self._gifts[v] or flags != self._gift_flags[v]:
            n = self._n
            g = self._M_GIFTS + v * n * (NUM_ITEMS + 1)
            for q in range(n):
                if q != v:
                    o = g + q * (NUM_ITEMS + 1)
                    M[o:o + NUM_ITEMS] = gifts[q]
                    M[o + NUM_ITEMS] = flags[q]
            self._gifts[v] = [list(row) for row in gifts]
            self._gift_flags[v] = list(flags)

    def _table_located(self, state: RattusCartusState) -> list[int]:
        """Population cards on the table anyone can locate: the discard pile and revealed committed cards."""
        key = (state.discard, state.revealed, state.committed)
        if key != self._located_key:
            self._located_key = (list(state.discard), list(state.revealed), [list(row) for row in state.committed])
            table = state.discard
            for q, revealed in enumerate(state.revealed):
                if revealed:
                    table = [a + b for a, b in zip(table, state.committed[q])]
            self._located = list(table)
        return self._located


_NOTHING = [0] * NUM_ITEMS
_UNSEEN = [-1] * NUN_ROW_SIZE
_ONE_HOT3 = {-1: [0.0, 0.0, 0.0], 0: [1.0, 0.0, 0.0], 1: [0.0, 1.0, 0.0], 2: [0.0, 0.0, 1.0]}
_ONE_HOT4 = [[1.0 if i == j else 0.0 for i in range(4)] for j in range(4)]


def _write(out: np.ndarray, start: int, values: list, memo: list) -> None:
    """Write ``values`` into ``out`` at ``start`` and remember them in ``memo`` (a list as long)."""
    out[start:start + len(values)] = values
    memo[:] = values


def _column(M: np.ndarray, at: int, values: list[int], memo: list[int], plus: int = 0) -> None:
    """One value per seat (seat rows ``SEAT_FEATURES`` apart from ``at``): write those that changed."""
    for p, value in enumerate(values):
        if value != memo[p]:
            M[at + p * SEAT_FEATURES] = value + plus
    memo[:] = values


def _one_hot_column(M: np.ndarray, at: int, values: list[int], memo: list[int]) -> None:
    """A slot per seat as a one-hot of three (-1: none) in each seat's row from ``at``."""
    for p, value in enumerate(values):
        was = memo[p]
        if value != was:
            if was >= 0:
                M[at + p * SEAT_FEATURES + was] = 0.0
            if value >= 0:
                M[at + p * SEAT_FEATURES + value] = 1.0
    memo[:] = values


def _row_column(M: np.ndarray, at: int, rows: list[list[int]], memo: list[list[int]],
                stride: int = SEAT_FEATURES) -> None:
    """A list per seat (``stride`` apart from ``at``): write the lists that changed."""
    for p, row in enumerate(rows):
        if row != memo[p]:
            o = at + p * stride
            M[o:o + len(row)] = row
            memo[p] = list(row)


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
    out = [[0] * NUM_CLASSES for _ in range(n)]
    for c in range(NUM_CLASSES):
        ranked = sorted((p for p in range(n) if state.level[p][c]), key=lambda p: (-state.level[p][c], state.stamp[p][c]))
        for place, p in enumerate(ranked):
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
