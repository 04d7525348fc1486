"""Koehandel observation encoder (docs/koehandel_rules.md §12.5): current state, opponent digest, event record.

One float32 vector of integers below 2**24 (exact in float32), seat-relative (slot 0 = the observer,
slot o = the player o seats to its left), −1 where the observer does not know a value. Blocks 2 and 3 (digest and event tables) are kept, laid
out as here, by the state's :class:`~.records.Memory`.

The encoder is in the hot loop, so it keeps each viewer's last vector and, when the state has moved on,
rewrites only the groups of values whose inputs changed: every group has a key made of exactly those
inputs. The seats block is kept once, in absolute seat order with its rows repeated, so that a viewer's
rotation is a slice.
"""

from __future__ import annotations

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from . import actions as A
from .cards import MONEY, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, PEDIGREE, RAT
from .records import SLOTS, VALUE_CAP, record_blocks
from .rules import KoehandelGame, KoehandelState

DECK_FEATURES = NUM_SPECIES + NUM_ANIMALS + 2
SEAT_FEATURES = 30  # hand size, 11 species, 10 pedigrees, 6 roles, highest bid on this card, present
ROLES = ("on_turn", "auctioneer", "high_bidder", "challenger", "challenged", "pedigree_winner")
HOLDINGS_COLUMN, PEDIGREE_COLUMN = 1, 1 + NUM_SPECIES
ROLE_COLUMN, BID_COLUMN = PEDIGREE_COLUMN + NUM_ANIMALS, PEDIGREE_COLUMN + NUM_ANIMALS + len(ROLES)
SELECTIONS = (A.D_OFFER, A.D_COUNTER, A.D_PAY, A.D_STAKE, A.D_PED_CARDS)
RESPONSES = {"accept": 1, "counter": 2}
RESULTS = {"challenger": 1, "challenged": 2, "tie": 3}
NO_TRADE = [-1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0] + [-1] * (3 * NUM_DENOMS)
UNKNOWN = [-1] * NUM_DENOMS
NO_SELECTION = (0,) * NUM_DENOMS


class _View:
    """One viewer's last vector and the keys it was written from."""

    __slots__ = ("vector", "seat_rows", "version", "acting", "game", "hand", "deck", "seats", "bidding",
                 "pedigree", "pot", "trade", "records", "private")

    def __init__(self, size: int, seats: slice, n: int):
        self.vector = np.zeros(size, np.float32)
        self.seat_rows = self.vector[seats].reshape(n, SEAT_FEATURES)  # a view: the seats that exist
        self.version = self.acting = self.game = self.hand = self.deck = self.seats = None
        self.bidding = self.pedigree = self.pot = self.trade = self.records = None
        self.private = (NO_SELECTION, 0)  # own selection so far and pending raise, as written


class KoehandelObserver(Observer):
    """Encodes a :class:`KoehandelState` for one player; layout in ``self.layout``."""

    dtype = np.float32
    low = -1
    high = VALUE_CAP
    policy_input = "signed_log"

    @staticmethod
    def build_layout(game: KoehandelGame) -> ObservationLayout:
        blocks = [
            ("decision", (16,)),          # one-hot decision id D1..D15 (0: none / not on turn)
            ("game", (6,)),               # phase (1 final), players, turns, donkeys, deck size, relative seat on turn
            ("own_hand", (NUM_DENOMS + 1,)),  # cards per denomination, cash
            ("deck", (DECK_FEATURES,)),  # red cards left per species, pedigrees left, money left, top back
            ("seats", (SLOTS, SEAT_FEATURES)),
            ("auction", (6,)),            # card kind, species, h, high bidder, passes, own pending raise
            ("pedigree", (3 + SLOTS,)),   # own commitment, winner, k*, tied flags per slot
            ("rat_pot", (SLOTS + NUM_DENOMS,)),  # cards laid per slot, own laid cards per denomination
            ("trade", (11 + 3 * NUM_DENOMS,)),  # see _trade
            ("selection", (NUM_DENOMS + 1,)),  # cards selected so far, target amount or count
            ("looked_card", (1,)),        # 2 players: the card the distributor looks at (only him)
        ]
        return ObservationLayout(blocks + record_blocks(game.cfg))  # digest and event tables

    def __init__(self, game: KoehandelGame):
        super().__init__(game)
        self.n = n = game.num_players
        self.reveal_ties = game.cfg.reveal_pedigree_ties
        start = self.layout.offset
        self.game_index, self.hand_index, self.deck_index = start("game"), start("own_hand"), start("deck")
        self.seats_slice = slice(start("seats"), start("seats") + n * SEAT_FEATURES)
        self.auction_index, self.pedigree_index = start("auction"), start("pedigree")
        self.pot_index, self.trade_index = start("rat_pot"), start("trade")
        self.pending_index = start("auction") + 5
        self.selection_index, self.target_index = start("selection"), start("selection") + NUM_DENOMS
        self.looked_index = start("looked_card")
        self.records_index = start("digest")
        self._role_columns: dict[tuple[int, ...], np.ndarray] = {}  # at most (n + 1) ** 6 role patterns
        self.invalidate()

    def invalidate(self) -> None:
        """Forget every cached value (the core calls it after restore and set_position)."""
        self._state: KoehandelState | None = None
        self._views = [_View(self.layout.size, self.seats_slice, self.n) for _ in range(self.n)]
        # the seats block in absolute seat order, rows repeated (viewer v reads rows v..v+n-1), updated
        # once per state version; the stamp counts its changes
        self._rows = np.zeros((2 * self.n, SEAT_FEATURES), np.float32)
        self._rows[:, -1] = 1
        self._rows_version = self._rows_sizes = self._rows_epoch = self._rows_max_bid = self._rows_roles = None
        self._rows_stamp = 0
        self._deck_key: tuple | None = None
        self._deck_values: list[int] = []

    def encode(self, state: KoehandelState, player: int) -> np.ndarray:
        if state is not self._state:
            self.invalidate()
            self._state = state
        view = self._views[player]
        if view.version != state.version:
            self._refresh(state, player, view)
        # the only values that change without a new decision: the mover's own build steps
        selection, pending = NO_SELECTION, 0
        if state.current_player == player and not state.is_terminal:
            decision = state.decision
            if decision == A.D_BID:
                pending = state.pending
            elif decision in SELECTIONS:
                selection = tuple(state.selection)
        vec = view.vector
        if view.private != (selection, pending):
            view.private = (selection, pending)
            vec[self.selection_index:self.selection_index + NUM_DENOMS] = selection
            vec[self.pending_index] = pending
        return vec.copy()

    # ------------------------------------------------------------------ groups of values
    def _refresh(self, s: KoehandelState, me: int, view: _View) -> None:
        """Bring ``view`` up to date with ``s``: one key per group, the group rewritten if it moved."""
        vec, n = view.vector, self.n
        view.version = s.version
        acting = s.decision if s.current_player == me and not s.is_terminal else 0
        target = s.amount if acting == A.D_PAY else s.kstar if acting in (A.D_STAKE, A.D_PED_CARDS) else 0
        key = (acting, target, s.looked if acting == A.D_DISTRIBUTE else -1)
        if key != view.acting:  # the decision one-hot: clear the last one, set this one
            vec[view.acting[0] if view.acting else 0] = 0
            vec[acting] = acting > 0
            vec[self.target_index] = target
            vec[self.looked_index] = key[2]
            view.acting = key
        key = (s.turns, s.donkeys, len(s.deck), s.turn_player)
        if key != view.game:
            view.game = key
            vec[self.game_index:self.game_index + 6] = (
                not s.deck, n, s.turns, s.donkeys, len(s.deck), (s.turn_player - me) % n)
        hand = s.hands[me]
        if hand != view.hand:
            view.hand = list(hand)
            vec[self.hand_index:self.hand_index + NUM_DENOMS + 1] = (*hand, s.cash[me])
        key = (len(s.deck), s.decision == A.D_DISTRIBUTE)
        if key != view.deck:
            view.deck = key
            vec[self.deck_index:self.deck_index + DECK_FEATURES] = self._deck(s, key)
        if self._rows_version != s.version:
            self._update_rows(s)
        if view.seats != self._rows_stamp:
            view.seats = self._rows_stamp
            view.seat_rows[:] = self._rows[me:me + n]
        self._auction(s, me, view, vec)
        self._trade(s, me, view, vec)
        if view.records != s.memory.epoch:  # blocks 2 and 3, kept by the memory as laid out here
            view.records = s.memory.epoch
            vec[self.records_index:] = s.memory.block[me]

    def _deck(self, s: KoehandelState, key: tuple) -> list[int]:
        """Red cards left per species and pedigree, money cards left, back colour of the top card; the
        deck only shrinks, so this is shared by all viewers and kept until its length changes."""
        if key == self._deck_key:
            return self._deck_values
        left = [0] * (NUM_SPECIES + NUM_ANIMALS)
        money = 0
        for card in s.deck + [s.looked] if key[1] else s.deck:  # the looked-at card's face is the looker's (§8.1)
            if card >= MONEY:
                money += 1
            elif card >= PEDIGREE:
                left[NUM_SPECIES + card - PEDIGREE] = 1
            else:
                left[card] += 1
        top = -1 if not s.deck else int(s.deck[-1] >= MONEY)  # back colour, 1 green (money), 0 red: K-A6
        self._deck_key, self._deck_values = key, left + [money, top]
        return self._deck_values

    def _update_rows(self, s: KoehandelState) -> None:
        """Per seat: hand size (public, K-A13), holdings, pedigrees, roles, highest bid on this card.
        Holdings and pedigrees change only as an event settles (the memory's epoch)."""
        rows, n = self._rows, self.n
        self._rows_version = s.version
        changed = False
        if s.sizes != self._rows_sizes:
            self._rows_sizes = list(s.sizes)
            rows[:, 0] = s.sizes * 2
            changed = True
        if s.memory.epoch != self._rows_epoch:
            self._rows_epoch = s.memory.epoch
            rows[:n, HOLDINGS_COLUMN:PEDIGREE_COLUMN] = s.holdings
            rows[:n, PEDIGREE_COLUMN:ROLE_COLUMN] = 0
            for species, owner in enumerate(s.pedigree_owner):
                if owner >= 0:
                    rows[owner, PEDIGREE_COLUMN + species] = 1
            rows[n:, HOLDINGS_COLUMN:ROLE_COLUMN] = rows[:n, HOLDINGS_COLUMN:ROLE_COLUMN]
            changed = True
        roles = (s.turn_player, s.auctioneer, s.high_bidder, s.challenger, s.challenged,
                 s.winner if s.kstar else -1)
        if roles != self._rows_roles:
            self._rows_roles = roles
            rows[:, ROLE_COLUMN:BID_COLUMN] = self._role_block(roles)
            changed = True
        if s.max_bid != self._rows_max_bid:
            self._rows_max_bid = list(s.max_bid)
            rows[:, BID_COLUMN] = s.max_bid * 2
            changed = True
        self._rows_stamp += changed

    def _role_block(self, roles: tuple[int, ...]) -> np.ndarray:
        """The role columns of the repeated rows for the seats in ``roles`` (−1: nobody), memoized."""
        block = self._role_columns.get(roles)
        if block is None:
            block = np.zeros((2 * self.n, len(ROLES)), np.float32)
            for role, seat in enumerate(roles):
                if seat >= 0:
                    block[seat, role] = block[seat + self.n, role] = 1
            self._role_columns[roles] = block
        return block

    def _auction(self, s: KoehandelState, me: int, view: _View, vec: np.ndarray) -> None:
        """Blocks auction, pedigree and rat_pot. ``seq`` counts settled events: within one, the tie
        list is set with k* and the pot only grows, so their lengths stand for their contents."""
        n, card = self.n, s.card if s.auctioneer >= 0 else -1
        key = (card, s.high, s.high_bidder, s.passes)
        if key != view.bidding:
            view.bidding = key
            if card < 0:
                kind, species = 0, -1
            elif card < NUM_ANIMALS:
                kind, species = 1, card
            elif card == RAT:
                kind, species = 3, RAT
            else:
                kind, species = 2, card - PEDIGREE
            high_bidder = -1 if s.high_bidder < 0 else (s.high_bidder - me) % n
            vec[self.auction_index:self.auction_index + 5] = (kind, species, s.high, high_bidder, s.passes)
        pedigree = PEDIGREE <= card < MONEY
        key = (s.seq, s.commits[me], s.kstar, s.winner) if pedigree else -1
        if key != view.pedigree:
            view.pedigree = key
            own = s.commits[me] if pedigree and s.commits[me] is not None else -1
            tied = [0] * SLOTS
            for seat in s.tied if self.reveal_ties else ():
                tied[(seat - me) % n] = 1
            vec[self.pedigree_index:self.pedigree_index + 3 + SLOTS] = (
                own, (s.winner - me) % n if s.kstar else -1, s.kstar, *tied)
        key = (s.seq, len(s.pot)) if s.pot else -1
        if key != view.pot:
            view.pot = key
            laid = [0] * (SLOTS + NUM_DENOMS)
            for seat, d in s.pot:
                laid[(seat - me) % n] += 1
                if seat == me:
                    laid[SLOTS + d] += 1
            vec[self.pot_index:self.pot_index + SLOTS + NUM_DENOMS] = laid

    def _trade(self, s: KoehandelState, me: int, view: _View, vec: np.ndarray) -> None:
        """C, D, species, stake, round, round-1 response and result, round-2 response, offer card counts
        (C and D in round 1, C in round 2), round-1 compositions (traders only), own offer in transit.
        A trade settles with a new ``seq``; within one, its phase is (round, rounds begun, decision)."""
        key = (s.seq, s.challenger, s.trade_round, len(s.rounds), s.decision) if s.challenger >= 0 else -1
        if key == view.trade:
            return
        view.trade = key
        if s.challenger < 0:
            vec[self.trade_index:self.trade_index + len(NO_TRADE)] = NO_TRADE
            return
        n = self.n
        laid = sum(s.offers[0]) if s.decision in (A.D_RESPONSE, A.D_COUNTER) else 0
        first = s.rounds[0] if s.rounds else {}
        done = "result" in first  # round 1 ended in a tie
        second = s.rounds[1] if len(s.rounds) > 1 else {}
        out = [(s.challenger - me) % n, (s.challenged - me) % n, s.species, s.trade_stake, s.trade_round,
               RESPONSES.get(first.get("response"), 0), RESULTS.get(first.get("result"), 0),
               RESPONSES.get(second.get("response"), 0),
               first["offer_cards"] if done else laid, first["counter_cards"] if done else 0,
               laid if s.trade_round == 2 else 0]
        trader = me in (s.challenger, s.challenged)
        out += first["offer"] + first["counter"] if done and trader else UNKNOWN * 2
        out += s.offers[0] if laid and me == s.challenger else UNKNOWN
        vec[self.trade_index:self.trade_index + len(out)] = out

