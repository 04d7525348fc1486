"""Money as count vectors over the denominations (0, 10, 20, 50, 100, 200, 500): pure functions.

Paying an amount without change (§4.4, K-A11) and the card-by-card selection masks of §12.3.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .cards import DENOMINATIONS, NUM_DENOMS

Counts = list[int]


def value(counts: Sequence[int]) -> int:
    """Total value of a count vector."""
    return sum(c * d for c, d in zip(counts, DENOMINATIONS))


# Count vectors packed into one int, a byte per denomination whose top bit is a guard bit, so that one
# subtraction compares all denominations at once (SWAR). Counts must stay below 128.
FIELD = 8
GUARDS = int.from_bytes(bytes([0x80] * NUM_DENOMS), "little")
ONES = int.from_bytes(bytes([1] * NUM_DENOMS), "little")
SHIFTS = tuple(FIELD * d for d in range(NUM_DENOMS))


def pack(counts: Sequence[int]) -> int:
    return int.from_bytes(bytes(counts), "little")


def legal_payments(hand: Sequence[int], amount: int, rule: str = "no_change") -> list[tuple[int, ...]]:
    """Every legal payment of ``amount`` from ``hand`` (§4.4), as count vectors.

    ``"no_change"``: worth at least ``amount`` and non-redundant (no card could be left out, so never a
    0-card). ``"strict"``: additionally exact whenever some sub-multiset of the hand is exact.
    Enumerates from the largest denomination down and stops a branch once it reaches ``amount``
    (§12.3), which yields exactly the non-redundant sufficient vectors.
    """
    found: list[tuple[int, ...]] = []
    chosen = [0] * NUM_DENOMS
    below = [0] * NUM_DENOMS  # value of all cards of denomination index <= d
    for d in range(1, NUM_DENOMS):
        below[d] = below[d - 1] + hand[d] * DENOMINATIONS[d]

    def extend(d: int, total: int) -> None:
        if d == 0 or total + below[d] < amount:  # out of cards, or they cannot reach the amount
            return
        for take in range(hand[d] + 1):
            chosen[d] = take
            reached = total + take * DENOMINATIONS[d]
            if reached >= amount:
                # a further card of this denomination would be redundant; smaller ones too
                found.append(tuple(chosen))
                break
            extend(d - 1, reached)
        chosen[d] = 0

    extend(NUM_DENOMS - 1, 0)
    if rule == "strict" and has_exact_payment(hand, amount):
        found = [f for f in found if value(f) == amount]
    return found


def has_exact_payment(hand: Sequence[int], amount: int) -> bool:
    """Whether some sub-multiset of ``hand`` is worth exactly ``amount`` (subset sum in steps of 10)."""
    reachable = 1  # bit t: total 10*t reachable
    target = amount // 10
    limit = (1 << (target + 1)) - 1
    for d in range(1, NUM_DENOMS):
        step = DENOMINATIONS[d] // 10
        for _ in range(hand[d]):
            reachable = (reachable | (reachable << step)) & limit
    return bool(reachable >> target & 1)


def auto_payment(options: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The payment ``auto_payment`` picks (§12.3): lowest value, fewest cards, then the largest count
    vector read from the highest denomination down."""
    return min(options, key=lambda f: (value(f), sum(f), [-c for c in reversed(f)]))


def extensions(packed_options: Sequence[int], selected: int) -> tuple[int, bool, list[int]]:
    """The selection masks of §12.3 for a payment built card by card, all vectors packed (:func:`pack`):
    the denominations d such that some legal payment contains ``selected`` plus a card of d (as guard
    bits, see :func:`guarded_denominations`), whether ``selected`` is itself a legal payment, and the
    options that contain ``selected`` (pass these instead of all options once the selection grows)."""
    grow, complete, fitting = 0, False, []
    for option in packed_options:
        spare = (option | GUARDS) - selected  # guard bit of d set iff option[d] >= selected[d]
        if spare & GUARDS == GUARDS:  # the option contains the selection
            fitting.append(option)
            grow |= spare - ONES  # guard bit of d set iff option[d] > selected[d]
            complete = complete or option == selected
    return grow & GUARDS, complete, fitting


@lru_cache(maxsize=1 << NUM_DENOMS)
def guarded_denominations(guards: int) -> tuple[int, ...]:
    """The denominations whose guard bits are set in ``guards``."""
    return tuple(d for d in range(NUM_DENOMS) if guards >> (SHIFTS[d] + FIELD - 1) & 1)


def contains(larger: int, smaller: int) -> bool:
    """Whether the packed count vector ``larger`` is at least ``smaller`` in every denomination."""
    return ((larger | GUARDS) - smaller) & GUARDS == GUARDS


def describe(counts: Sequence[int]) -> str:
    """``{50, 20, 10}`` style text of a count vector."""
    cards = [str(DENOMINATIONS[d]) for d in range(NUM_DENOMS - 1, -1, -1) for _ in range(counts[d])]
    return "{" + ", ".join(cards) + "}"
