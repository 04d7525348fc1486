"""Koehandel Master card codes and constants (a leaf module: it imports nothing of the package).

Cards are ints: 0-9 animal species, 10 rat, 11-20 the pedigree of species 0-9, and in the 2-player
deck 21-27 a money card of denomination index 0-6.
"""

from __future__ import annotations

DENOMINATIONS = (0, 10, 20, 50, 100, 200, 500)
NUM_DENOMS = len(DENOMINATIONS)
NUM_ANIMALS = 10
RAT = 10
NUM_SPECIES = 11
SPECIES_NAMES = ("rooster", "goose", "cat", "dog", "sheep", "goat", "donkey", "pig", "cow", "horse", "rat")
PEDIGREE = 11  # card code of the pedigree of species s is PEDIGREE + s
MONEY = 21  # card code of a money card of denomination index d is MONEY + d


def card_name(card: int) -> str:
    if card < NUM_SPECIES:
        return SPECIES_NAMES[card]
    if card < MONEY:
        return f"pedigree {SPECIES_NAMES[card - PEDIGREE]}"
    return f"money {DENOMINATIONS[card - MONEY]}"
