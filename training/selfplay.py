"""Self-play: a Gymnasium single-agent view of any hiddenhand AEC env, and its opponent pool.

The learner takes a random seat each episode; the other seats are played inside the env by opponents
drawn from the pool, each seat independently: the latest policy, one of the last ``window`` snapshots,
or a baseline agent, with the configured probabilities (a category that is still empty is skipped and
the others renormalised). The learner always receives its own terminal reward, whoever moved last. With ``dense_reward`` the
same return arrives in pieces, as the changes of a potential (:mod:`.potentials`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from hiddenhand.agents import Agent, PolicyAgent, bind_agents, load
from hiddenhand.agents.trained import Weights
from hiddenhand.envs import make as make_env
from hiddenhand.envs.core.game import INPUT_TRANSFORMS

from .potentials import potential as potential_of

class OpponentPool:
    """Latest policy, a window of past snapshots, and baseline agents."""

    def __init__(self, game, metadata: dict[str, Any], baselines: Sequence[str], window: int,
                 latest_prob: float, snapshot_prob: float, baseline_prob: float, seed: int | None = None):
        self.metadata = metadata
        self.latest: PolicyAgent | None = None
        self.snapshots: deque[PolicyAgent] = deque(maxlen=window)
        # one instance per seat: a search agent is bound to its seat for the game
        self.baselines: list[list[Agent]] = [[load(name, game, seed) for _ in range(game.num_players)]
                                             for name in baselines]
        self.probabilities = (latest_prob, snapshot_prob, baseline_prob)

    def set_latest(self, weights: Weights) -> None:
        self.latest = self._policy(weights)

    def add_snapshot(self, weights: Weights) -> None:
        self.snapshots.append(self._policy(weights))

    def sample(self, rng: np.random.Generator, seat: int = 0) -> Agent:
        """An opponent for ``seat`` (baselines are drawn as that seat's own instance)."""
        groups = ([self.latest] if self.latest else [], list(self.snapshots),
                  [per_seat[seat] for per_seat in self.baselines])
        weights = np.array([p if group else 0.0 for p, group in zip(self.probabilities, groups)])
        if weights.sum() == 0:
            raise RuntimeError("opponent pool is empty: set a latest policy or give baselines")
        group = groups[rng.choice(3, p=weights / weights.sum())]
        return group[rng.integers(len(group))]

    def _policy(self, weights: Weights) -> PolicyAgent:
        # sampling policy; SelfPlayEnv reseeds every opponent from its own RNG each episode
        return PolicyAgent(weights, self.metadata, deterministic=False, seed=0)


class SelfPlayEnv(gym.Env):
    """One learner seat of a hiddenhand game; ``action_masks()`` serves sb3-contrib's MaskablePPO."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, env_options: dict[str, Any], pool: OpponentPool, dense_reward: bool = False,
                 potential: str = "score_margin"):
        self.aec = make_env(game, **env_options).unwrapped
        self.pool = pool
        self.dense_reward = dense_reward
        self._potential = potential_of(potential, game)
        self._seat = 0
        self._margin = self._paid = 0.0
        space = self.aec.observation_space(self.aec.possible_agents[0])["observation"]
        self._input = INPUT_TRANSFORMS[self.aec.observer.policy_input]
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, space.shape, np.float32)
        self.action_space = self.aec.action_space(self.aec.possible_agents[0])
        self.learner = self.aec.possible_agents[0]
        self._opponents: dict[str, Agent] = {}
        self._observation: dict[str, np.ndarray] | None = None

    # pool updates arrive through VecEnv.env_method, also in subprocesses
    def set_latest(self, weights: Weights) -> None:
        self.pool.set_latest(weights)

    def add_snapshot(self, weights: Weights) -> None:
        self.pool.add_snapshot(weights)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        agents = self.aec.possible_agents
        self._seat = int(rng.integers(len(agents)))
        self.learner = agents[self._seat]
        self._margin = self._paid = 0.0
        self._opponents = {agent: self.pool.sample(rng, seat) for seat, agent in enumerate(agents)
                           if agent != self.learner}
        self.aec.reset(seed=int(rng.integers(2**63)))
        for agent in self._opponents.values():
            agent.reset(seed=int(rng.integers(2**63)))
        bind_agents(self.aec, self._opponents)
        return self._advance(), {"seat": self.learner}

    def step(self, action: int):
        self.aec.step(int(action))
        observation = self._advance()
        over = self.aec.terminations[self.learner] or self.aec.truncations[self.learner]
        if over:
            reward = float(self.aec.rewards[self.learner]) - self._paid
        elif self.dense_reward:
            margin = self._potential(self.aec, self._seat)
            reward, self._margin = margin - self._margin, margin
            self._paid += reward
        else:
            reward = 0.0
        info = dict(self.aec.infos[self.learner]) if over else {}
        return observation, reward, bool(self.aec.terminations[self.learner]), \
            bool(self.aec.truncations[self.learner]), info

    def action_masks(self) -> np.ndarray:
        return self._observation["action_mask"].astype(bool)

    def _advance(self) -> np.ndarray:
        """Let opponents move until the learner is on turn or the game is over."""
        aec = self.aec
        while not (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]) \
                and aec.agent_selection != self.learner:
            mover = aec.agent_selection
            seen = aec.observe(mover)
            aec.step(self._opponents[mover].act(seen["observation"], seen["action_mask"]))
        self._observation = aec.observe(self.learner)
        return self._input(self._observation["observation"])
