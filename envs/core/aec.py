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

from .game import Game, Observer, SnapshotError, State
from .options import Choice, Int, Option, Optional, Options
from .rewards import REWARD_MODES, score_margin_rewards, winner_rewards

SNAPSHOT_FORMAT = "hiddenhand-snapshot/1"
#: Env attributes that ``determinize`` shares with the copy (read-only) or sets afresh.
_SHARED_OR_REPLACED = frozenset({"game", "observer", "_state", "_rng", "observation_spaces", "action_spaces",
                                 "_observation_space", "_action_space", "history", "_mask"})
_INT_TYPES = frozenset({int})
#: Options every game's env takes besides its game's own.
ENV_OPTIONS = Options("env", [
    Option("render_mode", None, Optional(Choice("ansi", "human")), "text rendering"),
    Option("max_cycles", None, Optional(Int(1)), "truncate after this many cycles (default: twice the game length)"),
    Option("illegal_action", "raise", Choice("raise", "terminate"), "a ValueError, or PettingZoo's -1 and game over"),
    Option("reward_mode", "win_loss", Choice(*REWARD_MODES), "terminal rewards"),
])


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
        env_options = ENV_OPTIONS.resolve(dict(render_mode=render_mode, max_cycles=max_cycles,
                                               illegal_action=illegal_action, reward_mode=reward_mode),
                                          where=self.metadata["name"])
        render_mode, max_cycles, illegal_action, reward_mode = env_options.values()
        self.game: Game = self.game_class(**game_options)
        self.observer: Observer = self.observer_class(self.game)
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
        self._steps = 0  # actions played in this game (``history`` restarts at a re-deal)
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
        self._steps = 0
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
        if state.is_truncated:
            zero = self.game.truncation_reward == "zero"
            rewards = [0.0] * self.game.num_players if zero else self._terminal_rewards(state)
            self._finish(mover, rewards, truncated=True)
        elif state.is_terminal:
            self._finish(mover, self._terminal_rewards(state), truncated=False)
        elif self._steps >= self._max_steps:
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
        self._require_state()
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
                "steps": self._steps,
            },
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Set the env to a state captured by :meth:`snapshot` (of a game with the same options).

        Everything is checked before anything changes: the format, the game and its options, the
        state's types and ranges, the game's :meth:`~Game.invariants`, the RNG, the history and the
        AEC bookkeeping (whose turn it is must agree with the state). A bad snapshot raises
        :class:`SnapshotError` naming the problem and leaves the env as it was. This is the supported
        way to set up a position; ``set_position`` builds one from a game's own keywords.
        """
        parts = self._checked(snapshot)
        (self._state, self._rng, self.history, self.agents, self.agent_selection, self._skip_agent_selection,
         self.rewards, self._cumulative_rewards, self.terminations, self.truncations, self.infos,
         self._game_over, self._steps) = parts
        self._mask_fresh = False
        self.observer.invalidate()

    def set_position(self, seed: int | None = None, **spec: Any) -> None:
        """Set the env to a position described by ``spec`` (the game's documented keywords, see its
        ``position`` helper), dealt from ``seed`` where ``spec`` leaves things open, validated like a
        snapshot: a bad spec raises and leaves the env as it was. ``history`` starts empty (the position
        was not reached by play, so it cannot be replayed from a seed); the env's RNG is ``seed``'s."""
        rng = np.random.default_rng(seed)
        base = self.game.new_initial_state(rng).to_json()
        data = self.game.position(base, **spec)
        state = self._parse_state(data)
        agents = list(self.possible_agents)
        zeros = dict.fromkeys(agents, 0.0)
        self.restore({
            "format": SNAPSHOT_FORMAT, "game": self.metadata["name"], "num_players": self.game.num_players,
            "config": self.game.config(), "state": data, "rng": rng.bit_generator.state, "history": [],
            "aec": {"agents": agents, "agent_selection": agents[max(state.current_player, 0)],
                    "skip_agent_selection": None, "rewards": dict(zeros), "cumulative_rewards": dict(zeros),
                    "terminations": dict.fromkeys(agents, False), "truncations": dict.fromkeys(agents, False),
                    "infos": {agent: {} for agent in agents}, "game_over": False, "steps": 0},
        })

    def determinize(self, agent: str, seed: int | None = None) -> HiddenInfoAECEnv:
        """A new env in which everything hidden from ``agent`` is re-dealt consistently with what it saw.

        ``agent``'s observation is unchanged; play continues from here. The copy depends only on what
        ``agent`` knows and on ``seed``: two positions that ``agent`` cannot tell apart give identical
        copies, so no trace of the true hidden state (hands, records, logs) survives in it. Future
        chance events draw from a fresh RNG seeded by ``seed``; the copy's ``history`` starts empty.
        """
        if agent not in self._seat_of:
            raise ValueError(f"{self.metadata['name']}: unknown agent {agent!r}; agents: {self.possible_agents}")
        state = self._require_state().clone()  # a trusted copy: nothing to validate
        clone = copy.copy(self)
        clone.__dict__.update({key: copy.deepcopy(value) for key, value in self.__dict__.items()
                               if key not in _SHARED_OR_REPLACED})
        clone.observer = self.observer_class(self.game)
        clone._rng = np.random.default_rng(seed)
        clone._state = state
        state.resample_hidden(self._seat_of[agent], clone._rng)
        clone.history = []
        clone._mask = None
        clone._mask_fresh = False
        return clone

    def _checked(self, snapshot: Any) -> tuple:
        """The parts of a valid snapshot, ready to assign; :class:`SnapshotError` otherwise."""
        name = self.metadata["name"]
        if not isinstance(snapshot, dict):
            raise SnapshotError(f"{name}: a snapshot is a dict, got {type(snapshot).__name__}")
        missing = sorted({"format", "game", "num_players", "config", "state", "rng", "history", "aec"} - set(snapshot))
        if missing:
            raise SnapshotError(f"{name}: snapshot lacks {missing}")
        expected = {"format": SNAPSHOT_FORMAT, "game": name, "num_players": self.game.num_players,
                    "config": self.game.config()}
        for key, value in expected.items():
            if not _same(snapshot[key], value):
                raise SnapshotError(f"{name}: snapshot {key}={snapshot[key]!r} does not match this env's {value!r}")
        state = self._parse_state(snapshot["state"])
        rng = np.random.default_rng()
        try:
            if not _plain_json(snapshot["rng"]):
                raise TypeError("its values must be plain ints and strings")
            rng.bit_generator.state = snapshot["rng"]
        except (TypeError, ValueError, KeyError, IndexError, OverflowError) as error:
            raise SnapshotError(f"{name}: snapshot rng is not a {type(rng.bit_generator).__name__} state "
                                f"({error})") from None
        history = snapshot["history"]
        if not isinstance(history, list) or not all(
                isinstance(a, int) and not isinstance(a, bool) and 0 <= a < self._num_actions for a in history):
            raise SnapshotError(f"{name}: snapshot history must be a list of action ids 0..{self._num_actions - 1}")
        aec = self._checked_aec(snapshot["aec"], state)
        if len(history) > aec[-1]:
            raise SnapshotError(f"{name}: snapshot history holds {len(history)} actions, more than the {aec[-1]} steps played")
        return (state, rng, list(history), *aec)

    def _parse_state(self, data: Any) -> State:
        name = self.metadata["name"]
        if not isinstance(data, dict):
            raise SnapshotError(f"{name}: snapshot state must be a dict, got {type(data).__name__}")
        try:
            state = self.game.state_from_json(data)
        except SnapshotError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as error:
            raise SnapshotError(f"{name}: snapshot state is malformed ({type(error).__name__}: {error})") from None
        problems = self.game.invariants(state)
        if problems:
            raise SnapshotError(f"{name}: snapshot state breaks the rules: {'; '.join(problems)}")
        return state

    def _checked_aec(self, aec: Any, state: State) -> tuple:
        name, agents_all = self.metadata["name"], self.possible_agents
        keys = ("agents", "agent_selection", "skip_agent_selection", "rewards", "cumulative_rewards",
                "terminations", "truncations", "infos", "game_over", "steps")
        if not isinstance(aec, dict) or sorted(aec) != sorted(keys):
            raise SnapshotError(f"{name}: snapshot aec must hold exactly {list(keys)}")
        agents, selection, over = aec["agents"], aec["agent_selection"], aec["game_over"]

        def fail(problem: str) -> SnapshotError:
            return SnapshotError(f"{name}: snapshot aec: {problem}")

        if not isinstance(over, bool):
            raise fail(f"game_over must be a bool, got {over!r}")
        steps = aec["steps"]
        if not isinstance(steps, int) or isinstance(steps, bool) or not 0 <= steps <= self._max_steps:
            raise fail(f"steps must be an int in 0..{self._max_steps}, got {steps!r}")
        if not isinstance(agents, list) or any(a not in agents_all for a in agents) or len(set(agents)) != len(agents):
            raise fail(f"agents must be distinct agents of {agents_all}, got {agents!r}")
        if selection not in agents_all or aec["skip_agent_selection"] not in (None, *agents_all):
            raise fail(f"agent_selection {selection!r} is not one of {agents_all}")
        tables = {}
        for key, kinds in (("rewards", (int, float)), ("cumulative_rewards", (int, float)),
                           ("terminations", (bool,)), ("truncations", (bool,)), ("infos", (dict,))):
            table = aec[key]
            if not isinstance(table, dict) or set(table) != set(agents) or not all(
                    isinstance(v, kinds) and not (kinds != (bool,) and isinstance(v, bool)) for v in table.values()):
                raise fail(f"{key} must map each of {agents} to a {kinds[0].__name__}")
            tables[key] = copy.deepcopy(table)
        if over:
            if not state.is_terminal and not any(tables["truncations"].values()) and not any(
                    "illegal_action" in info for info in tables["infos"].values()):
                raise fail("game_over is true but the game is neither finished, truncated nor ended by an illegal action")
        else:
            if state.is_terminal:
                raise fail("the state is terminal but game_over is false")
            if agents != agents_all or any(tables["terminations"].values()) or any(tables["truncations"].values()):
                raise fail("a running game has every agent, none terminated or truncated")
            if selection != agents_all[state.current_player]:
                raise fail(f"agent_selection {selection!r} is not the state's current player "
                           f"{agents_all[state.current_player]!r}")
        return (list(agents), selection, aec["skip_agent_selection"], tables["rewards"],
                tables["cumulative_rewards"], tables["terminations"], tables["truncations"], tables["infos"], over,
                steps)

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
        self.infos[agent]["illegal_action"] = (int(action) if isinstance(action, np.integer) else action
                                               if action.__class__ in (int, str, float) else repr(action))

    def _terminal_rewards(self, state: State) -> list[float]:
        if self.reward_mode == "win_loss":
            return winner_rewards(state.winners(), self.game.num_players)
        return score_margin_rewards(state.scores(), self.game.score_scale)

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


def _same(given: Any, expected: Any) -> bool:
    """``given == expected`` for JSON data, false (never an error) for anything else, e.g. numpy arrays."""
    try:
        return bool(given == expected) and type(given) is type(expected)
    except (TypeError, ValueError):
        return False


def _plain_json(value: Any) -> bool:
    """Only dicts with string keys, and ints (not bools) and strings, all the way down."""
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain_json(item) for key, item in value.items())
    return value.__class__ in (int, str)


class _AgentIterable(AECIterable):
    def __iter__(self):
        return _agents(self.env, self.max_iter)


def _agents(env: HiddenInfoAECEnv, max_iter: int):
    while env.agents and max_iter > 0:
        max_iter -= 1
        yield env.agent_selection


