"""David & Goliath's readable specification of its fast path (docs/david_goliath_rules.md §7, §9, and the
env card's Observation Space): a seat's observation written from scratch, block by block, and the legal
cards. Slow and plain on purpose; the contract suite requires the fast observer and ``legal_mask`` to
equal them everywhere, and ``env(observer="reference")`` plays on them."""

from __future__ import annotations

import numpy as np

from .cards import CARD_COLOUR, CARD_VALUE, COLOURS, HAND_SIZE, MAX_VALUE, NUM_CARDS, colour_score
from .observation import CARD_FEATURES, MAX_COLOUR_SCORE, SCORE_DIVISOR, DavidGoliathObserver
from .outlook import outlook_rng, trick_outlook
from .rules import DavidGoliathState


def legal_mask(state: DavidGoliathState) -> np.ndarray:
    """§3.1-3.2: any card in hand when leading; when following, a card of the led colour if the player holds
    one, else any card."""
    hand = [card for card in range(NUM_CARDS) if state.hands[state.current_player, card]]
    if state.trick:
        led = CARD_COLOUR[state.trick[0]]
        following = [card for card in hand if CARD_COLOUR[card] == led]
        hand = following or hand
    mask = np.zeros(NUM_CARDS, np.int8)
    mask[hand] = 1
    return mask


def observation(state: DavidGoliathState, seat: int) -> np.ndarray:
    """What ``seat`` sees (§6), relative to it: relative seat k is the seat k places clockwise."""
    game = state.game
    layout = DavidGoliathObserver.build_layout(game)
    out = np.zeros(layout.size, np.float32)
    block = layout.views(out)

    def relative(other: int) -> int:
        return (other - seat) % game.seats

    block["hand"][:] = state.hands[seat]
    for position, card in enumerate(state.trick):
        block["trick"][position, card] = 1
    block["trick_leader"][relative(state.leader)] = 1
    if state.trick:
        block["led_colour"][CARD_COLOUR[state.trick[0]]] = 1
    block["dealer"][relative(state.dealer)] = 1
    if state.tricks_played < HAND_SIZE:
        block["trick_number"][state.tricks_played] = 1
    block["round_progress"][0] = state.round / game.rounds
    for other in range(game.seats):
        block["seats"][relative(other)] = seat_row(state, other)
    taken_by_anyone = state.taken.any(axis=0)
    for card in game.deck:  # §6: cards in play not seen yet are in the other hands
        seen = state.hands[seat, card] or taken_by_anyone[card] or card in state.trick
        block["unseen"][card] = not seen
    if game.card_features:
        block["card_features"][:] = card_features(state, seat)
    if game.trick_outlook and state.current_player == seat:  # zeros when the seat is not to move
        block["trick_outlook"][:] = outlook(state, seat, np.flatnonzero(block["unseen"]))
    return out


def seat_row(state: DavidGoliathState, seat: int) -> np.ndarray:
    """A seat's public record: cards taken this round (§3.5), revealed voids (§6), cards taken per colour
    / 15, points per colour / 35 (§4), total score / 100 (DG-5: none for the dummy)."""
    taken = [card for card in range(NUM_CARDS) if state.taken[seat, card]]
    by_colour = [[CARD_VALUE[card] for card in taken if CARD_COLOUR[card] == colour] for colour in range(len(COLOURS))]
    total = state.totals[seat] if seat < state.game.num_players else 0
    return np.concatenate([state.taken[seat], state.voids[seat], [len(values) / HAND_SIZE for values in by_colour],
                           [colour_score(values) / MAX_COLOUR_SCORE for values in by_colour],
                           [total / SCORE_DIVISOR]])


def card_features(state: DavidGoliathState, seat: int) -> np.ndarray:
    """Per card: in hand and at least the trick's highest value so far; in hand and at most its lowest (any
    card in hand when no card is out); the points taking it would add to / remove from the seat's round
    score, / 35 (§4)."""
    features = np.zeros((CARD_FEATURES, NUM_CARDS))
    values = [CARD_VALUE[card] for card in state.trick]
    taken = [card for card in range(NUM_CARDS) if state.taken[seat, card]]
    for card in range(NUM_CARDS):
        value, in_hand = card % MAX_VALUE + 1, state.hands[seat, card]
        features[0, card] = in_hand and (not values or value >= max(values))
        features[1, card] = in_hand and (not values or value <= min(values))
        if state.game.in_play[card]:
            before = [CARD_VALUE[other] for other in taken if CARD_COLOUR[other] == CARD_COLOUR[card]]
            gain = colour_score([*before, value]) - colour_score(before)
            features[2, card] = max(gain, 0) / MAX_COLOUR_SCORE
            features[3, card] = max(-gain, 0) / MAX_COLOUR_SCORE
    return features


def outlook(state: DavidGoliathState, seat: int, unseen: np.ndarray) -> np.ndarray:
    """The trick's likely outcome for each legal card of ``seat``, the seat to move
    (:func:`.outlook.trick_outlook`), seats relative to it, cards and points per colour counted from the
    taken cards (§4)."""
    n = state.game.seats
    seats = [(seat + k) % n for k in range(n)]
    taken = [[card for card in range(NUM_CARDS) if state.taken[other, card]] for other in seats]
    counts = [[sum(CARD_COLOUR[card] == colour for card in cards) for colour in range(len(COLOURS))] for cards in taken]
    points = [[colour_score([CARD_VALUE[card] for card in cards if CARD_COLOUR[card] == colour])
               for colour in range(len(COLOURS))] for cards in taken]
    return trick_outlook(state.trick, (state.leader - seat) % n, list(np.flatnonzero(legal_mask(state))), unseen, counts, points,
                         outlook_rng(state.round, state.tricks_played, len(state.trick)))
