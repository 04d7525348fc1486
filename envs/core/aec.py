"""The AEC adapter every hiddenhand game plugs its rules engine and observer into.

A game module only declares ``game_class`` and ``observer_class``; this class does the agent
bookkeeping, masks, seeding, illegal-action policy, rewards, truncation, rendering, action history, the
``observer="reference"`` option (:mod:`.reference`), and with :mod:`.positions` snapshots, restore,
positions and the information-set sampler. Order and legality are validated here, cheaply, instead of
through PettingZoo's wrapper stack (which costs several times the step of a fast env).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable

from .game import Game, Observer, State
from .options import Choice, Int, Option, Optional, Options
from .positions import Origin, PositionsMixin
from .reference import ReferenceObserver
from .rewards import REWARD_MODES, score_margin_rewards, winner_rewards
from .snapshots import SNAPSHOT_FORMAT  # noqa: F401  (re-exported)

_INT_TYPES = frozenset({int})
#: Options every game's env takes besides its game's own.
ENV_OPTIONS = Options("env", [
    Option("render_mode", None, Optional(Choice("ansi", "human")), "text rendering"),
    Option("max_cycles", None, Optional(Int(1)), "truncate after this many cycles (default: twice the game length)"),
    Option("illegal_action", "raise", Choice("raise", "terminate"), "a ValueError, or PettingZoo's -1 and game over"),
    Option("reward_mode", "win_loss", Choice(*REWARD_MODES), "terminal rewards"),
    Option("observer", "fast", Choice("fast", "reference"),
           "observations and masks from the fast path or from the game's reference module (slow, for checks)"),
])


class HiddenInfoAECEnv(PositionsMixin, AECEnv):
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
        observer: str = "fast",
        **game_options: Any,
    ):
        super().__init__()
        env_options = ENV_OPTIONS.resolve(dict(render_mode=render_mode, max_cycles=max_cycles,
                                               illegal_action=illegal_action, reward_mode=reward_mode,
                                               observer=observer), where=self.metadata["name"])
        render_mode, max_cycles, illegal_action, reward_mode, observer = env_options.values()
        self.game: Game = self.game_class(**game_options)
        self.observer: Observer = (self.observer_class(self.game) if observer == "fast" else
                                   ReferenceObserver(self.game, self.observer_class, where=self.metadata["name"]))
        #: The reference module whose ``legal_mask`` replaces the state's (``observer="reference"``), or None.
        self._reference = None if observer == "fast" else self.observer.module
        n = self.game.num_players
        if max_cycles is None:
            max_cycles = 2 * -(-self.game.max_game_length // n)
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.illegal_action = illegal_action
        self.reward_mode = reward_mode
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
        self._steps = 0  # actions played in this game (also before the origin)
        self._illegal_ending: Any = None  # the illegal action that ended the game (terminate mode), as recorded
        self._origin: Origin | None = None  # where play started (see .positions)
        self.history: list[int] = []  # actions played since the origin

    # ----------------------------------------------------------------- PettingZoo API
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.__dict__.pop("step", None)  # a re-dealt copy's first-step hook (see determinize)
        self._origin = Origin(self._rng.bit_generator.state)
        self._state = self.game.new_initial_state(self._rng)
        self.history = []
        self._set_aec(self._fresh_aec(self._state, steps=0))

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """PettingZoo's ``agent_iter`` (the agent to act, until none is left), run with the core."""
        self._require_state()
        return _AgentIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last`` (observation, cumulative reward, termination, truncation, info) of the
        agent to act, without the generic wrapper checks: the hot loop calls it every step."""
        if self._state is None:
            self._require_state()
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
        try:  # an int or numpy integer in range whose mask bit is set; never a bool or an array
            legal = (action.__class__ in _INT_TYPES or isinstance(action, np.integer)) and \
                0 <= action < self._num_actions and mask[action]
        except (TypeError, IndexError, ValueError):
            legal = False
        if not legal:
            self._illegal(action)
            return
        mover = state.current_player
        action = int(action)
        state.apply(action, self._rng)
        self.history.append(action)
        self._steps += 1
        self._mask_fresh = False
        if state.is_terminal or state.is_truncated or self._steps >= self._max_steps:
            self._end(mover)
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
        self._require_state()
        if self._game_over:
            return []
        return np.flatnonzero(self._legal_mask()).tolist()

    # ----------------------------------------------------------------- internals
    def _require_state(self) -> State:
        if self._state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before using the environment")
        return self._state

    def _legal_mask(self) -> np.ndarray:
        if not self._mask_fresh:
            self._mask = self._state.legal_mask() if self._reference is None else \
                self._reference.legal_mask(self._state)
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
        self._illegal_ending = self.infos[agent]["illegal_action"] = recorded_action(action)

    def _terminal_rewards(self, state: State) -> list[float]:
        if self.reward_mode == "win_loss":
            return winner_rewards(state.winners(), self.game.num_players)
        return score_margin_rewards(state.scores(), self.game.score_scale)

    def _end(self, mover: int) -> None:
        """End the game after ``mover``'s action: the state truncated itself, finished by its rules, or the
        env reached ``max_cycles``."""
        state = self._state
        if state.is_truncated:
            zero = self.game.truncation_reward == "zero"
            rewards = [0.0] * self.game.num_players if zero else self._terminal_rewards(state)
            self._finish(mover, rewards, truncated=True)
        elif state.is_terminal:
            self._finish(mover, self._terminal_rewards(state), truncated=False)
        else:
            self._finish(mover, [0.0] * self.game.num_players, truncated=True)

    def _finish(self, mover: int, rewards: list[float], truncated: bool) -> None:
        """End the game: rewards, terminations or truncations, and the final report in ``infos``."""
        state = self._state
        scores = state.scores()
        report = {
            "scores": dict(zip(self.possible_agents, scores)),
            "score_breakdown": state.score_breakdown(),
            "winners": [self.possible_agents[i] for i in state.winners()] if not truncated else [],
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
        header = f"{self.metadata['name']}  step {self._steps}"
        if self._game_over:
            header += "  (game over)"
        else:
            header += f"  to move: {self.agent_selection}"
        return f"{header}\n{state.render()}"


def recorded_action(action: Any) -> Any:
    """An illegal action as ``infos`` and snapshots record it: JSON data (an int, a string or a finite
    float as given, anything else as its ``repr``)."""
    if isinstance(action, np.integer):
        return int(action)
    if action.__class__ in (int, str) or (action.__class__ is float and math.isfinite(action)):
        return action
    return repr(action)


class _AgentIterable(AECIterable):
    def __iter__(self):
        return _agents(self.env, self.max_iter)


def _agents(env: HiddenInfoAECEnv, max_iter: int):
    while env.agents and max_iter > 0:
        max_iter -= 1
        yield env.agent_selection


