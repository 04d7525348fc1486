"""The registry's PettingZoo AEC env as an RLlib multi-agent env with a league line-up per episode.

Each episode's line-up (seat -> module id, see :mod:`.league`) is set by the league callback before
the episode starts. Seats mapped to a neural module (the learner, a frozen snapshot) are RLlib agents
and see ``{"observations": the game's input transform of the observation, "action_mask": legal
moves}``; seats mapped to a baseline (heuristic, random) are played inside the env by the project's
agents, which keep their own state through the game as in any other game loop. Rewards follow the SB3
trainer (:mod:`hiddenhand.training.selfplay`): every neural seat receives its own terminal reward
whoever moved last, and with ``dense_reward`` the changes of a potential since its previous turn
(:mod:`hiddenhand.training.potentials`), the episode's pieces adding up to the terminal reward.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from hiddenhand.agents import Agent, load
from hiddenhand.envs import make as make_env
from hiddenhand.envs.core.game import INPUT_TRANSFORMS

from ..potentials import potential
from .league import BASELINE_MODULES, LEARNER


class LeagueEnv(MultiAgentEnv):
    """``config``: ``game``, ``env`` (options for ``hiddenhand.envs.make``), ``dense_reward``, ``potential``,
    ``seed``."""

    def __init__(self, config: dict[str, Any]):
        super().__init__()
        self.aec = make_env(config["game"], **config.get("env", {})).unwrapped
        self.dense_reward = bool(config.get("dense_reward", False))
        self._potential = potential(config.get("potential", "score_margin"), config["game"])
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = []
        agent = self.possible_agents[0]
        size = self.aec.observation_space(agent)["observation"].shape
        self.action_space_ = self.aec.action_space(agent)
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(-np.inf, np.inf, size, np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (self.action_space_.n,), np.float32),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.action_space_ for a in self.possible_agents}
        self._input = INPUT_TRANSFORMS[self.aec.observer.policy_input]
        game = self.aec.game
        # one agent per seat and baseline: agents may keep state through a game
        self._baselines = {(a, name): load(name, game, config.get("seed"))
                           for a in self.possible_agents for name in BASELINE_MODULES}
        self._rng = np.random.default_rng(config.get("seed"))
        self.lineup: dict[str, str] = {a: LEARNER for a in self.possible_agents}
        self._scripted: dict[str, Agent] = {}
        self._margin: dict[str, float] = {}
        self._paid: dict[str, float] = {}

    def set_lineup(self, lineup: dict[str, str]) -> None:
        """Seat -> module id for the next episode (called by the league before it starts)."""
        self.lineup = dict(lineup)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.aec.reset(seed=int(self._rng.integers(2**63)))
        self._scripted = {a: self._baselines[a, m] for a, m in self.lineup.items() if m in BASELINE_MODULES}
        for agent in self._scripted.values():
            agent.reset(seed=int(self._rng.integers(2**63)))
        self.agents = [a for a in self.possible_agents if a not in self._scripted]
        self._margin = {a: 0.0 for a in self.agents}
        self._paid = {a: 0.0 for a in self.agents}
        self._acted: set[str] = set()
        return self._advance(), {}

    def step(self, action_dict: dict[str, int]):
        (agent, action), = action_dict.items()
        self._acted.add(agent)
        self.aec.step(int(action))
        observations = self._advance()
        if self._over():
            return self._final()
        rewards = {}
        for mover in observations:
            rewards[mover] = self._dense(mover) if self.dense_reward else 0.0
        return observations, rewards, {"__all__": False}, {"__all__": False}, {}

    def _over(self) -> bool:
        aec = self.aec
        return not aec.agents or aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]

    def _final(self):
        """Every neural seat that has moved gets its last observation and its terminal reward."""
        aec, seats = self.aec, self.possible_agents
        won = set(aec.state_.winners())
        truncated = any(aec.truncations.values())
        done = [a for a in self.agents if a in self._acted]
        observations = {a: self._observe(a) for a in done}
        rewards = {a: float(aec.rewards[a]) - self._paid[a] for a in done}
        infos = {a: {"won": seats.index(a) in won, "lineup": dict(self.lineup)} for a in done}
        terminateds = {a: not truncated for a in done} | {"__all__": not truncated}
        truncateds = {a: truncated for a in done} | {"__all__": truncated}
        return observations, rewards, terminateds, truncateds, infos

    def _dense(self, agent: str) -> float:
        margin = self._potential(self.aec, self.possible_agents.index(agent))
        reward, self._margin[agent] = margin - self._margin[agent], margin
        self._paid[agent] += reward
        return reward

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        seen = self.aec.observe(agent)
        return {"observations": self._input(seen["observation"]),
                "action_mask": seen["action_mask"].astype(np.float32)}

    def _advance(self) -> dict[str, dict[str, np.ndarray]]:
        """Play scripted seats until a neural seat is on turn (its observation) or the game is over ({})."""
        aec = self.aec
        while not self._over():
            mover = aec.agent_selection
            if mover not in self._scripted:
                return {mover: self._observe(mover)}
            seen = aec.observe(mover)
            aec.step(self._scripted[mover].act(seen["observation"], seen["action_mask"]))
        return {}
