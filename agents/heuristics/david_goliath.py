"""A David & Goliath heuristic that plays each trick for its own round score.

Idea: a colour is worth its face values while a player took at most two cards of it, and one point
per card after that. The agent scores every legal card by what the trick would add to its own round
score: exactly when it plays last, otherwise averaged over a few random completions of the trick,
drawn from the cards it has not seen (the others follow the led colour when such cards remain, most
of the time). It plays the best card, preferring the lower value on a near tie.
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.david_goliath.observation import DavidGoliathObserver
from hiddenhand.envs.david_goliath.rules import (
    CARD_COLOUR, CARD_VALUE, MAX_VALUE, NUM_CARDS, DavidGoliathGame, colour_scores, resolve_trick,
)

from ..base import Agent

SAMPLES = 12
FOLLOW_PROBABILITY = 0.7


class DavidGoliathHeuristic(Agent):
    name = "heuristic"

    def __init__(self, game: DavidGoliathGame, seed: int | None = None):
        self.layout = DavidGoliathObserver.build_layout(game)
        self.num_players = game.num_players
        self._in_play = np.arange(NUM_CARDS) % MAX_VALUE < game.max_value
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = self.layout.views(observation)
        trick = [int(np.argmax(row)) for row in view["trick"] if row.any()]
        taken = np.flatnonzero(view["seats"][0, :NUM_CARDS]).tolist()
        base = sum(colour_scores(taken))
        seen = view["seats"][:, :NUM_CARDS].sum(axis=0) + view["hand"] + view["trick"].sum(axis=0)
        unseen = np.flatnonzero((seen == 0) & self._in_play)
        position = len(trick)
        missing = self.num_players - position - 1

        def gain(cards: list[int]) -> int:
            highest, lowest = resolve_trick([CARD_VALUE[c] for c in cards])
            if position == highest:
                won = [c for p, c in enumerate(cards) if p != highest]
            elif position == lowest:
                won = [cards[highest]]
            else:
                return 0
            return sum(colour_scores(taken + won)) - base

        def value(card: int) -> float:
            cards = trick + [card]
            if not missing:
                return gain(cards) - 0.01 * CARD_VALUE[card]
            led = CARD_COLOUR[cards[0]]
            same = unseen[[CARD_COLOUR[c] == led for c in unseen]]
            total = 0
            for _ in range(SAMPLES):
                follow = len(same) >= missing and self._rng.random() < FOLLOW_PROBABILITY
                pool = same if follow else unseen
                total += gain(cards + self._rng.choice(pool, size=missing, replace=False).tolist())
            return total / SAMPLES - 0.01 * CARD_VALUE[card]

        return int(max(np.flatnonzero(action_mask), key=value))
