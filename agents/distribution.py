"""An agent's probability of each legal action at one decision (for exploitability and probes).

A trained agent (anything with ``logits``) gives its masked softmax, or its argmax when it plays
deterministically. A search agent (one that overrides ``bind``) is bound to ``env`` and acts once, seed 0:
it reaches the game only through ``determinize``, so its answer depends on the seat's information alone.
Any other agent (heuristics, random) acts ``samples`` times after ``reset(0)``, ``reset(1)``, ... and the
frequencies of its answers are its distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Agent


def is_search(agent: Agent) -> bool:
    """True for agents that need ``bind(env, agent_id)`` before acting."""
    return type(agent).bind is not Agent.bind


def action_distribution(agent: Agent, observation: np.ndarray, mask: np.ndarray, env: Any = None,
                        agent_id: str | None = None, samples: int = 1) -> dict[int, float]:
    """``agent``'s probability of each action it may take here (see the module docstring)."""
    legal = np.flatnonzero(mask)
    if hasattr(agent, "logits"):
        logits = np.asarray(agent.logits(observation), np.float64)[legal]
        if getattr(agent, "deterministic", False):
            return {int(legal[int(np.argmax(logits))]): 1.0}
        weights = np.exp(logits - logits.max())
        return {int(a): float(w) for a, w in zip(legal, weights / weights.sum())}
    searching = is_search(agent)
    if searching and env is None:
        raise ValueError(f"{agent.name}: a search agent needs the env at the position to act")
    runs = 1 if searching else samples
    counts: dict[int, float] = {}
    for seed in range(runs):
        agent.reset(seed)
        if searching:
            agent.bind(env, agent_id)
        action = int(agent.act(observation, mask))
        counts[action] = counts.get(action, 0.0) + 1.0 / runs
    return counts
