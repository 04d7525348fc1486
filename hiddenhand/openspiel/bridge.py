"""The engine side of the OpenSpiel bridge: one configured game (:class:`Bridge`), a position owned by a
bridge state (:class:`Position`) and an engine call in progress while chance is to move (:class:`Call`).

Player actions go to ``State.apply``, the deal to ``Game.new_initial_state``; the engine draws from a
scripted stand-in for its numpy generator (:mod:`.chance`), so a call's chance outcomes become explicit
chance nodes and OpenSpiel's history (chance outcomes and actions) replays a state exactly. Chance modes
(game parameter ``chance``):

* ``"draws"``: one chance node per draw, e.g. per card of a shuffle (uniform over the cards left); works at
  every size;
* ``"outcomes"``: one chance node per engine call that draws, over the distinct positions the call can
  reach (a deal dealt as a shuffle becomes one node over the distinct deals, with their probabilities);
  for the tiny configurations, where a call has at most :data:`~.chance.MAX_SCRIPTS` scripts.

Returns: ``reward="win_loss"`` (default), the environments' terminal rewards (a sole winner +1, others
−1, 2/k − 1 each for k sharing the win; zero on truncation unless the game reports provisional
rewards); ``reward="score"``, the final scores, for games whose ``Game`` declares ``score_range()`` (and
``score_sum()`` if constant-sum). A game that reaches the environments' default step cap (twice the
engine's ``max_game_length``, rounded to whole cycles) ends truncated, as an env would.
"""

from __future__ import annotations

import json
from bisect import bisect_left
import urllib.parse
from typing import Any

import numpy as np
import pyspiel

from ..envs.core.game import State as EngineState
from ..envs.core.rewards import winner_rewards
from ..envs.registry import REGISTRY
from .chance import MAX_DRAW_OUTCOMES, MAX_SCRIPTS, ChanceError, NeedDraw, enumerate_outcomes, position_key, run_call

CHANCE_MODES = ("draws", "outcomes")
REWARDS = ("win_loss", "score")
_ESCAPES = {"%": "%25", ",": "%2C", "(": "%28", ")": "%29", "=": "%3D"}


# ---------------------------------------------------------------------------- game parameters
def encode_options(options: dict[str, Any]) -> str:
    """Game options as one OpenSpiel string parameter: compact JSON, with the characters OpenSpiel's
    game-string parser splits on escaped (``,`` ``(`` ``)`` ``=`` and ``%``)."""
    if not options:
        return ""
    text = json.dumps(options, sort_keys=True, separators=(",", ":"))
    return "".join(_ESCAPES.get(char, char) for char in text)


def decode_options(text: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        options = json.loads(urllib.parse.unquote(text))
    except json.JSONDecodeError as error:
        raise ValueError(f"options={text!r} is not escaped JSON ({error})") from None
    if not isinstance(options, dict):
        raise ValueError(f"options={text!r} must be a JSON object of game options")
    return options


# ---------------------------------------------------------------------------- shared, immutable parts
class Bridge:
    """One configured engine game, its observer and the bridge settings; shared by all states (never
    copied: a clone or deep copy returns the same object; a pickle rebuilds it from its settings)."""

    def __init__(self, name: str, num_players: int, options: dict[str, Any], chance: str, reward: str):
        if chance not in CHANCE_MODES:
            raise ValueError(f"chance={chance!r} is not allowed; allowed: one of {list(CHANCE_MODES)}")
        if reward not in REWARDS:
            raise ValueError(f"reward={reward!r} is not allowed; allowed: one of {list(REWARDS)}")
        self.settings = (name, num_players, dict(options), chance, reward)
        env_class = REGISTRY[name].module().raw_env
        self.engine = env_class.game_class(num_players=num_players, **options)
        self.observer = env_class.observer_class(self.engine)
        self.layout = self.observer.layout
        self.chance, self.reward = chance, reward
        self.num_players = num_players
        if reward == "score" and not hasattr(self.engine, "score_range"):
            raise ValueError(f"{name} declares no score_range(), so reward='score' has no bounds; use 'win_loss'")
        # the environments' default truncation: max_cycles = 2 * ceil(length / n) whole cycles
        self.cap = 2 * -(-self.engine.max_game_length // num_players) * num_players

    def __deepcopy__(self, memo: dict) -> Bridge:
        return self

    def __reduce__(self):
        return bridge_for, self.settings

    def observe(self, state: EngineState, seat: int) -> np.ndarray:
        """``seat``'s observation of ``state``, built from scratch (states of a tree are unrelated, so no
        observer cache may carry over from one to the next)."""
        self.observer.invalidate()
        return self.observer.encode(state, seat)

    def describe(self, vector: np.ndarray) -> str:
        """An observation as text: each named block with its non-zero cells (flat index within the block)."""
        cells = np.flatnonzero(vector)
        values, cells = vector[cells].tolist(), cells.tolist()
        parts = []
        for name, block in self.layout.slices.items():
            first, last = bisect_left(cells, block.start), bisect_left(cells, block.stop)
            if first < last:
                parts.append(f"{name}[" + " ".join(
                    [f"{cells[k] - block.start}:{values[k]:g}" for k in range(first, last)]) + "]")
        return " ".join(parts)

    def returns(self, state: EngineState, capped: bool) -> list[float]:
        n = self.num_players
        if self.reward == "score":
            return [float(score) for score in state.scores()]
        if capped or (state.is_truncated and self.engine.truncation_reward == "zero"):
            return [0.0] * n
        return winner_rewards(state.winners(), n)

    def utility(self, winners_can_be_empty: bool) -> tuple[pyspiel.GameType.Utility, float, float, float | None]:
        """The utility type, its bounds and (constant-sum games) the sum of the returns."""
        kinds = pyspiel.GameType.Utility
        if self.reward == "score":
            low, high = self.engine.score_range()
            total = self.engine.score_sum() if hasattr(self.engine, "score_sum") else None
            kind = kinds.GENERAL_SUM if total is None else kinds.ZERO_SUM if total == 0 else kinds.CONSTANT_SUM
            return kind, float(low), float(high), total
        if self.num_players == 2 and not winners_can_be_empty:
            return kinds.ZERO_SUM, -1.0, 1.0, 0.0
        return kinds.GENERAL_SUM, -1.0, 1.0, None


_BRIDGES: dict[str, Bridge] = {}


def bridge_for(name: str, num_players: int, options: dict[str, Any], chance: str, reward: str) -> Bridge:
    """The shared :class:`Bridge` of these settings (built once)."""
    key = json.dumps([name, num_players, options, chance, reward], sort_keys=True)
    if key not in _BRIDGES:
        _BRIDGES[key] = Bridge(name, num_players, options, chance, reward)
    return _BRIDGES[key]


class Position:
    """An engine position owned by one bridge state: a copy is the engine's ``clone()``; a pickle is its
    JSON data, loaded back through ``state_from_json``."""

    __slots__ = ("bridge", "state")

    def __init__(self, bridge: Bridge, state: EngineState):
        self.bridge, self.state = bridge, state

    def __deepcopy__(self, memo: dict) -> Position:
        return Position(self.bridge, self.state.clone())

    def __reduce__(self):
        return _load_position, (self.bridge, self.state.to_json())


def _load_position(bridge: Bridge, data: dict[str, Any]) -> Position:
    return Position(bridge, bridge.engine.state_from_json(data))


class Call:
    """An engine call in progress: the position before it (None: the deal), the action it plays and the
    chance outcomes drawn so far. Immutable once settled: clones share it."""

    def __init__(self, before: Position | None, action: int | None, script: tuple[int, ...] = ()):
        self.before, self.action, self.script = before, action, script
        self._next: list[tuple[int, float]] | None = None  # "draws": the next draw's outcomes
        self._outcomes: list[tuple[float, tuple[int, ...]]] | None = None  # "outcomes": (probability, script)

    def __deepcopy__(self, memo: dict) -> Call:
        return self

    def __reduce__(self):
        return Call, (self.before, self.action, self.script)

    def _call(self, bridge: Bridge, draws: Any) -> EngineState:
        if self.before is None:
            return bridge.engine.new_initial_state(draws)
        state = self.before.state.clone()
        state.apply(self.action, draws)
        return state

    def run(self, bridge: Bridge, script: tuple[int, ...]) -> EngineState:
        """The position after the call with ``script``'s outcomes (``NeedDraw`` if it needs more)."""
        return run_call(lambda draws: self._call(bridge, draws), script)[0]

    def settle(self, bridge: Bridge) -> Call | EngineState:
        """The finished position if the call needs no further chance outcome, else this call (a chance node)."""
        try:
            return self.run(bridge, self.script)
        except NeedDraw as need:
            self._next = need.outcomes
            return self

    def outcomes(self, bridge: Bridge) -> list[tuple[int, float]]:
        """The chance node's (outcome, probability) pairs."""
        if bridge.chance == "outcomes":
            if self._outcomes is None:
                self._outcomes = enumerate_outcomes(lambda draws: self._call(bridge, draws), position_key,
                                                    MAX_SCRIPTS)
            return [(i, p) for i, (p, _) in enumerate(self._outcomes)]
        if self._next is None and self.settle(bridge) is not self:
            raise ChanceError("the engine call needs no further chance outcome")
        if self._next[-1][0] >= MAX_DRAW_OUTCOMES:
            raise ChanceError(f"a draw with outcome ids up to {self._next[-1][0]}; chance='draws' allows ids "
                              f"below {MAX_DRAW_OUTCOMES}")
        return self._next

    def advance(self, bridge: Bridge, outcome: int) -> Call | EngineState:
        """After chance picks ``outcome``: the finished position, or the call awaiting its next draw."""
        if bridge.chance == "outcomes":
            self.outcomes(bridge)
            return self.run(bridge, self._outcomes[outcome][1])
        return Call(self.before, self.action, self.script + (outcome,)).settle(bridge)
