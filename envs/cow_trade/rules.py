"""Cow trade: Koehandel's sealed-bid trade as a two-player game (rules: docs/cow_trade_rules.md).

Seat 0 is the challenger C, seat 1 the challenged player D. Both are dealt money hands from a pool of
Koehandel's money cards (CT-1); C lays an offer face down, D accepts it unseen or counters, the offers
are swapped and the higher total wins the stake; a tie repeats the trade once, a second tie goes to C
(§4; Koehandel's K-A21, K-A22, K-A23). Offers are built card by card in ascending denomination (CT-2). Scores
are the change in each trader's value: the stake's worth to its winner plus the money each received
minus the money each gave (CT-3); they sum to the stake's worth, so the game is constant-sum.

Money is counted per denomination (0, 10, 20, 50, 100, 200, 500), as in Koehandel. The invariants, the
snapshot checks and the position helper are in :mod:`.checks`, the re-deal in :mod:`.hidden`.
"""

from __future__ import annotations

from operator import mul
from typing import Any

import numpy as np

from ..core.game import State
from ..core.layout_game import LayoutGame
from ..core.options import Int, IntList, Option, Options, check_with
from ..core.schema import dump_fields, load_fields
from ..koehandel.cards import DENOMINATIONS, NUM_DENOMS
from . import checks, hidden
from .render import render
from .vocab import (
    ACCEPT, ACCEPTED, C_WINS, CARD, CHALLENGED, CHALLENGER, COUNTER, COUNTER_OFFER, COUNTERED, D_WINS, DONE,
    KOEHANDEL_MONEY, LAYOUT, NO_RESPONSE, OFFER, OVER, RESPONSE, ROW, ROW_COUNTER, ROW_OFFER, TIE, UNDECIDED,
)

OPTIONS = Options("cow_trade", [
    Option("money", (2, 3, 1, 1, 0, 0, 0), IntList(NUM_DENOMS, 0, max(KOEHANDEL_MONEY)),
           "the money cards both hands are dealt from, per denomination 0..500 (CT-1)"),
    Option("hand_sizes", (3, 3), IntList(2, 1, sum(KOEHANDEL_MONEY)), "cards dealt to C and to D (CT-1)"),
    Option("stake", 1, Int(1, 2), "animal cards at stake (§1)"),
    Option("card_value", 40, Int(0, 10_000),
           "the worth of one stake card to either trader, in money; 40: a dog (CT-3)"),
])


def _money(counts: list[int]) -> int:
    """The value of money counts (Koehandel's ``value``, in one C-level pass: scores are read at every end)."""
    return sum(map(mul, counts, DENOMINATIONS))


class CowTradeState(State):
    """A position: money per denomination, the offer on the table, the record of the rounds."""

    def __init__(self, game: CowTradeGame):
        self.game = game
        self.hands = [[0] * NUM_DENOMS for _ in range(2)]
        self.start = [[0] * NUM_DENOMS for _ in range(2)]   # the hands as dealt (each trader knows its own)
        self.selection = [0] * NUM_DENOMS                    # the offer being built, in the mover's hand
        self.offer = [0] * NUM_DENOMS                        # C's offer lying face down
        self.decision = OFFER
        self.round = 1
        self.record: list[list[int]] = []                    # one ROW per round begun
        self.winner = -1
        self.current_player = CHALLENGER
        self.is_terminal = False

    def setup(self, rng: np.random.Generator) -> None:
        """CT-1: C's hand, then D's, drawn from the pool without replacement: the counts per denomination
        of a uniformly random set of cards (the multivariate hypergeometric law)."""
        pool = np.array(self.game.money, np.int64)
        for seat, size in enumerate(self.game.hand_sizes):
            hand = rng.multivariate_hypergeometric(pool, size)
            pool -= hand
            self.hands[seat], self.start[seat] = hand.tolist(), hand.tolist()

    # ------------------------------------------------------------------ transitions
    def legal_mask(self) -> np.ndarray:
        if self.decision == RESPONSE:  # countering needs a money card (K-A21)
            return self.game.mask_of((ACCEPT, COUNTER) if any(self.hands[CHALLENGED]) else (ACCEPT,))
        if self.decision == OVER:
            return self.game.mask_of(())
        hand, chosen = self.hands[self.current_player], self.selection
        low = max((d for d in range(NUM_DENOMS) if chosen[d]), default=0)  # CT-2: ascending
        cards = tuple(CARD + d for d in range(low, NUM_DENOMS) if hand[d] > chosen[d])
        return self.game.mask_of(cards + (DONE,) if any(chosen) else cards)  # at least one card (K-A21)

    def apply(self, action: int, rng: np.random.Generator) -> None:
        if action < DONE:
            self.selection[action - CARD] += 1
        elif action == DONE:
            self._lay()
        elif action == ACCEPT:
            self._accept()
        else:
            self.record[-1][1] = COUNTERED
            self.decision = COUNTER_OFFER

    def _lay(self) -> None:
        chosen, self.selection = self.selection, [0] * NUM_DENOMS
        mover = self.current_player
        self.hands[mover] = [h - c for h, c in zip(self.hands[mover], chosen)]
        if self.decision == OFFER:  # face down; its number of cards is public (K-A22)
            self.offer = chosen
            self.record.append([sum(chosen), NO_RESPONSE, 0, UNDECIDED] + [0] * (2 * NUM_DENOMS))
            self.decision, self.current_player = RESPONSE, CHALLENGED
        else:
            self._exchange(chosen)

    def _accept(self) -> None:
        """D takes the offer unseen and hands over the stake: C wins (§4)."""
        row = self.record[-1]
        row[1], row[3] = ACCEPTED, C_WINS
        row[ROW_OFFER:ROW_COUNTER] = self.offer
        self.hands[CHALLENGED] = [h + c for h, c in zip(self.hands[CHALLENGED], self.offer)]
        self.offer = [0] * NUM_DENOMS
        self._finish(CHALLENGER)

    def _exchange(self, counter: list[int]) -> None:
        """The offers are swapped; the higher total wins; a first tie repeats the trade, a second goes to C
        (§4, K-A23)."""
        offer, self.offer = self.offer, [0] * NUM_DENOMS
        self.hands[CHALLENGER] = [h + c for h, c in zip(self.hands[CHALLENGER], counter)]
        self.hands[CHALLENGED] = [h + c for h, c in zip(self.hands[CHALLENGED], offer)]
        vc, vd = _money(offer), _money(counter)
        result = C_WINS if vc > vd else D_WINS if vd > vc else TIE
        row = self.record[-1]
        row[2], row[3] = sum(counter), result
        row[ROW_OFFER:ROW_COUNTER], row[ROW_COUNTER:] = offer, counter
        if result == TIE and self.round == 1:
            self.round = 2
            self.decision, self.current_player = OFFER, CHALLENGER
        else:
            self._finish(CHALLENGED if result == D_WINS else CHALLENGER)

    def _finish(self, winner: int) -> None:
        self.winner = winner
        self.decision, self.current_player, self.is_terminal = OVER, -1, True

    # ------------------------------------------------------------------ reporting
    def scores(self) -> list[float]:
        """CT-3: the stake's worth to its winner, plus money received minus money given (the offer on the
        table still counts as C's)."""
        hands, start, worth = self.hands, self.start, self.game.worth
        c = _money(hands[0]) + _money(self.offer) - _money(start[0]) + (worth if self.winner == CHALLENGER else 0)
        d = _money(hands[1]) - _money(start[1]) + (worth if self.winner == CHALLENGED else 0)
        return [float(c), float(d)]

    def score_breakdown(self) -> dict[str, Any]:
        return {"winner": self.winner, "stake_worth": self.game.worth,
                "money_change": [_money(self.hands[s]) - _money(self.start[s]) for s in (CHALLENGER, CHALLENGED)],
                "rounds": [dict(zip(ROW, row)) for row in self.record]}

    def to_json(self) -> dict[str, Any]:
        return dump_fields(self, checks.SCHEMA)

    def clone(self) -> CowTradeState:
        copy = object.__new__(CowTradeState)
        copy.__dict__.update(self.to_json())
        copy.game = self.game
        return copy

    def resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        hidden.resample(self, player, rng)

    def render(self, viewer: int | None = None) -> str:
        return render(self, viewer)


class CowTradeGame(LayoutGame):
    """The duel, configured: the money pool, the hand sizes and the stake."""

    name = "cow_trade"
    min_players = 2
    max_players = 2
    score_scale = 100.0
    options = OPTIONS
    state_class = CowTradeState

    def __init__(self, num_players: int = 2, **options: Any):
        super().__init__(num_players)
        resolved = OPTIONS.resolve(options, where=self.name)
        self.money: tuple[int, ...] = resolved["money"]
        self.hand_sizes: tuple[int, ...] = resolved["hand_sizes"]
        self.stake: int = resolved["stake"]
        self.card_value: int = resolved["card_value"]
        check_with(self.name, "money", self.money, lambda m: all(c <= k for c, k in zip(m, KOEHANDEL_MONEY)),
                   f"at most Koehandel's money cards per denomination {list(KOEHANDEL_MONEY)} (K-A2)")
        check_with(self.name, "hand_sizes", self.hand_sizes, lambda h: sum(h) <= sum(self.money),
                   f"at most the {sum(self.money)} cards of money together (CT-1)")
        self.worth = self.stake * self.card_value  # the stake's worth to its winner (CT-3)
        self.layout = LAYOUT

    @property
    def max_game_length(self) -> int:
        """Two rounds of an offer (each card, then DONE), a response and a counter-offer."""
        cards = sum(self.hand_sizes)
        return 2 * (2 * (cards + 1) + 1)

    def config(self) -> dict[str, Any]:
        return {"money": list(self.money), "hand_sizes": list(self.hand_sizes), "stake": self.stake,
                "card_value": self.card_value}

    def score_range(self) -> tuple[float, float]:
        """Bounds of a score: a trader gains at most the stake and the whole pool, loses at most the pool."""
        pool = _money(self.money)
        return -float(pool), float(self.worth + pool)

    def score_sum(self) -> float:
        """Scores always sum to the stake's worth: money only changes hands (CT-3)."""
        return float(self.worth)

    def state_from_json(self, data: dict[str, Any]) -> CowTradeState:
        return load_fields(self.name, self.blank_state(), checks.SCHEMA, data)

    def invariants(self, state: CowTradeState) -> list[str]:
        return checks.invariants(self, state)

    def position(self, base: dict[str, Any], **spec: Any) -> dict[str, Any]:
        """A position from ``hands`` (C's and D's money, as card values such as ``[0, 10, 50]``) and,
        optionally, ``offer``: the cards C has laid face down (D is then to respond). See
        docs/cow_trade_rules.md §6."""
        return checks.position(self, base, spec)

    def announce(self, state: CowTradeState, action: int) -> str | None:
        """The table sees counts, responses and results, never which cards are chosen (K-A22)."""
        return None if action < DONE else self.action_to_string(action)
