"""A Rattus Cartus heuristic: stay under the plague line, play matching cards where a rank is in reach.

Idea: the plague check kills whoever holds more rats than the nuns in the row, so the agent estimates
the nun total from what it knows (its looks, and for unseen positions the mean nuns of the cards that
can still be there: all copies minus those it has seen outside the row) and keeps its rats a margin
below it. Influence decides most points, so it enters the building whose class it can push towards a
better rank with cards of that class (no rats) and jokers, commits mismatched cards only while the rat
budget allows, and brings a Sword or Flute when somebody else is in the building. Supply actions and
building actions are valued for what they bring now: rat discards when above the budget, looks while
positions are unknown, cards otherwise. Cards given away or discarded are the least useful ones.
Everything is read from the observation by block and field name (``layout.views`` and the observer's
``*_FIELDS`` layouts), so it plays any seat and player count.
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.rattus_cartus import actions as A
from hiddenhand.envs.rattus_cartus.cards import (
    BREWERY, BUILDING_CLASS, CASTLE, CLASS_ITEMS, FARM, FLUTE, HOSPITAL, I_FLUTE, I_JOKER, I_SWORD, JOKER, KIND_COPIES,
    KIND_NUNS, MARKETPLACE, MONASTERY, NUM_CLASSES, NUM_KINDS, NUN_ROW_SIZE, OFFICE, PALACE, RAT_CATCHER, SWORD, TENT,
    TREASURY, WATCHTOWER,
)
from hiddenhand.envs.rattus_cartus.decisions import D1, D2, D3, D4, D5, D6, D7, D8, D9, D10
from hiddenhand.envs.rattus_cartus.observation import GAME_FIELDS, ROW_SLOT_FIELDS, SEAT_FIELDS, RattusCartusObserver
from hiddenhand.envs.rattus_cartus.rules import RattusCartusGame

from ..base import Agent

#: Rough worth of one card of each special type (joker, Sword, Flute, Pass, Gold) when giving cards away.
SPECIAL_WORTH = (2.5, 1.5, 1.2, 1.0, 3.0)
#: Worth of a building's action for the player taking it (normal action; the special is about double).
ACTION_WORTH = {FARM: 1.5, BREWERY: 1.0, MARKETPLACE: 1.5, OFFICE: 0.6, MONASTERY: 0.0, HOSPITAL: 0.0,
                CASTLE: 1.0, WATCHTOWER: 0.5, TENT: 0.0, RAT_CATCHER: 0.6, PALACE: 1.0, TREASURY: 1.2}

# Where the values read lie, by the observer's field names: in a row of ``seats``, a slot of ``row``,
# the ``game`` block, a position of ``nun_row`` (its kind one-hot, then the flag KNOWN), and the cells of
# one class's five kinds in ``own_hand`` and ``own_committed`` (``CLASS_CELLS[c]``).
RATS, HAND_SIZE = SEAT_FIELDS.offset("rats"), SEAT_FIELDS.offset("hand_size")
ENTERED, LEVEL = SEAT_FIELDS.slices["entered"], SEAT_FIELDS.slices["level"]
BUILDING, SUPPLY_ACTION = ROW_SLOT_FIELDS.slices["building"], ROW_SLOT_FIELDS.slices["supply_action"]
LAST_ROUND, PLAYERS_ENTERED = GAME_FIELDS.offset("last_round"), GAME_FIELDS.offset("entered")
KNOWN = NUM_KINDS
CLASS_CELLS = tuple(slice(items[0], items[-1] + 1) for items in CLASS_ITEMS)


class RattusCartusHeuristic(Agent):
    name = "heuristic"

    def __init__(self, game: RattusCartusGame, seed: int | None = None):
        self.game = game
        self.layout = RattusCartusObserver.build_layout(game)
        self.n = game.num_players
        self._rng = np.random.default_rng(seed)
        self.kinds, self.args = game.act_kind, game.act_arg

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ estimates
    def nun_estimate(self, view) -> float:
        """Known looks plus, per unseen position, the mean nuns of the cards that may lie there."""
        seen = view["seen_outside"]
        rows = view["nun_row"]
        known_kinds = [int(np.argmax(rows[q][:NUM_KINDS])) for q in range(NUN_ROW_SIZE) if rows[q][KNOWN]]
        left = [max(0.0, KIND_COPIES[k] - seen[k] - known_kinds.count(k)) for k in range(NUM_KINDS)]
        total = sum(left)
        mean = sum(left[k] * KIND_NUNS[k] for k in range(NUM_KINDS)) / total if total else 2.0
        return sum(KIND_NUNS[k] for k in known_kinds) + mean * (NUN_ROW_SIZE - len(known_kinds))

    def rat_budget(self, view) -> float:
        """How many rats the agent is willing to end with: the estimate less a margin that shrinks as the
        looks pile up."""
        known = int(view["nun_row"][:, KNOWN].sum())
        return self.nun_estimate(view) - (2.0 - 0.3 * known)

    # ------------------------------------------------------------------ acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        view = self.layout.views(observation)
        decision = int(np.argmax(view["decision"]))
        handlers = {D1: self._supply, D2: self._look, D8: self._look, D3: self._enter, D4: self._commit,
                    D5: self._target, D7: self._target, D6: self._give, D10: self._give, D9: self._discard}
        action = handlers.get(decision, lambda v, l: int(l[0]))(view, legal)
        return int(action)

    def _supply(self, view, legal):
        rats = view["seats"][0][RATS]
        budget = self.rat_budget(view)
        unknown = NUN_ROW_SIZE - int(view["nun_row"][:, KNOWN].sum())
        best, best_value = legal[0], -1e9
        for action in legal:
            row = view["row"][self.args[action]]
            draw, discard, peek = row[SUPPLY_ACTION]
            value = draw + discard * (2.5 if rats > budget - 2 else 0.6) + peek * (1.8 if unknown > 1 else 0.3)
            if value > best_value:
                best, best_value = action, value
        return best

    def _look(self, view, legal):
        rows = view["nun_row"]
        unknown = [a for a in legal if not rows[self.args[a]][KNOWN]]
        return unknown[0] if unknown else legal[0]

    def _enter(self, view, legal):
        hand = view["own_hand"]
        seats = view["seats"]
        rats = seats[0][RATS]
        budget = self.rat_budget(view)
        game = view["game"]
        entered = int(game[PLAYERS_ENTERED])
        passes = [a for a in legal if self.kinds[a] == A.PASS_ACTION]
        if passes and self.n - entered >= 3 and game[LAST_ROUND] == 0:
            return passes[0]  # let others show their buildings first
        best, best_value = legal[0], -1e9
        for action in legal:
            if self.kinds[action] != A.SLOT:
                continue
            row = view["row"][self.args[action]]
            building = int(np.argmax(row[BUILDING]))
            cls = BUILDING_CLASS[building]
            matching = hand[CLASS_CELLS[cls]].sum() + hand[I_JOKER]
            mine = seats[0][LEVEL][cls]
            top_other = max((seats[r][LEVEL][cls] for r in range(1, self.n)), default=0)
            value = matching
            if mine + matching >= top_other and matching:
                value += 2.0  # a first place is in reach
            value += ACTION_WORTH[building]
            if building in (MONASTERY, HOSPITAL):
                value += 1.5 if rats > budget - 1 else 0.2
            if building == TENT:
                value += 0.5 * (NUN_ROW_SIZE - int(view["nun_row"][:, KNOWN].sum()))
            if game[LAST_ROUND]:  # last round: only the influence counts
                value = matching + (2.0 if mine + matching + 1 > top_other else 0.0)
            if value > best_value:
                best, best_value = action, value
        return best

    def _slot_class(self, view) -> tuple[int, int]:
        slot = int(np.argmax(view["seats"][0][ENTERED]))
        building = int(np.argmax(view["row"][slot][BUILDING]))
        return slot, BUILDING_CLASS[building]

    def _commit(self, view, legal):
        slot, cls = self._slot_class(view)
        seats = view["seats"]
        committed = view["own_committed"]
        rats = seats[0][RATS] + committed[:NUM_KINDS].sum() - committed[CLASS_CELLS[cls]].sum()
        budget = self.rat_budget(view)
        others_here = any(seats[r][ENTERED][slot] for r in range(1, self.n))
        by_type = {}
        for action in legal:
            if self.kinds[action] == A.CARD:
                by_type.setdefault(self.args[action], action)
        if cls in by_type:
            return by_type[cls]
        if JOKER in by_type:
            return by_type[JOKER]
        if SWORD in by_type and others_here and committed[I_SWORD] == 0:
            return by_type[SWORD]
        if FLUTE in by_type and others_here and committed[I_FLUTE] == 0 and seats[0][RATS] > 0:
            return by_type[FLUTE]
        if rats + 1 <= budget and view["own_hand"].sum() > 3:
            for t in range(NUM_CLASSES):
                if t in by_type and t != cls:
                    return by_type[t]
        return next(a for a in legal if self.kinds[a] == A.STOP)

    def _target(self, view, legal):
        # Sword: take from the biggest hand; Flute: give the rat to the strongest player
        decision = int(np.argmax(view["decision"]))
        seats = view["seats"]

        def score(action):
            r = self.args[action]
            return seats[r][HAND_SIZE] if decision == D5 else seats[r][LEVEL].sum()
        return max(legal, key=score)

    def _worth(self, view, t: int) -> float:
        if t >= JOKER:
            return SPECIAL_WORTH[t - JOKER]
        return 1.0 + 0.3 * view["seats"][0][LEVEL][t]

    def _give(self, view, legal):
        return min(legal, key=lambda a: self._worth(view, self.args[a]) if self.kinds[a] == A.CARD else 99)

    def _discard(self, view, legal):
        rats = view["seats"][0][RATS]
        stop = next(a for a in legal if self.kinds[a] == A.STOP)
        cards = [a for a in legal if self.kinds[a] == A.CARD]
        if rats <= self.rat_budget(view) - 1 or not cards:
            return stop
        return min(cards, key=lambda a: self._worth(view, self.args[a]))
