"""The cow trade as text: what the table sees, and with a viewer, that trader's own money and offers."""

from __future__ import annotations

from typing import Any

from ..koehandel.cards import DENOMINATIONS
from ..koehandel.money import value
from .vocab import (
    ACCEPTED, CHALLENGED, CHALLENGER, COUNTER_CARDS, COUNTERED, DECISIONS, OFFER_CARDS, RESPONSE_CELL, RESULT,
    ROW_COUNTER, ROW_OFFER,
)

NAMES = ("C", "D")
RESULTS = ("-", "C wins", "D wins", "tie")


def cards(counts: list[int]) -> str:
    """Money as its cards, e.g. ``0 10 10 50 (70)``."""
    listed = [str(d) for d, c in zip(DENOMINATIONS, counts) for _ in range(c)]
    return f"{' '.join(listed) or '-'} ({value(counts)})"


def render(state: Any, viewer: int | None = None) -> str:
    game = state.game
    mover = NAMES[state.current_player] if state.current_player >= 0 else "-"
    lines = [f"cow trade: stake {game.stake} card(s) worth {game.card_value} each; round {state.round}; "
             f"{DECISIONS[state.decision]}, to move: {mover}",
             f"hand sizes: C {sum(state.hands[CHALLENGER])}, D {sum(state.hands[CHALLENGED])}"]
    if any(state.offer):
        lines.append(f"on the table: C's offer of {sum(state.offer)} card(s), face down")
    for r, row in enumerate(state.record, start=1):
        answer = {ACCEPTED: "accepted", COUNTERED: f"countered with {row[COUNTER_CARDS]} card(s)"}.get(
            row[RESPONSE_CELL], "awaiting a response")
        line = f"round {r}: C offered {row[OFFER_CARDS]} card(s), {answer}; {RESULTS[row[RESULT]]}"
        if viewer is not None and row[RESULT]:  # both traders know both offers once settled (CT-4)
            line += f"  [offer {cards(row[ROW_OFFER:ROW_COUNTER])}, counter {cards(row[ROW_COUNTER:])}]"
        lines.append(line)
    if viewer is not None:
        lines.append(f"your money ({NAMES[viewer]}): {cards(state.hands[viewer])}")
        if viewer == CHALLENGER and any(state.offer):
            lines.append(f"your offer on the table: {cards(state.offer)}")
        if viewer == state.current_player and any(state.selection):
            lines.append(f"chosen so far: {cards(state.selection)}")
    if state.is_terminal:
        lines.append(f"{NAMES[state.winner]} wins the stake; scores {state.scores()}")
    return "\n".join(lines)
