"""Koehandel observation encoder (spec §12.5): current state, opponent digest, event record.

One int32 vector, seat-relative (slot 0 = the observer, slot o = the player o seats to its left),
−1 where the observer does not know a value. Blocks 2 and 3 come from the state's
:class:`~.records.Memory` and are cached per viewer until the next event settles.
"""

from __future__ import annotations

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from . import actions as A
from .config import NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, RAT
from .records import SLOTS, table_shapes
from .rules import MONEY, PEDIGREE, KoehandelGame, KoehandelState

COMPACT_ROWS = 16
SEAT_FEATURES = 30  # hand size, 11 species, 10 pedigrees, 6 roles, highest bid on this card, present
ROLES = ("on_turn", "auctioneer", "high_bidder", "challenger", "challenged", "pedigree_winner")
PEDIGREE_COLUMN, ROLE_COLUMN = 1 + NUM_SPECIES, 1 + NUM_SPECIES + NUM_ANIMALS
NO_PEDIGREES, NO_ROLES = (0,) * NUM_ANIMALS, (0,) * len(ROLES)
SELECTIONS = (A.D_OFFER, A.D_COUNTER, A.D_PAY, A.D_STAKE, A.D_PED_CARDS)
RESPONSES = {"accept": 1, "counter": 2}
RESULTS = {"challenger": 1, "challenged": 2, "tie": 3}


class KoehandelObserver(Observer):
    """Encodes a :class:`KoehandelState` for one player; layout in ``self.layout``."""

    dtype = np.int32
    low = -1
    high = 2**31 - 1
    policy_input = "signed_log"

    @staticmethod
    def build_layout(game: KoehandelGame) -> ObservationLayout:
        cfg = game.cfg
        rows = {name: shape[0] if cfg.observation_mode == "full_record" else min(COMPACT_ROWS, shape[0])
                for name, shape in table_shapes(cfg).items()}
        blocks = [
            ("decision", (16,)),          # one-hot decision id D1..D15 (0: none / not on turn)
            ("game", (6,)),               # phase (1 final), players, turns, donkeys, deck size, relative seat on turn
            ("own_hand", (NUM_DENOMS + 1,)),  # cards per denomination, cash
            ("deck", (NUM_SPECIES + NUM_ANIMALS + 2,)),  # red cards left per species, pedigrees left, money left, top back
            ("seats", (SLOTS, SEAT_FEATURES)),
            ("auction", (6,)),            # card kind, species, h, high bidder, passes, own pending raise
            ("pedigree", (3 + SLOTS,)),   # own commitment, winner, k*, tied flags per slot
            ("rat_pot", (SLOTS + NUM_DENOMS,)),  # cards laid per slot, own laid cards per denomination
            ("trade", (11 + 3 * NUM_DENOMS,)),  # see _trade
            ("selection", (NUM_DENOMS + 1,)),  # cards selected so far, target amount or count
            ("looked_card", (1,)),        # 2 players: the card the distributor looks at (only him)
            ("digest", (SLOTS - 1, 17)),
        ]
        blocks += [(f"record_{name}", (rows[name], shape[1])) for name, shape in table_shapes(cfg).items()]
        return ObservationLayout(blocks)

    def __init__(self, game: KoehandelGame):
        super().__init__(game)
        self.full = game.cfg.observation_mode == "full_record"
        self.record_start = self.layout.offset("digest")
        self.digest_size = self.layout.slices["digest"].stop - self.record_start
        self.table_slices = {
            name[len("record_"):]: slice(view.start - self.record_start, view.stop - self.record_start)
            for name, view in self.layout.slices.items() if name.startswith("record_")}
        self.pending_index = self.layout.offset("auction") + 5
        self.selection_slice = self.layout.slices["selection"]
        self._current_cache: dict[int, tuple] = {}
        self._deck_cache: tuple = (None, None)
        self._seat_cache: dict[int, tuple] = {}
        self._record_cache: dict[int, tuple] = {}

    def clear_caches(self) -> None:
        """Forget cached blocks; needed only after editing a state by hand (tests, puzzles)."""
        self._current_cache.clear()
        self._seat_cache.clear()
        self._record_cache.clear()
        self._deck_cache = (None, None)

    def encode(self, state: KoehandelState, player: int) -> np.ndarray:
        cached = self._current_cache.get(player)
        if cached is None or cached[0] is not state or cached[1] != state.version:
            head, tail = self._current(state, player)
            block = np.concatenate((np.array(head, np.int32), self._seat_block(state, player),
                                    np.array(tail, np.int32)))
            cached = (state, state.version, block)
            self._current_cache[player] = cached
        out = np.concatenate((cached[2], self._records(state, player)))
        # the only values that change without a new decision: the mover's own build steps
        if state.current_player == player and not state.is_terminal:
            decision = state.decision
            if decision == A.D_BID:
                out[self.pending_index] = state.pending
            elif decision in SELECTIONS:
                out[self.selection_slice.start: self.selection_slice.stop - 1] = state.selection
        return out

    # ------------------------------------------------------------------ block 3 and 2 (cached)
    def _records(self, state: KoehandelState, player: int) -> np.ndarray:
        """Blocks 2 and 3 of ``player``; only the tables that grew since the last call are rewritten."""
        memory = state.memory
        cached = self._record_cache.get(player)
        if cached is not None and cached[0] is memory and cached[1] == memory.epoch:
            return cached[2]
        if cached is None or cached[0] is not memory:
            cached = (memory, -1, np.zeros(self.layout.size - self.record_start, np.int32), {})
        block, counts = cached[2], cached[3]
        block[: self.digest_size] = memory.digest[player].ravel()
        for name, table in memory.tables.items():
            count = memory.counts[name]
            if counts.get(name) == count:
                continue
            counts[name] = count
            view = block[self.table_slices[name]].reshape(self.layout.shapes[f"record_{name}"])
            mine = table[player]
            if self.full:
                view[:] = mine
            else:  # newest row first, zero rows after the oldest one kept
                kept = mine[max(0, count - COMPACT_ROWS): count][::-1]
                view[: len(kept)] = kept
                view[len(kept):] = 0
        self._record_cache[player] = (memory, memory.epoch, block, counts)
        return block

    # ------------------------------------------------------------------ block 1
    def _current(self, s: KoehandelState, me: int) -> tuple[list[int], list[int]]:
        """Block 1 before and after the seats."""
        n, decision = s.n, s.decision
        acting = decision and s.current_player == me and not s.is_terminal
        rel = (lambda seat: -1 if seat is None or seat < 0 else (seat - me) % n)
        values = [0] * 16
        if acting:
            values[decision] = 1
        values += [int(not s.deck), n, s.turns, s.donkeys, len(s.deck), rel(s.turn_player)]
        values += s.hands[me] + [s.cash[me]]
        values += self._deck(s)
        head, values = values, self._auction(s, me, rel)
        values += self._trade(s, me, rel)
        if acting and decision in SELECTIONS:  # the counts themselves are written by encode
            target = s.amount if decision == A.D_PAY else s.kstar if decision in (A.D_STAKE, A.D_PED_CARDS) else 0
            values += [0] * NUM_DENOMS + [target]
        else:
            values += [0] * (NUM_DENOMS + 1)
        looker = decision == A.D_DISTRIBUTE and s.current_player == me
        values.append(s.looked if looker else -1)
        return head, values

    def _seat_block(self, s: KoehandelState, me: int) -> np.ndarray:
        """The seats block, cached until something in it can have changed: holdings and pedigrees
        change only when an event settles (the memory's epoch), the rest is in the key."""
        key = (s, s.memory.epoch, tuple(s.sizes), tuple(s.max_bid), s.turn_player, s.auctioneer,
               s.high_bidder, s.challenger, s.challenged, s.winner, s.kstar)
        cached = self._seat_cache.get(me)
        if cached is None or cached[0] != key:
            cached = (key, np.array(self._seats(s, me), np.int32))
            self._seat_cache[me] = cached
        return cached[1]

    def _deck(self, s: KoehandelState) -> list[int]:
        """Red cards left per species and pedigree, money cards left, back colour of the top card.
        The deck only shrinks, so this is cached on its length."""
        looking = s.decision == A.D_DISTRIBUTE  # the looked-at card's face is the looker's alone (§8.1)
        key = (s, len(s.deck), looking)
        if self._deck_cache[0] == key:
            return self._deck_cache[1]
        left = [0] * (NUM_SPECIES + NUM_ANIMALS)
        money = 0
        for card in s.deck + [s.looked] if looking else s.deck:
            if card >= MONEY:
                money += 1
            elif card >= PEDIGREE:
                left[NUM_SPECIES + card - PEDIGREE] = 1
            else:
                left[card] += 1
        top = -1 if not s.deck else int(s.deck[-1] >= MONEY)  # back colour, 1 green (money), 0 red: K-A6
        self._deck_cache = (key, left + [money, top])
        return self._deck_cache[1]

    @staticmethod
    def _seats(s: KoehandelState, me: int) -> list[int]:
        """Per seat: hand size (public, K-A13), holdings, pedigrees, roles, highest bid on this card."""
        n = s.n
        rows = [[s.sizes[seat], *s.holdings[seat], *NO_PEDIGREES, *NO_ROLES, s.max_bid[seat], 1]
                for seat in range(n)]
        for species, owner in enumerate(s.pedigree_owner):
            if owner >= 0:
                rows[owner][PEDIGREE_COLUMN + species] = 1
        roles = (s.turn_player, s.auctioneer, s.high_bidder, s.challenger, s.challenged,
                 s.winner if s.kstar else -1)
        for role, seat in enumerate(roles):
            if seat >= 0:
                rows[seat][ROLE_COLUMN + role] = 1
        out: list[int] = []
        for slot in range(n):
            out += rows[(me + slot) % n]
        return out + [0] * (SEAT_FEATURES * (SLOTS - n))

    @staticmethod
    def _auction(s: KoehandelState, me: int, rel) -> list[int]:
        n, card = s.n, s.card
        if s.auctioneer < 0 or card < 0:
            kind, species = 0, -1
        elif card < NUM_ANIMALS:
            kind, species = 1, card
        elif card == RAT:
            kind, species = 3, RAT
        else:
            kind, species = 2, card - PEDIGREE
        out = [kind, species, s.high, rel(s.high_bidder), s.passes, 0]  # own pending raise: see encode
        own_commit = s.commits[me] if kind == 2 and s.commits[me] is not None else -1
        tied = [0] * SLOTS
        for seat in s.tied if s.cfg.reveal_pedigree_ties else ():
            tied[rel(seat)] = 1
        out += [own_commit, rel(s.winner) if s.kstar else -1, s.kstar] + tied
        laid = [0] * SLOTS
        own = [0] * NUM_DENOMS
        for seat, d in s.pot:
            laid[rel(seat)] += 1
            if seat == me:
                own[d] += 1
        return out + laid + own

    @staticmethod
    def _trade(s: KoehandelState, me: int, rel) -> list[int]:
        """C, D, species, stake, round, round-1 response and result, round-2 response, offer card counts
        (C and D in round 1, C in round 2), round-1 compositions (traders only), own offer in transit."""
        unknown = [-1] * NUM_DENOMS
        if s.challenger < 0:
            return [-1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0] + unknown * 3
        laid = sum(s.offers[0]) if s.decision in (A.D_RESPONSE, A.D_COUNTER) else 0
        first = s.rounds[0] if s.rounds else {}
        done = "result" in first  # round 1 ended in a tie
        second = s.rounds[1] if len(s.rounds) > 1 else {}
        out = [rel(s.challenger), rel(s.challenged), s.species, s.trade_stake, s.trade_round,
               RESPONSES.get(first.get("response"), 0), RESULTS.get(first.get("result"), 0),
               RESPONSES.get(second.get("response"), 0),
               first["offer_cards"] if done else laid, first["counter_cards"] if done else 0,
               laid if s.trade_round == 2 else 0]
        trader = me in (s.challenger, s.challenged)
        out += first["offer"] + first["counter"] if done and trader else unknown * 2
        out += s.offers[0] if laid and me == s.challenger else unknown
        return out
