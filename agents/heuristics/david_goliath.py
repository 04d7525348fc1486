"""A David & Goliath heuristic that plays each trick for its own round score.

Idea: a colour is worth its face values while a player took at most two cards of it, and one point
per card after that (docs/david_goliath_rules.md §4); the lowest card takes the highest, the highest
takes the rest (§3.3, §3.4). The agent scores every legal card by what the trick would add to its own round
score: exactly when it plays last, otherwise averaged over a few random completions of the trick,
drawn from the cards it has not seen (the others follow the led colour when such cards remain, most
of the time). It plays the best card, preferring the lower value on a near tie.
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.david_goliath.observation import DavidGoliathObserver
from hiddenhand.envs.david_goliath.rules import (
    CARD_COLOUR, CARD_VALUE, HAND_SIZE, MAX_VALUE, NUM_CARDS, NUM_COLOURS, DavidGoliathGame, resolve_trick,
)

from ..base import Agent

SAMPLES = 12
FOLLOW_PROBABILITY = 0.7
_COUNTS = slice(NUM_CARDS + NUM_COLOURS, NUM_CARDS + 2 * NUM_COLOURS)
_POINTS = slice(NUM_CARDS + 2 * NUM_COLOURS, NUM_CARDS + 3 * NUM_COLOURS)
_MAX_COLOUR_SCORE = 2 * MAX_VALUE - 1


class DavidGoliathHeuristic(Agent):
    name = "heuristic"

    def __init__(self, game: DavidGoliathGame, seed: int | None = None):
        self.layout = DavidGoliathObserver.build_layout(game)
        self.num_players = game.seats  # cards in a trick (DG-5: the dummy plays one too)
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = self.layout.views(observation)
        trick = [int(np.argmax(row)) for row in view["trick"] if row.any()]
        me = view["seats"][0]
        counts = np.rint(me[_COUNTS] * HAND_SIZE).astype(int).tolist()
        points = np.rint(me[_POINTS] * _MAX_COLOUR_SCORE).astype(int).tolist()
        unseen = np.flatnonzero(view["unseen"])
        position = len(trick)
        missing = self.num_players - position - 1
        completions: dict[int, list[list[int]]] = {}

        def gain(cards: list[int]) -> int:
            """Points the trick adds to my round score (one or two cards: face values; more: 1 each)."""
            highest, lowest = resolve_trick([CARD_VALUE[c] for c in cards])
            if position == highest:
                won = [c for p, c in enumerate(cards) if p != highest]
            elif position == lowest:
                won = [cards[highest]]
            else:
                return 0
            added: dict[int, list[int]] = {}
            for card in won:
                added.setdefault(CARD_COLOUR[card], []).append(CARD_VALUE[card])
            total = 0
            for colour, values in added.items():
                count = counts[colour] + len(values)
                new = points[colour] + sum(values) if count <= 2 else count
                total += new - points[colour]
            return total

        def sampled(led: int) -> list[list[int]]:
            """Random completions of the trick by the players after me (shared by all my candidates)."""
            if led not in completions:
                same = unseen[[CARD_COLOUR[c] == led for c in unseen]]
                rows = []
                for _ in range(SAMPLES):
                    follow = len(same) >= missing and self._rng.random() < FOLLOW_PROBABILITY
                    pool = same if follow else unseen
                    rows.append(pool[self._rng.permutation(len(pool))[:missing]].tolist())
                completions[led] = rows
            return completions[led]

        def value(card: int) -> float:
            cards = trick + [card]
            if not missing:
                return gain(cards) - 0.01 * CARD_VALUE[card]
            rows = sampled(CARD_COLOUR[cards[0]])
            return sum(gain(cards + row) for row in rows) / SAMPLES - 0.01 * CARD_VALUE[card]

        return int(max(np.flatnonzero(action_mask), key=value))
