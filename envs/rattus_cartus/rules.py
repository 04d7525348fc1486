"""Rattus Cartus rules engine: pure game state and transitions (rules: docs/rattus_cartus_rules.md).

Holdings are lists of 35 counts (30 population *kinds* ``class * 5 + nuns``, then joker, Sword, Flute,
Pass, Gold; see :mod:`.cards`). The state machine walks the five phases of a round (§3.0) and stops at
each decision point D1..D10 (§8.1); everything else is automatic (§8.1, R-A16). Snapshot parsing and the
invariants live in :mod:`.checks`, the position helper in :mod:`.positions`, scoring in :mod:`.scoring`, the
re-deal for search in :mod:`.sampler`, text rendering in :mod:`.render`; the codes of decisions, phases and
stages in :mod:`.decisions`. Those modules depend only on the leaf modules (:mod:`.cards`, :mod:`.decisions`) and
read the state duck-typed, so this module imports them at the top and nothing imports it back.
"""

from __future__ import annotations

import copy
from bisect import bisect
from itertools import accumulate, compress
from operator import add
from typing import Any, ClassVar

import numpy as np

from ..core.incremental import TrackedState
from ..core.layout_game import LayoutGame
from ..core.options import Options
from . import actions as A
from . import config as C
from .cards import (
    BREWERY, BUILDINGS, BUILDINGS_IN_GAME, BUILDING_CLASS, CASTLE, COMMITTABLE, FARM, FLUTE, GOLD,
    HOSPITAL, INITIAL_HAND, INITIAL_RATS, ITEM_TYPE, I_FLUTE, I_JOKER, I_PASS, I_SWORD, JOKER, KIND_COPIES,
    MARKETPLACE, MONASTERY, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUN_ROW_SIZE, OFFICE, PALACE, PASS,
    PLAYER_COUNT_TABLE, RAT_CATCHER, SPECIAL_COPIES, SWORD, TENT, TREASURY, WATCHTOWER,
)
from .changes import (
    ANNOUNCE, COMMIT, DECK, ENTER, GAME, GIFT_FLAGS, GIFTS, HAND, HOLDINGS, INFLUENCE, LOCATED, PASSES, PEEK, PENDING,
    RATS, REVEAL, SHOWN, SUPPLY_SLOT, TAKEN, TOKENS,
)
from .checks import invariants, parse_state, to_json
from .decisions import (
    D1, D2, D3, D4, D5, D6, D7, D8, D9, D10, NONE, PHASE_B, PHASE_C, PHASE_D, PHASE_OVER, ST_ACTIONS, ST_FLUTE,
    ST_START, ST_SWORD,
)
from .positions import position
from .render import render
from .sampler import resample_hidden
from .scoring import final_result, ranking_scores


_ITEMS = range(NUM_ITEMS)
_PLAYABLE = len(COMMITTABLE)  # the committable items are the first ones (R-A9)
assert COMMITTABLE == tuple(range(_PLAYABLE))


_ZERO_ITEMS = [0] * NUM_ITEMS
_zeros = _ZERO_ITEMS.copy  # a new list of 35 zeros (a builtin call: no Python frame)
#: the population cards (kinds) before the shuffle of §2.2 (an array: a permutation indexes it at once)
_POPULATION = np.repeat(np.arange(NUM_KINDS), KIND_COPIES)


class RattusCartusGame(LayoutGame):
    """Rattus Cartus for 2-5 players; options in :mod:`.config` (§2.4)."""

    name = "rattus_cartus"
    min_players = 2
    max_players = 5
    score_scale = 20.0
    options: ClassVar[Options] = C.OPTIONS

    def __init__(self, num_players: int = 4, **options: Any):
        super().__init__(num_players)
        resolved = C.resolve(self.num_players, options)
        self.options_given = copy.deepcopy({key: resolved[key] for key in C.OPTIONS.specs})  # not the caller's
        self.building_selection: str = resolved["building_selection"]
        self.agreed_counts: dict[str, int] = resolved["agreed_counts"]
        self.building_set_public: bool = resolved["building_set_public"] or self.building_selection == "agreed"
        self.exclude_watchtower_2p: bool = resolved["exclude_watchtower_2p"]
        self.start_player = resolved["start_player"]
        self.supply_table: dict[str, Any] = resolved["supply_table"]
        self.point_token_values: tuple[int, ...] = tuple(resolved["point_token_values"])
        self.uniform_tokens = len(set(self.point_token_values)) == 1
        self.finite: bool = resolved["finite_supplies"]
        self.rats_public: bool = resolved["rats_public"]
        self.population_choice: str = resolved["population_choice"]
        self.full_choice = self.population_choice == "full"
        self.all_dead_variant: bool = resolved["all_dead_variant"]
        self.auto_resolve_forced: bool = resolved["auto_resolve_forced"]
        self.mask_known_peeks: bool = resolved["mask_known_peeks"]
        table = PLAYER_COUNT_TABLE[self.num_players]
        self.k: int = table["k"]
        self.rounds: int = table["rounds"]
        self.replacement: int = table["replacement"]
        self.influence_vp: tuple[int, ...] = table["influence_vp"]
        self.gold_vp: tuple[int, int] = table["gold"]
        # supply action of every building card: draw, discard_rats, peek (§5)
        self.supply_action = [(0, 0, 0)] * 60
        for name, rows in self.supply_table["buildings"].items():
            b = BUILDINGS.index(name)
            for row in rows:
                self.supply_action[b * 5 + row["copy"]] = (row["draw"], row["discard_rats"], row["peek"])
        self.layout = A.build_layout(self.full_choice)
        self.act_kind, self.act_arg, self.act_item = A.decode_table(self.layout, self.full_choice)
        # every action id of a card type (default: one per type; full: one per item of the type)
        self.card_actions: list[list[tuple[int, int]]] = [[] for _ in range(11)]  # (action, item or -1)
        for action in range(self.layout.size):
            if self.act_kind[action] == A.CARD:
                self.card_actions[self.act_arg[action]].append((action, self.act_item[action]))
        # the action id of each type (default) or item (full)
        if self.full_choice:
            self.card_base = [self.layout.start("card_kind") + i for i in range(NUM_KINDS)] + \
                [self.layout.start("card_special") + s for s in range(5)]
            self.item_action = self.card_base
        else:
            self.card_base = [self.layout.start("card") + t for t in range(11)]
            self.item_action = [self.card_base[t] for t in ITEM_TYPE]  # the action naming each item's type
        self.playable_action = self.item_action[:_PLAYABLE]
        self.card_masks: tuple[dict, dict] = ({}, {})  # card-type masks by action set, without / with STOP
        self.slot_start = self.layout.start("slot")
        self.pos_start = self.layout.start("pos")
        self.pass_action = self.layout.start("pass")
        self.stop_action = self.layout.start("stop")
        self.target_start = self.layout.start("target")
        # D2 / D8 without mask_known_peeks: every position but the D8 first look (index first look + 1)
        self.position_masks = [self.mask_of(tuple(self.pos_start + q for q in range(NUN_ROW_SIZE) if q != first))
                               for first in range(-1, NUN_ROW_SIZE)]
        slots = tuple(range(self.slot_start, self.slot_start + self.k))
        self.slots_mask, self.slots_pass_mask = self.mask_of(slots), self.mask_of(slots + (self.pass_action,))

    # ------------------------------------------------------------------ contract
    @property
    def max_game_length(self) -> int:
        """A generous bound: per round every player's supply choice and looks, passes, every playable
        card committed and stopped, Sword payments of half the cards, Tent, Hospital and Watchtower."""
        n = self.num_players
        cards = 84 + 15 + 24 if self.finite else 84 + 15 * 4 + 24 * 2
        per_round = n * 8 + (12 + 2 * n * self.rounds) + cards + n + 2 * self.k + cards // 2 * self.k \
            + 2 * n + 4 * n + 3 * n * self.k
        return self.rounds * per_round

    def config(self) -> dict[str, Any]:
        """The options that recreate this game, as a copy: editing it (or a snapshot) changes nothing here."""
        out = {"num_players": self.num_players, **self.options_given}
        out["point_token_values"] = list(self.point_token_values)
        out["supply_table"] = self.supply_table
        return copy.deepcopy(out)

    def state_from_json(self, data: dict[str, Any]) -> RattusCartusState:
        return parse_state(self, data)

    def invariants(self, state: RattusCartusState) -> list[str]:
        """Population cards, supplies and point tokens conserved, building cards in one place, rats and
        influence in range, knowledge records bounded, and the decision on turn consistent with the phase;
        see :func:`.checks.invariants`."""
        return invariants(self, state)

    def position(self, base: dict[str, Any], **spec: Any) -> dict[str, Any]:
        """A position for ``env.set_position(seed=..., **spec)`` at the start of phase B of a round (the
        row revealed, nobody has chosen a supply action yet). Keywords (all optional):

        * ``hands``: per seat, a list of card names: ``"church"`` (any nun value), ``"church:3"``,
          ``"joker"``, ``"sword"``, ``"flute"``, ``"pass"``, ``"gold"``. Population cards not in a hand
          or the nun row go to the deck; special cards come from their supply.
        * ``nun_row``: 5 population card names (``"magic:4"``; a bare class takes any nun value).
        * ``deck_top``: population card names on top of the deck, top first.
        * ``row``: the revealed building cards (``"monastery:0"``), slot 0 first; ``building_deck_top``:
          the next building cards to be revealed, top first. Building cards named must be in the game's
          set (the set is extended to hold them if a class then still has 5 cards).
        * ``round``: rounds already played (0-based index of this round); ``start_player``: this round's.
        * ``rats``, ``point_tokens``: per seat; ``influence``: per seat, 6 levels (stamps are given in
          seat order, class by class).

        Anything inconsistent is refused by :meth:`invariants` (``SnapshotError`` naming it)."""
        return position(self, base, spec)

    def string_to_action(self, text: str) -> int:
        """An action name (``SLOT 1``, ``POS 3``, ``PASS``, ``CARD SWORD``, ``STOP``, ``TARGET +2``), case
        and spaces ignored, or an id."""
        return self.layout.parse(text)

    def announce(self, state: RattusCartusState, action: int) -> str | None:
        """What the table sees: committed, given and (own) looked-at values stay hidden (§7)."""
        kind = self.act_kind[action]
        decision = state.decision
        if kind == A.CARD and decision in (D4, D6, D10):
            return {D4: "a card face down", D6: "a card face down to the Sword winner",
                    D10: "a card face down to the Watchtower"}[decision]
        return self.action_to_string(action)


class RattusCartusState(TrackedState):
    """A position; per-seat lists are indexed by absolute seat. ``apply`` lists in ``changes`` the records
    it changed that observations show, as ``(code, seat, index)`` entries (codes of :mod:`.changes`), for
    the observer (:mod:`..core.incremental`)."""

    # slots: attribute and method lookups stay specialized from one state (game) to the next
    __slots__ = (
        "game", "n", "_rng", "hands", "pending", "committed", "hand_size", "nun_row", "deck", "discard", "supply",
        "token_supply", "tokens", "rats", "level", "stamp", "clock", "building_set", "bdeck", "repl", "repl_known",
        "used", "row", "round", "phase", "start", "decision", "current_player", "is_terminal", "turn", "left",
        "first_pos", "cands", "supply_slot", "entered", "entry_pos", "entry_order", "entrants", "num_entered",
        "announced", "passes", "rsp", "slot", "stage", "revealed", "last_reveal", "sword", "flute", "queue", "qi",
        "wt_t", "wt_victims", "taken", "shown", "hidden_in", "hidden_out", "flow_count", "pend_taken", "pend_drawn",
        "pend_hidden", "peek_count", "reshuffles", "reshuffle_comp", "peeked", "seen", "gifts", "gift_flag", "flow",
        "slot_gift", "result", "version", "changes", "_mask",
    )

    def __init__(self, game: RattusCartusGame):
        super().__init__()
        n = game.num_players
        self.game = game
        self.n = n
        self._rng: np.random.Generator | None = None
        # --- cards
        self.hands = [_zeros() for _ in range(n)]
        self.pending = [_zeros() for _ in range(n)]
        self.committed = [_zeros() for _ in range(n)]
        self.hand_size = [0] * n
        self.nun_row: list[int] = []
        self.deck: list[int] = []  # population kinds, top = last
        self.discard = [0] * NUM_KINDS
        self.supply = list(SPECIAL_COPIES)  # joker, Sword, Flute, Pass, Gold left (finite supplies)
        self.token_supply: list[int] = sorted(game.point_token_values)
        self.tokens: list[list[int]] = [[] for _ in range(n)]
        self.rats = [INITIAL_RATS] * n
        self.level = [[0] * NUM_CLASSES for _ in range(n)]
        self.stamp = [[0] * NUM_CLASSES for _ in range(n)]
        self.clock = 0
        # --- buildings
        self.building_set: list[int] = []  # 30 building card ids, sorted
        self.bdeck: list[int] = []  # top = last
        self.repl: list[int] = []  # top = last; the first ``repl_known`` cards went there face up (§3.1)
        self.repl_known = 0
        self.used: list[int] = []  # building cards of finished rounds, in order
        self.row: list[int] = []
        # --- round flow
        self.round = 0
        self.phase = PHASE_B
        self.start = 0
        self.decision = NONE
        self.current_player = 0
        self.is_terminal = False
        self.turn = 0  # phase B: index in turn order
        self.left = 0  # peeks / cards / discards still due in the current decision
        self.first_pos = -1  # D8 special: first position looked at
        self.cands: list[int] = []  # D5 / D7 candidates
        self.supply_slot = [-1] * n  # this round's D1 choices
        self.entered = [-1] * n  # slot entered this round
        self.entry_pos = [-1] * n
        self.entry_order = [-1] * n
        self.entrants: list[list[int]] = [[] for _ in range(game.k)]
        self.num_entered = 0
        self.announced = [-1] * n  # committed count, announced on STOP (-1: not yet)
        self.passes = [0] * n  # Pass cards played this round
        self.rsp = -1  # 2 players: the round's special-action player (§3.4.6)
        self.slot = 0
        self.stage = ST_START
        self.revealed = [False] * n  # committed cards revealed (step a done for the player's slot)
        self.last_reveal = [_zeros() for _ in range(n)]  # what each player revealed this round
        self.sword = [-1, -1]  # winner, loser
        self.flute = -1  # winner
        self.queue: list[list[int]] = []  # [seat, special] of the slot's actions
        self.qi = 0
        self.wt_t = -1  # Watchtower owner's hand size at the start of its action
        self.wt_victims: list[int] = []  # victims still to give, in order (the first is giving)
        # --- public records (§7.2, §7.2a)
        self.taken = [[0] * 5 for _ in range(n)]  # specials taken from supplies
        self.shown = [[0] * 11 for _ in range(n)]  # cards revealed or shown, by type
        self.hidden_in = [0] * n
        self.hidden_out = [0] * n
        self.flow_count = [[0] * n for _ in range(n)]  # [giver][receiver] hidden cards, public
        self.pend_taken = [[0] * 5 for _ in range(n)]  # pending specials taken from supplies (public)
        self.pend_drawn = [0] * n  # pending population cards drawn by building actions (public count)
        self.pend_hidden = [0] * n  # pending cards received in hidden transfers (public count)
        self.peek_count = [[0] * NUN_ROW_SIZE for _ in range(n)]  # public: who looked where, how often
        self.reshuffles = 0
        self.reshuffle_comp = [0] * NUM_KINDS  # composition of the newest deck formed by a reshuffle
        # --- private knowledge
        self.peeked = [[False] * NUN_ROW_SIZE for _ in range(n)]
        self.seen = [[0] * NUM_KINDS for _ in range(n)]  # §7.5 item 4 (see _see)
        self.gifts = [[_zeros() for _ in range(n)] for _ in range(n)]  # [giver][receiver] §7.5 item 5
        self.gift_flag = [[False] * n for _ in range(n)]  # [observer][other]: other has given hidden cards
        self.flow = [[[0] * 5 for _ in range(n)] for _ in range(n)]  # [giver][receiver] specials, private to both
        self.slot_gift = [[_zeros() for _ in range(n)] for _ in range(n)]  # the same, this slot (in pending)
        self.result: dict[str, Any] | None = None
        self._mask: np.ndarray | None = None  # legal_mask() until the state changes

    # ================================================================== setup (§2.2)
    def setup(self, rng: np.random.Generator) -> None:
        game, n = self.game, self.n
        self._rng = rng
        cards = _POPULATION[rng.permutation(len(_POPULATION))].tolist()
        self.nun_row = cards[:NUN_ROW_SIZE]
        position = NUN_ROW_SIZE
        for hand in self.hands:
            for kind in cards[position:position + INITIAL_HAND]:
                hand[kind] += 1
            position += INITIAL_HAND
        self.hand_size = [INITIAL_HAND] * n
        self.deck = cards[position:]
        self.building_set = sorted(select_buildings(game, rng))
        shuffled = list(map(self.building_set.__getitem__, rng.permutation(BUILDINGS_IN_GAME).tolist()))
        self.repl = shuffled[len(shuffled) - game.replacement:]  # top of the building deck, unseen (§2.2)
        self.bdeck = shuffled[:len(shuffled) - game.replacement]
        self.start = int(rng.integers(n)) if game.start_player == "random" else game.start_player  # R-A5
        self._begin_round()
        if game.auto_resolve_forced:
            self._settle()
        self._rng = None

    # ================================================================== transitions
    def legal_mask(self) -> np.ndarray:
        mask = self._mask
        if mask is None:
            mask = self._mask = self._legal_mask()
        return mask

    def _legal_mask(self) -> np.ndarray:
        game = self.game
        d = self.decision
        p = self.current_player
        if d == D4:
            return self._card_mask(game.playable_action, self.hands[p], True)
        if d == D1:
            return game.slots_mask
        if d == D3:
            return game.slots_pass_mask if self._may_pass(p) else game.slots_mask
        if d == D2 or d == D8:
            if game.mask_known_peeks:
                return game.mask_of(self._positions(p))
            return game.position_masks[self.first_pos + 1]
        if d == D6 or d == D10:
            return self._card_mask(game.item_action, self.hands[p], False)
        if d == D9:
            return self._card_mask(game.item_action, self.hands[p], True)
        if d == D5 or d == D7:
            return self._target_mask(p)
        return game.mask_of(())

    def _target_mask(self, p: int) -> np.ndarray:
        """D5 / D7: the candidates, by their seat offset from ``p``."""
        game = self.game
        return game.mask_of(tuple(sorted(game.target_start + (c - p) % self.n - 1 for c in self.cands)))

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def _card_mask(self, item_action: list[int], hand: list[int], stop: bool) -> np.ndarray:
        """The mask of the card actions for the types (default) or items (``full``) present in ``hand``
        (``item_action``: the action of each item that may be played), with STOP if ``stop``."""
        game = self.game
        actions = compress(item_action, hand)
        if game.full_choice:
            return game.mask_of(tuple(actions) + ((game.stop_action,) if stop else ()))
        key = frozenset(actions)  # a few card types: the masks are kept by their set
        masks = game.card_masks[stop]
        mask = masks.get(key)
        if mask is None:
            mask = masks[key] = game.mask_of(tuple(sorted(key)) + ((game.stop_action,) if stop else ()))
        return mask

    def _may_pass(self, p: int) -> bool:
        """R-A10: a Pass card in hand and somebody else still to enter."""
        return self.hands[p][I_PASS] > 0 and self.num_entered < self.n - 1

    def _positions(self, p: int) -> tuple[int, ...]:
        """§8 D2/D8 with ``mask_known_peeks``: the positions ``p`` does not know while one remains (never
        the D8 first look)."""
        allowed = [q for q in range(NUN_ROW_SIZE) if q != self.first_pos]
        unknown = [q for q in allowed if not self.peeked[p][q]]
        return tuple(self.game.pos_start + q for q in unknown or allowed)

    def play(self, action: int, rng: np.random.Generator) -> None:
        self._rng = rng
        game = self.game
        if self.decision == D4 and action != game.stop_action:  # the most frequent action
            hand = self.hands[self.current_player]
            item = self._commit(self.current_player, action)
            if not hand[item] and (item >= NUM_KINDS or game.full_choice or
                                   not any(hand[item - item % 5:item - item % 5 + 5])):
                self._mask = None  # the mask holds while the committed card's action is left
        else:
            self._mask = None
            self._apply(action)
        if game.auto_resolve_forced:
            self._mask = None
            self._settle()
        self._rng = None

    def _settle(self) -> None:
        """With ``auto_resolve_forced``, play every decision that has a single legal option (§8.3)."""
        while not self.is_terminal:
            legal = np.flatnonzero(self._legal_mask())
            if len(legal) != 1:
                return
            self._apply(int(legal[0]))

    def _apply(self, action: int) -> None:
        game = self.game
        kind = game.act_kind[action]
        arg = game.act_arg[action]
        p = self.current_player
        d = self.decision
        if d == D4:
            if kind == A.STOP:
                self.announced[p] = sum(self.committed[p])
                self.changes.append((ANNOUNCE, p, 0))
                self._next_entrant()
            else:
                self._commit(p, action)
        elif d == D1:
            self._supply_action(p, arg)
        elif d == D2:
            self._peek(p, arg)
            self.left -= 1
            if self.left:
                return
            self._next_supplier()
        elif d == D3:
            if kind == A.PASS_ACTION:
                self._play_pass(p)
            else:
                self._enter(p, arg)
        elif d == D6:
            item = self._choose(self.hands[p], arg, game.act_item[action])
            self._hidden_give(p, self.sword[0], item)
            self.left -= 1
            if not self.left:
                self.stage = ST_FLUTE
                self._run()
        elif d == D10:
            item = self._choose(self.hands[p], arg, game.act_item[action])
            owner = self.queue[self.qi][0]
            self._hidden_give(p, owner, item)
            self.left -= 1
            if not self.left:
                self.wt_victims.pop(0)
                self._watchtower_next()
        elif d == D8:
            self._peek(p, arg)
            self.left -= 1
            if self.left:
                self.first_pos = arg
                return
            self.first_pos = -1
            self._action_done()
        elif d == D9:
            if kind == A.STOP:
                self._action_done()
                return
            item = self._choose(self.hands[p], arg, game.act_item[action])
            self._take_from_hand(p, item)
            self._show(p, item)
            self._to_discard(item)
            self._lose_rats(p, 1)
            self.left -= 1
            self._hospital_next()
        elif d == D5:
            loser = (p + arg) % self.n
            self.cands = []
            self._sword_loser(loser)
        elif d == D7:
            receiver = (p + arg) % self.n
            self.cands = []
            self.rats[p] -= 1
            self.rats[receiver] += 1
            self.changes += ((RATS, p, 0), (RATS, receiver, 0))
            self.stage = ST_ACTIONS
            self._start_actions()
        else:
            raise ValueError(f"rattus_cartus: no decision to apply {action} to")

    # ------------------------------------------------------------------ card moves
    def _commit(self, p: int, action: int) -> int:
        """D4: ``p`` commits a card of the action's type (item); returns the item."""
        game = self.game
        hand = self.hands[p]
        item = self._choose(hand, game.act_arg[action], game.act_item[action])
        hand[item] -= 1
        self.hand_size[p] -= 1
        self.committed[p][item] += 1
        self.changes.append((COMMIT, p, item))
        return item

    def _choose(self, holding: list[int], card_type: int, item: int) -> int:
        """The item moved when an action names ``card_type`` (R-A31)."""
        if item >= 0:
            return item
        lo = card_type * 5
        if self.game.population_choice == "lowest_nun":
            return lo + next(i for i, count in enumerate(holding[lo:lo + 5]) if count)
        # a card drawn at random: the first item whose running total exceeds r = int(u * total)
        totals = list(accumulate(holding[lo:lo + 5]))
        return lo + bisect(totals, self._rng.random() * totals[-1])

    def _take_from_hand(self, p: int, item: int) -> None:
        self.hands[p][item] -= 1
        self.hand_size[p] -= 1
        self.changes.append((HAND, p, item))

    def _show(self, p: int, item: int, count: int = 1) -> None:
        """``p`` shows ``count`` cards of ``item`` face up (a reveal, a Hospital discard, a Pass): public,
        and other players' records of cards they gave ``p`` lose as many of that card (§7.5 item 5)."""
        self.shown[p][ITEM_TYPE[item]] += count
        self.changes.append((SHOWN, p, ITEM_TYPE[item]))
        if self.hidden_in[p]:
            self._forget_gifts(p, item, count)

    def _forget_gifts(self, p: int, item: int, count: int) -> None:
        """The records of cards given to ``p`` lose ``count`` cards of ``item``, shown by ``p``."""
        for giver in range(self.n):
            record = self.gifts[giver][p]
            if record[item]:
                record[item] = max(0, record[item] - count)
                self.changes.append((GIFTS, giver, p))

    def _to_discard(self, item: int) -> None:
        if item < NUM_KINDS:
            self.discard[item] += 1
            self.changes.append((LOCATED, 0, item))
        elif self.game.finite:
            self.supply[item - NUM_KINDS] += 1
            self.changes.append((GAME, 0, 0))

    def _take_special(self, p: int, t: int, count: int) -> None:
        """``p`` takes up to ``count`` cards of special type ``t`` from its supply into pending (R-A3)."""
        s = t - JOKER
        if self.game.finite:
            count = min(count, self.supply[s])
            self.supply[s] -= count
        self.pending[p][NUM_KINDS + s] += count
        self.changes.append((PENDING, p, NUM_KINDS + s))
        self.pend_taken[p][s] += count
        self.taken[p][s] += count
        self.changes.append((TAKEN, p, s))

    def _draw(self, p: int, count: int, into: list[int]) -> int:
        """Draw ``count`` population cards into ``into`` (``p``'s hand or pending area) with the reshuffles
        of §3.6 / R-A23; returns the number drawn."""
        code = HAND if into is self.hands[p] else PENDING
        self.changes.append((DECK, 0, 0))
        drawn = 0
        for _ in range(count):
            if not self.deck:
                if not self._reshuffle():
                    break
            kind = self.deck.pop()
            into[kind] += 1
            self.changes.append((code, p, kind))
            drawn += 1
            if not self.deck:
                self._reshuffle()
        return drawn

    def _reshuffle(self) -> bool:
        """Shuffle the discard pile into a new deck (composition public, order hidden)."""
        discard = self.discard
        if not any(discard):
            return False
        self._see_all()
        cards = [k for k in range(NUM_KINDS) for _ in range(discard[k])]
        self.deck = list(map(cards.__getitem__, self._rng.permutation(len(cards)).tolist()))
        self.reshuffle_comp = list(discard)
        self.discard = [0] * NUM_KINDS
        self.reshuffles += 1
        self.changes.append((GAME, 0, 0))
        return True

    def _lose_rats(self, p: int, m: int) -> None:
        self.rats[p] = max(0, self.rats[p] - m)  # R-A39
        self.changes.append((RATS, p, 0))

    def _gain_influence(self, p: int, cls: int, m: int) -> None:
        """A disc moves up ``m`` levels and lands on top of any stack there (§3.4.2, R-A24)."""
        if m > 0:
            self.level[p][cls] += m
            self.clock += 1
            self.stamp[p][cls] = self.clock
            self.changes.append((INFLUENCE, p, cls))

    def _hidden_give(self, giver: int, receiver: int, item: int) -> None:
        """A Sword or Watchtower payment card: only its number is public (§7.1)."""
        if item < NUM_KINDS:
            self._see(giver)
        self._take_from_hand(giver, item)
        self.pending[receiver][item] += 1
        self.changes.append((PENDING, receiver, item))
        self.hidden_out[giver] += 1
        self.hidden_in[receiver] += 1
        self.flow_count[giver][receiver] += 1
        self.pend_hidden[receiver] += 1
        if item >= NUM_KINDS:
            self.flow[giver][receiver][item - NUM_KINDS] += 1
        self.slot_gift[giver][receiver][item] += 1
        self.gifts[giver][receiver][item] += 1
        for other in range(self.n):
            if other != giver:
                self.gift_flag[other][giver] = True
        self.changes += ((GIFTS, giver, receiver), (GIFT_FLAGS, giver, 0))

    def _peek(self, p: int, position: int) -> None:
        self.peeked[p][position] = True
        self.peek_count[p][position] += 1
        self.changes.append((PEEK, p, position))

    def located(self, p: int) -> list[int]:
        """Population cards of each kind ``p`` can locate outside the nun row now: its own hand, pending
        and committed cards, the discard pile and the cards revealed on the table."""
        located = map(add, map(add, self.hands[p], self.pending[p]), map(add, self.committed[p], self.discard))
        for q in range(self.n):
            if self.revealed[q] and q != p:
                located = map(add, located, self.committed[q])
        return list(located)

    def seen_now(self, p: int) -> list[int]:
        """§7.5 item 4: the most population cards of each kind ``p`` could locate outside the nun row at
        one moment. Counting what can be seen at once, not distinct sightings, keeps the figure a fact
        ``p`` knows: identical cards seen at different times may be the same card. ``seen[p]`` keeps the
        maximum up to the last moment the located cards could drop (``p`` giving a card away, a
        reshuffle); the current count does the rest."""
        located, seen = self.located(p), self.seen[p]
        return [a if a > b else b for a, b in zip(located, seen)] if any(seen) else located

    def _see(self, p: int) -> None:
        self.seen[p] = self.seen_now(p)

    def _see_all(self) -> None:
        for p in range(self.n):
            self._see(p)

    # ================================================================== round flow
    def _begin_round(self) -> None:
        """Phase A (§3.1): reveal k buildings, fix an identical row; then phase B."""
        game = self.game
        self.row = [self.bdeck.pop() for _ in range(game.k)]
        while len({card // 5 for card in self.row}) == 1:  # R-A6
            self.repl.insert(0, self.row[-1])
            self.repl_known += 1
            if self.repl_known > len(self.repl) - 1:  # only face-up cards left: the top is one of them
                self.repl_known = len(self.repl) - 1
            self.row[-1] = self.repl.pop()
        n = self.n
        self.phase = PHASE_B
        self.turn = 0
        self.supply_slot = [-1] * n
        self.entered = [-1] * n
        self.entry_pos = [-1] * n
        self.entry_order = [-1] * n
        self.entrants = [[] for _ in range(game.k)]
        self.num_entered = 0
        self.announced = [-1] * n
        self.passes = [0] * n
        self.revealed = [False] * n
        self.last_reveal = [_zeros() for _ in range(n)]
        self.rsp = -1
        self._set(D1, self.start)

    def _set(self, decision: int, player: int) -> None:
        self.decision = decision
        self.current_player = player

    # ------------------------------------------------------------------ phase B (§3.2)
    def _supply_action(self, p: int, slot: int) -> None:
        self.supply_slot[p] = slot
        self.changes.append((SUPPLY_SLOT, p, 0))
        draw, discard_rats, peek = self.game.supply_action[self.row[slot]]
        if draw:
            self.hand_size[p] += self._draw(p, draw, self.hands[p])  # R-A37: straight into the hand
        if discard_rats:
            self._lose_rats(p, discard_rats)
        if peek:
            self.left = peek
            self._set(D2, p)
            return
        self._next_supplier()

    def _next_supplier(self) -> None:
        self.turn += 1
        if self.turn < self.n:
            self._set(D1, (self.start + self.turn) % self.n)
        else:
            self.phase = PHASE_C
            self._set(D3, self.start)

    # ------------------------------------------------------------------ phase C (§3.3)
    def _play_pass(self, p: int) -> None:
        self._take_from_hand(p, I_PASS)
        self._show(p, I_PASS)
        self._to_discard(I_PASS)  # R-A10: back to the Pass supply at once
        self.passes[p] += 1
        self.changes.append((PASSES, p, 0))
        self._set(D3, self._next_unentered(p))

    def _enter(self, p: int, slot: int) -> None:
        self.entered[p] = slot
        self.entry_pos[p] = len(self.entrants[slot])
        self.entrants[slot].append(p)
        self.entry_order[p] = self.num_entered
        self.changes.append((ENTER, p, 0))
        self.num_entered += 1
        self._set(D4, p)

    def _next_unentered(self, p: int) -> int:
        for step in range(1, self.n + 1):
            q = (p + step) % self.n
            if self.entered[q] < 0:
                return q
        raise AssertionError("unreachable: someone must still enter")

    def _next_entrant(self) -> None:
        if self.num_entered < self.n:
            self._set(D3, self._next_unentered(self.current_player))
            return
        self.phase = PHASE_D
        if self.n == 2:  # §3.4.6, R-A20
            m = [self._m(0), self._m(1)]
            if m[0] != m[1]:
                self.rsp = 0 if m[0] > m[1] else 1
            else:
                self.rsp = 0 if self.entry_order[0] < self.entry_order[1] else 1
        self.slot = 0
        self.stage = ST_START
        self._run()

    def _m(self, p: int) -> int:
        committed = self.committed[p]
        return sum(committed[:NUM_KINDS]) + committed[I_JOKER]

    # ------------------------------------------------------------------ phase D (§3.4)
    def _run(self) -> None:
        """Resolve slots until a decision is needed or the round ends."""
        k = self.game.k
        while self.slot < k:
            entrants = self.entrants[self.slot]
            if not entrants:  # R-A35
                self.slot += 1
                continue
            if self.stage == ST_START:
                self._step_a(entrants)
                self.stage = ST_SWORD
                if self._sword(entrants):
                    return
            if self.stage == ST_SWORD:  # after the Sword payment
                self.stage = ST_FLUTE
            if self.stage == ST_FLUTE:
                if self._flute(entrants):
                    return
                self.stage = ST_ACTIONS
                if self._start_actions(run=False):
                    return
            # ST_ACTIONS done: step c
            self._step_c(entrants)
            self.slot += 1
            self.stage = ST_START
        self._end_round()

    def _step_a(self, entrants: list[int]) -> None:
        """Reveal, influence, rats (§3.4.2)."""
        cls = BUILDING_CLASS[self.row[self.slot] // 5]
        for p in entrants:
            committed = self.committed[p]
            self.revealed[p] = True
            self.last_reveal[p] = list(committed)
            self.changes.append((REVEAL, p, 0))
            shown, forget = self.shown[p], self.hidden_in[p]
            for item in compress(_ITEMS, committed):  # _show, inlined
                shown[ITEM_TYPE[item]] += committed[item]
                self.changes.append((SHOWN, p, ITEM_TYPE[item]))
                if forget:
                    self._forget_gifts(p, item, committed[item])
                if item < NUM_KINDS:
                    self.changes.append((LOCATED, p, item))
            population = sum(committed[:NUM_KINDS])
            self._gain_influence(p, cls, population + committed[I_JOKER])  # _m(p)
            self.rats[p] += population - sum(committed[cls * 5:cls * 5 + 5])  # cards not of its own kinds
            self.changes.append((RATS, p, 0))

    def _sword(self, entrants: list[int]) -> bool:
        """§3.4.3; True if a decision (D5 or D6) is now pending."""
        swords = [self.committed[p][I_SWORD] for p in entrants]
        high, low = max(swords), min(swords)
        if high == low:
            return False
        winner = entrants[swords.index(high)]  # R-A11: lowest entry position among the tied
        cands = [p for p, s in zip(entrants, swords) if s == low]
        self.sword = [winner, -1]
        if len(cands) > 1:
            self.cands = cands
            self._set(D5, winner)
            return True
        return self._sword_loser(cands[0], run=False)

    def _sword_loser(self, loser: int, run: bool = True) -> bool:
        self.sword[1] = loser
        give = self.hand_size[loser] // 2  # R-A14
        if give:
            self.left = give
            self._set(D6, loser)
            return True
        self.stage = ST_FLUTE
        if run:
            self._run()
        return False

    def _flute(self, entrants: list[int]) -> bool:
        """§3.4.4; True if D7 is now pending."""
        flutes = [self.committed[p][I_FLUTE] for p in entrants]
        high, low = max(flutes), min(flutes)
        if high == low:
            return False
        winner = entrants[flutes.index(high)]
        self.flute = winner
        if self.rats[winner] == 0:  # R-A15
            return False
        cands = [p for p, f in zip(entrants, flutes) if f == low]
        if len(cands) > 1:
            self.cands = cands
            self._set(D7, winner)
            return True
        self.rats[winner] -= 1
        self.rats[cands[0]] += 1
        self.changes += ((RATS, winner, 0), (RATS, cands[0], 0))
        return False

    def special_player(self, entrants: list[int]) -> int:
        """The slot's special-action player (§3.4.5, §3.4.6; -1: none, 2 players only)."""
        if self.n == 2:
            return self.rsp if self.rsp in entrants else -1
        best, best_m = -1, -1
        for p in entrants:  # in entry-position order: the first of the tied wins (R-A11, R-A38)
            m = self._m(p)
            if m > best_m:
                best, best_m = p, m
        return best

    def _start_actions(self, run: bool = True) -> bool:
        """Step b (§3.4.5-§3.4.8): the actions of the slot in order; True if a decision is pending."""
        entrants = self.entrants[self.slot]
        special = self.special_player(entrants)
        if self.round == self.game.rounds - 1:  # §3.4.8, R-A21: the last round's bonus instead
            if special >= 0:
                self._gain_influence(special, BUILDING_CLASS[self.row[self.slot] // 5], 1)
            self.queue = []
        else:
            self.queue = ([[special, 1]] if special >= 0 else []) + [[p, 0] for p in entrants if p != special]
        self.qi = 0
        if self._perform_queue():
            return True
        if run:
            self._step_c(entrants)
            self.slot += 1
            self.stage = ST_START
            self._run()
        return False

    def _perform_queue(self) -> bool:
        while self.qi < len(self.queue):
            p, special = self.queue[self.qi]
            if self._action(p, special):
                return True
            self.qi += 1
        return False

    def _action_done(self) -> None:
        """The current queue entry finished its decisions: go on with the slot."""
        self.left = 0
        self.qi += 1
        if self._perform_queue():
            return
        entrants = self.entrants[self.slot]
        self._step_c(entrants)
        self.slot += 1
        self.stage = ST_START
        self._run()

    def _action(self, p: int, special: int) -> bool:
        """Perform ``p``'s building action (§4); True if it now waits for a decision of somebody."""
        building = self.row[self.slot] // 5
        if building == FARM:
            self.pend_drawn[p] += self._draw(p, 4 if special else 2, self.pending[p])
        elif building == BREWERY:  # R-A18
            g = self._m(p)
            self.pend_drawn[p] += self._draw(p, g if special else g // 2, self.pending[p])
        elif building == MARKETPLACE:
            self._take_special(p, JOKER, 2 if special else 1)
        elif building == OFFICE:
            self._take_special(p, PASS, 2 if special else 1)
        elif building == MONASTERY:
            self._lose_rats(p, 2 if special else 1)
        elif building == HOSPITAL:  # R-A17
            if special:
                self._lose_rats(p, 1)
            self.left = 3 if special else 2
            return self._hospital_next(start=True)
        elif building == CASTLE:
            self._take_special(p, SWORD, 2 if special else 1)
        elif building == WATCHTOWER:
            if special:  # R-A19
                self.wt_t = self.hand_size[p]
                self.wt_victims = self._wt_victims(p)
                return self._watchtower_next(start=True)
        elif building == TENT:
            self.left = 2 if special else 1
            self.first_pos = -1
            self._set(D8, p)
            return True
        elif building == RAT_CATCHER:
            self._take_special(p, FLUTE, 2 if special else 1)
        elif building == PALACE:
            self._take_tokens(p, 2 if special else 1)
        elif building == TREASURY:
            self._take_special(p, GOLD, 2 if special else 1)
        return False

    def _wt_victims(self, p: int) -> list[int]:
        """R-A19: the seats that give ``p`` cards, in order."""
        protected = {q for q in range(self.n)
                     if self.entered[q] >= 0 and self.row[self.entered[q]] // 5 == WATCHTOWER}
        return [q for q in ((p + s) % self.n for s in range(1, self.n))
                if q not in protected and self.hand_size[q] >= self.wt_t and self.hand_size[q]]

    def _take_tokens(self, p: int, count: int) -> None:
        """R-A2, R-A3: uniform values are interchangeable; otherwise tokens are taken at random."""
        game = self.game
        self.changes.append((TOKENS, p, 0))
        for _ in range(count):
            if not game.finite:
                self.tokens[p].append(game.point_token_values[0])
                continue
            if not self.token_supply:
                return
            index = 0 if game.uniform_tokens else int(self._rng.integers(len(self.token_supply)))
            self.tokens[p].append(self.token_supply.pop(index))
        self.tokens[p].sort()

    def _hospital_next(self, start: bool = False) -> bool:
        p = self.queue[self.qi][0]
        if min(self.left, self.hand_size[p], self.rats[p]) > 0:
            self._set(D9, p)
            return True
        self.left = 0
        if not start:
            self._action_done()
        return False

    def _watchtower_next(self, start: bool = False) -> bool:
        if self.wt_victims:
            victim = self.wt_victims[0]
            self.left = min(3, self.hand_size[victim])
            self._set(D10, victim)
            return True
        self.wt_t = -1
        if not start:
            self._action_done()
        return False

    def _step_c(self, entrants: list[int]) -> None:
        """Played cards leave; pending cards join the hands (§3.4.9, R-A12)."""
        discard, supply, finite = self.discard, self.supply, self.game.finite
        held = []  # the seats whose holdings changed, listed once
        for p in entrants:
            committed = self.committed[p]
            if any(committed):
                discard[:] = map(add, discard, committed)  # the 30 kinds
                if finite:
                    supply[:] = map(add, supply, committed[NUM_KINDS:])
                self.committed[p] = _zeros()
                held.append(p)
        n = self.n
        for p in range(n):
            pending = self.pending[p]
            if pending != _ZERO_ITEMS:  # (cheaper than any() on a list of zeros)
                hand = self.hands[p]
                hand[:] = map(add, hand, pending)
                self.hand_size[p] += sum(pending)
                self.pending[p] = _zeros()
                if p not in held:
                    held.append(p)
        if any(self.pend_hidden):  # hidden cards were given in this slot (recorded in slot_gift)
            self.slot_gift = [[_zeros() for _ in range(n)] for _ in range(n)]
        self.pend_taken = [[0] * 5 for _ in range(n)]
        self.pend_drawn = [0] * n
        self.pend_hidden = [0] * n
        self.changes += [(HOLDINGS, p, 0) for p in held]
        self.sword = [-1, -1]
        self.flute = -1
        self.queue = []
        self.qi = 0

    def _end_round(self) -> None:
        """Phase E (§3.5)."""
        self.used.extend(self.row)
        self.row = []
        self.start = (self.start + 1) % self.n
        self.round += 1
        self.slot = 0
        self.stage = ST_START
        if self.round == self.game.rounds:
            self.phase = PHASE_OVER
            self.decision = NONE
            self.current_player = -1
            self.is_terminal = True
            self.entrants = [[] for _ in range(self.game.k)]
            self.entered = [-1] * self.n
            self.result = final_result(self)
            return
        self._begin_round()

    # ================================================================== reporting
    def scores(self) -> list[float]:
        """Terminal: the ranking score of :func:`.scoring.ranking_scores` (winners on top); before the
        end, the VP the position would score now."""
        if self.is_terminal:
            return ranking_scores(self.game, self.result)
        return [float(v) for v in final_result(self)["vp"]]

    def winners(self) -> list[int]:
        """The winners of §6.8; none when everybody died without the all-dead variant (all lose)."""
        return list((self.result if self.is_terminal else final_result(self))["winners"])

    def score_breakdown(self) -> dict[str, Any]:
        return self.result if self.result is not None else final_result(self)

    def render(self, viewer: int | None = None) -> str:
        return render(self, viewer)

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    def redeal(self, player: int, rng: np.random.Generator) -> None:
        resample_hidden(self, player, rng)
        self._mask = None


RattusCartusGame.state_class = RattusCartusState  # defined after the game it refers to


def select_buildings(game: RattusCartusGame, rng: np.random.Generator) -> list[int]:
    """The 30 building cards of a game (§2.3, R-A4)."""
    method = game.building_selection
    cards: list[int] = []
    if method == "agreed":
        for name, count in game.agreed_counts.items():
            b = BUILDINGS.index(name)
            copies = sorted(rng.permutation(5)[:count].tolist()) if count < 5 else list(range(5))
            cards += [b * 5 + c for c in copies]
        return cards
    for cls in range(NUM_CLASSES):
        options = [2 * cls, 2 * cls + 1]
        if game.num_players == 2 and game.exclude_watchtower_2p and WATCHTOWER in options:
            options = [CASTLE]
        if method == "random_building_per_class" or len(options) == 1:
            b = options[int(rng.integers(len(options)))]
            cards += [b * 5 + c for c in range(5)]
        else:  # the class's 10 cards are 10 * cls .. 10 * cls + 9
            cards += [10 * cls + i for i in sorted(rng.permutation(10).tolist()[:5])]
    return cards

