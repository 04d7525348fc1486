"""Rattus rules engine: pure game state and transitions (rules: docs/rattus_rules.md, spec ids RA-n).

Each of the 49 physical rat tokens has a fixed id; ``face[id]`` is its token type. A region's tokens are
an ordered list of ids (its slots, §0). The state machine stops at every decision of §9.1; the spread
draws, ravage, end check, final plague and scoring are automatic. Snapshot parsing, invariants and the
position helper are in :mod:`.checks`, the re-deal in :mod:`.sampler`, the text table in :mod:`.render`,
scores and winners in :mod:`.scoring`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..core.incremental import TrackedState
from ..core.layout_game import LayoutGame
from ..core.options import Options
from . import actions as A
from . import config as C
from .checks import invariants, parse_state, to_json
from .config import KING, KNIGHT, MERCHANT, MONK, PEASANT, SLOTS, WITCH
from .decisions import (
    ALL_CUBES_PLACED, CUBES, FINAL_ROUND, KNIGHT_STEP, KNOWLEDGE, MAIN, NO_PROGRESS, OPENING, OVER, PLAGUE_MOVE,
    RAT_SUPPLY_EMPTY, SPREAD, TOKENS, TURN_CAP, WITCH_DECIDE, WITCH_SECOND,
)
from .masks import MaskParts, abilities, turn_mask, witch_second_mask
from .position import position
from .render import render
from .sampler import resample_hidden
from .scoring import breakdown, final_scores, winners


_frombuffer = np.frombuffer
INT8 = np.dtype(np.int8)


class RattusGame(LayoutGame):
    """Rattus for 2-4 players; options and data in :mod:`.config` (spec §10.7)."""

    name = "rattus"
    min_players = 2
    max_players = 4
    score_scale = 20.0
    options: ClassVar[Options] = C.OPTIONS

    def __init__(self, num_players: int = 4, **options: Any):
        super().__init__(num_players)
        resolved, data = C.resolve(self.num_players, options)
        self.options_given = {key: resolved[key] for key in C.OPTIONS.specs}
        self.data = data
        for key, value in resolved.items():  # every option as an attribute (``config`` as data_config)
            setattr(self, "data_config" if key == "config" else key, value)
        n = self.num_players
        self.regions = data.regions
        self.in_play: tuple[int, ...] = data.in_play[n]
        self.play_flag = [r in self.in_play for r in range(C.NUM_REGIONS)]
        self.nbrs: tuple[tuple[int, ...], ...] = tuple(
            tuple(t for t in data.adjacency[r] if self.play_flag[t]) if self.play_flag[r] else ()
            for r in range(C.NUM_REGIONS))
        self.removed_count = data.removed_unseen[n]
        consts = data.constants
        self.cubes_per_player: int = consts["cubes_per_player"]
        self.opening_cubes: int = consts["opening_cubes_per_placement"]
        self.peasant_bonus: int = consts["peasant_bonus_cubes"]
        self.spread_table = [consts["spread_new_tokens"][t] for t in range(SLOTS + 1)]
        self.types = data.types
        self.faces: list[int] = [t for t, tt in enumerate(self.types) for _ in range(tt.count)]  # by token id
        self.starting_type = [tt.starting for tt in self.types]
        #: per token type: (class, symbol count) of the classes it shows
        self.class_hits = [[(cls, k) for cls, k in enumerate(tt.classes) if k] for tt in self.types]
        self.final_cards = {C.CARDS.index(name) for name in self.final_round_abilities}
        self.plague_start_region = -1 if self.plague_start == "random" else self.regions.index(self.plague_start)
        self.layout = A.build_layout(self.regions)
        self.kinds, self.args = A.decode_table(self.layout)
        s = self.layout.start
        self.a_take, self.a_place, self.a_peasant = s("take"), s("place"), s("place_peasant")
        self.a_merchant, self.a_monk, self.a_peek = s("merchant"), s("monk"), s("witch_peek")
        self.a_swap, self.a_keep, self.a_king = s("witch_swap"), s("witch_keep"), s("king")
        self.a_move, self.a_stop, self.a_spread = s("move_plague"), s("knight_stop"), s("spread")
        self.take_ids = tuple(self.a_take + k for k in range(6))
        self.move_ids = tuple(tuple(self.a_move + t for t in self.nbrs[r]) for r in range(C.NUM_REGIONS))
        self.opening_ids = tuple(self.a_place + r for r in self.in_play)
        self.move_masks = [self.mask_of(ids) for ids in self.move_ids]  # kept: the mask cache may be cleared
        self.knight_masks: dict[tuple[int, int], np.ndarray] = {}  # the Knight's second step by (plague, origin)
        self.mask_parts = MaskParts(self)

    # ------------------------------------------------------------------ contract
    @property
    def max_game_length(self) -> int:
        """Opening placements, at most 13 decisions per regular turn (§9.1) and 9 per final opportunity."""
        n = self.num_players
        return 2 * n * 5 + 13 * self.max_regular_turns + 9 * n

    def snake_order(self, start: int) -> list[int]:
        """The opening's seats from ``start``: forward, back, forward ... once per placement (§3.8, RA-18)."""
        forward = [(start + i) % self.num_players for i in range(self.num_players)]
        placements = self.data.constants["opening_placements_per_player"]
        return [p for j in range(placements) for p in (forward if j % 2 == 0 else forward[::-1])]

    def final_order(self, ender: int) -> list[int]:
        """The final round's seats after ``ender`` (§7.2, RA-19, AM-4: counterclockwise by default)."""
        step = -1 if self.final_round_direction == "counterclockwise" else 1
        return [(ender + step * i) % self.num_players for i in range(1, self.num_players)]

    def config(self) -> dict[str, Any]:
        out = {"num_players": self.num_players, **self.options_given}
        out["final_round_abilities"] = list(out["final_round_abilities"])
        return out

    def state_from_json(self, data: dict[str, Any]) -> RattusState:
        return parse_state(self, data)

    def invariants(self, state: RattusState) -> list[str]:
        """Cubes and tokens conserved (§10.6), slot and region limits, holders, plague in play, and the
        decision on turn consistent with the phase; see :func:`.checks.invariants`."""
        return invariants(self, state)

    def position(self, base: dict[str, Any], **spec: Any) -> dict[str, Any]:
        """A position at the start of a regular turn (``MAIN``). Keywords (all optional):

        * ``active``: the seat on turn (default 0); ``start_seat`` (default ``active``);
        * ``cubes``: ``{region: [cubes per seat]}`` (other regions empty); ``palace``: per seat; supplies
          hold the rest;
        * ``plague``: a region name; ``holders``: ``{card name: seat}``;
        * ``tokens``: ``{region: [token type id, ...]}`` slot 0 first (``"?"``: any token left); other
          regions empty;
        * ``rat_supply``: tokens in the rat supply (default: all off the board but the game's count removed
          unseen, §3.4); the rest counts as revealed earlier;
        * ``known``: ``{seat: [[region, slot], ...]}`` faces that seat peeked with the Witch;
        * ``regular_turns``, ``no_progress``: counters.
        """
        return position(self, base, spec)

    def string_to_action(self, text: str) -> int:
        """An action name (``END``, ``TAKE Witch``, ``PLACE Gallia``, ``MERCHANT Gallia>Italia x2``,
        ``MONK Gallia:0>Italia``, ``PEEK Gallia:1``, ``SWAP``, ``KEEP``, ``KING Gallia``, ``MOVE Italia``,
        ``STOP``, ``SPREAD Italia``), case and spaces ignored, or an id."""
        return super().string_to_action(text)


class RattusState(TrackedState):
    """A position; per-seat lists are indexed by absolute seat, regions by index 0..11. ``apply`` lists
    in ``changes`` the regions whose cubes or tokens it changed and the tokens whose knowers changed
    (codes of :mod:`.decisions`) for the observer (:mod:`..core.incremental`)."""

    def __init__(self, game: RattusGame):
        super().__init__()
        n = game.num_players
        self.game = game
        self.n = n
        self._rng: np.random.Generator | None = None
        self.cubes = [[0] * n for _ in range(C.NUM_REGIONS)]
        self.palace = [0] * n
        self.supply = [game.cubes_per_player] * n
        self.slots: list[list[int]] = [[] for _ in range(C.NUM_REGIONS)]
        self.counts = bytearray(C.NUM_REGIONS)  # tokens per region, kept with ``slots`` (checks.invariants)
        self.face = list(game.faces)
        self.rat_supply: list[int] = []
        self.removed: list[int] = []
        self.revealed: list[int] = []  # in reveal order
        self.pending = -1  # the token drawn for a spread step (§5.1)
        self.known = [[False] * C.NUM_TOKENS for _ in range(n)]  # Witch knowledge by token id (§8)
        self.swapped_by = [-1] * C.NUM_TOKENS  # AM-2
        self.setup_token = [False] * C.NUM_TOKENS  # placed on the board at setup (§3.3)
        self.holder = [-1] * 6
        self.holder_code = bytearray(6)  # holder + 1 per card, kept with ``holder`` (checks.invariants)
        self.plague = 0
        self.origin = -1  # plague origin during movement
        self.phase = OPENING
        self.active = 0
        self.current_player = 0
        self.start_seat = 0
        self.opening_order: list[int] = []
        self.opening_step = 0
        self.card_taken = False
        self.placed = False
        self.used = [False] * 6
        self.spread_due = 0
        self.witch = [-1, -1]  # token ids peeked in the current Witch use
        self.witch_return = MAIN
        self.regular_turns = 0
        self.no_progress = 0
        self.productive = False
        self.ender = -1
        self.final_order: list[int] = []
        self.final_pos = 0
        self.end_reason = -1
        self.is_terminal = False
        self.is_truncated = False

    # ================================================================== setup (§3)
    def setup(self, rng: np.random.Generator) -> None:
        game, n = self.game, self.n
        # ids carry no face information
        self.face = list(map(game.faces.__getitem__, rng.permutation(C.NUM_TOKENS).tolist()))
        starting = [tid for tid in range(C.NUM_TOKENS) if game.starting_type[self.face[tid]]]
        order = list(map(starting.__getitem__, rng.permutation(len(starting)).tolist()))
        for r, tid in zip(game.in_play, order):  # one starting token per region in play (§3.3)
            self.slots[r].append(tid)
            self.setup_token[tid] = True
        self.counts = bytearray(map(len, self.slots))
        rest = sorted(order[len(game.in_play):] + [t for t in range(C.NUM_TOKENS) if not game.starting_type[self.face[t]]])
        cut = set(rng.choice(len(rest), game.removed_count, replace=False).tolist()) if game.removed_count else set()
        self.removed = [rest[i] for i in sorted(cut)]  # RA-22: removed unseen (§3.4)
        self.rat_supply = [t for i, t in enumerate(rest) if i not in cut]
        self.plague = (game.in_play[int(rng.integers(len(game.in_play)))] if game.plague_start_region < 0
                       else game.plague_start_region)
        self.start_seat = int(rng.integers(n)) if game.start_player == "random" else game.start_player
        self.opening_order = game.snake_order(self.start_seat)
        self.opening_step = 0
        self._rng = rng
        if self.opening_order:
            self.phase = OPENING
            self.current_player = self.opening_order[0]
            self.active = self.current_player
        else:
            self._start_turn(self.start_seat)
        if game.auto_resolve_forced:
            self._settle()
        self._rng = None

    # ================================================================== legality (§9.1)
    def legal_mask(self) -> np.ndarray:
        phase = self.phase
        if phase == MAIN or phase == FINAL_ROUND:
            return _frombuffer(turn_mask(self), INT8)
        if phase == PLAGUE_MOVE:
            return self.game.move_masks[self.plague]
        if phase == WITCH_SECOND:
            return _frombuffer(witch_second_mask(self), INT8)
        if phase == KNIGHT_STEP:  # by the plague's region and its origin
            mask = self.game.knight_masks.get((self.plague, self.origin))
            if mask is None:
                mask = self.game.knight_masks[self.plague, self.origin] = self.game.mask_of(tuple(self._legal()))
            return mask
        return self.game.mask_of(tuple(self._legal()))

    def legal_ids(self) -> list[int]:
        """The legal action ids, ascending."""
        if self.phase == MAIN or self.phase == FINAL_ROUND:
            return np.flatnonzero(_frombuffer(turn_mask(self), INT8)).tolist()
        return list(self._legal())

    def _forced(self) -> int:
        """The only legal action; -1 where there are several."""
        if self.phase == MAIN or self.phase == FINAL_ROUND:
            mask = turn_mask(self)
            return mask.index(1) if mask.count(1) == 1 else -1
        ids = self._legal()
        return ids[0] if len(ids) == 1 else -1

    def _legal(self) -> list[int] | tuple[int, ...]:
        """The legal action ids outside the turn decisions, ascending: a new list, or a tuple the game
        shares."""
        game, phase = self.game, self.phase
        if phase == PLAGUE_MOVE:
            return game.move_ids[self.plague]
        if phase == SPREAD:
            return [game.a_spread + r for r in game.nbrs[self.plague] if self.counts[r] < SLOTS]
        if phase == OPENING:
            return game.opening_ids
        if phase == KNIGHT_STEP:
            steps = [r for r in game.nbrs[self.plague] if r != self.origin or game.knight_may_end_at_origin]
            return [game.a_move + r for r in steps] + [game.a_stop]
        if phase == WITCH_SECOND:
            fr, fs = self.locate(self.witch[0])
            other = game.witch_second_token == "other_region"
            return [game.a_peek + 3 * r + s for r in game.in_play for s in range(len(self.slots[r]))
                    if (r != fr if other else (r, s) != (fr, fs))]
        if phase == WITCH_DECIDE:
            return [game.a_swap, game.a_keep]
        return []

    def locate(self, tid: int) -> tuple[int, int]:
        """(region, slot) of a token on the board; (-1, -1) elsewhere."""
        for r, slot in enumerate(self.slots):
            if tid in slot:
                return r, slot.index(tid)
        return -1, -1

    # ================================================================== transitions
    def play(self, action: int, rng: np.random.Generator) -> None:
        self._rng = rng
        self._apply(action)
        if self.game.auto_resolve_forced:
            self._settle()
        self._rng = None

    def _settle(self) -> None:
        """With ``auto_resolve_forced``, play decisions that have a single legal action (§9.1)."""
        while not self.is_terminal:
            action = self._forced()
            if action < 0:
                return
            self._apply(action)

    def _apply(self, action: int) -> None:
        game = self.game
        kind, args = game.kinds[action], game.args[action]
        p = self.current_player
        phase = self.phase
        if phase == OPENING:  # RA-18
            k = min(game.opening_cubes, self.supply[p])
            self._add_cubes(args[0], p, k)
            self.opening_step += 1
            if self.opening_step < len(self.opening_order):
                self.current_player = self.active = self.opening_order[self.opening_step]
            else:
                self._start_turn(self.start_seat)
        elif kind == A.SPREAD:  # §5.1, RA-13
            tid = self.pending
            self.slots[args[0]].append(tid)
            self.counts[args[0]] += 1
            self.changes.append(TOKENS + args[0])
            self.swapped_by[tid] = -1
            self.pending = -1
            self.spread_due -= 1
            self._next_spread()
        elif kind == A.MOVE:  # §4.4, RA-11, RA-12
            self.plague = args[0]
            if phase == KNIGHT_STEP:
                self.used[KNIGHT] = True
                self._begin_spread()
            elif self.holder[KNIGHT] == p:
                self.phase = KNIGHT_STEP
            else:
                self._begin_spread()
        elif kind == A.END:
            if phase == MAIN:
                self.phase = PLAGUE_MOVE
                self.origin = self.plague
            else:
                self._next_final()
        elif kind == A.TAKE:  # §4.2, RA-6
            self.holder[args[0]] = p
            self.holder_code[args[0]] = p + 1
            self.card_taken = True
        elif kind == A.PLACE or kind == A.PEASANT_PLACE:  # §4.3
            r = args[0]
            bonus = game.peasant_bonus if kind == A.PEASANT_PLACE else 0
            self._add_cubes(r, p, min(self.counts[r] + bonus, self.supply[p]))
            self.placed = self.productive = True
            if kind == A.PEASANT_PLACE:
                self.used[PEASANT] = True
        elif kind == A.MERCHANT:  # RA-9
            f, t, m = args
            self.cubes[f][p] -= m
            self.cubes[t][p] += m
            self.changes += (CUBES + f, CUBES + t)
            self.used[MERCHANT] = True
        elif kind == A.MONK:  # RA-8
            f, s, t = args
            tid = self.slots[f].pop(s)
            self.slots[t].append(tid)
            self.counts[f] -= 1
            self.counts[t] += 1
            self.swapped_by[tid] = -1
            self.used[MONK] = True
            self.changes += (TOKENS + f, TOKENS + t)
        elif kind == A.PEEK:  # RA-7
            tid = self.slots[args[0]][args[1]]
            if phase == WITCH_SECOND:
                self.witch[1] = tid
                self.phase = WITCH_DECIDE
                if not game.witch_peek_sequential:
                    self.known[p][self.witch[0]] = True
                    self.changes += (TOKENS + self.locate(self.witch[0])[0], KNOWLEDGE + self.witch[0])
            else:
                self.witch = [tid, -1]
                self.witch_return = phase
                self.phase = WITCH_SECOND
            if game.witch_peek_sequential or phase == WITCH_SECOND:
                self.known[p][tid] = True
                self.changes += (TOKENS + args[0], KNOWLEDGE + tid)
        elif kind == A.SWAP or kind == A.KEEP:
            if kind == A.SWAP:
                (r1, s1), (r2, s2) = self.locate(self.witch[0]), self.locate(self.witch[1])
                self.slots[r1][s1], self.slots[r2][s2] = self.witch[1], self.witch[0]
                self.swapped_by[self.witch[0]] = self.swapped_by[self.witch[1]] = p
                self.changes += (TOKENS + r1, TOKENS + r2)
            self.used[WITCH] = True
            self.witch = [-1, -1]
            self.phase = self.witch_return
        elif kind == A.KING:  # RA-10
            r = args[0]
            self.cubes[r][p] -= 1
            self.palace[p] += 1
            self.changes.append(CUBES + r)
            self.used[KING] = True
        elif kind == A.STOP:
            self._begin_spread()
        else:  # pragma: no cover - the adapter checked legality
            raise AssertionError(f"action {action} in phase {phase}")

    def _add_cubes(self, r: int, p: int, k: int) -> None:
        self.changes.append(CUBES + r)
        self.cubes[r][p] += k
        self.supply[p] -= k

    def _start_turn(self, p: int) -> None:
        self.phase = MAIN
        self.active = self.current_player = p
        self.card_taken = self.placed = self.productive = False
        self.used = [False] * 6
        self.origin = -1

    # ================================================================== plague (§5)
    def _begin_spread(self) -> None:
        self.origin = -1
        self.spread_due = self.game.spread_table[self.counts[self.plague]]  # fixed on arrival (RA-13)
        self._next_spread()

    def _next_spread(self) -> None:
        counts = self.counts
        if self.spread_due > 0 and self.rat_supply and any(
                [counts[r] < SLOTS for r in self.game.nbrs[self.plague]]):
            self.pending = self.rat_supply.pop(int(self._rng.integers(len(self.rat_supply))))
            self.productive = True
            self.phase = SPREAD
            return
        self.spread_due = 0  # E10, E11: what cannot be placed is not placed
        self._ravage(self.plague, final=False)
        self._end_of_turn()

    def _ravage(self, r: int, final: bool) -> None:
        """Reveal tokens of ``r`` (§5.2); in the final plague all of them, with effect while cubes remain."""
        slots, cubes = self.slots[r], self.cubes[r]
        if not slots or not (final or sum(cubes)):
            return
        self.changes += (CUBES + r, TOKENS + r)
        random_order = self.game.reveal_order == "random"
        face, swapped_by, revealed = self.face, self.swapped_by, self.revealed
        while slots and (final or sum(cubes)):
            tid = slots.pop(int(self._rng.integers(len(slots))) if random_order else 0)
            swapped_by[tid] = -1
            revealed.append(tid)
            if not final or sum(cubes):  # outside the final plague the loop just checked the cubes
                self._resolve(cubes, face[tid])
        self.counts[r] = len(slots)

    def _resolve(self, cubes: list[int], face: int) -> None:
        """One revealed token (§5.3): outbreak if the cubes reach the limit; M, classes, then A."""
        tt = self.game.types[face]
        if sum(cubes) < tt.limit:
            return
        supply, n = self.supply, self.n
        majority: list[int] = []
        for k in range(tt.m):  # RA-15
            if k == 0 or not self.game.m_majority_snapshot:
                top = max(cubes)
                majority = [q for q in range(n) if cubes[q] == top and top > 0]
            for q in majority:
                if cubes[q]:
                    cubes[q] -= 1
                    supply[q] += 1
        for cls, count in self.game.class_hits[face]:
            h = self.holder[cls]
            for _ in range(count):
                if h >= 0 and cubes[h]:
                    cubes[h] -= 1
                    supply[h] += 1
        for _ in range(tt.a):
            for q in range(n):
                if cubes[q]:
                    cubes[q] -= 1
                    supply[q] += 1

    # ================================================================== end (§4.6, §7)
    def _end_of_turn(self) -> None:
        game = self.game
        self.regular_turns += 1
        self.no_progress = 0 if self.productive else self.no_progress + 1
        reason = -1
        if not self.rat_supply:
            reason = RAT_SUPPLY_EMPTY
        elif 0 in self.supply and any(
                [self.supply[q] == 0 and (game.palace_counts_as_on_board or self.palace[q] == 0)
                 for q in ([self.active] if game.end_check_active_player_only else range(self.n))]):
            reason = ALL_CUBES_PLACED
        elif self.no_progress >= game.no_progress_turns:  # RA-24
            reason = NO_PROGRESS
        elif self.regular_turns >= game.max_regular_turns:  # RA-23
            reason = TURN_CAP
        if reason < 0:
            self._start_turn((self.active + 1) % self.n)
            return
        self.end_reason = reason
        self.ender = self.active
        if reason == TURN_CAP and game.turn_cap_mode == "truncate":
            self.is_truncated = True
            self._finish()
            return
        self.final_order = game.final_order(self.ender)
        self.final_pos = -1
        self._next_final()

    def _next_final(self) -> None:
        """The next final-round seat with something to do (RA-19); then the final plague."""
        self.final_pos += 1
        while self.final_pos < len(self.final_order):
            q = self.final_order[self.final_pos]
            self.phase = FINAL_ROUND
            self.active = self.current_player = q
            self.card_taken = self.placed = False
            self.used = [False] * 6
            if any([1 in part for part in abilities(self, q, self.game.mask_parts.final_cards)]):
                return
            self.final_pos += 1
        order = list(self.game.in_play)
        if self.game.final_plague_order == "plague_region_then_index":  # RA-20
            order.remove(self.plague)
            order.insert(0, self.plague)
        for r in order:
            self._ravage(r, final=True)
        self._finish()

    def _finish(self) -> None:
        self.phase = OVER
        self.is_terminal = True
        self.current_player = -1

    # ================================================================== reporting (RA-21)
    def scores(self) -> list[float]:
        return [float(v) for v in final_scores(self)]

    def winners(self) -> list[int]:
        return winners(self)

    def score_breakdown(self) -> dict[str, Any]:
        return breakdown(self)

    def render(self, viewer: int | None = None) -> str:
        return render(self, viewer)

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    def redeal(self, player: int, rng: np.random.Generator) -> None:
        resample_hidden(self, player, rng)


RattusGame.state_class = RattusState  # defined after the game it refers to
