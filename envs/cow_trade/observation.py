"""What a trader sees (docs/cow_trade_rules.md §5): a float32 vector in named blocks, seat-relative.

| block | shape | content |
|---|---|---|
| `role` | (2,) | one-hot: I am the challenger C, or the challenged D |
| `decision` | (4,) | one-hot: offer, response, counter, over |
| `to_move` | (1,) | 1 when the decision is mine |
| `stake` | (2,) | animal cards at stake, and the worth of one / 10 |
| `hand` | (7,) | my money cards per denomination 0, 10, 20, 50, 100, 200, 500 |
| `selection` | (7,) | the offer I am building |
| `hand_sizes` | (2,) | my number of money cards, the other's (public, K-A13) |
| `offer_on_table` | (1,) | the number of cards of C's face-down offer (public, K-A22) |
| `own_offer` | (7,) | my face-down offer (C, while it lies on the table) |
| `dealt` | (7,) | my money as dealt |
| `rounds` | (2, 21) | per round: offer cards, counter cards, accepted, countered, C won, D won, tie, the offer's and the counter's cards per denomination (known to both from the accept or the exchange on) |

Nothing else is hidden from a trader but the other's money and, before the exchange, C's offer: neither
appears. The vector is perfect recall: the record keeps every round.
"""

from __future__ import annotations

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from ..koehandel.cards import NUM_DENOMS
from .vocab import (
    ACCEPTED, COUNTER_CARDS, COUNTERED, OFFER_CARDS, RESPONSE_CELL, RESULT, ROW_OFFER,
)

ROUND_FEATURES = 7 + 2 * NUM_DENOMS


class CowTradeObserver(Observer):
    high = 1000.0
    policy_input = "signed_log"

    def __init__(self, game):
        super().__init__(game)
        self._at = {name: self.layout.offset(name) for name in self.layout.shapes}
        self._stake = np.array([game.stake, game.card_value / 10], np.float32)

    @staticmethod
    def build_layout(game) -> ObservationLayout:
        return ObservationLayout([
            ("role", (2,)), ("decision", (4,)), ("to_move", (1,)), ("stake", (2,)), ("hand", (NUM_DENOMS,)),
            ("selection", (NUM_DENOMS,)), ("hand_sizes", (2,)), ("offer_on_table", (1,)),
            ("own_offer", (NUM_DENOMS,)), ("dealt", (NUM_DENOMS,)), ("rounds", (2, ROUND_FEATURES)),
        ])

    def encode(self, state, player: int) -> np.ndarray:
        at = self._at
        out = np.zeros(self.layout.size, np.float32)
        out[at["role"] + player] = 1.0
        out[at["decision"] + state.decision] = 1.0
        out[at["to_move"]] = state.current_player == player
        out[at["stake"]:at["stake"] + 2] = self._stake
        out[at["hand"]:at["hand"] + NUM_DENOMS] = state.hands[player]
        if state.current_player == player:
            out[at["selection"]:at["selection"] + NUM_DENOMS] = state.selection
        out[at["hand_sizes"]] = sum(state.hands[player])
        out[at["hand_sizes"] + 1] = sum(state.hands[1 - player])
        out[at["offer_on_table"]] = sum(state.offer)
        if player == 0:
            out[at["own_offer"]:at["own_offer"] + NUM_DENOMS] = state.offer
        out[at["dealt"]:at["dealt"] + NUM_DENOMS] = state.start[player]
        for r, row in enumerate(state.record):
            base = at["rounds"] + r * ROUND_FEATURES
            out[base] = row[OFFER_CARDS]
            out[base + 1] = row[COUNTER_CARDS]
            out[base + 2] = row[RESPONSE_CELL] == ACCEPTED
            out[base + 3] = row[RESPONSE_CELL] == COUNTERED
            if row[RESULT]:
                out[base + 3 + row[RESULT]] = 1.0
            out[base + 7:base + ROUND_FEATURES] = row[ROW_OFFER:ROW_OFFER + 2 * NUM_DENOMS]
        return out
