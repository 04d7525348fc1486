"""David & Goliath table view for the web server: what one seat may see, as JSON data.

Built from the same information as the observation encoder (own hand, the trick, every seat's taken
cards, revealed voids and scores, dealer and leader); ``seat=None`` is the spectator view of a finished
game's replay, with every hand. Cards are named like ``R12``. The last finished trick is public too: the
server keeps it with :func:`track`, since the state clears a trick the moment it is complete.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cards import COLOURS, card_name
from .rules import CARD_VALUE, DavidGoliathState, resolve_trick


def _names(row: np.ndarray) -> list[str]:
    return [card_name(card) for card in np.flatnonzero(row)]


def seat_name(state: DavidGoliathState, seat: int) -> str:
    return "dummy" if seat == state.game.dummy else f"player_{seat}"


def seat_view(state: DavidGoliathState, seat: int | None, memory: dict[str, Any]) -> dict[str, Any]:
    """``seat``'s view (``None``: the spectator's, every hand shown) plus ``memory`` from :func:`track`."""
    game = state.game
    n = game.seats
    seats = []
    for other in range(n):
        row = {
            "seat": other, "name": seat_name(state, other), "hand_size": int(state.hands[other].sum()),
            "taken": _names(state.taken[other]),
            "voids": [COLOURS[c] for c in np.flatnonzero(state.voids[other])],
            "round_points": int(state.colour_points[other].sum()),
            "total": int(state.totals[other]) if other < game.num_players else None,  # DG-5: the dummy scores nothing
        }
        if seat is None:
            row["hand"] = _names(state.hands[other])
        seats.append(row)
    return {
        "kind": "david_goliath",
        "round": min(state.round + 1, game.rounds), "rounds": game.rounds,
        "trick_number": min(state.tricks_played + 1, game.hand_size), "tricks": game.hand_size,
        "dealer": state.dealer, "leader": state.leader,
        "trick": [{"seat": (state.leader + k) % n, "card": card_name(card)} for k, card in enumerate(state.trick)],
        "hand": _names(state.hands[seat]) if seat is not None else None,
        "seats": seats,
        "last_trick": memory.get("last_trick"),
    }


def track(before: DavidGoliathState, action: int, after: DavidGoliathState, memory: dict[str, Any]) -> None:
    """Update ``memory`` after ``action`` took ``before`` to ``after``: when it finished a trick, keep that
    trick (in play order, with who took the cards) as ``last_trick``. ``before`` is a copy."""
    if after.tricks_played == before.tricks_played and after.round == before.round and not after.is_terminal:
        return
    game = before.game
    n = game.seats
    cards = [*before.trick, action]
    if len(cards) < n:  # DG-5: the dummy played last, inside the same step
        if after.round == before.round and not after.is_terminal:
            rest = set(np.flatnonzero(after.played)) - set(np.flatnonzero(before.played)) - set(cards)
        else:  # the round ended: the dummy's last card
            rest = set(np.flatnonzero(before.hands[game.dummy]))
        cards += sorted(int(card) for card in rest)
    highest, lowest = resolve_trick([CARD_VALUE[card] for card in cards])
    memory["last_trick"] = {
        "cards": [{"seat": (before.leader + k) % n, "card": card_name(card)} for k, card in enumerate(cards)],
        "winner": (before.leader + highest) % n,
        "goliath_taker": (before.leader + lowest) % n,
    }
