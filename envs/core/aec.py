"""The AEC adapter every hiddenhand game plugs its rules engine and observer into.

A game module only declares ``game_class`` and ``observer_class``; this class does the agent
bookkeeping, masks, seeding, illegal-action policy, rewards, truncation, rendering, snapshots, action
history and the information-set sampler. Order and legality are validated here, cheaply, instead of
through PettingZoo's wrapper stack (which costs several times the step of a fast env).
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable

from .game import Game, Observer, State
from .rewards import REWARD_MODES, score_margin_rewards, win_loss_rewards, winners

ILLEGAL_ACTION_POLICIES = ("raise", "terminate")
SNAPSHOT_FORMAT = "hiddenhand-snapshot/1"


class HiddenInfoAECEnv(AECEnv):
    """Shared AEC environment; see a game's ``<game>_v0`` module for its card."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}
    game_class: ClassVar[type[Game]]
    observer_class: ClassVar[type[Observer]]

    def __init__(
        self,
        render_mode: str | None = None,
        max_cycles: int | None = None,
        illegal_action: str = "raise",
        reward_mode: str = "win_loss",
        **game_options: Any,
    ):
        super().__init__()
        name = self.metadata["name"]
        _check_choice(name, "render_mode", render_mode, (None, *self.metadata["render_modes"]))
        _check_choice(name, "illegal_action", illegal_action, ILLEGAL_ACTION_POLICIES)
        _check_choice(name, "reward_mode", reward_mode, REWARD_MODES)
        self.game: Game = self.game_class(**game_options)
        self.observer: Observer = self.observer_class(self.game)
        n = self.game.num_players
        if max_cycles is None:
            max_cycles = 2 * -(-self.game.max_game_length // n)
        if not isinstance(max_cycles, int) or max_cycles < 1:
            raise ValueError(f"{name}: max_cycles must be a positive int, got {max_cycles!r}")
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.illegal_action = illegal_action
        self.reward_mode = reward_mode
        self._init_kwargs = dict(
            render_mode=render_mode, max_cycles=max_cycles, illegal_action=illegal_action,
            reward_mode=reward_mode, **game_options,
        )
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        num_actions = self.game.num_actions
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(self.observer.low, self.observer.high, (self.observer.layout.size,),
                                      self.observer.dtype),
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        })
        self._action_space = spaces.Discrete(num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self._num_actions = num_actions
        self._max_steps = max_cycles * n
        self._mask: np.ndarray | None = None  # the state's legal mask, while _mask_fresh
        self._mask_fresh = False
        self._state: State | None = None
        self._rng: np.random.Generator | None = None
        self._game_over = False
        self.history: list[int] = []

    # ----------------------------------------------------------------- PettingZoo API
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self._state = self.game.new_initial_state(self._rng)
        self.history = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._game_over = False
        self._mask_fresh = False
        self.agent_selection = self.possible_agents[self._state.current_player]

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """PettingZoo's ``agent_iter`` (the agent to act, until none is left), run with the core."""
        return _AgentIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last`` (observation, cumulative reward, termination, truncation, info) of the
        agent to act, without the generic wrapper checks: the hot loop calls it every step."""
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._state or self._require_state()
        seat = self._seat_of[agent]
        if seat == state.current_player and not self._game_over:
            mask = self._legal_mask().copy()
        else:
            mask = np.zeros(self._num_actions, np.int8)
        return {"observation": self.observer.encode(state, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        if self._game_over:
            self._was_dead_step(action)
            return
        state = self._state or self._require_state()
        mask = self._legal_mask()
        try:
            legal = action is not None and 0 <= action < self._num_actions and mask[action]
        except (TypeError, IndexError, ValueError):  # not an integer action
            legal = False
        if not legal:
            self._illegal(action)
            return
        mover = state.current_player
        action = int(action)
        state.apply(action, self._rng)
        self.history.append(action)
        self._mask_fresh = False
        if state.is_truncated:
            zero = self.game.truncation_reward == "zero"
            rewards = [0.0] * self.game.num_players if zero else self._terminal_rewards(state.scores())
            self._finish(mover, rewards, truncated=True)
        elif state.is_terminal:
            self._finish(mover, self._terminal_rewards(state.scores()), truncated=False)
        elif len(self.history) >= self._max_steps:
            self._finish(mover, [0.0] * self.game.num_players, truncated=True)
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            raise ValueError(f"{self.metadata['name']}: render() needs render_mode='ansi' or 'human'")
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ----------------------------------------------------------------- hiddenhand extras
    @property
    def state_(self) -> State:
        """The rules-engine state (read it; change it only through ``step``)."""
        return self._require_state()

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent on turn (empty once the game is over)."""
        if self._game_over:
            return []
        return np.flatnonzero(self._legal_mask()).tolist()

    def snapshot(self) -> dict[str, Any]:
        """The complete env state (RNG included) as JSON-serialisable data."""
        state = self._require_state()
        return {
            "format": SNAPSHOT_FORMAT,
            "game": self.metadata["name"],
            "num_players": self.game.num_players,
            "config": self.game.config(),
            "state": state.to_json(),
            "rng": self._rng.bit_generator.state,
            "history": list(self.history),
            "aec": {
                "agents": list(self.agents),
                "agent_selection": self.agent_selection,
                "skip_agent_selection": self._skip_agent_selection,
                "rewards": dict(self.rewards),
                "cumulative_rewards": dict(self._cumulative_rewards),
                "terminations": dict(self.terminations),
                "truncations": dict(self.truncations),
                "infos": copy.deepcopy(self.infos),
                "game_over": self._game_over,
            },
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Set the env to a state captured by :meth:`snapshot` (of a game with the same options)."""
        name = self.metadata["name"]
        expected = {"format": SNAPSHOT_FORMAT, "game": name, "num_players": self.game.num_players,
                    "config": self.game.config()}
        for key, value in expected.items():
            if snapshot.get(key) != value:
                raise ValueError(f"{name}: snapshot {key}={snapshot.get(key)!r} does not match this env's {value!r}")
        state = self.game.state_from_json(snapshot["state"])
        rng = np.random.default_rng()
        rng.bit_generator.state = snapshot["rng"]
        aec = snapshot["aec"]
        self._state, self._rng = state, rng
        self.history = list(snapshot["history"])
        self.agents = list(aec["agents"])
        self.agent_selection = aec["agent_selection"]
        self._skip_agent_selection = aec["skip_agent_selection"]
        self.rewards = dict(aec["rewards"])
        self._cumulative_rewards = dict(aec["cumulative_rewards"])
        self.terminations = dict(aec["terminations"])
        self.truncations = dict(aec["truncations"])
        self.infos = copy.deepcopy(aec["infos"])
        self._game_over = aec["game_over"]
        self._mask_fresh = False

    def determinize(self, agent: str, seed: int | None = None) -> HiddenInfoAECEnv:
        """A new env in which everything hidden from ``agent`` is re-dealt consistently with what it saw.

        ``agent``'s observation is unchanged; play continues from here. Future chance events draw from
        a fresh RNG seeded by ``seed`` (the original RNG would reveal future deals). The new env's
        ``history`` starts empty, since its deal was not produced by a seed.
        """
        if agent not in self._seat_of:
            raise ValueError(f"{self.metadata['name']}: unknown agent {agent!r}; agents: {self.possible_agents}")
        clone = type(self)(**self._init_kwargs)
        clone.restore(self.snapshot())
        clone._rng = np.random.default_rng(seed)
        clone._state.resample_hidden(self._seat_of[agent], clone._rng)
        clone.history = []
        return clone

    # ----------------------------------------------------------------- internals
    def _require_state(self) -> State:
        if self._state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before using the environment")
        return self._state

    def _legal_mask(self) -> np.ndarray:
        if not self._mask_fresh:
            self._mask = self._state.legal_mask()
            self._mask_fresh = True
        return self._mask

    def _illegal(self, action: Any) -> None:
        agent = self.agent_selection
        if self.illegal_action == "raise":
            legal = self.legal_actions()
            raise ValueError(
                f"{self.metadata['name']}: illegal action {action!r} for {agent}; "
                f"legal actions: {legal} ({', '.join(self.game.action_to_string(a) for a in legal)})"
            )
        rewards = [0.0] * self.game.num_players
        rewards[self._seat_of[agent]] = -1.0
        self._finish(self._seat_of[agent], rewards, truncated=False)
        for info in self.infos.values():  # the game was not played out: nobody won it
            info["winners"] = []
        self.infos[agent]["illegal_action"] = action

    def _terminal_rewards(self, scores: list[float]) -> list[float]:
        if self.reward_mode == "win_loss":
            return win_loss_rewards(scores)
        return score_margin_rewards(scores, self.game.score_scale)

    def _finish(self, mover: int, rewards: list[float], truncated: bool) -> None:
        """End the game: rewards, terminations or truncations, and the final report in ``infos``."""
        state = self._state
        scores = state.scores()
        report = {
            "scores": dict(zip(self.possible_agents, scores)),
            "score_breakdown": state.score_breakdown(),
            "winners": [self.possible_agents[i] for i in winners(scores)] if not truncated else [],
        }
        for agent, reward in zip(self.possible_agents, rewards):
            self.rewards[agent] = reward
            self._cumulative_rewards[agent] = reward
            self.terminations[agent] = not truncated
            self.truncations[agent] = truncated
            self.infos[agent] = dict(report)
        self._game_over = True
        self.agent_selection = self.possible_agents[(mover + 1) % self.game.num_players]

    def _render_text(self) -> str:
        state = self._require_state()
        header = f"{self.metadata['name']}  step {len(self.history)}"
        if self._game_over:
            header += "  (game over)"
        else:
            header += f"  to move: {self.agent_selection}"
        return f"{header}\n{state.render()}"


class _AgentIterable(AECIterable):
    def __iter__(self):
        return _agents(self.env, self.max_iter)


def _agents(env: HiddenInfoAECEnv, max_iter: int):
    while env.agents and max_iter > 0:
        max_iter -= 1
        yield env.agent_selection


def _check_choice(env_name: str, option: str, value: Any, allowed: tuple) -> None:
    if value not in allowed:
        raise ValueError(f"{env_name}: {option}={value!r} is not supported; allowed: {list(allowed)}")
