"""The 97-action Discrete layout shared by every decision and the decision ids
(docs/koehandel_rules.md §12.1, §12.2), on the core :class:`~hiddenhand.envs.core.actions.ActionLayout`."""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache

import numpy as np

from ..core.actions import ActionLayout, ActionRange
from .cards import DENOMINATIONS, NUM_SPECIES, SPECIES_NAMES

RAISES = (10, 50, 100, 500)
MAX_SLAP = 10
MAX_OFFSET = 5  # trade targets sit 1..5 seats to the left

LAYOUT = ActionLayout([
    ActionRange("auction"),
    ActionRange("trade"),
    ActionRange("end_turn"),
    ActionRange("target", (MAX_OFFSET, NUM_SPECIES), lambda o, s: f"TARGET(+{o + 1},{SPECIES_NAMES[s]})"),
    ActionRange("pass"),
    ActionRange("decline"),
    ActionRange("buy"),
    ActionRange("card", (len(DENOMINATIONS),), lambda d: f"CARD({DENOMINATIONS[d]})"),
    ActionRange("done"),
    ActionRange("commit", (MAX_SLAP + 1,), lambda k: f"SLAP({k})" if k else "NEVER"),  # NEVER, SLAP(1..10)
    ActionRange("take"),
    ActionRange("lay", (len(DENOMINATIONS),), lambda d: f"LAY({DENOMINATIONS[d]})"),
    ActionRange("accept"),
    ActionRange("counter"),
    ActionRange("keep"),
    ActionRange("give"),
    ActionRange("add", (len(RAISES),), lambda j: f"ADD({RAISES[j]})"),
    ActionRange("bid"),
])

AUCTION, TRADE, END_TURN = LAYOUT.start("auction"), LAYOUT.start("trade"), LAYOUT.start("end_turn")
TARGET = LAYOUT.start("target")  # TARGET(o, s) = TARGET + 11*(o-1) + s, o = 1..5, s = 0..10
PASS, DECLINE, BUY = LAYOUT.start("pass"), LAYOUT.start("decline"), LAYOUT.start("buy")
CARD = LAYOUT.start("card")  # CARD(d) = CARD + d
DONE = LAYOUT.start("done")
NEVER = SLAP = LAYOUT.start("commit")  # SLAP(k) = SLAP + k, k = 1..10
TAKE = LAYOUT.start("take")
LAY = LAYOUT.start("lay")  # LAY(d) = LAY + d
ACCEPT, COUNTER, KEEP, GIVE = (LAYOUT.start(name) for name in ("accept", "counter", "keep", "give"))
ADD = LAYOUT.start("add")  # ADD(a) = ADD + j, a = RAISES[j]
BID = LAYOUT.start("bid")
NUM_ACTIONS = LAYOUT.size
ACTION_NAMES = LAYOUT.names

# Decision points (§12.1).
D_TURN, D_TARGET, D_FOLLOWUP, D_BID, D_BUYRIGHT, D_PAY, D_COMMIT, D_STAKE, D_PED_BUYRIGHT, \
    D_PED_CARDS, D_RAT, D_OFFER, D_RESPONSE, D_COUNTER, D_DISTRIBUTE = range(1, 16)
DECISION_NAMES = {
    D_TURN: "turn choice", D_TARGET: "trade target", D_FOLLOWUP: "follow-up auction", D_BID: "bid",
    D_BUYRIGHT: "buy-right", D_PAY: "payment", D_COMMIT: "pedigree commitment", D_STAKE: "pedigree stake",
    D_PED_BUYRIGHT: "pedigree buy-right", D_PED_CARDS: "pedigree buy-right cards", D_RAT: "rat auction",
    D_OFFER: "offer", D_RESPONSE: "response", D_COUNTER: "counter-offer", D_DISTRIBUTE: "distribution",
}


def target_action(offset: int, species: int) -> int:
    return TARGET + NUM_SPECIES * (offset - 1) + species


def bid_choices(building: bool, room: int) -> tuple[int, ...]:
    """D4 (§12.2): the raises that fit in ``room``; PASS before the first one, BID after."""
    return _BID_CHOICES[building][bisect_right(RAISES, room)]


_BID_CHOICES = ([(PASS, *[ADD + j for j in range(k)]) for k in range(len(RAISES) + 1)],
                [(*[ADD + j for j in range(k)], BID) for k in range(len(RAISES) + 1)])


@lru_cache(maxsize=1024)
def card_choices(denominations: tuple[int, ...], done: bool) -> tuple[int, ...]:
    """A selection step (§12.3): one more card of each of ``denominations``, and DONE if allowed."""
    return tuple(CARD + d for d in denominations) + ((DONE,) if done else ())


@lru_cache(maxsize=4096)
def action_mask(legal: tuple[int, ...]) -> np.ndarray:
    """The int8 mask of a tuple of legal actions (read-only, shared)."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(legal)] = 1
    mask.flags.writeable = False
    return mask
