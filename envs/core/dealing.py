"""Constrained re-dealing of hidden cards, used by the information-set samplers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def deal_constrained(
    cards: Sequence[int],
    category: Sequence[int],
    capacities: Sequence[int],
    allowed: Sequence[Sequence[bool]],
    rng: np.random.Generator,
) -> list[list[int]]:
    """Deal ``cards`` to players so that player ``p`` gets exactly ``capacities[p]`` cards, none of a
    category ``g`` with ``allowed[p][g]`` false (e.g. a colour the player is known to be void in).

    Cards are placed one at a time in random order, each to a player drawn in proportion to its free
    room among those that keep the rest of the deal feasible. Feasibility is the supply-demand theorem
    for bipartite transport: every set of categories must fit into the room of the players allowed
    any of them. Raises ``ValueError`` if no such deal exists.
    """
    num_groups = len(allowed[0]) if allowed else 0
    supply = [0] * num_groups
    for card in cards:
        supply[category[card]] += 1
    room = list(capacities)
    if sum(room) != len(cards) or not _feasible(supply, room, allowed):
        raise ValueError("no deal satisfies the hand sizes and the known voids")
    hands: list[list[int]] = [[] for _ in room]
    for index in rng.permutation(len(cards)):
        card = cards[index]
        group = category[card]
        supply[group] -= 1
        candidates = [p for p, free in enumerate(room) if free and allowed[p][group]]
        while True:
            weights = np.array([room[p] for p in candidates], dtype=float)
            choice = candidates[rng.choice(len(candidates), p=weights / weights.sum())]
            room[choice] -= 1
            if _feasible(supply, room, allowed):
                break
            room[choice] += 1
            candidates.remove(choice)
        hands[choice].append(card)
    return hands


def _feasible(supply: list[int], room: list[int], allowed: Sequence[Sequence[bool]]) -> bool:
    groups = [g for g, count in enumerate(supply) if count]
    for subset in range(1, 1 << len(groups)):
        chosen = [g for i, g in enumerate(groups) if subset >> i & 1]
        need = sum(supply[g] for g in chosen)
        fits = sum(free for p, free in enumerate(room) if any(allowed[p][g] for g in chosen))
        if need > fits:
            return False
    return True
