"""Random legal play through the AEC API, shared by the env test modules."""

import numpy as np


def play_random(env, seed, steps=None, each_step=None):
    """Random legal play (the observed mask) from the current position; returns the actions taken.
    ``each_step(agent, observation, taken)`` is called before every action (for checks)."""
    rng = np.random.default_rng(seed)
    taken = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if steps is not None and taken >= steps:
            break
        if each_step is not None:
            each_step(agent, obs, taken)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        taken += 1
    return taken
