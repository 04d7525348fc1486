"""The OpenSpiel side of the bridge: a ``pyspiel.Game``, ``State`` and observers over :mod:`.bridge`.

Views: the observation tensor is the game observer's vector (as floats), its named blocks OpenSpiel's
tensor layout; the observation string lists the non-zero cells block by block. The information-state
string is perfect recall by construction: the seat's own actions and every change of its observation since
the deal, folded into a digest, after the current observation (for the reader). There is no
information-state tensor: the observers' vectors are not perfect recall, and a stacked history would be
the game length times their size.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pyspiel

from ..envs.core.game import State as EngineState
from ..envs.registry import REGISTRY, GameEntry
from .bridge import Bridge, Call, Position, bridge_for, decode_options
from .chance import MAX_DRAW_OUTCOMES, MAX_SCRIPTS

PREFIX = "hiddenhand_"
_DIGEST = 16


def game_type(entry: GameEntry, chance: str = "draws", utility: Any = None) -> pyspiel.GameType:
    """The OpenSpiel game type of ``entry`` (the registered one, or one game's with its utility)."""
    env_class = entry.module().raw_env
    types = pyspiel.GameType
    return types(
        short_name=PREFIX + entry.name, long_name=f"hiddenhand {entry.title}",
        dynamics=types.Dynamics.SEQUENTIAL, chance_mode=types.ChanceMode.EXPLICIT_STOCHASTIC,
        information=types.Information.IMPERFECT_INFORMATION,
        utility=utility if utility is not None else types.Utility.GENERAL_SUM,
        reward_model=types.RewardModel.TERMINAL,
        max_num_players=env_class.game_class.max_players, min_num_players=env_class.game_class.min_players,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"players": entry.default_players, "chance": chance, "reward": "win_loss",
                                 "options": ""},
    )


class BridgeGame(pyspiel.Game):
    """One configured hiddenhand game as a ``pyspiel.Game``; parameters ``players``, ``chance``
    (``"draws"``/``"outcomes"``), ``reward`` (``"win_loss"``/``"score"``) and ``options`` (escaped JSON)."""

    entry: GameEntry

    def __init__(self, params: dict[str, Any] | None = None):
        params = dict(params or {})
        self.bridge = bridge_for(self.entry.name, int(params.get("players", self.entry.default_players)),
                              decode_options(params.get("options", "")), params.get("chance", "draws"),
                              params.get("reward", "win_loss"))
        bridge = self.bridge
        utility, low, high, total = bridge.utility(_overrides_winners(bridge.engine))
        outcomes = MAX_SCRIPTS if bridge.chance == "outcomes" else MAX_DRAW_OUTCOMES
        info = pyspiel.GameInfo(
            num_distinct_actions=bridge.engine.num_actions, max_chance_outcomes=outcomes,
            num_players=bridge.num_players, min_utility=low, max_utility=high, utility_sum=total,
            max_game_length=bridge.cap)
        super().__init__(game_type(self.entry, bridge.chance, utility), info, params)

    def new_initial_state(self) -> BridgeState:
        return BridgeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is None or not iig_obs_type.perfect_recall:
            if iig_obs_type is not None and (not iig_obs_type.public_info or iig_obs_type.private_info
                                             != pyspiel.PrivateInfoType.SINGLE_PLAYER):
                raise ValueError("the observers give a player's own view (public and private information) only")
            return ObservationView(self.bridge)
        return InfoStateView(self.bridge)


def _overrides_winners(engine: Any) -> bool:
    """True when the game's states may end with no winner (they override ``State.winners``)."""
    state_class = type(engine).__dict__.get("state_class")
    if state_class is None:
        state = engine.new_initial_state(np.random.default_rng(0))
        state_class = type(state)
    return state_class.winners is not EngineState.winners


class BridgeState(pyspiel.State):
    """A position of the engine, or the engine call in progress while chance is to move."""

    def __init__(self, game: BridgeGame):
        super().__init__(game)
        bridge = game.bridge
        self._bridge = bridge
        self._position: Position | None = None
        self._call: Call | None = Call(None, None)
        self._decisions = 0
        # per seat: the digest of its information so far and its last observation (bytes)
        self._seen = tuple((b"", b"") for _ in range(bridge.num_players))

    # ------------------------------------------------------------------ whose move
    def current_player(self) -> int:
        if self._call is not None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self._position.state.current_player

    def is_terminal(self) -> bool:
        return self._call is None and (self._position.state.is_terminal or self._decisions >= self._bridge.cap)

    def _legal_actions(self, player: int) -> list[int]:
        return np.flatnonzero(self._position.state.legal_mask()).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._call.outcomes(self._bridge)

    # ------------------------------------------------------------------ moves
    def _apply_action(self, action: int) -> None:
        bridge = self._bridge
        if self._call is not None:
            self._settle(self._call.advance(bridge, action))
            return
        seat = self._position.state.current_player
        self._decisions += 1
        digest, last = self._seen[seat]
        seen = list(self._seen)
        seen[seat] = (_fold(digest, b"A%d" % action), last)
        self._seen = tuple(seen)
        self._settle(Call(self._position, action).settle(bridge))

    def _settle(self, outcome: Call | EngineState) -> None:
        if isinstance(outcome, Call):
            self._call, self._position = outcome, outcome.before
            return
        self._call, self._position = None, Position(self._bridge, outcome)
        seen = []
        for seat, (digest, last) in enumerate(self._seen):
            observation = self._bridge.observe(outcome, seat).astype(np.float32).tobytes()
            seen.append((digest, last) if observation == last else (_fold(digest, b"O" + observation), observation))
        self._seen = tuple(seen)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        return self._bridge.engine.action_to_string(action)

    # ------------------------------------------------------------------ results
    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._bridge.num_players
        state = self._position.state
        return self._bridge.returns(state, capped=not state.is_terminal)

    @property
    def bridge(self) -> Bridge:
        """The engine game, its observer and the bridge's settings (shared by every state of the game)."""
        return self._bridge

    def engine_state(self) -> EngineState | None:
        """The engine's position (read it, never change it); while chance is to move, the position before
        the engine call in progress (None before the deal)."""
        return None if self._position is None else self._position.state

    def observation(self, seat: int) -> np.ndarray:
        """``seat``'s observation of :meth:`engine_state` (zeros before the deal), as floats."""
        seen = self._seen[seat][1]
        return np.frombuffer(seen, np.float32) if seen else np.zeros(self._bridge.layout.size, np.float32)

    def resampled(self, player: int, rng: np.random.Generator) -> BridgeState:
        """A copy in which everything hidden from ``player`` is re-dealt (the engine's ``resample_hidden``):
        ``player``'s information state is unchanged; the other seats' information restarts from what they
        see in the re-dealt world (their true past would leak the hidden cards). OpenSpiel's ISMCTS bot takes
        it as its resampler (:func:`hiddenhand.openspiel.resampler`)."""
        if self._call is not None or self.is_terminal():
            raise ValueError("a re-deal needs a position with a player to move")
        copy = self.clone()
        engine = self._position.state.clone()
        engine.resample_hidden(player, rng)
        copy._position = Position(self._bridge, engine)
        seen = list(copy._seen)
        for seat in range(self._bridge.num_players):
            if seat != player:
                observation = self._bridge.observe(engine, seat).astype(np.float32).tobytes()
                seen[seat] = (_fold(b"R", observation), observation)
        copy._seen = tuple(seen)
        return copy

    def information_digest(self, seat: int) -> str:
        """The digest of everything ``seat`` has seen and done (the tail of its information-state string)."""
        return self._seen[seat][0].hex() or "-"

    def __str__(self) -> str:
        """The table as a spectator sees it (the engine's ``render()``), and chance's move in progress."""
        parts = []
        if self._position is not None:
            parts.append(self._position.state.render())
        if self._call is not None:
            parts.append(f"chance to move (action {self._call.action}, outcomes {list(self._call.script)})")
        return "\n".join(parts)


def _fold(digest: bytes, item: bytes) -> bytes:
    return hashlib.blake2b(digest + item, digest_size=_DIGEST).digest()


class ObservationView:
    """OpenSpiel's default observer: the game observer's vector with its named blocks."""

    def __init__(self, bridge: Bridge):
        self.bridge = bridge
        self.tensor = np.zeros(bridge.layout.size, np.float32)
        self.dict = bridge.layout.views(self.tensor)

    def set_from(self, state: BridgeState, player: int) -> None:
        self.tensor[:] = state.observation(player)

    def string_from(self, state: BridgeState, player: int) -> str:
        return self.bridge.describe(state.observation(player))


class InfoStateView:
    """OpenSpiel's perfect-recall observer: strings only (seat, current observation, digest of the past)."""

    def __init__(self, bridge: Bridge):
        self.bridge = bridge
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: BridgeState, player: int) -> None:
        pass

    def string_from(self, state: BridgeState, player: int) -> str:
        return f"p{player} {self.bridge.describe(state.observation(player))} | {state.information_digest(player)}"


def register() -> None:
    """Register every game of the registry with OpenSpiel as ``hiddenhand_<name>`` (once)."""
    known = set(pyspiel.registered_names())
    for entry in REGISTRY.values():
        if PREFIX + entry.name not in known:
            cls = type(f"{entry.name.title().replace('_', '')}OpenSpielGame", (BridgeGame,), {"entry": entry})
            pyspiel.register_game(game_type(entry), cls)
