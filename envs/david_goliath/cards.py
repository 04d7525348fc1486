"""David & Goliath cards: ids, names, the action layout and the colour scoring formula (a leaf module).

Rules: docs/david_goliath_rules.md. Cards are ids ``colour * 18 + (value - 1)`` over 5 colours x values
1..18 (§1); a game with N players uses values 1..3N. The actions are the same ids (§7).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core.actions import ActionLayout, ActionRange

COLOURS = ("red", "yellow", "green", "blue", "purple")
COLOUR_LETTERS = "RYGBP"
NUM_COLOURS = 5
MAX_VALUE = 18
NUM_CARDS = NUM_COLOURS * MAX_VALUE
HAND_SIZE = 15  # every player always holds 15 cards, so a round is 15 tricks (§1)
CARD_COLOUR = [card // MAX_VALUE for card in range(NUM_CARDS)]
CARD_VALUE = [card % MAX_VALUE + 1 for card in range(NUM_CARDS)]

#: One action per card: range "card" of shape (colour, value - 1), named like "R12" (§7).
ACTIONS = ActionLayout([
    ActionRange("card", (NUM_COLOURS, MAX_VALUE), label=lambda colour, index: f"{COLOUR_LETTERS[colour]}{index + 1}"),
])
CARD_NAMES = ACTIONS.names
#: What a human may type besides a name ("R12") or an id: the colour spelt out ("red 12").
CARD_ALIASES = tuple((f"{COLOURS[CARD_COLOUR[card]]} {CARD_VALUE[card]}", card) for card in range(NUM_CARDS))


def card_id(colour: int, value: int) -> int:
    return colour * MAX_VALUE + value - 1


def card_name(card: int) -> str:
    return CARD_NAMES[card]


def parse_card(text: str) -> int:
    """A card from ``R12``, ``red 12`` (case and spaces ignored) or an id ``0..89``."""
    try:
        return ACTIONS.parse(text, CARD_ALIASES)
    except ValueError:
        raise ValueError(f"not a card: {text.strip()!r} "
                         f"(write e.g. R12, 'red 12' or an id 0..{NUM_CARDS - 1})") from None


def colour_score(values: Sequence[int]) -> int:
    """One or two cards of a colour score their face values; three or more score 1 each (§4)."""
    return sum(values) if len(values) <= 2 else len(values)


def colour_scores(cards: Iterable[int]) -> list[int]:
    """Per-colour score of the cards a player took in a round (§4)."""
    by_colour: list[list[int]] = [[] for _ in COLOURS]
    for card in cards:
        by_colour[CARD_COLOUR[card]].append(CARD_VALUE[card])
    return [colour_score(values) for values in by_colour]
