"""Scoring (§10): rat-quartet removal, quartets, pedigrees, the multiplier and the money variant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import NUM_ANIMALS, RAT


def quartet_score(quartets: Sequence[int], pedigrees: Sequence[int], values: Sequence[int],
                  pedigree_value: int) -> int:
    """(Σ quartet values + pedigree_value·matched) · #quartets + pedigree_value·unmatched (§10.1)."""
    matched = sum(1 for s in pedigrees if s in quartets)
    unmatched = len(pedigrees) - matched
    return (sum(values[s] for s in quartets) + pedigree_value * matched) * len(quartets) \
        + pedigree_value * unmatched


def removed_by_rats(quartets: Sequence[int], pedigrees: Sequence[int], values: Sequence[int],
                    pedigree_value: int, rule: str) -> int | None:
    """The animal quartet a complete rat quartet removes (K-A33), or None if it removes nothing (K-A34).

    ``"best_for_holder"``: the removal leaving the highest score (ties: lowest species index);
    ``"lowest_value"``: the lowest-valued quartet.
    """
    if not quartets:
        return None
    if rule == "lowest_value":
        return min(quartets, key=lambda s: (values[s], s))
    return max(quartets, key=lambda s: (
        quartet_score([q for q in quartets if q != s], pedigrees, values, pedigree_value), -s))


def player_score(holdings: Sequence[int], pedigrees: Sequence[int], cash: int, values: Sequence[int],
                 pedigree_value: int, rat_rule: str, money_counts: bool) -> dict[str, Any]:
    """One player's score with its breakdown (steps 1-6 of §10.1).

    ``holdings``: cards held per species 0..10; ``pedigrees``: species of the pedigree cards owned.
    Incomplete species score nothing, so this also gives the provisional score of a running game.
    """
    quartets = [s for s in range(NUM_ANIMALS) if holdings[s] == 4]
    removed = None
    if holdings[RAT] == 4:
        removed = removed_by_rats(quartets, pedigrees, values, pedigree_value, rat_rule)
        quartets = [s for s in quartets if s != removed]
    matched = [s for s in pedigrees if s in quartets]  # after the rat removal (K-A35)
    unmatched = [s for s in pedigrees if s not in quartets]
    base = sum(values[s] for s in quartets) + pedigree_value * len(matched)
    score = base * len(quartets) + pedigree_value * len(unmatched) + (cash if money_counts else 0)
    return {
        "score": score,
        "rat_quartet": holdings[RAT] == 4,
        "removed_by_rats": removed,
        "quartets": quartets,
        "quartet_values": sum(values[s] for s in quartets),
        "matched_pedigrees": matched,
        "multiplier": len(quartets),
        "unmatched_pedigrees": unmatched,
        "money": cash if money_counts else 0,
    }
