"""Rattus actions (docs/rattus_rules.md §9.2): the flat layout of 970 ids as named ranges.

Every decision of §9.1 is a masked choice among these ranges; the Witch's three steps and the Knight's
second step are sequential sub-decisions (phases ``WITCH_SECOND``, ``WITCH_DECIDE``, ``KNIGHT_STEP``).
"""

from __future__ import annotations

from ..core.actions import ActionLayout, ActionRange
from .config import CARDS, MERCHANT_MAX, NUM_REGIONS, SLOTS

R, S = NUM_REGIONS, SLOTS
# Action kinds (one per range).
(END, TAKE, PLACE, PEASANT_PLACE, MERCHANT, MONK, PEEK, SWAP, KEEP, KING, MOVE, STOP, SPREAD) = range(13)
KIND_NAMES = ("end", "take", "place", "place_peasant", "merchant", "monk", "witch_peek", "witch_swap",
              "witch_keep", "king", "move_plague", "knight_stop", "spread")


def build_layout(regions: tuple[str, ...]) -> ActionLayout:
    name = regions.__getitem__
    return ActionLayout([
        ActionRange("end", label=lambda: "END"),
        ActionRange("take", (6,), label=lambda k: f"TAKE {CARDS[k]}"),
        ActionRange("place", (R,), label=lambda r: f"PLACE {name(r)}"),
        ActionRange("place_peasant", (R,), label=lambda r: f"PEASANT {name(r)}"),
        ActionRange("merchant", (R, R, MERCHANT_MAX), label=lambda f, t, m: f"MERCHANT {name(f)}>{name(t)} x{m + 1}"),
        ActionRange("monk", (R, S, R), label=lambda f, s, t: f"MONK {name(f)}:{s}>{name(t)}"),
        ActionRange("witch_peek", (R, S), label=lambda r, s: f"PEEK {name(r)}:{s}"),
        ActionRange("witch_swap", label=lambda: "SWAP"),
        ActionRange("witch_keep", label=lambda: "KEEP"),
        ActionRange("king", (R,), label=lambda r: f"KING {name(r)}"),
        ActionRange("move_plague", (R,), label=lambda r: f"MOVE {name(r)}"),
        ActionRange("knight_stop", label=lambda: "STOP"),
        ActionRange("spread", (R,), label=lambda r: f"SPREAD {name(r)}"),
    ])


def decode_table(layout: ActionLayout) -> tuple[list[int], list[tuple[int, ...]]]:
    """Per action id: its kind and its arguments (the range's index, Merchant counts as 1..3)."""
    kinds, args = [], []
    for action in range(layout.size):
        range_name, index = layout.decode(action)
        kind = KIND_NAMES.index(range_name)
        if kind == MERCHANT:
            index = (index[0], index[1], index[2] + 1)
        kinds.append(kind)
        args.append(index)
    return kinds, args
