"""Text rendering of a Koehandel state: what the table shows, plus one seat's hand when asked."""

from __future__ import annotations

from .actions import DECISION_NAMES
from .cards import NUM_ANIMALS, NUM_SPECIES, SPECIES_NAMES, card_name
from .money import describe


def render_state(state, viewer: int | None = None) -> str:
    s = state
    phase = "deck" if s.deck else "final trading"
    lines = [f"turn {s.turns} ({phase} phase), {len(s.deck)} cards in the deck, donkeys {s.donkeys}"]
    for seat in range(s.n):
        animals = ", ".join(f"{SPECIES_NAMES[sp]}×{k}" for sp in range(NUM_SPECIES)
                            if (k := s.holdings[seat][sp]))
        pedigrees = ", ".join(SPECIES_NAMES[sp] for sp in range(NUM_ANIMALS) if s.pedigree_owner[sp] == seat)
        hand = describe(s.hands[seat]) if viewer == seat else f"{s.sizes[seat]} money cards"
        marker = ">" if seat == s.current_player and not s.is_terminal else " "
        line = f"{marker} player_{seat}: {hand}; animals: {animals or '-'}"
        lines.append(line + (f"; pedigrees: {pedigrees}" if pedigrees else ""))
    if s.is_terminal:
        lines.append("scores: " + ", ".join(f"player_{p} {int(v)}" for p, v in enumerate(s.scores())))
    elif s.decision:
        lines.append(f"decision: {DECISION_NAMES[s.decision]} by player_{s.current_player}")
        if s.auctioneer >= 0 and s.card >= 0 and s.n > 2:
            lines.append(f"auction of {card_name(s.card)} by player_{s.auctioneer}: high bid {s.high}"
                         + (f" by player_{s.high_bidder}" if s.high_bidder >= 0 else ""))
        if s.challenger >= 0:
            lines.append(f"cow trade: player_{s.challenger} challenges player_{s.challenged} for "
                         f"{SPECIES_NAMES[s.species]} (stake {s.trade_stake}, round {s.trade_round})")
    return "\n".join(lines)
