"""The cow trade's vocabulary (a leaf module): seats, decisions, the record row and the action layout.

Actions (one Discrete(10) space, Koehandel's names): ``CARD(d)`` adds a money card of denomination d to
the offer being built (0, 10, 20, 50, 100, 200, 500; ascending, CT-2), ``DONE`` lays it face down,
``ACCEPT`` and ``COUNTER`` answer an offer (docs/cow_trade_rules.md §4).
"""

from __future__ import annotations

from ..core.actions import ActionLayout, ActionRange
from ..koehandel.cards import DENOMINATIONS, NUM_DENOMS

CHALLENGER, CHALLENGED = 0, 1
#: Decisions (the observation's ``decision`` block).
OFFER, RESPONSE, COUNTER_OFFER, OVER = 0, 1, 2, 3
DECISIONS = ("offer", "response", "counter", "over")
#: Koehandel's 66 money cards, per denomination (K-A2): the most a pool may hold.
KOEHANDEL_MONEY = (12, 18, 6, 12, 6, 6, 6)

#: One row of ``state.record`` per round whose offer was laid: card counts, the response, the result and
#: both compositions (each known to both traders from the accept or the exchange on, CT-4).
ROW = ("offer_cards", "response", "counter_cards", "result", *(f"offer_{d}" for d in DENOMINATIONS),
       *(f"counter_{d}" for d in DENOMINATIONS))
OFFER_CARDS, RESPONSE_CELL, COUNTER_CARDS, RESULT = 0, 1, 2, 3
ROW_OFFER, ROW_COUNTER = 4, 4 + NUM_DENOMS
NO_RESPONSE, ACCEPTED, COUNTERED = 0, 1, 2
UNDECIDED, C_WINS, D_WINS, TIE = 0, 1, 2, 3

LAYOUT = ActionLayout([
    ActionRange("card", (NUM_DENOMS,), label=lambda d: f"CARD({DENOMINATIONS[d]})"),
    ActionRange("done", label=lambda: "DONE"),
    ActionRange("accept", label=lambda: "ACCEPT"),
    ActionRange("counter", label=lambda: "COUNTER"),
])
CARD, DONE, ACCEPT, COUNTER = (LAYOUT.start(name) for name in ("card", "done", "accept", "counter"))
