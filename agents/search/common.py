"""What the search agents share: options, binding to an env, re-deals, cheap state copies, rollouts and
the evaluation of a position.

A search agent reaches the game only through :meth:`SearchAgent.bind` (the env and its seat). Per move it
asks the env for ONE re-dealt copy, ``env.determinize(agent_id, seed)``, whose hidden part depends only on
what its seat knows; every further determinization is a cheap copy of that copy's state re-dealt again
with ``State.resample_hidden(seat, rng)`` (no JSON round trip, no new env). The true state is never read.
Rollouts run on the rules engine (``legal_mask`` and ``apply``); a rollout policy that needs observations
(a heuristic or a trained agent) gets them from a private observer (``observer_class(game).encode``).
"""

from __future__ import annotations

import copy
import random
import time
from operator import attrgetter
from typing import Any, ClassVar

import numpy as np

from hiddenhand.envs.core.game import Game, State
from hiddenhand.envs.core.options import Choice, ConfigError, Float, Int, Kind, Option, Optional, Options, check
from hiddenhand.envs.core.rewards import score_margin_rewards, winner_rewards
from hiddenhand.envs.registry import entry

from ..base import Agent


class Text(Kind):
    allowed = "a non-empty string"

    def convert(self, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise ValueError
        return value.strip()


class Horizon(Kind):
    """``None`` (play to the end), a number of plies from the root, or ``"round"`` (to the end of the
    current round, for games with a round hook)."""

    allowed = "None, an int >= 1 (plies) or 'round'"

    def convert(self, value: Any) -> Any:
        if value is None or value == "round":
            return value
        return Int(1).convert(value)


#: The tree searches' pool of re-deals (for games whose re-deal is expensive).
REDEALS = Option("redeals", None, Optional(Int(1, 10_000_000)), "None: a new re-deal every iteration; else a pool "
                                                                "of this many re-deals used in turn")

COMMON_OPTIONS = [
    Option("seconds", None, Optional(Float(0.0, above=True)), "time budget per move (overrides the iteration budget; "
                                                  "then moves are not reproducible)"),
    Option("rollout", "random", Text(), "rollout policy: random, heuristic, or a trained agent's name or file"),
    Option("horizon", None, Horizon(), "rollout depth in plies from the root, 'round', or None (to the end)"),
    Option("value", "margin", Choice("margin", "win", "estimate"),
           "position value: 'margin' the score margin / score_scale; 'win' at the end of the game the win/loss "
           "reward (else the margin); 'estimate' the game's evaluation hook (registry)"),
]


class SearchAgent(Agent):
    """Base of the search agents: options, ``bind``, re-deals, copies, rollouts and values."""

    name: ClassVar[str] = "search"
    algorithm: ClassVar[str]
    OPTIONS: ClassVar[Options]

    def __init__(self, game: Game, seed: int | None = None, **options: Any):
        hooks = entry(game.name).search
        defaults = hooks.defaults.get(self.algorithm, {})
        opts = self.OPTIONS.resolve({**defaults, **options}, where=f"{self.algorithm} agent")
        if opts["horizon"] == "round" and hooks.round_attribute is None:
            raise ConfigError(f"{self.algorithm} agent: horizon='round' needs a round hook; {game.name} has "
                              f"none (give a number of plies or None)")
        self.game = game
        self.options = opts
        self.seconds: float | None = opts["seconds"]
        self.horizon = opts["horizon"]
        self.value_mode = opts["value"]
        if opts["value"] == "estimate" and hooks.evaluation is None:
            raise ConfigError(f"{self.algorithm} agent: value='estimate' needs an evaluation hook; {game.name} has "
                              f"none (use 'margin' or 'win')")
        self._round_of = attrgetter(hooks.round_attribute) if hooks.round_attribute else None
        self._evaluate = hooks.evaluator() if opts["value"] == "estimate" else None
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._policy = self._rollout_policy(opts["rollout"], seed)
        self._observer = None
        if self._policy is not None:
            from hiddenhand.envs import load_module

            self._observer = load_module(game.name).raw_env.observer_class(game)
        self._env = None
        self._agent_id: str | None = None
        self._seat = -1
        self.last_iterations = 0  # iterations (or rollouts) spent on the last move, for reports
        #: What the last search concluded (None after a forced move), for expert iteration: a distribution
        #: over the actions (visit shares; PIMC: its best actions) and the seat's value of the position.
        self.last_policy: np.ndarray | None = None
        self.last_value: float | None = None

    # ------------------------------------------------------------------ the Agent interface
    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._seed = seed
            self._rng = np.random.default_rng(seed)
            if self._policy is not None:
                self._policy.reset(seed)

    def bind(self, env: Any, agent_id: str) -> None:
        """Attach to the env this agent plays in, as ``agent_id``; called before every game. Through it
        the agent uses only ``determinize(agent_id, seed)``: what its own seat may know."""
        raw = env.unwrapped
        game = raw.game
        if game.name != self.game.name or game.num_players != self.game.num_players or \
                game.config() != self.game.config():
            raise ValueError(f"{self.algorithm} agent: built for {self.game.name} {self.game.config()}, bound to "
                             f"{game.name} {game.config()}")
        if agent_id not in raw.possible_agents:
            raise ValueError(f"{self.algorithm} agent: unknown agent {agent_id!r}; agents: {raw.possible_agents}")
        self._env = raw
        self._agent_id = agent_id
        self._seat = raw.possible_agents.index(agent_id)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError(f"{self.algorithm} agent: the action mask has no legal action")
        if self._env is None:
            raise RuntimeError(f"{self.algorithm} agent: call bind(env, agent_id) before a game (every game loop "
                               f"of hiddenhand does)")
        move_seed = int(self._rng.integers(2**63))  # drawn even for a forced move: the stream stays aligned
        if legal.size == 1:
            self.last_iterations = 0
            self.last_policy = self.last_value = None
            return int(legal[0])
        if self._env.agent_selection != self._agent_id:
            raise RuntimeError(f"{self.algorithm} agent: bound as {self._agent_id!r} but "
                               f"{self._env.agent_selection!r} is to move")
        rng = np.random.default_rng(move_seed)
        base = self._env.determinize(self._agent_id, int(rng.integers(2**63))).state_
        sampler = _Sampler(base, self._seat, rng, self.options.get("redeals"))
        return int(self.search(sampler, legal, rng, random.Random(int(rng.integers(2**63)))))

    def search(self, sampler: _Sampler, legal: np.ndarray, rng: np.random.Generator,
               fast: random.Random) -> int:
        """The move; also sets ``last_iterations``, ``last_policy`` and ``last_value``."""
        raise NotImplementedError

    def _visit_result(self, visits: dict[int, int], values: float, legal: np.ndarray) -> int:
        """The most visited legal action (ties: the lower id), with ``last_policy`` the visit shares and
        ``last_value`` ``values`` (the seat's summed value) over the visits."""
        shares = np.zeros(self.game.num_actions)
        for action, count in visits.items():
            shares[action] = count
        total = shares.sum()
        self.last_policy = shares / total
        self.last_value = values / total
        ranked = [(shares[a], -a) for a in legal.tolist()]
        return int(-max(ranked)[1])

    # ------------------------------------------------------------------ helpers for the algorithms
    def _deadline(self) -> float | None:
        return None if self.seconds is None else time.perf_counter() + self.seconds

    @staticmethod
    def _spent(done: int, budget: int, deadline: float | None) -> bool:
        """Whether the move's budget is used up: ``budget`` iterations, or the time until ``deadline``."""
        return done >= budget if deadline is None else time.perf_counter() >= deadline

    @staticmethod
    def _back_up(path: list, values: list[float]) -> None:
        """Add an iteration's values to the nodes on its path, each for the seat that chose its action."""
        for child, mover in path:
            child.visits += 1
            child.total += values[mover]

    def _stop_at(self, root: State) -> tuple[int | None, int | None]:
        """(ply limit, round) of a rollout from ``root``: one of them is set by ``horizon``."""
        if self.horizon == "round":
            return None, self._round_of(root)
        return self.horizon, None

    def rollout(self, state: State, plies: int, limit: int | None, round_: int | None,
                rng: np.random.Generator, fast: random.Random) -> None:
        """Play ``state`` on in place with the rollout policy until the end, ``limit`` plies from the root
        (``plies`` already played) or the end of round ``round_``."""
        round_of = self._round_of
        stop = -1 if limit is None else limit - plies  # plies left (never reached when -1)
        while not state.is_terminal and stop:
            if round_ is not None and round_of(state) != round_:
                return
            state.apply(self.policy_action(state, fast), rng)
            stop -= 1

    def policy_action(self, state: State, fast: random.Random) -> int:
        """The rollout policy's action for the player to move in ``state`` (a re-dealt copy)."""
        mask = state.legal_mask()
        if self._policy is None:
            legal = mask.nonzero()[0]
            return int(legal[fast.randrange(len(legal))])
        return int(self._policy.act(self._observer.encode(state, state.current_player), mask))

    def values(self, state: State) -> list[float]:
        """Every seat's value of a (rolled-out) position."""
        if self._evaluate is not None:
            return self._evaluate(state, self._seat)
        if self.value_mode == "win" and state.is_terminal:
            return winner_rewards(state.winners(), self.game.num_players)
        return score_margin_rewards(state.scores(), self.game.score_scale)

    def _rollout_policy(self, name: str, seed: int | None) -> Agent | None:
        if name == "random":
            return None
        from . import load_agent  # a heuristic or a trained agent, checked against the game

        from . import ALGORITHMS

        if name.split(":")[0] in ALGORITHMS:
            raise ConfigError(f"{self.algorithm} agent: rollout={name!r}: a search agent cannot be a rollout policy")
        return load_agent(name, self.game, seed)


class TreeSearchAgent(SearchAgent):
    """Base of the tree searches (ISMCTS, PUCT): a budget of ``iterations`` and an exploration constant ``c``."""

    def __init__(self, game: Game, seed: int | None = None, **options: Any):
        super().__init__(game, seed, **options)
        self.iterations: int = self.options["iterations"]
        self.c: float = self.options["c"]

    def _modelled_move(self, node: Any, state: State, rng: np.random.Generator, fast: random.Random) -> Any:
        """Another seat's move in the tree by the rollout policy (an opponent model; no expansion is spent
        on it): the move is applied to ``state`` and its child of ``node`` (created on first use) returned."""
        action = self.policy_action(state, fast)
        child = node.children.get(action)
        if child is None:
            child = node.children[action] = type(node)()
        state.apply(action, rng)
        return child

    def _root_result(self, root: Any, done: int, legal: np.ndarray) -> int:
        """The move after ``done`` iterations: the root's most visited legal action (see ``_visit_result``)."""
        self.last_iterations = done
        children = root.children
        return self._visit_result({a: child.visits for a, child in children.items()},
                                  sum(child.total for child in children.values()), legal)


class _Sampler:
    """Determinizations of one decision: the first is ``env.determinize``'s copy, each further one a copy
    of it re-dealt with ``resample_hidden`` (so all depend only on the seat's information)."""

    def __init__(self, base: State, seat: int, rng: np.random.Generator, redeals: int | None = None):
        self.base, self.seat, self.rng = base, seat, rng
        self.game = base.game
        self.count = 0
        self.redeals = redeals  # None: a new re-deal every time; else a pool of this many, used in turn
        self.worlds: list[State] = []
        clone = getattr(base, "clone", None)
        self._clone = clone if callable(clone) else None
        # the game and what it owns (its configuration, tables) are shared by every copy, never copied
        self._memo = {id(value): value for value in vars(self.game).values()}
        self._memo[id(self.game)] = self.game

    def copy(self, state: State) -> State:
        """A copy of ``state`` that shares nothing mutable with it (``State.clone()`` when the game has one)."""
        if self._clone is not None:
            return state.clone()
        return copy.deepcopy(state, dict(self._memo))

    def sample(self) -> State:
        """A determinization to play on in place: a new re-deal, or with ``redeals`` a copy of the pool's
        next one (for games whose re-deal is expensive)."""
        k = self.count
        self.count += 1
        if self.redeals is not None and k >= self.redeals:
            return self.copy(self.worlds[k % self.redeals])
        state = self.copy(self.base)
        if k:
            state.resample_hidden(self.seat, self.rng)
        if self.redeals is None:
            return state
        self.worlds.append(state)
        return self.copy(state)


def parse_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:iterations=400,rollout=heuristic"`` (or with ``:`` between the options, which the CLI's
    comma-separated agent lists keep intact) -> ``("ismcts", {"iterations": 400, "rollout": "heuristic"})``.
    Values are read as ints, floats, ``true``/``false``, ``none`` or else strings."""
    name, _, rest = text.partition(":")
    options: dict[str, Any] = {}
    for item in rest.replace(",", ":").split(":") if rest else []:
        if not item.strip():
            continue
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"agent spec {text!r}: {item!r} is not key=value")
        options[key.strip()] = _value(raw.strip())
    return name.strip(), options


def _value(raw: str) -> Any:
    lower = raw.lower()
    if lower in ("none", "null"):
        return None
    if lower in ("true", "false"):
        return lower == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw


__all__ = ["COMMON_OPTIONS", "REDEALS", "SearchAgent", "TreeSearchAgent", "check", "parse_spec"]
