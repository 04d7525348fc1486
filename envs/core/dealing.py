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
    feasible = _Feasibility(allowed)
    supply = np.zeros(feasible.num_groups, np.int64)
    for card in cards:
        supply[category[card]] += 1
    room = np.array(capacities, np.int64)
    if room.sum() != len(cards) or not feasible(supply, room):
        raise ValueError("no deal satisfies the hand sizes and the known voids")
    hands: list[list[int]] = [[] for _ in capacities]
    for index in rng.permutation(len(cards)):
        card = cards[index]
        group = category[card]
        supply[group] -= 1
        candidates = [p for p, free in enumerate(room.tolist()) if free and allowed[p][group]]
        while True:
            choice = _weighted_by_room(candidates, room, rng)
            room[choice] -= 1
            if len(candidates) == 1 or feasible(supply, room):
                break
            room[choice] += 1
            candidates.remove(choice)
        hands[choice].append(card)
    return hands


def _weighted_by_room(candidates: list[int], room: np.ndarray, rng: np.random.Generator) -> int:
    """A candidate drawn with probability proportional to its free room."""
    ticket = int(rng.integers(sum(int(room[p]) for p in candidates)))
    for p in candidates:
        ticket -= int(room[p])
        if ticket < 0:
            return p
    raise AssertionError("unreachable: tickets cover the total room")


class _Feasibility:
    """The supply-demand test as two small matrix products: for every non-empty set S of categories,
    the cards of S left to deal must fit into the room of the players allowed any category of S."""

    def __init__(self, allowed: Sequence[Sequence[bool]]):
        self.num_groups = len(allowed[0]) if len(allowed) else 0
        subsets = np.array([[s >> g & 1 for g in range(self.num_groups)] for s in range(1, 1 << self.num_groups)],
                           np.int64).reshape(-1, self.num_groups)
        self.subsets = subsets
        self.reach = (subsets @ np.array(allowed, np.int64).T.reshape(self.num_groups, -1) > 0).astype(np.int64)

    def __call__(self, supply: np.ndarray, room: np.ndarray) -> bool:
        return bool(np.all(self.subsets @ supply <= self.reach @ room))
