"""Koehandel on the web table: the game's own view (``envs/koehandel/view.py``) with the table's log in the
game's words. What the log shows of a move is what the engine's ``announce`` lets the table see (§11.1):
money added to a bid or an offer stays out, face-down cards are counted, sealed commitments are sealed."""

from __future__ import annotations

from hiddenhand.envs.koehandel import actions as A
from hiddenhand.envs.koehandel.rules import KoehandelState
from hiddenhand.envs.koehandel.view import action_label, seat_view

__all__ = ["action_label", "announce", "seat_view"]

VERBS = {"auction": "auctions", "look": "looks", "end": "ends", "pass": "passes", "sell": "sells", "buy": "buys",
         "take": "takes", "accept": "accepts", "make": "makes", "keep": "keeps", "give": "gives"}
LAID = {A.D_PAY: "pays with {} (face down)", A.D_OFFER: "lays an offer of {} face down",
        A.D_COUNTER: "lays a counter-offer of {} face down"}


def announce(state: KoehandelState, action: int) -> str | None:
    """The move as the table saw it, in words; None where the table sees nothing (the engine's rule)."""
    if state.game.announce(state, action) is None:
        return None
    if action == A.BID:
        return f"bids {state.high + state.pending}"
    if action == A.DONE:
        cards = f"{sum(state.selection)} card{'' if sum(state.selection) == 1 else 's'}"
        return LAID.get(state.decision, "lays {} face down").format(cards)
    if A.NEVER <= action <= A.SLAP + A.MAX_SLAP:
        return "makes a sealed pedigree commitment"
    if A.LAY <= action < A.ACCEPT:
        return "lays one card face down in the rat pot"
    if A.TARGET <= action < A.PASS:
        return "challenges " + action_label(state, action).removeprefix("trade with ").replace(" for ", " to a cow trade for ")
    if action == A.TRADE:
        return "starts a cow trade"
    label = action_label(state, action).replace("yourself", "themselves")
    if action in (A.KEEP, A.GIVE):
        label += " (the card is shown when placed)"
    verb, _, rest = label.partition(" ")
    return f"{VERBS.get(verb, verb)} {rest}".strip()
