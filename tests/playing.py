"""Seeded random play, shared by every test package (``pythonpath = ["tests"]`` in pyproject.toml)."""

from __future__ import annotations

import numpy as np


def play_random(env, seed: int, steps: int | None = None, each_step=None) -> int:
    """Seeded random legal play through the AEC API from the current position (``steps`` actions at
    most, else to the end); ``each_step(env, observation, taken)`` runs before every action. Returns the
    number of actions taken."""
    rng = np.random.default_rng(seed)
    taken = 0
    while env.agents:
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if steps is not None and taken >= steps:
            break
        if each_step is not None:
            each_step(env, observation, taken)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        taken += 1
    return taken


def advance(env, moves: int, seed: int = 0) -> None:
    """``moves`` seeded random legal actions via ``legal_actions`` (no observations; fast), fewer if the
    game ends (the agents are then left in place)."""
    rng = np.random.default_rng(seed)
    raw = env.unwrapped
    for _ in range(moves):
        legal = raw.legal_actions()
        if not legal:
            return
        env.step(int(rng.choice(legal)))


def to_a_choice(env, seed: int = 0, skip: int = 3) -> None:
    """Random moves: ``skip`` of them, then on until the agent to move has more than one legal action (a
    game that ends first, such as a short cow trade, is dealt again with the next seed)."""
    raw = env.unwrapped
    while True:
        advance(env, skip, seed)
        rng = np.random.default_rng(seed + 1)
        while len(raw.legal_actions()) == 1:
            env.step(int(rng.choice(raw.legal_actions())))
        if raw.legal_actions():
            return
        seed += 1
        env.reset(seed=seed)


def trace(env, seed: int) -> list:
    """Every agent's observation, the mask, reward and flags at each step of seeded random play to the end."""
    rng = np.random.default_rng(seed)
    out = []
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        views = tuple(env.observe(a)["observation"].tobytes() for a in env.possible_agents)
        out.append((agent, observation["action_mask"].tobytes(), views, reward, termination, truncation))
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return out
