"""Rattus Cartus observation encoder (docs/rattus_cartus_rules.md §7, §7.2a, §7.5): one seat's view.

Relative seat ``r`` is the player ``r`` places clockwise of the observer (0 = the observer). Values are raw
counts and flags (``policy_input="signed_log"``). What the observer may not see never appears: other
hands, other players' committed cards before their building is revealed, nun-row cards it has not looked
at, other players' point-token values when they differ (R-A2), others' rats with ``rats_public=False``
(R-A30), and anything derived from a hidden building set (R-A32).

Speed: :func:`reference_encode` writes every value from scratch (the definition); the observer gives
the same vectors by keeping the public tables (per-seat rows, looks, reveals, the shared blocks) and
each seat's last vector, and rewriting only what differs from the values it last wrote — caches keyed
on the state's values themselves, never on counters. Tests compare both encoders at every step.
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
#: The blocks every viewer shares unchanged (one contiguous run at the end of the vector).
SHARED = ("game", "row", "supply", "discard", "reshuffled_deck", "buildings")


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
        self._size = self.layout.size
        off = self._off = {name: s.start for name, s in self.layout.slices.items()}
        self._shared = (off["game"], self._size)
        self._seats = (off["seats"], off["seats"] + n * SEAT_FEATURES)
        self._looks = (off["looks"], off["looks"] + n * NUN_ROW_SIZE)
        self._reveals = (off["reveals"], off["reveals"] + n * NUM_ITEMS)
        self._small = (0, off["own_hand"])  # decision .. context_seats: rewritten every time
        self.invalidate()

    def invalidate(self) -> None:
        n = self._n
        self._shared_vec = np.zeros(self._size - self._off["game"], np.float32)
        self._shared_memo: dict[str, object] = {}
        self._rows = np.zeros((2 * n, SEAT_FEATURES), np.float32)  # twice over: rows p.. are p's rotation
        self._row_memo: list[list[float] | None] = [None] * n
        self._looks_rows = np.zeros((2 * n, NUN_ROW_SIZE), np.float32)
        self._looks_memo: list[list[int] | None] = [None] * n
        self._reveal_rows = np.zeros((2 * n, NUM_ITEMS), np.float32)
        self._reveal_memo: list[list[int] | None] = [None] * n
        self._buffers: list[np.ndarray | None] = [None] * n
        self._own_memo: list[dict[str, object]] = [{} for _ in range(n)]
        self._buffer_key: list[tuple | None] = [None] * n
        #: how often the observer rewrote the shared blocks, (rows), looks, reveals; and per seat buffer,
        #: the versions it last copied
        self._versions = [0, 0, 0, 0]
        self._copied: list[list[int]] = [[-1, -1, -1, -1] for _ in range(n)]
        self._ranks_key = None
        self._ranks: list[list[int]] = []
        self._public_key: tuple | None = None
        self._public_phase: tuple | None = None

    # ------------------------------------------------------------------ encode
    def encode(self, state: RattusCartusState, player: int) -> np.ndarray:
        n = self._n
        self._sync_public(state)
        out = self._buffers[player]
        memo = self._own_memo[player]
        off = self._off
        key = (state, state.pub_epoch)
        if out is not None and self._buffer_key[player] == key:
            # the same epoch as this buffer: only a D4 commit happened since, which changes the
            # committer's hand, committed cards and public row
            p = state.current_player
            if p >= 0:
                r = (p - player) % n
                lo = self._seats[0] + r * SEAT_FEATURES
                out[lo:lo + SEAT_FEATURES] = self._rows[p]
                if r and not self.game.rats_public:
                    out[lo] = 0.0
            if p == player:
                _moved(out, off["own_hand"], state.hands[player], memo, "hand", state.last_item, -1)
                _moved(out, off["own_committed"], state.committed[player], memo, "committed", state.last_item, 1)
            return out.copy()
        if out is None:
            out = self._buffers[player] = np.zeros(self._size, np.float32)
            self._copied[player] = [-1, -1, -1, -1]
        self._buffer_key[player] = key
        copied, versions = self._copied[player], self._versions
        if copied[0] != versions[0]:
            lo, hi = self._shared
            out[lo:hi] = self._shared_vec
            copied[0] = versions[0]
        lo, hi = self._seats
        out[lo:hi] = self._rows[player:player + n].ravel()  # (D4 patches may have touched the copy)
        if not self.game.rats_public:
            for r in range(1, n):
                out[lo + r * SEAT_FEATURES] = 0.0
        if copied[2] != versions[2]:
            lo, hi = self._looks
            out[lo:hi] = self._looks_rows[player:player + n].ravel()
            copied[2] = versions[2]
        if copied[3] != versions[3]:
            lo, hi = self._reveals
            out[lo:hi] = self._reveal_rows[player:player + n].ravel()
            copied[3] = versions[3]
        lo, hi = self._small
        out[lo:hi] = 0.0
        _write_small(self, state, player, out)
        _diff(out, off["own_hand"], state.hands[player], memo, "hand")
        _diff(out, off["own_pending"], state.pending[player], memo, "pending")
        _diff(out, off["own_committed"], state.committed[player], memo, "committed")
        tokens = state.tokens[player]
        if memo.get("tokens") != tokens:
            out[off["own_tokens"]:off["own_tokens"] + 2] = (len(tokens), sum(tokens))
            memo["tokens"] = list(tokens)
        peeked = state.peeked[player]
        view = [state.nun_row[q] if peeked[q] else -1 for q in range(NUN_ROW_SIZE)] if any(peeked) else _UNSEEN
        if memo.get("peeks") != view:
            o = off["nun_row"]
            out[o:o + NUN_ROW_SIZE * (NUM_KINDS + 1)] = 0.0
            for q, kind in enumerate(view):
                if kind >= 0:
                    out[o + q * (NUM_KINDS + 1) + kind] = 1.0
                    out[o + q * (NUM_KINDS + 1) + NUM_KINDS] = 1.0
            memo["peeks"] = view
        # seen_now changes only with the cards this player can locate: its own, the discard pile, reveals
        source = (state.hands[player], state.pending[player], state.committed[player], state.discard,
                  state.revealed, state.reshuffles, state.seen[player])
        if memo.get("seen_source") != source:
            _diff(out, off["seen_outside"], state.seen_now(player), memo, "seen")
            memo["seen_source"] = (list(source[0]), list(source[1]), list(source[2]), list(source[3]),
                                   list(source[4]), source[5], list(source[6]))
        if state.hidden_out[player] or memo.get("gifts") or any(state.gift_flag[player]):
            gifts = [state.gifts[player][(player + r) % n] + [float(state.gift_flag[player][(player + r) % n])]
                     for r in range(n)]
            gifts[0] = [0] * (NUM_ITEMS + 1)
            if memo.get("gifts") != gifts:
                o = off["gifts"]
                out[o:o + n * (NUM_ITEMS + 1)] = np.asarray(gifts, np.float32).ravel()
                memo["gifts"] = gifts
        return out.copy()

    def _sync_public(self, state: RattusCartusState) -> None:
        """Bring the shared tables up to ``state``, rewriting only what differs from the memos. Within
        one epoch of the state (a run of D4 commits) only the committing player's row can change."""
        n = self._n
        key = (state, state.pub_epoch)
        if key == self._public_key:
            p = state.current_player
            if p < 0 or state.entered[p] < 0:
                return
            # D4 commits change the committer's hand size, committed count and unrevealed count only
            hand_size, committed = state.hand_size[p], sum(state.committed[p])
            memo = self._row_memo[p]
            if memo[1] != hand_size or memo[3] != committed:
                rows = self._rows
                rows[p, 1] = rows[p + n, 1] = memo[1] = hand_size
                rows[p, 3] = rows[p + n, 3] = memo[3] = committed
                unrevealed = 0 if state.revealed[p] else committed
                rows[p, 33] = rows[p + n, 33] = memo[33] = unrevealed
            return
        previous = self._public_key
        self._public_key = key
        if (previous is not None and previous[0] is state and previous[1] + 1 == state.pub_epoch
                and self._public_phase == (state.round, True) and state.phase <= 1):
            # one action of phase B or C since the last sync: only its actor's row and looks changed,
            # besides the shared blocks (deck, discard pile, supplies, players entered)
            self._public_phase = (state.round, True)
            p = state.last_actor
            if p >= 0:
                row = _seat_row(state, p, self._ranks[p])
                if row != self._row_memo[p]:
                    self._rows[p] = row
                    self._rows[p + n] = self._rows[p]
                    self._row_memo[p] = row
                looks = state.peek_count[p]
                if looks != self._looks_memo[p]:
                    self._looks_rows[p] = self._looks_rows[p + n] = looks
                    self._looks_memo[p] = list(looks)
                    self._versions[2] += 1
            _sync_shared(self, state)
            return
        self._public_phase = (state.round, state.phase <= 1)
        if self._ranks_key != state.clock or not self._ranks:
            self._ranks = _ranks(state)
            self._ranks_key = state.clock
        rows, memo = self._rows, self._row_memo
        for p in range(n):
            row = _seat_row(state, p, self._ranks[p])
            if row != memo[p]:
                rows[p] = row
                rows[p + n] = rows[p]
                memo[p] = row
        for p in range(n):
            looks = state.peek_count[p]
            if looks != self._looks_memo[p]:
                self._looks_rows[p] = self._looks_rows[p + n] = looks
                self._looks_memo[p] = list(looks)
                self._versions[2] += 1
            reveal = state.last_reveal[p] if state.revealed[p] else _NOTHING
            if reveal != self._reveal_memo[p]:
                self._reveal_rows[p] = self._reveal_rows[p + n] = reveal
                self._reveal_memo[p] = list(reveal)
                self._versions[3] += 1
        _sync_shared(self, state)


_NOTHING = [0] * NUM_ITEMS
_UNSEEN = [-1] * NUN_ROW_SIZE
_ONE_HOT3 = {-1: [0.0, 0.0, 0.0], 0: [1.0, 0.0, 0.0], 1: [0.0, 1.0, 0.0], 2: [0.0, 0.0, 1.0]}
_ONE_HOT4 = [[1.0 if i == j else 0.0 for i in range(4)] for j in range(4)]


def _diff(out: np.ndarray, start: int, values: list[int], memo: dict, key: str) -> None:
    """Write ``values`` at ``start`` unless they equal what was written there last (memo ``key``)."""
    if memo.get(key) != values:
        out[start:start + len(values)] = values
        memo[key] = list(values)


def _moved(out: np.ndarray, start: int, values: list[int], memo: dict, key: str, item: int, delta: int) -> None:
    """Like :func:`_diff` when ``values`` probably differ from the memo by ``delta`` at ``item`` (a
    commit): check that guess against the values and write one entry, else write the block."""
    old = memo.get(key)
    if old is not None and 0 <= item < len(old):
        old[item] += delta
        if old == values:
            out[start + item] = values[item]
            return
    _diff(out, start, values, memo, key)


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


def _sync_shared(observer: RattusCartusObserver, state: RattusCartusState) -> None:
    game, off, memo, vec = observer.game, observer._off, observer._shared_memo, observer._shared_vec
    base = off["game"]
    changed = False
    key = (state.row, state.round, state.repl_known, len(state.bdeck), state.building_set)
    if memo.get("round") != key:
        key = (list(state.row), state.round, state.repl_known, len(state.bdeck), list(state.building_set))
        r0, b0 = off["row"] - base, off["buildings"] - base
        vec[r0:off["supply"] - base] = 0.0
        vec[b0:] = 0.0
        _write_round_blocks(game, state, vec, r0, b0)
        memo["gold"] = _gold_public(game, state)
        memo["round"] = key
        changed = True
    values = _game_values(game, state, memo["gold"])
    if memo.get("game") != values:
        vec[0:GAME_FEATURES] = values
        memo["game"] = values
        changed = True
    supply = state.supply + [len(state.token_supply), 0.0] if game.finite else [0.0] * 6 + [1.0]
    if memo.get("supply") != supply:
        s0 = off["supply"] - base
        vec[s0:s0 + 7] = supply
        memo["supply"] = supply
        changed = True
    if memo.get("discard") != state.discard:
        d0 = off["discard"] - base
        vec[d0:d0 + NUM_KINDS] = state.discard
        memo["discard"] = list(state.discard)
        changed = True
    if memo.get("reshuffled") != state.reshuffle_comp:
        d0 = off["reshuffled_deck"] - base
        vec[d0:d0 + NUM_KINDS] = state.reshuffle_comp
        memo["reshuffled"] = list(state.reshuffle_comp)
        changed = True
    if changed:
        observer._versions[0] += 1


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
