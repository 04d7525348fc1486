"""The one interface every agent implements: random, heuristic, trained or human."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Agent(ABC):
    """Chooses an action from an observation vector and its legal-action mask."""

    name: str = "agent"

    def reset(self, seed: int | None = None) -> None:
        """Called before every game; agents with their own randomness reseed here."""

    def bind(self, env, agent_id: str) -> None:
        """Called before every game (after ``env.reset``) with the env and this agent's seat name.

        The default does nothing. An agent that searches keeps the env and, through it, may use only what
        ``agent_id`` may know: ``env.unwrapped.determinize(agent_id, seed)``, its own observation and public
        data (the game, the options), never the true state.
        """

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id (``action_mask[action] == 1``)."""


def bind_agents(env, agents) -> None:
    """``agent.bind(env, agent_id)`` for each seat's agent (``agents``: one per seat, or a mapping from
    agent ids; ``None`` entries, e.g. a human, are skipped). Call it after ``env.reset``."""
    items = agents.items() if hasattr(agents, "items") else zip(env.unwrapped.possible_agents, agents)
    for agent_id, agent in items:
        bind = getattr(agent, "bind", None)
        if bind is not None:
            bind(env, agent_id)


def play_decisions(env, agents):
    """Play a reset env to its end with ``agents`` (one per seat, already bound), yielding
    ``(agent_id, observation, action)`` at every decision after the seat has chosen and before the action
    is applied: the state is still the one the seat decided in."""
    seats = {agent_id: seat for seat, agent_id in enumerate(env.unwrapped.possible_agents)}
    for agent_id in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = int(agents[seats[agent_id]].act(observation["observation"], observation["action_mask"]))
        yield agent_id, observation, action
        env.step(action)


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
