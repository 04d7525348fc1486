"""The one interface every agent implements: random, heuristic, trained or human."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Agent(ABC):
    """Chooses an action from an observation vector and its legal-action mask."""

    name: str = "agent"

    def reset(self, seed: int | None = None) -> None:
        """Called before every game; agents with their own randomness reseed here."""

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id (``action_mask[action] == 1``)."""


class RandomAgent(Agent):
    """Uniformly random among the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("random agent: the action mask has no legal action")
        return int(legal[self._rng.integers(legal.size)])
