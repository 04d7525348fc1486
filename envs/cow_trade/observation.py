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
| `rounds` | (2, 21) | per round: offer cards, counter cards, accepted, countered, C won, D won, tie, |
| | | the offer's and the counter's cards per denomination (both traders know them from the exchange on) |

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
        at = self.layout.offset
        self._role, self._decision, self._to_move = at("role"), at("decision"), at("to_move")
        self._stake_at, self._sizes = at("stake"), at("hand_sizes")
        self._table, self._rounds = at("offer_on_table"), at("rounds")
        self._hand, self._selection, self._own_offer, self._dealt = (
            slice(at(name), at(name) + NUM_DENOMS) for name in ("hand", "selection", "own_offer", "dealt"))
        self._stake = [float(game.stake), game.card_value / 10]

    @staticmethod
    def build_layout(game) -> ObservationLayout:
        return ObservationLayout([
            ("role", (2,)), ("decision", (4,)), ("to_move", (1,)), ("stake", (2,)), ("hand", (NUM_DENOMS,)),
            ("selection", (NUM_DENOMS,)), ("hand_sizes", (2,)), ("offer_on_table", (1,)),
            ("own_offer", (NUM_DENOMS,)), ("dealt", (NUM_DENOMS,)), ("rounds", (2, ROUND_FEATURES)),
        ])

    def encode(self, state, player: int) -> np.ndarray:
        """Written into a list, one array made at the end (numpy item writes cost more)."""
        out = [0.0] * self.layout.size
        out[self._role + player] = 1.0
        out[self._decision + state.decision] = 1.0
        out[self._stake_at:self._stake_at + 2] = self._stake
        hand = state.hands[player]
        out[self._hand] = hand
        if state.current_player == player:
            out[self._to_move] = 1.0
            out[self._selection] = state.selection
        out[self._sizes] = sum(hand)
        out[self._sizes + 1] = sum(state.hands[1 - player])
        out[self._table] = sum(state.offer)
        if player == 0:
            out[self._own_offer] = state.offer
        out[self._dealt] = state.start[player]
        base = self._rounds
        for row in state.record:
            out[base] = row[OFFER_CARDS]
            out[base + 1] = row[COUNTER_CARDS]
            out[base + 2] = float(row[RESPONSE_CELL] == ACCEPTED)
            out[base + 3] = float(row[RESPONSE_CELL] == COUNTERED)
            if row[RESULT]:
                out[base + 3 + row[RESULT]] = 1.0
            out[base + 7:base + ROUND_FEATURES] = row[ROW_OFFER:ROW_OFFER + 2 * NUM_DENOMS]
            base += ROUND_FEATURES
        return np.array(out, np.float32)
