"""The Koehandel observation's blocks and the name of every value in them (docs/koehandel_rules.md §12.5).

Each block of the current state is a :class:`Fields`, its values' names in order; the observer
(:mod:`.observation`), the reference (:mod:`.reference`) and the heuristic find a value by name. Money
counts are per denomination (0, 10, ..., 500); a ``*_slot`` value is a seat relative to the observer (0
itself, o the player o seats to its left, −1 none); ``-1`` marks what the observer does not know.
Blocks 2 and 3 (digest and event tables) are laid out by :mod:`.records`.
"""

from __future__ import annotations

from ..core.layout import ObservationLayout
from . import actions as A
from .cards import DENOMINATIONS, NUM_ANIMALS, SPECIES_NAMES
from .records import SLOTS, record_blocks


class Fields(tuple):
    """A block's value names, in order: ``at(name)`` is a value's column, ``span(first, last)`` the
    columns from ``first`` to ``last`` as a slice."""

    def __new__(cls, *names: str) -> Fields:
        return super().__new__(cls, names)

    def at(self, name: str) -> int:
        return self.index(name)

    def span(self, first: str, last: str) -> slice:
        return slice(self.index(first), self.index(last) + 1)


def _per_denomination(prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}_{worth}" for worth in DENOMINATIONS)


def _per_slot(prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}_slot_{slot}" for slot in range(SLOTS))


PEDIGREES = tuple(f"pedigree_{name}" for name in SPECIES_NAMES[:NUM_ANIMALS])
ROLES = ("on_turn", "auctioneer", "high_bidder", "challenger", "challenged", "pedigree_winner")
#: ``card_kind`` of the auction block: the card on the block.
CARD_KINDS = ("none", "animal", "pedigree", "rat")

DECISION = Fields("none", *(f"D{d}" for d in range(1, A.D_DISTRIBUTE + 1)))  # one-hot (§12.1)
GAME = Fields("final_phase", "players", "turn", "donkeys", "deck_cards", "turn_player_slot")
OWN_HAND = Fields(*_per_denomination("cards"), "cash")
DECK = Fields(*(f"{name}_left" for name in SPECIES_NAMES), *(f"{name}_left" for name in PEDIGREES),
              "money_cards_left", "top_card_back")  # the back: 1 green (money), 0 red, -1 no card (K-A6)
SEAT = Fields("money_cards", *SPECIES_NAMES, *PEDIGREES, *ROLES, "highest_bid_on_card", "present")
AUCTION = Fields("card_kind", "species", "high_bid", "high_bidder_slot", "passes", "own_raise")
PEDIGREE = Fields("own_commitment", "winner_slot", "count", *_per_slot("tied"))
RAT_POT = Fields(*_per_slot("cards_laid"), *_per_denomination("own_laid"))
TRADE = Fields("challenger_slot", "challenged_slot", "species", "stake", "round", "round1_response", "round1_result",
               "round2_response", "round1_offer_cards", "round1_counter_cards", "round2_offer_cards",
               *_per_denomination("round1_offer"), *_per_denomination("round1_counter"),
               *_per_denomination("own_offer"))
SELECTION = Fields(*_per_denomination("selected"), "target")
LOOKED_CARD = Fields("looked_card")  # 2 players: the card its distributor looks at (§8.1)

#: The current-state blocks (block 1): name -> fields (``seats``: one row of ``SEAT`` per slot).
STATE_BLOCKS = {"decision": DECISION, "game": GAME, "own_hand": OWN_HAND, "deck": DECK, "seats": SEAT,
                "auction": AUCTION, "pedigree": PEDIGREE, "rat_pot": RAT_POT, "trade": TRADE,
                "selection": SELECTION, "looked_card": LOOKED_CARD}


def observation_layout(game) -> ObservationLayout:
    """Block 1 (the current state), then the digest and the event tables (blocks 2 and 3)."""
    blocks = [(name, (SLOTS, len(fields)) if name == "seats" else (len(fields),))
              for name, fields in STATE_BLOCKS.items()]
    return ObservationLayout(blocks + record_blocks(game.cfg))
