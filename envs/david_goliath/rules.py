"""David & Goliath rules engine: pure game state and transitions (rules: docs/david_goliath_rules.md).

Cards are ids ``colour * 18 + (value - 1)`` over 5 colours x values 1..18 (Discrete(90)); a game with
N players uses values 1..3N (§1). Two players play the dummy variant by default (DG-5): a third table
seat, the dummy (seat 2), is dealt a hand and plays uniformly random legal cards from the env's RNG inside
``apply``; it is never an agent and its taken cards score for nobody. ``game.seats`` is the number of
table seats (3 in the dummy variant, else ``num_players``); per-seat card arrays have ``seats`` rows,
scores and totals ``num_players`` entries. Card constants live in :mod:`.cards`, the snapshot checks, the
invariants and the position helper in :mod:`.checks`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..core.dealing import deal_constrained
from ..core.game import Game, State
from ..core.options import Bool, Choice, Int, Option, Optional, Options, check_with
from . import checks
from .cards import (  # noqa: F401  (re-exported: the rules' vocabulary)
    ACTIONS, CARD_COLOUR, CARD_VALUE, COLOUR_LETTERS, COLOURS, HAND_SIZE, MAX_VALUE, NUM_CARDS, NUM_COLOURS,
    card_id, card_name, colour_score, colour_scores, parse_card,
)

#: The game's options (besides ``num_players``, 2..6); the env takes them as keywords.
OPTIONS = Options("david_goliath", [
    Option("rounds", None, Optional(Int(1, 100)), "rounds in a game; None: one per player (DG-4)"),
    Option("card_features", False, Bool(), "add the card_features observation block"),
    Option("trick_outlook", False, Bool(), "add the trick_outlook observation block"),
    Option("two_player_variant", None, Optional(Choice("dummy", "literal")),
           "two players only: 'dummy' (default; a random dummy third seat) or 'literal' (DG-5)"),
    # a smaller deck, for exact analysis (hiddenhand.openspiel's tiny configurations): colours x max_value
    # cards, every one dealt, hand_size to each table seat
    Option("colours", NUM_COLOURS, Int(1, NUM_COLOURS), "colours in the deck (the first ones of RYGBP)"),
    Option("max_value", None, Optional(Int(1, MAX_VALUE)), "values 1..max_value; None: 3 per table seat (§1)"),
    Option("hand_size", HAND_SIZE, Int(1, HAND_SIZE), "cards dealt to each table seat, tricks per round (§1)"),
])
#: The deck options and their defaults: ``config()`` lists them only when they differ (older snapshots load).
DECK_DEFAULTS = {"colours": NUM_COLOURS, "max_value": None, "hand_size": HAND_SIZE}


def resolve_trick(values: Sequence[int]) -> tuple[int, int]:
    """Play-order positions of the highest and the lowest card of a complete trick (§3.3).

    Ties go to the card played last; if all values are equal the last card is highest and the
    second-to-last lowest.
    """
    highest = lowest = 0
    for position in range(1, len(values)):
        if values[position] >= values[highest]:
            highest = position
        if values[position] <= values[lowest]:
            lowest = position
    if highest == lowest:  # all values equal
        lowest = len(values) - 2
    return highest, lowest


class DavidGoliathGame(Game):
    """David & Goliath for 2-6 players (2: the dummy variant by default, or the literal one; DG-5)."""

    name = "david_goliath"
    min_players = 2
    max_players = 6
    score_scale = 100.0
    options: ClassVar[Options] = OPTIONS

    def __init__(self, num_players: int = 4, **options: Any):
        super().__init__(num_players)
        resolved = OPTIONS.resolve(options, where=self.name)
        self.card_features: bool = resolved["card_features"]
        self.trick_outlook: bool = resolved["trick_outlook"]
        variant = resolved["two_player_variant"]
        check_with(self.name, "two_player_variant", variant, lambda v: v is None or self.num_players == 2,
                   "None unless num_players=2 (DG-5)")
        self.two_player_variant: str | None = (variant or "dummy") if self.num_players == 2 else None
        #: DG-5: the dummy's table seat (after both players), or None.
        self.dummy: int | None = 2 if self.two_player_variant == "dummy" else None
        self.seats: int = 3 if self.dummy is not None else self.num_players
        self.rounds: int = self.num_players if resolved["rounds"] is None else resolved["rounds"]  # DG-4, DG-5
        self.deck_options = {key: resolved[key] for key in DECK_DEFAULTS if resolved[key] != DECK_DEFAULTS[key]}
        self.colours: int = resolved["colours"]
        self.hand_size: int = resolved["hand_size"]
        # §1; DG-5: the dummy variant uses the 3-player deck
        self.max_value: int = 3 * self.seats if resolved["max_value"] is None else resolved["max_value"]
        check_with(self.name, "hand_size", self.hand_size, lambda h: h * self.seats == self.colours * self.max_value,
                   f"colours x max_value = {self.colours * self.max_value} cards shared by {self.seats} table seats")
        self.deck = np.array([card_id(c, v) for c in range(self.colours) for v in range(1, self.max_value + 1)])
        self.in_play = np.zeros(NUM_CARDS, bool)
        self.in_play[self.deck] = True

    @property
    def num_actions(self) -> int:
        return ACTIONS.size

    @property
    def max_game_length(self) -> int:
        return self.rounds * self.hand_size * self.num_players

    def config(self) -> dict[str, Any]:
        config = {"num_players": self.num_players, "rounds": self.rounds, "card_features": self.card_features}
        if self.trick_outlook:  # listed only when on: older snapshots load
            config["trick_outlook"] = True
        if self.num_players == 2:
            config["two_player_variant"] = self.two_player_variant
        return config | self.deck_options

    def invariants(self, state: DavidGoliathState) -> list[str]:
        """Every card of the deck in exactly one place, hand sizes, whose turn, voids, tallies and totals;
        see :func:`.checks.invariants`."""
        return checks.invariants(self, state)

    def position(self, base: dict[str, Any], **spec: Any) -> dict[str, Any]:
        """A position for ``env.set_position(seed=..., **spec)``, from ``base`` (a fresh deal's data).

        Keywords (all optional; what is not given comes from ``base``):

        * ``hands``: per seat, its cards as names (``"R12"``, ``"red 12"``) or ids. The longest hand sets the
          tricks already played (15 minus its size); the others must hold one card fewer for each card
          they played to the current trick.
        * ``leader``: the seat that led (or is to lead) the current trick; the current player follows from it
          and the trick.
        * ``dealer``: default the seat before ``leader`` when no trick of the round has been played (DG-3),
          else ``base``'s.
        * ``trick``: the cards played to the current trick, in play order from ``leader``. A card off the led
          colour marks its player void in that colour.
        * ``taken``: per seat, the cards it took this round (§3.5). Every card of the deck must be in a hand,
          the trick or a taken pile.
        * ``voids``: per seat, the colours it is known to hold none of (letters ``"RG"``, names or 0..4).
        * ``round``: rounds already completed (default 0).
        * ``totals``: per seat, the score of the completed rounds (spread over their colours in the
          breakdown), or ``round_colour_scores``: round x seat x colour, exactly.

        Anything inconsistent is refused by :meth:`invariants` (``SnapshotError`` naming it).
        """
        return checks.position(self, base, spec)

    def new_initial_state(self, rng: np.random.Generator) -> DavidGoliathState:
        return DavidGoliathState(self, dealer=int(rng.integers(self.num_players)), rng=rng)  # DG-1 (DG-5: a player)

    def state_from_json(self, data: dict[str, Any]) -> DavidGoliathState:
        return DavidGoliathState.from_json(self, data)

    def action_to_string(self, action: int) -> str:
        return ACTIONS.names[action]

    def string_to_action(self, text: str) -> int:
        """Accepts ``R12``, ``red 12`` or an action id."""
        return parse_card(text)


class DavidGoliathState(State):
    """A position. Arrays are indexed by absolute seat; ``trick`` lists cards in play order."""

    def __init__(self, game: DavidGoliathGame, dealer: int, rng: np.random.Generator | None):
        n = game.seats  # table seats (DG-5: with the dummy)
        self.game = game
        self.hands = np.zeros((n, NUM_CARDS), np.int8)
        self.taken = np.zeros((n, NUM_CARDS), np.int8)  # this round, public (§3.5)
        self.voids = np.zeros((n, NUM_COLOURS), np.int8)  # revealed by not following, this round
        self.taken_count = np.zeros((n, NUM_COLOURS), np.int64)  # cards per colour, this round
        self.colour_points = np.zeros((n, NUM_COLOURS), np.int64)  # their score so far (§4)
        self.played = np.zeros(NUM_CARDS, np.int8)  # cards of this round's finished tricks
        self._following = np.zeros(NUM_CARDS, np.int8)  # legal_mask's buffer when the led colour binds
        self.colour_counts = [[0] * NUM_COLOURS for _ in range(n)]
        self.trick: list[int] = []
        self.totals = np.zeros(game.num_players, np.int64)
        self.round_colour_scores: list[list[list[int]]] = []  # round x player x colour
        self.round = 0
        self.tricks_played = 0
        self.dealer = dealer
        self.leader = self.current_player = (dealer + 1) % game.num_players  # DG-3; DG-5: the non-dealer
        self.is_terminal = False
        if rng is not None:
            self._deal(rng)

    # ------------------------------------------------------------------ transitions
    def legal_mask(self) -> np.ndarray:
        hand = self.hands[self.current_player]
        if self.trick:
            led = CARD_COLOUR[self.trick[0]]
            if self.colour_counts[self.current_player][led]:  # must follow (§3.2)
                out = self._following
                out.fill(0)
                start = led * MAX_VALUE
                out[start:start + MAX_VALUE] = hand[start:start + MAX_VALUE]
                return out
        return hand

    def apply(self, action: int, rng: np.random.Generator) -> None:
        player = self.current_player
        colour = CARD_COLOUR[action]
        self.hands[player, action] = 0
        self.colour_counts[player][colour] -= 1
        trick = self.trick
        if trick:
            led = CARD_COLOUR[trick[0]]
            if colour != led and not self.voids[player, led]:
                self.voids[player, led] = 1
        trick.append(action)
        if len(trick) < self.game.seats:
            self.current_player = (player + 1) % self.game.seats
            if self.current_player == self.game.dummy:
                self._dummy_plays(rng)
        else:
            self._finish_trick(rng)

    def _dummy_plays(self, rng: np.random.Generator) -> None:
        """DG-5: the dummy plays a uniformly random legal card of its hand (following the led colour when it
        can), drawn from the env's RNG; then play goes on (it may finish the trick)."""
        legal = self.legal_mask().nonzero()[0]
        self.apply(int(legal[rng.integers(len(legal))]), rng)

    def _finish_trick(self, rng: np.random.Generator) -> None:
        n = self.game.seats
        highest, lowest = resolve_trick([CARD_VALUE[card] for card in self.trick])
        goliath_taker = (self.leader + lowest) % n  # David takes Goliath (§3.4)
        winner = (self.leader + highest) % n
        for position, card in enumerate(self.trick):
            taker = goliath_taker if position == highest else winner
            self._take(taker, card)
        self.trick = []
        self.tricks_played += 1
        self.leader = self.current_player = winner  # DG-2: highest card leads the next trick
        if self.tricks_played == self.game.hand_size:
            self._end_round(rng)
        elif winner == self.game.dummy:
            self._dummy_plays(rng)  # DG-5: the dummy leads after taking a trick

    def _take(self, taker: int, card: int) -> None:
        """Move a played card to ``taker``'s pile, keeping the colour tallies (§4)."""
        colour = CARD_COLOUR[card]
        self.taken[taker, card] = 1
        self.played[card] = 1
        count = self.taken_count[taker, colour] = self.taken_count[taker, colour] + 1
        if count <= 2:
            self.colour_points[taker, colour] += CARD_VALUE[card]
        else:
            self.colour_points[taker, colour] = count

    def _end_round(self, rng: np.random.Generator) -> None:
        by_colour = self.colour_points[:self.game.num_players].tolist()  # DG-5: the dummy's cards score for nobody
        self.round_colour_scores.append(by_colour)
        for seat, colours in enumerate(by_colour):
            self.totals[seat] += sum(colours)
        self.round += 1
        if self.round == self.game.rounds:
            self.is_terminal = True
            self.current_player = -1
        else:
            self.dealer = (self.dealer + 1) % self.game.num_players  # §2; DG-5: alternates between the players
            self._deal(rng)

    def _deal(self, rng: np.random.Generator) -> None:
        n = self.game.seats  # DG-5: the dummy is dealt 15 cards too
        cards = rng.permutation(self.game.deck)
        self.hands.fill(0)
        self.hands[np.repeat(np.arange(n), self.game.hand_size), cards] = 1
        self.colour_counts = self.hands.reshape(n, NUM_COLOURS, MAX_VALUE).sum(axis=2).tolist()
        self.taken.fill(0)
        self.taken_count.fill(0)
        self.colour_points.fill(0)
        self.played.fill(0)
        self.voids.fill(0)
        self.trick = []
        self.tricks_played = 0
        self.leader = self.current_player = (self.dealer + 1) % self.game.num_players  # DG-3 (DG-5: the non-dealer)

    def clone(self) -> DavidGoliathState:
        """An independent copy (arrays and lists copied, the game shared), several times cheaper than
        ``copy.deepcopy``; search agents use it for their determinizations."""
        new = object.__new__(DavidGoliathState)
        data = self.__dict__.copy()
        for key in ("hands", "taken", "voids", "taken_count", "colour_points", "played", "_following", "totals"):
            data[key] = data[key].copy()
        data["colour_counts"] = [list(row) for row in self.colour_counts]
        data["trick"] = list(self.trick)
        data["round_colour_scores"] = list(self.round_colour_scores)  # completed rounds are never changed
        new.__dict__.update(data)
        return new

    # ------------------------------------------------------------------ reporting
    def scores(self) -> list[float]:
        """Totals so far, plus the current round's points while a round is in progress."""
        if self.is_terminal:
            return self.totals.tolist()
        return (self.totals + self.colour_points[:self.game.num_players].sum(axis=1)).tolist()

    def score_breakdown(self) -> dict[str, Any]:
        return {
            "colours": list(COLOURS),
            "round_colour_scores": [[list(seat) for seat in rnd] for rnd in self.round_colour_scores],
        }

    def render(self, viewer: int | None = None) -> str:
        n = self.game.seats
        seat_name = [f"player_{seat}" if seat != self.game.dummy else "dummy" for seat in range(n)]
        lines = [
            f"round {min(self.round + 1, self.game.rounds)}/{self.game.rounds}  "
            f"trick {min(self.tricks_played + 1, self.game.hand_size)}/{self.game.hand_size}  "
            f"dealer player_{self.dealer}  leader {seat_name[self.leader]}",
            "trick: " + (", ".join(f"{seat_name[(self.leader + k) % n]} {card_name(c)}"
                                   for k, c in enumerate(self.trick)) or "-"),
            f"{'seat':<10}{'score':>6}  {'hand':>4}  taken this round / voids",
        ]
        for seat in range(n):
            taken = " ".join(card_name(c) for c in np.flatnonzero(self.taken[seat])) or "-"
            voids = "".join(COLOUR_LETTERS[c] for c in np.flatnonzero(self.voids[seat]))
            total = self.totals[seat] if seat < len(self.totals) else "-"  # DG-5: the dummy scores nothing
            lines.append(f"{seat_name[seat]:<10}{total:>6}  {int(self.hands[seat].sum()):>4}  "
                         f"{taken}{'  void: ' + voids if voids else ''}")
        if viewer is not None:
            hand = " ".join(card_name(c) for c in np.flatnonzero(self.hands[viewer]))
            lines.append(f"your hand (player_{viewer}): {hand}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ serialisation
    def to_json(self) -> dict[str, Any]:
        return {
            "hands": [np.flatnonzero(row).tolist() for row in self.hands],
            "taken": [np.flatnonzero(row).tolist() for row in self.taken],
            "voids": self.voids.tolist(),
            "trick": list(self.trick),
            "totals": self.totals.tolist(),
            "round_colour_scores": [[list(seat) for seat in rnd] for rnd in self.round_colour_scores],
            "round": self.round,
            "tricks_played": self.tricks_played,
            "dealer": self.dealer,
            "leader": self.leader,
            "current_player": self.current_player,
            "is_terminal": self.is_terminal,
        }

    @classmethod
    def from_json(cls, game: DavidGoliathGame, data: dict[str, Any]) -> DavidGoliathState:
        """The state of ``to_json`` data, its types and ranges checked (``SnapshotError`` otherwise)."""
        data = checks.parse_state(game, data)
        state = cls(game, dealer=data["dealer"], rng=None)
        for seat, (hand, taken) in enumerate(zip(data["hands"], data["taken"])):
            state.hands[seat, hand] = 1
            for card in taken:
                state._take(seat, card)
        n = game.seats
        state.colour_counts = state.hands.reshape(n, NUM_COLOURS, MAX_VALUE).sum(axis=2).tolist()
        state.voids[:] = data["voids"]
        state.trick = list(data["trick"])
        state.totals[:] = data["totals"]
        state.round_colour_scores = data["round_colour_scores"]
        for key in ("round", "tricks_played", "leader", "current_player", "is_terminal"):
            setattr(state, key, data[key])
        return state

    # ------------------------------------------------------------------ information sets
    def resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        """Re-deal the other hands (DG-5: the opponent's and the dummy's) from the cards unseen by ``player``,
        keeping hand sizes and the publicly revealed voids (§6). The unseen cards are listed in id order, so
        the result depends only on what ``player`` knows and on ``rng``, never on who truly holds what."""
        others = [seat for seat in range(self.game.seats) if seat != player]
        unseen = np.flatnonzero(self.hands[others].sum(axis=0))
        capacities = [int(self.hands[seat].sum()) for seat in others]
        if not self.voids[others].any():  # no constraint: every split of a uniform shuffle is a uniform deal
            shuffled = unseen[rng.permutation(len(unseen))]
            hands = np.split(shuffled, np.cumsum(capacities)[:-1])
        else:
            hands = deal_constrained(
                unseen.tolist(), CARD_COLOUR, capacities=capacities,
                allowed=[[not self.voids[seat, c] for c in range(NUM_COLOURS)] for seat in others],
                rng=rng,
            )
        for seat, hand in zip(others, hands):
            self.hands[seat].fill(0)
            self.hands[seat, hand] = 1
            self.colour_counts[seat] = self.hands[seat].reshape(NUM_COLOURS, MAX_VALUE).sum(axis=1).tolist()
