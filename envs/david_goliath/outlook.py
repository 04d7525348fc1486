"""The current trick's likely outcome for each card a seat could play (docs/david_goliath_rules.md §3.3, §3.4,
§4): the model the heuristic plays by, and the optional ``trick_outlook`` observation block.

The seats after the observer complete the trick with cards it has not seen: cards of the led colour most
of the time when enough of them are out, else any. Seats are relative: the observer is seat 0, and trick
position ``p`` is played by seat ``(leader + p) % n``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .cards import CARD_COLOUR, CARD_VALUE, NUM_CARDS
from .rules import resolve_trick

SAMPLES = 12
FOLLOW_PROBABILITY = 0.7
#: Divides the score changes in the block; a trick changes a round score by at most 88 points (§4).
CHANGE_SCALE = 70.0


def completions(unseen: np.ndarray, led: int, missing: int, rng: np.random.Generator) -> list[list[int]]:
    """``SAMPLES`` random ways for the ``missing`` seats after the observer to finish a trick of colour ``led``."""
    same = unseen[[CARD_COLOUR[card] == led for card in unseen]]
    rows = []
    for _ in range(SAMPLES):
        follow = len(same) >= missing and rng.random() < FOLLOW_PROBABILITY
        pool = same if follow else unseen
        rows.append(pool[rng.permutation(len(pool))[:missing]].tolist())
    return rows


def takings(cards: Sequence[int]) -> tuple[tuple[int, list[int]], tuple[int, list[int]]]:
    """For a complete trick: (position of the highest card, the cards it takes), (position of the lowest
    card, the card it takes) (§3.3, §3.4)."""
    highest, lowest = resolve_trick([CARD_VALUE[card] for card in cards])
    return (highest, [card for p, card in enumerate(cards) if p != highest]), (lowest, [cards[highest]])


def score_change(counts: Sequence[int], points: Sequence[int], won: Sequence[int]) -> int:
    """How taking ``won`` changes a seat's round score, from its cards and points per colour so far (§4)."""
    added: dict[int, list[int]] = {}
    for card in won:
        added.setdefault(CARD_COLOUR[card], []).append(CARD_VALUE[card])
    total = 0
    for colour, values in added.items():
        count = counts[colour] + len(values)
        new = points[colour] + sum(values) if count <= 2 else count
        total += new - points[colour]
    return total


def trick_outlook(trick: Sequence[int], leader: int, candidates: Sequence[int], unseen: np.ndarray,
                  counts: Sequence[Sequence[int]], points: Sequence[Sequence[int]],
                  rng: np.random.Generator) -> np.ndarray:
    """Rows (2n + 2) x 90 for ``n = len(counts)`` seats, filled in the ``candidates`` columns: per seat k
    the expected gain of its round score (row 2k) and loss (row 2k + 1), / ``CHANGE_SCALE``, if the observer
    plays that card; then the chances that the card is the trick's highest and its lowest. ``counts`` and
    ``points`` hold each relative seat's cards and points per colour this round."""
    n = len(counts)
    missing = n - len(trick) - 1
    block = np.zeros((2 * n + 2, NUM_CARDS))
    samples: dict[int, list[list[int]]] = {}
    for card in candidates:
        cards = [*trick, card]
        led = CARD_COLOUR[cards[0]]
        if missing and led not in samples:
            samples[led] = completions(unseen, led, missing, rng)
        rows = samples[led] if missing else [[]]
        for row in rows:
            (high, high_won), (low, low_won) = takings(cards + row)
            for position, won, chance_row in ((high, high_won, 2 * n), (low, low_won, 2 * n + 1)):
                seat = (leader + position) % n
                change = score_change(counts[seat], points[seat], won)
                block[2 * seat + (change < 0), card] += abs(change) / CHANGE_SCALE
                if seat == 0:
                    block[chance_row, card] += 1.0
        block[:, card] /= len(rows)
    return block


def outlook_rng(round_: int, tricks_played: int, cards_out: int) -> np.random.Generator:
    """The block's samples are drawn from public counters, so the block is a function of what the observer
    knows (the same position gives the same block)."""
    return np.random.default_rng([round_, tricks_played, cards_out])
