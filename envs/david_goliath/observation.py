"""David & Goliath observation encoder: what one seat may see, relative to that seat."""

from __future__ import annotations

import numpy as np

from ..core.game import Observer
from ..core.layout import ObservationLayout
from .cards import CARD_COLOUR, HAND_SIZE, MAX_VALUE, NUM_CARDS, NUM_COLOURS
from .outlook import outlook_rng, trick_outlook
from .rules import DavidGoliathGame, DavidGoliathState

#: Per seat: taken this round (90), revealed voids (5), cards taken per colour / 15 (5),
#: current score of each colour / 35 (5), total score / 100 (1).
SEAT_FEATURES = NUM_CARDS + 3 * NUM_COLOURS + 1
SCORE_DIVISOR = 100.0
#: A round scores at most two top cards in each colour.
MAX_COLOUR_SCORE = 2 * MAX_VALUE - 1
MAX_ROUND_SCORE = NUM_COLOURS * MAX_COLOUR_SCORE
#: Optional per-card channels (``card_features=True``): in hand and at least the trick's highest value
#: so far; in hand and at most its lowest; the points taking this card would add to / remove from
#: the observer's round score (/ 35). They spell out what the rest of the observation implies.
CARD_FEATURES = 4
CARD_VALUES = np.arange(NUM_CARDS) % MAX_VALUE + 1


class DavidGoliathObserver(Observer):
    """Seat-relative encoder: relative seat ``k`` is the seat ``k`` places clockwise of the observer. Seats are
    the table's (``game.seats``): in the two-player dummy variant the dummy is a seat too (DG-5), with its
    public data (taken cards, voids, tallies) and a total of 0 (it scores for nobody)."""

    def __init__(self, game: DavidGoliathGame):
        super().__init__(game)
        self.high = max(1.0, game.rounds * MAX_ROUND_SCORE / SCORE_DIVISOR)
        slices = self.layout.slices
        self._hand = slices["hand"]
        self._trick = self.layout.offset("trick")
        self._leader = self.layout.offset("trick_leader")
        self._led = self.layout.offset("led_colour")
        self._dealer = self.layout.offset("dealer")
        self._trick_number = self.layout.offset("trick_number")
        self._round = self.layout.offset("round_progress")
        self._seats = slices["seats"]
        self._unseen = slices["unseen"]
        self._card_features = slices.get("card_features")
        self._trick_outlook = slices.get("trick_outlook")
        n = self._n = game.seats
        self._players = game.num_players
        self._size = self.layout.size
        self._per_round = 1.0 / game.rounds
        self._in_play = np.zeros(NUM_CARDS, np.float32)
        self._in_play[game.deck] = 1.0
        # Per-seat public data twice over, so that rows [p, p + n) are seat p's rotated view.
        self._seat_rows = np.zeros((2 * n, SEAT_FEATURES), np.float32)
        self._not_taken = self._in_play.copy()  # cards in play that nobody has taken this round
        # divided, not multiplied by reciprocals: the same float32 values as the reference's plain divisions
        self._tally_divisors = np.array([HAND_SIZE] * NUM_COLOURS + [MAX_COLOUR_SCORE] * NUM_COLOURS
                                        + [SCORE_DIVISOR], np.float32)
        self._cached: tuple[DavidGoliathState, int] | None = None

    @staticmethod
    def build_layout(game: DavidGoliathGame) -> ObservationLayout:
        n = game.seats
        return ObservationLayout([
            ("hand", (NUM_CARDS,)),                 # own cards
            ("trick", (n, NUM_CARDS)),              # current trick, one card per play-order position
            ("trick_leader", (n,)),                 # relative seat that led it (plays position 0)
            ("led_colour", (NUM_COLOURS,)),
            ("dealer", (n,)),                       # relative seat of this round's dealer
            ("trick_number", (HAND_SIZE,)),         # tricks already played this round
            ("round_progress", (1,)),               # rounds completed / rounds
            ("seats", (n, SEAT_FEATURES)),          # per relative seat: taken cards, voids, colour tallies, score
            ("unseen", (NUM_CARDS,)),               # cards in play not yet seen: in other hands
        ] + ([("card_features", (CARD_FEATURES, NUM_CARDS))] if game.card_features else [])
          + ([("trick_outlook", (2 * n + 2, NUM_CARDS))] if game.trick_outlook else []))

    def encode(self, state: DavidGoliathState, player: int) -> np.ndarray:
        n = self._n
        out = np.zeros(self._size, np.float32)
        out[self._hand] = state.hands[player]
        for position, card in enumerate(state.trick):
            out[self._trick + position * NUM_CARDS + card] = 1.0
        if state.trick:
            out[self._led + state.trick[0] // MAX_VALUE] = 1.0
        out[self._leader + (state.leader - player) % n] = 1.0
        out[self._dealer + (state.dealer - player) % n] = 1.0
        if state.tricks_played < state.game.hand_size:
            out[self._trick_number + state.tricks_played] = 1.0
        out[self._round] = state.round * self._per_round
        out[self._seats] = self._seat_block(state)[player:player + n].ravel()
        unseen = out[self._unseen]
        np.subtract(self._not_taken, state.hands[player], out=unseen)
        for card in state.trick:
            unseen[card] = 0.0
        if self._card_features is not None:
            self._encode_card_features(state, player, out[self._card_features].reshape(CARD_FEATURES, NUM_CARDS))
        if self._trick_outlook is not None and state.current_player == player:  # zeros when not to move
            out[self._trick_outlook] = self._outlook(state, player, unseen).ravel()
        return out

    def invalidate(self) -> None:
        self._cached = None

    def _encode_card_features(self, state: DavidGoliathState, player: int, block: np.ndarray) -> np.ndarray:
        hand = state.hands[player]
        if state.trick:
            values = [card % MAX_VALUE + 1 for card in state.trick]
            np.multiply(hand, CARD_VALUES >= max(values), out=block[0])
            np.multiply(hand, CARD_VALUES <= min(values), out=block[1])
        else:
            block[0] = block[1] = hand
        counts = np.repeat(state.taken_count[player], MAX_VALUE)
        points = np.repeat(state.colour_points[player], MAX_VALUE)
        gain = np.where(counts < 2, CARD_VALUES, np.where(counts == 2, 3 - points, 1)) * self._in_play
        np.maximum(gain, 0, out=block[2])
        np.maximum(-gain, 0, out=block[3])
        block[2:] /= MAX_COLOUR_SCORE
        return block

    def _outlook(self, state: DavidGoliathState, player: int, unseen: np.ndarray) -> np.ndarray:
        n = self._n
        order = [(player + k) % n for k in range(n)]
        hand = np.flatnonzero(state.hands[player])
        if state.trick:
            following = hand[[CARD_COLOUR[card] == CARD_COLOUR[state.trick[0]] for card in hand]]
            hand = following if len(following) else hand
        return trick_outlook(state.trick, (state.leader - player) % n, hand.tolist(), np.flatnonzero(unseen),
                             state.taken_count[order].tolist(), state.colour_points[order].tolist(),
                             outlook_rng(state.round, state.tricks_played, len(state.trick)))

    def _seat_block(self, state: DavidGoliathState) -> np.ndarray:
        """Seat rows of the current public data, rebuilt when :func:`public_key` changes."""
        key = public_key(state)
        if self._cached is None or self._cached[0] is not state or self._cached[1] != key:
            n = self._n
            rows = self._seat_rows
            rows[:n, :NUM_CARDS] = state.taken
            rows[:n, NUM_CARDS:NUM_CARDS + NUM_COLOURS] = state.voids
            tallies = NUM_CARDS + NUM_COLOURS
            rows[:n, tallies:tallies + NUM_COLOURS] = state.taken_count
            rows[:n, tallies + NUM_COLOURS:-1] = state.colour_points
            rows[:self._players, -1] = state.totals  # DG-5: the dummy's row keeps 0
            rows[:n, tallies:] /= self._tally_divisors
            rows[n:] = rows[:n]
            self._not_taken = self._in_play - state.played
            self._cached = (state, key)
        return self._seat_rows


def public_key(state: DavidGoliathState) -> tuple:
    """What the seat rows depend on, read from the state itself (no counter to bump): taken cards, tallies,
    points and totals change only when a trick is resolved (§3.4, §4), which moves ``tricks_played`` or
    ``round``; voids (§6) are compared as they are."""
    return state.round, state.tricks_played, state.voids.tobytes()
