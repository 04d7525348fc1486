"""Rattus Cartus observation encoder (docs/rattus_cartus_rules.md §7): one seat's view, seat-relative.

Relative seat ``r`` is the player ``r`` places clockwise of the observer (0 = the observer). Values are raw
counts and flags (``policy_input="signed_log"``). What the observer may not see never appears: other
hands, other players' committed cards before their building is revealed, nun-row cards it has not looked
at, other players' point-token values when they differ (R-A2), others' rats with ``rats_public=False``
(R-A30), and anything derived from a hidden building set (R-A32).

The blocks that only change when buildings resolve or a round starts (the row, supplies, discard pile,
influence, reveals, building cards) are cached per state, keyed on the state fields that change with them.
"""

from __future__ import annotations

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from .cards import (
    BUILDING_CLASS, NUM_BUILDING_CARDS, NUM_BUILDINGS, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUN_ROW_SIZE,
    TREASURY,
)
from .rules import RattusCartusGame, RattusCartusState

SEAT_FEATURES = 49
CONTEXT_FEATURES = 3 + 1 + NUN_ROW_SIZE + 1 + 1  # slot, left, first look, special, Watchtower t; + 5 seat rows


class RattusCartusObserver(Observer):
    low = 0.0
    high = 1.0e6
    dtype = np.float32
    policy_input = "signed_log"

    @staticmethod
    def build_layout(game: RattusCartusGame) -> ObservationLayout:
        n = game.num_players
        return ObservationLayout([
            ("decision", (11,)),            # one-hot decision D1..D10 (0: none); public
            ("actor", (n,)),                # relative seat to decide
            ("context", (CONTEXT_FEATURES,)),  # slot resolved (3), due count, D8 first look (5), special, Watchtower t
            ("context_seats", (5, n)),      # per relative seat: D5/D7 candidate, Sword winner, Sword loser,
                                            # Flute winner, Watchtower victim still to give
            ("game", (16 + n,)),            # round, R, last round, phase (4), k, deck sizes, clock, ...; start seat
            ("row", (3, NUM_BUILDINGS + 5 + 3 + 1)),  # per slot: building, copy, supply action, present
            ("supply", (7,)),               # jokers, Swords, Flutes, Pass, Gold, point tokens left; unlimited flag
            ("own_hand", (NUM_ITEMS,)),     # 30 class x nuns, then joker, Sword, Flute, Pass, Gold
            ("own_pending", (NUM_ITEMS,)),
            ("own_committed", (NUM_ITEMS,)),
            ("own_tokens", (2,)),           # own point tokens: number, total value
            ("nun_row", (NUN_ROW_SIZE, NUM_KINDS + 1)),  # own knowledge per position: kind one-hot, known flag
            ("looks", (n, NUN_ROW_SIZE)),   # public: times each relative seat looked at each position
            ("seen_outside", (NUM_KINDS,)),  # §7.5 item 4
            ("discard", (NUM_KINDS,)),      # discard pile composition
            ("reshuffled_deck", (NUM_KINDS,)),  # composition of the newest deck formed by a reshuffle
            ("seats", (n, SEAT_FEATURES)),  # public per relative seat (below)
            ("reveals", (n, NUM_ITEMS)),    # cards each relative seat revealed this round
            ("gifts", (n, NUM_ITEMS + 1)),  # cards the observer gave each seat in hidden transfers, not since
                                            # shown; flag: that seat has since given hidden cards itself
            ("buildings", (4, NUM_BUILDING_CARDS)),  # set in the game, not yet revealed, used, replacement
                                            # pile bottom (position + 1) - the first two only if public
        ])

    def __init__(self, game: RattusCartusGame):
        super().__init__(game)
        n = game.num_players
        self._size = self.layout.size
        self._off = off = {name: s.start for name, s in self.layout.slices.items()}
        # the public blocks copied from the cache, as (start, stop) of the vector
        spans = []
        for name in ("game", "row", "supply", "discard", "reshuffled_deck", "buildings"):
            sl = self.layout.slices[name]
            spans.append((sl.start, sl.stop - (n if name == "game" else 0)))  # the start seat is per viewer
        self._spans = spans
        self._seats = (off["seats"], off["seats"] + n * SEAT_FEATURES)
        self._looks = (off["looks"], off["looks"] + n * NUN_ROW_SIZE)
        self._reveals = (off["reveals"], off["reveals"] + n * NUM_ITEMS)
        self._n = n
        self.invalidate()

    def invalidate(self) -> None:
        self._state = None
        self._epoch = -1
        self._public: np.ndarray | None = None
        self._rows: np.ndarray | None = None  # seat rows, twice over (rows p..p+n-1 are p's rotation)
        self._look_rows: np.ndarray | None = None
        self._reveal_rows: np.ndarray | None = None
        self._seen: dict[int, list[int]] = {}
        self._ranks_key = None
        self._ranks_cache: list[list[int]] = []
        self._round_key = None
        self._round_public: np.ndarray | None = None
        self._gold = 0.0

    # ------------------------------------------------------------------ encode
    def encode(self, state: RattusCartusState, player: int) -> np.ndarray:
        game = self.game
        n = self._n
        off = self._off
        if state is not self._state or state.pub_epoch != self._epoch:
            self._refresh(state)
        out = np.zeros(self._size, np.float32)
        public = self._public
        for lo, hi in self._spans:
            out[lo:hi] = public[lo:hi]
        lo, hi = self._seats
        out[lo:hi] = self._rows[player:player + n].ravel()
        # the values a D4 commit changes without a new epoch: hand sizes and committed counts
        hand_size, committed = state.hand_size, state.committed
        for r in range(n):
            q = (player + r) % n
            base = lo + r * SEAT_FEATURES
            out[base + 1] = hand_size[q]
            if state.entered[q] >= 0:
                count = sum(committed[q])
                out[base + 3] = count
                if not state.revealed[q]:
                    out[base + 33] = count
            if r and not game.rats_public:
                out[base] = 0.0
        lo, hi = self._looks
        out[lo:hi] = self._look_rows[player:player + n].ravel()
        if self._any_revealed:
            lo, hi = self._reveals
            out[lo:hi] = self._reveal_rows[player:player + n].ravel()
        # decision and context
        out[off["decision"] + state.decision] = 1.0
        if state.current_player >= 0:
            out[off["actor"] + (state.current_player - player) % n] = 1.0
        c = off["context"]
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
        out[c + 3] = state.left
        if state.first_pos >= 0:
            out[c + 4 + state.first_pos] = 1.0
        out[off["game"] + 16 + (state.start - player) % n] = 1.0
        # own private blocks
        o = off["own_hand"]
        out[o:o + NUM_ITEMS] = state.hands[player]
        if state.phase == 2:
            o = off["own_pending"]
            out[o:o + NUM_ITEMS] = state.pending[player]
        if state.entered[player] >= 0:
            o = off["own_committed"]
            out[o:o + NUM_ITEMS] = state.committed[player]
        tokens = state.tokens[player]
        if tokens:
            o = off["own_tokens"]
            out[o] = len(tokens)
            out[o + 1] = sum(tokens)
        o = off["nun_row"]
        peeked = state.peeked[player]
        for q in range(NUN_ROW_SIZE):
            if peeked[q]:
                out[o + q * (NUM_KINDS + 1) + state.nun_row[q]] = 1.0
                out[o + q * (NUM_KINDS + 1) + NUM_KINDS] = 1.0
        seen = self._seen.get(player)
        if seen is None:  # located cards do not change with a D4 commit (hand to committed)
            seen = self._seen[player] = state.seen_now(player)
        o = off["seen_outside"]
        out[o:o + NUM_KINDS] = seen
        if state.hidden_out[player]:
            o = off["gifts"]
            width = NUM_ITEMS + 1
            for r in range(1, n):
                q = (player + r) % n
                out[o + r * width:o + r * width + NUM_ITEMS] = state.gifts[player][q]
                out[o + r * width + NUM_ITEMS] = state.gift_flag[player][q]
        return out

    def _refresh(self, state: RattusCartusState) -> None:
        """Rebuild the cached public blocks for ``state`` at its current epoch."""
        self._state = state
        self._epoch = state.pub_epoch
        self._public = self._build_public(state)
        rows = self._seat_rows(state)
        self._rows = np.concatenate([rows, rows])
        looks = np.asarray(state.peek_count, np.float32)
        self._look_rows = np.concatenate([looks, looks])
        self._any_revealed = any(state.revealed)
        if self._any_revealed:
            reveals = np.asarray([state.last_reveal[q] if state.revealed[q] else [0] * NUM_ITEMS
                                  for q in range(state.n)], np.float32)
            self._reveal_rows = np.concatenate([reveals, reveals])
        self._seen = {}

    def _seat_rows(self, state: RattusCartusState) -> np.ndarray:
        """Per absolute seat: rats, hand size, pending cards, committed cards (the running count),
        announced flag, point tokens, this round's supply slot (3), entered slot (3), entry position + 1,
        entry order + 1, Pass cards played this round, specials taken (5), cards shown by type (11),
        hidden cards received and given, committed not yet revealed, revealed flag, influence levels (6),
        influence ranks (6; 1 = first, 0 = not on the track), start player, 2-player special-action player."""
        n = state.n
        if self._ranks_key != (state.clock, n):
            self._ranks_cache = _ranks(state)
            self._ranks_key = (state.clock, n)
        ranks = self._ranks_cache
        table = []
        for p in range(n):
            committed = sum(state.committed[p])
            slot = _ONE_HOT3[state.supply_slot[p]]
            entered = _ONE_HOT3[state.entered[p]]
            revealed = state.revealed[p]
            table.append([state.rats[p], state.hand_size[p], sum(state.pending[p]), committed,
                          float(state.announced[p] >= 0), len(state.tokens[p])] + slot + entered
                         + [state.entry_pos[p] + 1, state.entry_order[p] + 1, state.passes[p]]
                         + state.taken[p] + state.shown[p]
                         + [state.hidden_in[p], state.hidden_out[p], 0 if revealed else committed, float(revealed)]
                         + state.level[p] + ranks[p] + [float(p == state.start), float(p == state.rsp)])
        return np.asarray(table, np.float32)

    def _build_public(self, state: RattusCartusState) -> np.ndarray:
        """The public blocks shared by every viewer (absolute positions in a full-size vector)."""
        game = self.game
        off = self._off
        key = (state.round, state.repl_known, len(state.bdeck), len(state.row))
        if key != self._round_key or self._round_public is None:
            self._round_public = self._build_round(state)
            self._round_key = key
        full = self._round_public.copy()
        g = off["game"]
        last = state.round == game.rounds - 1 and state.phase != 3
        full[g:g + 16] = [min(state.round + 1, game.rounds), game.rounds, float(last)] + _ONE_HOT4[state.phase] + [
            game.k, len(state.bdeck), len(state.repl), len(state.deck), sum(state.discard), state.clock,
            state.reshuffles, self._gold, state.num_entered]
        s = off["supply"]
        if game.finite:
            full[s:s + 5] = state.supply
            full[s + 5] = len(state.token_supply)
        else:
            full[s + 6] = 1.0
        o = off["discard"]
        full[o:o + NUM_KINDS] = state.discard
        o = off["reshuffled_deck"]
        full[o:o + NUM_KINDS] = state.reshuffle_comp
        return full

    def _build_round(self, state: RattusCartusState) -> np.ndarray:
        """The row and the building cards: they change only when a round starts."""
        game = self.game
        off = self._off
        full = np.zeros(self._size, np.float32)
        r = off["row"]
        width = NUM_BUILDINGS + 9
        for s, card in enumerate(state.row):
            base = r + s * width
            full[base + card // 5] = 1.0
            full[base + NUM_BUILDINGS + card % 5] = 1.0
            full[base + NUM_BUILDINGS + 5:base + NUM_BUILDINGS + 8] = game.supply_action[card]
            full[base + NUM_BUILDINGS + 8] = 1.0
        b = off["buildings"]
        building_public = game.building_set_public
        self._gold = float(building_public and any(card // 5 == TREASURY for card in state.building_set))
        if building_public:
            full[[b + card for card in state.building_set]] = 1.0
            full[[b + NUM_BUILDING_CARDS + card for card in state.bdeck + state.repl]] = 1.0
        if state.used:
            full[[b + 2 * NUM_BUILDING_CARDS + card for card in state.used]] = 1.0
        for position in range(state.repl_known):
            full[b + 3 * NUM_BUILDING_CARDS + state.repl[position]] = position + 1
        return full


_ONE_HOT3 = {-1: [0.0, 0.0, 0.0], 0: [1.0, 0.0, 0.0], 1: [0.0, 1.0, 0.0], 2: [0.0, 0.0, 1.0]}
_ONE_HOT4 = [[1.0 if i == j else 0.0 for i in range(4)] for j in range(4)]


def _ranks(state: RattusCartusState) -> list[list[int]]:
    """Influence rank of every seat per class (1 = first; 0 = level 0), ties by arrival (§6.1)."""
    n = state.n
    out = [[0] * NUM_CLASSES for _ in range(n)]
    for c in range(NUM_CLASSES):
        ranked = sorted((p for p in range(n) if state.level[p][c]), key=lambda p: (-state.level[p][c], state.stamp[p][c]))
        for place, p in enumerate(ranked):
            out[p][c] = place + 1
    return out


assert BUILDING_CLASS[TREASURY] == 5
