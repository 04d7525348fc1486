"""A David & Goliath heuristic that plays for the colours it can still score.

Idea: a colour is worth its face values while a player took at most two cards of it, and one point
per card after that. When following, the agent scores each legal card as if the trick ended after it
(exact when it plays last) and plays the card that adds most to its own round score, preferring the
lowest value on a tie. When leading, it plays its lowest card, since a low card tends to end up as
David and take the Goliath.
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.david_goliath.observation import DavidGoliathObserver
from hiddenhand.envs.david_goliath.rules import (
    CARD_VALUE, NUM_CARDS, DavidGoliathGame, colour_scores, resolve_trick,
)

from ..base import Agent


class DavidGoliathHeuristic(Agent):
    name = "heuristic"

    def __init__(self, game: DavidGoliathGame, seed: int | None = None):
        self.layout = DavidGoliathObserver.build_layout(game)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        trick_rows = self.layout.view(observation, "trick")
        trick = [int(np.argmax(row)) for row in trick_rows if row.any()]
        if not trick:
            return int(min(legal, key=lambda card: CARD_VALUE[card]))
        my_taken = np.flatnonzero(self.layout.view(observation, "seats")[0, :NUM_CARDS]).tolist()
        base = sum(colour_scores(my_taken))

        def gain(card: int) -> tuple[int, int]:
            cards = trick + [card]
            highest, lowest = resolve_trick([CARD_VALUE[c] for c in cards])
            mine = len(cards) - 1
            if mine == highest:
                won = [c for position, c in enumerate(cards) if position != highest]
            elif mine == lowest:
                won = [cards[highest]]
            else:
                won = []
            return sum(colour_scores(my_taken + won)) - base, -CARD_VALUE[card]

        return int(max(legal, key=gain))
