"""Koehandel observation encoder (docs/koehandel_rules.md §12.5): current state, opponent digest, event record.

One float32 vector of integers below 2**24 (exact in float32), seat-relative (slot 0 = the observer,
slot o = the player o seats to its left), −1 where the observer does not know a value; its blocks and
the names of their values are :mod:`.layout`'s. Blocks 2 and 3 (digest and event tables) are kept, laid
out as here, by the state's :class:`~.records.Memory`. :mod:`.reference` writes the same vector plainly.

The encoder is in the hot loop, so it keeps each viewer's last vector and, when the state has moved on,
rewrites only the groups of values whose inputs changed: every group has a key made of exactly those
inputs, read from the state. The state is on the core's incremental protocol: when a viewer's vector
shows the position one apply back and that apply reached no new decision (it listed no ``changes``),
only the mover's own raise or selection can have changed, and the groups are not looked at. The seats
block is kept once, in absolute seat order with its rows repeated, so that a viewer's rotation is a
slice. Vector positions are ``*_cell`` (cells from the vector's start), positions in a
seat row ``*_column``.
"""

from __future__ import annotations

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from . import actions as A
from .cards import MONEY, NUM_ANIMALS, NUM_DENOMS, PEDIGREE, RAT, SPECIES_NAMES
from .layout import AUCTION, CARD_KINDS, DECK, PEDIGREES, RAT_POT, ROLES, SEAT, SELECTION, TRADE, observation_layout
from .records import RESPONSE_CODES, RESULT_CODES, SLOTS, VALUE_CAP
from .rules import KoehandelGame, KoehandelState

SEAT_FEATURES = len(SEAT)
HOLDINGS_COLUMN, PEDIGREE_COLUMN = SEAT.at(SPECIES_NAMES[0]), SEAT.at(PEDIGREES[0])
ROLE_COLUMN, BID_COLUMN = SEAT.at(ROLES[0]), SEAT.at("highest_bid_on_card")
SIZE_COLUMN, PRESENT_COLUMN = SEAT.at("money_cards"), SEAT.at("present")
BIDDING = AUCTION.span("card_kind", "passes")  # the public auction values (the own raise is apart)
SPECIES_LEFT, PEDIGREE_LEFT = DECK.at(f"{SPECIES_NAMES[0]}_left"), DECK.at(f"{PEDIGREES[0]}_left")
SELECTIONS = (A.D_OFFER, A.D_COUNTER, A.D_PAY, A.D_STAKE, A.D_PED_CARDS)
UNKNOWN = [-1] * NUM_DENOMS
#: The trade block outside a trade: no seats or species, nothing laid, compositions unknown.
NO_TRADE = [-1 if name.endswith(("_slot", "species")) else 0 for name in TRADE[:TRADE.at("round1_offer_0")]] \
    + UNKNOWN * 3
NO_SELECTION = (0,) * NUM_DENOMS
MONEY_LEFT, TOP_BACK = DECK.at("money_cards_left"), DECK.at("top_card_back")
OWN_LAID = RAT_POT.at("own_laid_0")
NO_CARD, ANIMAL, PEDIGREE_CARD, RAT_CARD = (CARD_KINDS.index(kind) for kind in ("none", "animal", "pedigree", "rat"))


class _View:
    """One viewer's last vector, the state's ``version`` it shows and the keys it was written from."""

    __slots__ = ("vector", "seat_rows", "version", "acting", "game", "hand", "deck", "seats", "bidding",
                 "pedigree", "pot", "trade", "records", "private")

    def __init__(self, size: int, seats: slice, n: int):
        self.vector = np.zeros(size, np.float32)
        self.seat_rows = self.vector[seats].reshape(n, SEAT_FEATURES)  # a view: the slots that exist
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
        return observation_layout(game)

    def __init__(self, game: KoehandelGame):
        super().__init__(game)
        self.n = n = game.num_players
        self.reveal_ties = game.cfg.reveal_pedigree_ties
        cells = self.layout.slices
        start = {name: where.start for name, where in cells.items()}
        self.decision_cell, self.looked_cell = start["decision"], start["looked_card"]
        self.game_cells, self.hand_cells, self.deck_cells = cells["game"], cells["own_hand"], cells["deck"]
        self.seat_cells = slice(start["seats"], start["seats"] + n * SEAT_FEATURES)  # the slots that exist
        self.bidding_cells = slice(start["auction"] + BIDDING.start, start["auction"] + BIDDING.stop)
        self.raise_cell = start["auction"] + AUCTION.at("own_raise")
        self.pedigree_cells, self.pot_cells, self.trade_cells = cells["pedigree"], cells["rat_pot"], cells["trade"]
        self.selected_cells = slice(start["selection"], start["selection"] + NUM_DENOMS)
        self.target_cell = start["selection"] + SELECTION.at("target")
        self.record_cells = slice(start["digest"], None)
        self._role_columns: dict[tuple[int, ...], np.ndarray] = {}  # at most (n + 1) ** 6 role patterns
        self.invalidate()

    def invalidate(self) -> None:
        """Forget every cached value (the core calls it after restore and set_position)."""
        self._state: KoehandelState | None = None
        self._views = [_View(self.layout.size, self.seat_cells, self.n) for _ in range(self.n)]
        # the seats block in absolute seat order, rows repeated (viewer v reads rows v..v+n-1), updated
        # once per state version; the stamp counts its changes
        self._rows = np.zeros((2 * self.n, SEAT_FEATURES), np.float32)
        self._rows[:, PRESENT_COLUMN] = 1
        self._rows_version = self._rows_sizes = self._rows_settled = self._rows_max_bid = self._rows_roles = None
        self._rows_stamp = 0
        self._deck_key: tuple | None = None
        self._deck_values: list[int] = []

    def encode(self, state: KoehandelState, player: int) -> np.ndarray:
        if state is not self._state:
            self.invalidate()
            self._state = state
        view = self._views[player]
        if view.version != state.version:
            changes = state.changes
            if changes or changes is None or view.version != state.version - 1:
                self._refresh(state, player, view)
            view.version = state.version
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
            vec[self.selected_cells] = selection
            vec[self.raise_cell] = pending
        return vec.copy()

    # ------------------------------------------------------------------ groups of values
    def _refresh(self, s: KoehandelState, me: int, view: _View) -> None:
        """Bring ``view`` up to date with ``s``: one key per group, the group rewritten if it moved."""
        vec, n = view.vector, self.n
        acting = s.decision if s.current_player == me and not s.is_terminal else 0
        target = s.amount if acting == A.D_PAY else s.kstar if acting in (A.D_STAKE, A.D_PED_CARDS) else 0
        key = (acting, target, s.looked if acting == A.D_DISTRIBUTE else -1)
        if key != view.acting:  # the decision one-hot: clear the last one, set this one
            vec[self.decision_cell + (view.acting[0] if view.acting else 0)] = 0
            vec[self.decision_cell + acting] = acting > 0
            vec[self.target_cell] = target
            vec[self.looked_cell] = key[2]
            view.acting = key
        key = (s.turns, s.donkeys, len(s.deck), s.turn_player)
        if key != view.game:
            view.game = key
            vec[self.game_cells] = (not s.deck, n, s.turns, s.donkeys, len(s.deck), (s.turn_player - me) % n)
        hand = s.hands[me]
        if hand != view.hand:
            view.hand = list(hand)
            vec[self.hand_cells] = (*hand, s.cash[me])
        key = (len(s.deck), s.decision == A.D_DISTRIBUTE)
        if key != view.deck:
            view.deck = key
            vec[self.deck_cells] = self._deck(s, key)
        settled = (s.seq, s.donkeys, s.memory)  # what changes the record: events, defaults, donkey money
        if self._rows_version != s.version:
            self._update_rows(s, settled)
        if view.seats != self._rows_stamp:
            view.seats = self._rows_stamp
            view.seat_rows[:] = self._rows[me:me + n]
        self._auction(s, me, view, vec)
        self._trade(s, me, view, vec)
        if view.records != settled:  # blocks 2 and 3, kept by the memory as laid out here
            view.records = settled
            vec[self.record_cells] = s.memory.block[me]

    def _deck(self, s: KoehandelState, key: tuple) -> list[int]:
        """Red cards left per species and pedigree, money cards left, back colour of the top card; the
        deck only shrinks, so this is shared by all viewers and kept until its length changes."""
        if key == self._deck_key:
            return self._deck_values
        values = [0] * len(DECK)
        for card in s.deck + [s.looked] if key[1] else s.deck:  # the looked-at card's face is the looker's (§8.1)
            if card >= MONEY:
                values[MONEY_LEFT] += 1
            elif card >= PEDIGREE:
                values[PEDIGREE_LEFT + card - PEDIGREE] = 1
            else:
                values[SPECIES_LEFT + card] += 1
        values[TOP_BACK] = -1 if not s.deck else int(s.deck[-1] >= MONEY)  # 1 green (money), 0 red: K-A6
        self._deck_key, self._deck_values = key, values
        return values

    def _update_rows(self, s: KoehandelState, settled: tuple) -> None:
        """Per seat: hand size (public, K-A13), holdings, pedigrees, roles, highest bid on this card.
        Holdings and pedigrees change only as an event settles (``settled``, the record's key)."""
        rows, n = self._rows, self.n
        self._rows_version = s.version
        changed = False
        if s.sizes != self._rows_sizes:
            self._rows_sizes = list(s.sizes)
            rows[:, SIZE_COLUMN] = s.sizes * 2
            changed = True
        if settled != self._rows_settled:
            self._rows_settled = settled
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
                kind, species = NO_CARD, -1
            elif card < NUM_ANIMALS:
                kind, species = ANIMAL, card
            elif card == RAT:
                kind, species = RAT_CARD, RAT
            else:
                kind, species = PEDIGREE_CARD, card - PEDIGREE
            high_bidder = -1 if s.high_bidder < 0 else (s.high_bidder - me) % n
            vec[self.bidding_cells] = (kind, species, s.high, high_bidder, s.passes)
        pedigree = PEDIGREE <= card < MONEY
        key = (s.seq, s.commits[me], s.kstar, s.winner) if pedigree else -1
        if key != view.pedigree:
            view.pedigree = key
            own = s.commits[me] if pedigree and s.commits[me] is not None else -1
            tied = [0] * SLOTS
            for seat in s.tied if self.reveal_ties else ():
                tied[(seat - me) % n] = 1
            vec[self.pedigree_cells] = (own, (s.winner - me) % n if s.kstar else -1, s.kstar, *tied)
        key = (s.seq, len(s.pot)) if s.pot else -1
        if key != view.pot:
            view.pot = key
            laid = [0] * len(RAT_POT)
            for seat, d in s.pot:
                laid[(seat - me) % n] += 1  # cards_laid of the layer's slot
                if seat == me:
                    laid[OWN_LAID + d] += 1
            vec[self.pot_cells] = laid

    def _trade(self, s: KoehandelState, me: int, view: _View, vec: np.ndarray) -> None:
        """C, D, species, stake, round, round-1 response and result, round-2 response, offer card counts
        (C and D in round 1, C in round 2), round-1 compositions (traders only), own offer in transit.
        A trade settles with a new ``seq``; within one, its phase is (round, rounds begun, decision)."""
        key = (s.seq, s.challenger, s.trade_round, len(s.rounds), s.decision) if s.challenger >= 0 else -1
        if key == view.trade:
            return
        view.trade = key
        if s.challenger < 0:
            vec[self.trade_cells] = NO_TRADE
            return
        n = self.n
        laid = sum(s.offers[0]) if s.decision in (A.D_RESPONSE, A.D_COUNTER) else 0
        first = s.rounds[0] if s.rounds else {}
        done = "result" in first  # round 1 ended in a tie
        second = s.rounds[1] if len(s.rounds) > 1 else {}
        out = [(s.challenger - me) % n, (s.challenged - me) % n, s.species, s.trade_stake, s.trade_round,
               RESPONSE_CODES.get(first.get("response"), 0), RESULT_CODES.get(first.get("result"), 0),
               RESPONSE_CODES.get(second.get("response"), 0),
               first["offer_cards"] if done else laid, first["counter_cards"] if done else 0,
               laid if s.trade_round == 2 else 0]  # TRADE's values in order, then three compositions
        trader = me in (s.challenger, s.challenged)
        out += first["offer"] + first["counter"] if done and trader else UNKNOWN * 2
        out += s.offers[0] if laid and me == s.challenger else UNKNOWN
        vec[self.trade_cells] = out

