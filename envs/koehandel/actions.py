"""The 97-action Discrete layout shared by every decision (spec §12.2) and the decision ids (§12.1)."""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache

import numpy as np

from .config import DENOMINATIONS, NUM_DENOMS, NUM_SPECIES

AUCTION, TRADE, END_TURN = 0, 1, 2
TARGET = 3  # TARGET(o, s) = 3 + 11*(o-1) + s, o = 1..5, s = 0..10
PASS, DECLINE, BUY = 58, 59, 60
CARD = 61  # CARD(d) = 61 + d
DONE = 68
NEVER = 69
SLAP = 69  # SLAP(k) = 69 + k, k = 1..10
TAKE = 80
LAY = 81  # LAY(d) = 81 + d
ACCEPT, COUNTER, KEEP, GIVE = 88, 89, 90, 91
ADD = 92  # ADD(a) = 92 + j, a = RAISES[j]
BID = 96
NUM_ACTIONS = 97
RAISES = (10, 50, 100, 500)
MAX_SLAP = 10

# Decision points (§12.1).
D_TURN, D_TARGET, D_FOLLOWUP, D_BID, D_BUYRIGHT, D_PAY, D_COMMIT, D_STAKE, D_PED_BUYRIGHT, \
    D_PED_CARDS, D_RAT, D_OFFER, D_RESPONSE, D_COUNTER, D_DISTRIBUTE = range(1, 16)
DECISION_NAMES = {
    D_TURN: "turn choice", D_TARGET: "trade target", D_FOLLOWUP: "follow-up auction", D_BID: "bid",
    D_BUYRIGHT: "buy-right", D_PAY: "payment", D_COMMIT: "pedigree commitment", D_STAKE: "pedigree stake",
    D_PED_BUYRIGHT: "pedigree buy-right", D_PED_CARDS: "pedigree buy-right cards", D_RAT: "rat auction",
    D_OFFER: "offer", D_RESPONSE: "response", D_COUNTER: "counter-offer", D_DISTRIBUTE: "distribution",
}

from .cards import SPECIES_NAMES  # noqa: E402,F401  (re-exported)


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


def _names() -> list[str]:
    names = ["AUCTION", "TRADE", "END_TURN"]
    names += [f"TARGET(+{o},{SPECIES_NAMES[s]})" for o in range(1, 6) for s in range(NUM_SPECIES)]
    names += ["PASS", "DECLINE", "BUY"]
    names += [f"CARD({d})" for d in DENOMINATIONS] + ["DONE", "NEVER"]
    names += [f"SLAP({k})" for k in range(1, MAX_SLAP + 1)] + ["TAKE"]
    names += [f"LAY({d})" for d in DENOMINATIONS] + ["ACCEPT", "COUNTER", "KEEP", "GIVE"]
    names += [f"ADD({a})" for a in RAISES] + ["BID"]
    return names


ACTION_NAMES = _names()
assert len(ACTION_NAMES) == NUM_ACTIONS and ACTION_NAMES[BID] == "BID" and NUM_DENOMS == 7
