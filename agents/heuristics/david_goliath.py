"""A David & Goliath heuristic that plays each trick for its own round score.

Idea: a colour is worth its face values while a player took at most two cards of it, and one point
per card after that (docs/david_goliath_rules.md §4); the lowest card takes the highest, the highest
takes the rest (§3.3, §3.4). The agent scores every legal card by what the trick would add to its own round
score: exactly when it plays last, otherwise averaged over a few random completions of the trick,
drawn from the cards it has not seen (the others follow the led colour when such cards remain, most
of the time; :mod:`hiddenhand.envs.david_goliath.outlook`). It plays the best card, preferring the lower
value on a near tie.
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.david_goliath.observation import DavidGoliathObserver
from hiddenhand.envs.david_goliath.outlook import SAMPLES, completions, score_change, takings
from hiddenhand.envs.david_goliath.rules import (
    CARD_COLOUR, CARD_VALUE, HAND_SIZE, MAX_VALUE, NUM_CARDS, NUM_COLOURS, DavidGoliathGame,
)

from ..base import Agent

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
        samples: dict[int, list[list[int]]] = {}

        def gain(cards: list[int]) -> int:
            """Points the trick adds to my round score."""
            for taker, takes in takings(cards):  # the highest card's position, then the lowest's
                if taker == position:
                    return score_change(counts, points, takes)
            return 0

        def value(card: int) -> float:
            cards = trick + [card]
            if not missing:
                return gain(cards) - 0.01 * CARD_VALUE[card]
            led = CARD_COLOUR[cards[0]]
            if led not in samples:  # shared by all my candidates of that colour
                samples[led] = completions(unseen, led, missing, self._rng)
            return sum(gain(cards + row) for row in samples[led]) / SAMPLES - 0.01 * CARD_VALUE[card]

        return int(max(np.flatnonzero(action_mask), key=value))
