"""The plain specification of the cow trade's observation and legal mask (the reference-module interface):
written block by block from the layout's names and from the rules, for the contract suite to hold the
game's observer and ``legal_mask`` to."""

from __future__ import annotations

import numpy as np

from ..koehandel.cards import DENOMINATIONS
from .observation import CowTradeObserver
from .vocab import ACCEPT, CARD, CHALLENGED, COUNTER, DONE, RESPONSE, ROW


def observation(state, seat: int) -> np.ndarray:
    """What ``seat`` sees of ``state`` (docs/cow_trade_rules.md §5), from scratch."""
    game = state.game
    layout = CowTradeObserver.build_layout(game)
    vector = np.zeros(layout.size, np.float32)
    view = layout.views(vector)
    view["role"][seat] = 1
    view["decision"][state.decision] = 1
    view["to_move"][0] = 1 if state.current_player == seat else 0
    view["stake"][:] = (game.stake, game.card_value / 10)
    view["hand"][:] = state.hands[seat]
    if state.current_player == seat:
        view["selection"][:] = state.selection
    view["hand_sizes"][:] = (sum(state.hands[seat]), sum(state.hands[1 - seat]))
    view["offer_on_table"][0] = sum(state.offer)
    if seat == 0:  # the challenger's own cards on the table
        view["own_offer"][:] = state.offer
    view["dealt"][:] = state.start[seat]
    for r, row in enumerate(state.record):
        cells = dict(zip(ROW, row))
        rounds = view["rounds"][r]
        rounds[0], rounds[1] = cells["offer_cards"], cells["counter_cards"]
        rounds[2], rounds[3] = cells["response"] == 1, cells["response"] == 2
        if cells["result"]:
            rounds[3 + cells["result"]] = 1
        rounds[7:] = [cells[f"offer_{d}"] for d in DENOMINATIONS] + [cells[f"counter_{d}"] for d in DENOMINATIONS]
    return vector


def legal_mask(state) -> np.ndarray:
    """The current trader's legal actions (§4): while building an offer, any card still in hand of a
    denomination no lower than the last one chosen (CT-2), and DONE once a card is chosen (K-A21); to an
    offer, ACCEPT, or COUNTER with a money card in hand (K-A21)."""
    mask = np.zeros(state.game.num_actions, np.int8)
    if state.is_terminal:
        return mask
    if state.decision == RESPONSE:
        mask[ACCEPT] = 1
        mask[COUNTER] = 1 if sum(state.hands[CHALLENGED]) > 0 else 0
        return mask
    hand = state.hands[state.current_player]
    chosen = [d for d, count in enumerate(state.selection) for _ in range(count)]
    lowest = chosen[-1] if chosen else 0
    for d in range(lowest, len(DENOMINATIONS)):
        if hand[d] - state.selection[d] >= 1:
            mask[CARD + d] = 1
    if chosen:
        mask[DONE] = 1
    return mask
