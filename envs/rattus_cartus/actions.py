"""Rattus Cartus actions (docs/rattus_cartus_rules.md §8): one Discrete space of named ranges.

Every decision point D1..D10 is a masked choice among these ranges; combinatorial choices (which cards
to commit, give or discard) are sequential one-card sub-decisions closed by ``STOP`` where the player
may stop (§8.2):

* ``SLOT s`` (3): D1 supply choice, D3 enter slot ``s``;
* ``POS p`` (5): D2 and D8 nun-row looks;
* ``PASS``: D3 play a Pass card;
* ``CARD <type>`` (11): D4 commit, D6 / D10 give, D9 discard one card of that type; a population class
  moves one card of that class, chosen by ``population_choice`` (R-A31). With
  ``population_choice="full"`` the six class actions are replaced by 30 ``CARD <class>:<nuns>``;
* ``STOP``: end D4 or D9;
* ``TARGET +o`` (4): D5 / D7, the player ``o`` seats clockwise of the actor.
"""

from __future__ import annotations

from ..core.actions import ActionLayout, ActionRange
from .cards import CLASS_NAMES, NUM_CLASSES, NUM_KINDS, NUM_NUN_VALUES, SPECIAL_NAMES, TYPE_NAMES

SLOT, POS, PASS_ACTION, CARD, STOP, TARGET = range(6)


def build_layout(full: bool) -> ActionLayout:
    ranges = [
        ActionRange("slot", (3,), label=lambda s: f"SLOT {s}"),
        ActionRange("pos", (5,), label=lambda p: f"POS {p}"),
        ActionRange("pass", label=lambda: "PASS"),
    ]
    if full:
        ranges.append(ActionRange("card_kind", (NUM_CLASSES, NUM_NUN_VALUES),
                                  label=lambda c, v: f"CARD {CLASS_NAMES[c].upper()}:{v}"))
        ranges.append(ActionRange("card_special", (len(SPECIAL_NAMES),),
                                  label=lambda t: f"CARD {SPECIAL_NAMES[t].upper()}"))
    else:
        ranges.append(ActionRange("card", (len(TYPE_NAMES),), label=lambda t: f"CARD {TYPE_NAMES[t].upper()}"))
    ranges += [
        ActionRange("stop", label=lambda: "STOP"),
        ActionRange("target", (4,), label=lambda o: f"TARGET +{o + 1}"),
    ]
    return ActionLayout(ranges)


def decode_table(layout: ActionLayout, full: bool) -> tuple[list[int], list[int], list[int]]:
    """Per action id: its kind (SLOT..TARGET), its argument (slot, position, type or target offset 1..4)
    and, for cards, the exact item (-1 when a class is named and ``population_choice`` picks the card)."""
    kinds, args, items = [], [], []
    for action in range(layout.size):
        name, index = layout.decode(action)
        item = -1
        if name == "slot":
            kind, arg = SLOT, index[0]
        elif name == "pos":
            kind, arg = POS, index[0]
        elif name == "pass":
            kind, arg = PASS_ACTION, 0
        elif name == "card":
            kind, arg = CARD, index[0]
            if arg >= NUM_CLASSES:
                item = NUM_KINDS + arg - NUM_CLASSES
        elif name == "card_kind":
            kind, arg = CARD, index[0]
            item = index[0] * NUM_NUN_VALUES + index[1]
        elif name == "card_special":
            kind, arg = CARD, NUM_CLASSES + index[0]
            item = NUM_KINDS + index[0]
        elif name == "stop":
            kind, arg = STOP, 0
        else:
            kind, arg = TARGET, index[0] + 1
        kinds.append(kind)
        args.append(arg)
        items.append(item)
    return kinds, args, items
