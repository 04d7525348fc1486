"""Rattus Cartus components as small integer codes (docs/rattus_cartus_rules.md §1).

Population cards of one class with the same number of nuns are interchangeable, so the engine counts
them by *kind*: ``kind = class * 5 + nuns`` (30 kinds). Every holding is a list of 35 counts, the
*items*: the 30 kinds, then joker, Sword, Flute, Pass and Gold. Card *types* (§1.7) are the 11
coarser groups an action names: population class 0..5, joker 6, Sword 7, Flute 8, Pass 9, Gold 10.
Building cards are ``building * 5 + copy`` (60 ids); a building's class is ``building // 2``.
"""

from __future__ import annotations

NUM_CLASSES = 6
CLASS_NAMES = ("peasantry", "bourgeoisie", "church", "knighthood", "magic", "royalty")
NUM_NUN_VALUES = 5  # a population card shows 0..4 nuns
NUM_KINDS = NUM_CLASSES * NUM_NUN_VALUES  # 30
#: Copies of each nun value within one class (R-A1): 4 cards with 0, 2 with 1, 2 with 2, 2 with 3, 4 with 4.
NUN_SPLIT = (4, 2, 2, 2, 4)
KIND_COPIES = tuple(NUN_SPLIT[k % 5] for k in range(NUM_KINDS))
KIND_CLASS = tuple(k // 5 for k in range(NUM_KINDS))
KIND_NUNS = tuple(k % 5 for k in range(NUM_KINDS))
NUM_POPULATION = sum(KIND_COPIES)  # 84

JOKER, SWORD, FLUTE, PASS, GOLD = 6, 7, 8, 9, 10
NUM_TYPES = 11
TYPE_NAMES = CLASS_NAMES + ("joker", "sword", "flute", "pass", "gold")
SPECIAL_NAMES = ("joker", "sword", "flute", "pass", "gold")
#: Copies of joker, Sword, Flute, Pass, Gold (§1.3, §1.4).
SPECIAL_COPIES = (15, 12, 12, 12, 15)
NUM_ITEMS = NUM_KINDS + len(SPECIAL_COPIES)  # 35
#: Item index of a special type t (6..10).
ITEM_OF_TYPE = {t: NUM_KINDS + t - JOKER for t in range(JOKER, NUM_TYPES)}
ITEM_TYPE = tuple(KIND_CLASS) + tuple(range(JOKER, NUM_TYPES))
I_JOKER, I_SWORD, I_FLUTE, I_PASS, I_GOLD = (ITEM_OF_TYPE[t] for t in (JOKER, SWORD, FLUTE, PASS, GOLD))
#: Items a player may commit to a building (R-A9).
COMMITTABLE = tuple(range(NUM_KINDS)) + (I_JOKER, I_SWORD, I_FLUTE)
#: The items of each population class.
CLASS_ITEMS = tuple(tuple(range(c * 5, c * 5 + 5)) for c in range(NUM_CLASSES))
NUM_POINT_TOKENS = 20
#: Upper bound on a player's rats: 10 + every population card mismatched in every round + a Flute rat
#: per slot (used to rank rats inside a score, see :func:`.scoring.ranking_scores`).
MAX_RATS = 1000

BUILDINGS = ("farm", "brewery", "marketplace", "office", "monastery", "hospital", "castle", "watchtower",
             "fortune_tellers_tent", "rat_catchers_hut", "palace", "treasury")
(FARM, BREWERY, MARKETPLACE, OFFICE, MONASTERY, HOSPITAL, CASTLE, WATCHTOWER, TENT, RAT_CATCHER, PALACE,
 TREASURY) = range(12)
NUM_BUILDINGS = 12
COPIES_PER_BUILDING = 5
NUM_BUILDING_CARDS = NUM_BUILDINGS * COPIES_PER_BUILDING  # 60
BUILDING_CLASS = tuple(b // 2 for b in range(NUM_BUILDINGS))

NUN_ROW_SIZE = 5
INITIAL_HAND = 5
INITIAL_RATS = 10
BUILDINGS_IN_GAME = 30

#: Per player count (§2.1): buildings per round k, replacement pile, rounds, influence VP, Gold VP 1st/2nd.
PLAYER_COUNT_TABLE = {
    2: {"k": 2, "replacement": 10, "rounds": 10, "influence_vp": (10, 5), "gold": (6, 0)},
    3: {"k": 2, "replacement": 12, "rounds": 9, "influence_vp": (10, 5, 2), "gold": (6, 3)},
    4: {"k": 3, "replacement": 6, "rounds": 8, "influence_vp": (10, 5, 2), "gold": (6, 3)},
    5: {"k": 3, "replacement": 6, "rounds": 8, "influence_vp": (10, 5, 2), "gold": (6, 3)},
}
GOLD_TIE_POOL_FIRST = 9
GOLD_TIE_POOL_SECOND = 3
MAJORITY_VP = (2, 1)  # sole leader, each tied leader (§6.3, §6.4)


def kind_name(kind: int) -> str:
    return f"{CLASS_NAMES[KIND_CLASS[kind]]}:{KIND_NUNS[kind]}"


def item_name(item: int) -> str:
    return kind_name(item) if item < NUM_KINDS else SPECIAL_NAMES[item - NUM_KINDS]


def building_card_name(card: int) -> str:
    return f"{BUILDINGS[card // 5]}:{card % 5}"


def parse_building_card(text) -> int:
    """A building card from ``"monastery:3"`` or an id 0..59; ``ValueError`` otherwise."""
    if isinstance(text, int) and not isinstance(text, bool):
        if 0 <= text < NUM_BUILDING_CARDS:
            return text
        raise ValueError(f"building card {text} is not an id 0..{NUM_BUILDING_CARDS - 1}")
    name, _, copy = str(text).strip().lower().partition(":")
    if name not in BUILDINGS or copy not in {"0", "1", "2", "3", "4"}:
        raise ValueError(f"{text!r} is not a building card like 'monastery:3' (buildings: {', '.join(BUILDINGS)})")
    return BUILDINGS.index(name) * 5 + int(copy)


def parse_item(text) -> tuple[int, int | None]:
    """A card name: ``"church:3"`` (class and nuns), ``"church"`` (class, any nuns) or a special
    (``"sword"``). Returns ``(item or class, None)``: for a bare class ``(class, None)`` with the
    flag that nuns are free, else ``(item, exact)``. ``ValueError`` for anything else."""
    name, _, nuns = str(text).strip().lower().partition(":")
    if name in SPECIAL_NAMES and not nuns:
        return ITEM_OF_TYPE[JOKER + SPECIAL_NAMES.index(name)], 1
    if name in CLASS_NAMES:
        cls = CLASS_NAMES.index(name)
        if not nuns:
            return cls, None
        if nuns in {"0", "1", "2", "3", "4"}:
            return cls * 5 + int(nuns), 1
    raise ValueError(f"{text!r} is not a card: a class ({', '.join(CLASS_NAMES)}) optionally with ':nuns' "
                     f"(0..4), or one of {', '.join(SPECIAL_NAMES)}")
