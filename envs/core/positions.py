"""Snapshots, restore, positions and re-deals of the AEC env (a part of :class:`~.aec.HiddenInfoAECEnv`).

Every env remembers its **origin**, where play started: the RNG just before the deal (``reset``) or an
explicit position (``set_position``, a re-dealt copy, an old snapshot); ``history`` holds the actions
played since. ``restore`` rebuilds the origin, checks it field by field, replays ``history`` from it with
the env's own ``step`` and requires the result to equal the snapshot's ``state``, ``rng`` and ``aec``:
a snapshot whose history was rewritten, or whose state, logs, records, RNG or rewards were tampered
with, is refused. The replay costs at most the steps the env allows (``max_cycles``), the checks are
linear in the input. The format's data is described in :mod:`.snapshots`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .game import SnapshotError, State
from .snapshots import (
    AEC_KEYS, DEALT_ORIGIN_KEYS, FORMAT_1, PLAYED_BEFORE, POSITION_ORIGIN_KEYS, SNAPSHOT_FORMAT, SNAPSHOT_KEYS,
    checked_actions, checked_rng, difference, fail, is_finite_number, json_copy, require_keys,
    upgraded, upgraded_states,
)

#: What play changes in an env: ``restore`` takes them from the replay, ``determinize`` copies them.
PLAY_FIELDS = ("_state", "_rng", "history", "agents", "agent_selection", "_skip_agent_selection", "rewards",
               "_cumulative_rewards", "terminations", "truncations", "infos", "_game_over", "_steps", "_origin",
               "_illegal_ending")
_HINT = " (a snapshot restores into an env with the same max_cycles and reward_mode)"


@dataclass
class Origin:
    """Where an env's play started: ``rng`` (a ``bit_generator.state``) and, for an explicit position,
    its ``state`` (never played on: replays start from a clone; a re-dealt copy's shares its live state
    until its first step), its AEC bookkeeping ``aec`` (JSON) and the actions an old snapshot recorded
    before it (``played_before``)."""

    rng: dict[str, Any]
    state: State | None = None
    aec: dict[str, Any] | None = None
    played_before: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        rng = json_copy(self.rng)
        if self.state is None:
            return {"rng": rng}
        data = {"state": self.state.to_json(), "rng": rng, "aec": json_copy(self.aec)}
        if self.played_before:
            data[PLAYED_BEFORE] = list(self.played_before)
        return data


class PositionsMixin:
    """``snapshot``, ``restore``, ``set_position`` and ``determinize`` of :class:`~.aec.HiddenInfoAECEnv`."""

    def snapshot(self) -> dict[str, Any]:
        """The complete env state as JSON data sharing nothing with the env: the origin, the history since,
        and the state, RNG and AEC bookkeeping they lead to (see :meth:`restore`)."""
        state = self._require_state()
        return {
            "format": SNAPSHOT_FORMAT, "game": self.metadata["name"], "num_players": self.game.num_players,
            "config": json_copy(self.game.config()), "origin": self._origin.to_json(),
            "history": list(self.history), "state": state.to_json(), "rng": self._rng.bit_generator.state,
            "aec": self._aec_json(),
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Set the env to a state captured by :meth:`snapshot` (of a game with the same options).

        Everything is checked before anything changes. The format, game and options must match; the origin
        is checked field by field (the RNG, the state's types and ranges and the game's
        :meth:`~Game.invariants`, the AEC bookkeeping); then ``history`` is replayed from the origin, each
        action legal where it is played, and the result must equal the snapshot's ``state``, ``rng`` and
        ``aec`` exactly. A bad snapshot raises :class:`SnapshotError` naming the problem (the first field
        that differs from the replay) and leaves the env as it was. Snapshots of format 1 (no origin)
        load as explicit positions, their history kept as the origin's ``played_before``.
        """
        replay = self._replayed(snapshot)
        for key in PLAY_FIELDS:
            setattr(self, key, getattr(replay, key))
        self.__dict__.pop("step", None)  # a re-dealt copy's first-step hook: its origin is replaced
        self._mask_fresh = False
        self.observer.invalidate()

    def set_position(self, seed: int | None = None, **spec: Any) -> None:
        """Set the env to a position described by ``spec`` (the game's documented keywords, see its
        ``position`` helper), dealt from ``seed`` where ``spec`` leaves things open, validated like a
        snapshot: a bad spec raises and leaves the env as it was. The position is the env's origin:
        ``history`` starts empty; the env's RNG is ``seed``'s after the deal."""
        rng = np.random.default_rng(seed)
        base = self.game.new_initial_state(rng).to_json()
        data = self._parse_state(self.game.position(base, **spec), "position").to_json()
        rng_state = rng.bit_generator.state
        aec = self._fresh_aec(self._parse_state(data, "position"), steps=0)
        self.restore({"format": SNAPSHOT_FORMAT, "game": self.metadata["name"], "num_players": self.game.num_players,
                      "config": self.game.config(), "origin": {"state": data, "rng": rng_state, "aec": aec},
                      "history": [], "state": data, "rng": rng_state, "aec": aec})

    def determinize(self, agent: str, seed: int | None = None):
        """A new env in which everything hidden from ``agent`` is re-dealt consistently with what it saw.

        ``agent``'s observation is unchanged; play continues from here. The copy depends only on what
        ``agent`` knows and on ``seed``: two positions that ``agent`` cannot tell apart give identical
        copies, so no trace of the true hidden state (hands, records, logs) survives in it. Future
        chance events draw from a fresh RNG seeded by ``seed``; the re-dealt position is the copy's
        origin and its ``history`` starts empty.
        """
        if agent not in self._seat_of:
            raise ValueError(f"{self.metadata['name']}: unknown agent {agent!r}; agents: {self.possible_agents}")
        state = self._require_state().clone()  # a trusted copy: nothing to validate
        clone = copy.copy(self)
        clone.__dict__.update({key: copy.deepcopy(getattr(self, key)) for key in PLAY_FIELDS
                               if key not in ("_state", "_rng", "_origin", "history")})
        clone.observer = self.observer.rebuilt()
        clone._rng = np.random.default_rng(seed)
        clone._state = state
        state.resample_hidden(self._seat_of[agent], clone._rng)
        clone.history = []
        # The re-dealt position is the copy's origin. Search agents read a copy's state and never step it,
        # so the origin shares the live state until the first step, which clones it (an instance hook,
        # gone after that step: nothing is added to every step).
        clone._origin = Origin(clone._rng.bit_generator.state, state, clone._aec_json())
        clone.step = clone._step_keeping_the_origin
        clone._mask = None
        clone._mask_fresh = False
        return clone

    def _step_keeping_the_origin(self, action: Any) -> None:
        """A re-dealt copy's ``step`` until its first call: the origin stops sharing the live state."""
        del self.step
        self._origin.state = self._state.clone()
        self.step(action)

    # ----------------------------------------------------------------- the AEC bookkeeping as JSON
    def _aec_json(self) -> dict[str, Any]:
        return {  # who is still in and whose turn last: a difference in the outcome is named first
            "rewards": dict(self.rewards), "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations), "truncations": dict(self.truncations),
            "infos": json_copy(self.infos), "game_over": self._game_over, "steps": self._steps,
            "illegal_action": self._illegal_ending, "agents": list(self.agents),
            "agent_selection": self.agent_selection, "skip_agent_selection": self._skip_agent_selection,
        }

    def _set_aec(self, aec: dict[str, Any]) -> None:
        """Take the bookkeeping of ``aec`` (checked JSON data), copying it."""
        self.agents = list(aec["agents"])
        self.agent_selection = aec["agent_selection"]
        self._skip_agent_selection = aec["skip_agent_selection"]
        self.rewards = dict(aec["rewards"])
        self._cumulative_rewards = dict(aec["cumulative_rewards"])
        self.terminations = dict(aec["terminations"])
        self.truncations = dict(aec["truncations"])
        self.infos = json_copy(aec["infos"])
        self._game_over = aec["game_over"]
        self._steps = aec["steps"]
        self._illegal_ending = aec["illegal_action"]
        self._mask_fresh = False

    def _fresh_aec(self, state: State, steps: int) -> dict[str, Any]:
        """The bookkeeping of a game in progress at ``state``: every agent in, no reward yet."""
        agents = list(self.possible_agents)
        return {"rewards": dict.fromkeys(agents, 0.0), "cumulative_rewards": dict.fromkeys(agents, 0.0),
                "terminations": dict.fromkeys(agents, False), "truncations": dict.fromkeys(agents, False),
                "infos": {agent: {} for agent in agents}, "game_over": False, "steps": steps,
                "illegal_action": None, "agents": agents, "agent_selection": agents[max(state.current_player, 0)],
                "skip_agent_selection": None}

    # ----------------------------------------------------------------- restore: origin, replay, comparison
    def _replayed(self, snapshot: Any):
        """A scratch copy of this env that replayed ``snapshot``'s history from its origin and ended as it
        records, after checking that it equals the snapshot; :class:`SnapshotError` otherwise."""
        name = self.metadata["name"]
        if not isinstance(snapshot, dict):
            raise fail(name, f"data must be a dict, got {type(snapshot).__name__}")
        given = snapshot.get("format")
        if given.__class__ is str and given == FORMAT_1:
            snapshot = upgraded(name, snapshot)
        elif given.__class__ is not str or given != SNAPSHOT_FORMAT:
            raise fail(name, f"format={given!r:.80} is not one this env reads ({SNAPSHOT_FORMAT}, {FORMAT_1})")
        snapshot = upgraded_states(self.game, require_keys(name, "data", snapshot, SNAPSHOT_KEYS))
        expected = {"game": name, "num_players": self.game.num_players, "config": self.game.config()}
        for key, value in expected.items():
            if difference(snapshot[key], value, key):
                raise fail(name, f"{key}={snapshot[key]!r:.200} does not match this env's {value!r}")
        replay = self._at_origin(snapshot["origin"])
        history = checked_actions(name, "history", snapshot["history"], self._num_actions,
                                  self._max_steps - replay._steps)
        for index, action in enumerate(history):
            replay._replay_step(index, action)
        replay._end_as_recorded(snapshot["aec"])
        origin = snapshot["origin"]
        positioned = replay._origin.state is not None and not history
        for key, value in (("state", origin["state"] if positioned else replay._state.to_json()),
                           ("rng", replay._rng.bit_generator.state), ("aec", replay._aec_json())):
            found = difference(snapshot[key], value, key)
            if found:
                raise fail(name, f"{found} by replaying the history from the origin"
                           + (_HINT if key == "aec" else ""))
        return replay

    def _at_origin(self, origin: Any):
        """A scratch copy of this env at the checked ``origin`` (see :mod:`.snapshots`)."""
        name = self.metadata["name"]
        if isinstance(origin, dict) and "state" in origin:
            require_keys(name, "origin", origin, POSITION_ORIGIN_KEYS, (PLAYED_BEFORE,))
            rng = checked_rng(name, "origin.rng", origin["rng"])
            state = self._parse_state(origin["state"], "origin.state")
            aec = self._checked_aec(origin["aec"], state)
            played = checked_actions(name, f"origin.{PLAYED_BEFORE}", origin.get(PLAYED_BEFORE, []),
                                     self._num_actions, aec["steps"])
            replay = self._scratch(state.clone(), rng, aec)
            replay._origin = Origin(rng.bit_generator.state, state, aec, played)
            return replay
        require_keys(name, "origin", origin, DEALT_ORIGIN_KEYS)
        rng = checked_rng(name, "origin.rng", origin["rng"])
        start = rng.bit_generator.state
        state = self.game.new_initial_state(rng)
        replay = self._scratch(state, rng, self._fresh_aec(state, steps=0))
        replay._origin = Origin(start)
        return replay

    def _scratch(self, state: State, rng: np.random.Generator | None, aec: dict[str, Any]):
        """A copy of this env for replays: at ``state`` with bookkeeping ``aec``, nothing rendered, an
        illegal action ending the game, sharing nothing that play changes with this env."""
        replay = copy.copy(self)
        replay.__dict__.pop("step", None)  # a re-dealt copy's first-step hook belongs to the copy
        replay.render_mode, replay.illegal_action, replay.history = None, "terminate", []
        replay._state, replay._rng = state, rng
        replay._set_aec(aec)
        return replay

    def _replay_step(self, index: int, action: int) -> None:
        name = self.metadata["name"]
        if self._game_over:
            raise fail(name, f"history[{index}]={action} follows the end of the game")
        if not self._legal_mask()[action]:
            legal = np.flatnonzero(self._legal_mask()).tolist()
            raise fail(name, f"history[{index}]={action} ({self.game.action_to_string(action)}) is not legal "
                             f"where it is played (legal: {legal})")
        try:
            self.step(action)
        except Exception as error:  # a position that passed its checks but breaks the engine: still refused
            raise fail(name, f"replaying history[{index}]={action} failed ({type(error).__name__}: {error})") from None

    def _end_as_recorded(self, aec: Any) -> None:
        """Apply what ``aec`` records beyond the history: a game ended by an illegal action (terminate
        mode), then the dead agents' steps (each removes one agent) after the end."""
        if not isinstance(aec, dict):
            return
        value = aec.get("illegal_action")
        if not self._game_over and aec.get("game_over") is True and value is not None:
            self._illegal(self._checked_illegal(value))
        agents = aec.get("agents")
        if self._game_over and isinstance(agents, list):
            for _ in range(len(self.agents) - len(agents)):
                self._was_dead_step(None)

    def _checked_illegal(self, value: Any) -> Any:
        """An illegal-action value as recorded (an int, a string or a finite float), refused if legal."""
        name = self.metadata["name"]
        if not (value.__class__ is str or is_finite_number(value)):
            raise fail(name, f"aec.illegal_action is {value!r:.60}, not an int, a string or a finite float")
        if value.__class__ is int and 0 <= value < self._num_actions and self._legal_mask()[value]:
            raise fail(name, f"aec.illegal_action={value} is a legal action there")
        return value

    def _parse_state(self, data: Any, where: str) -> State:
        """The game's state of ``data``, its types, ranges and invariants checked."""
        name = self.metadata["name"]
        if not isinstance(data, dict):
            raise fail(name, f"{where} must be a dict, got {type(data).__name__}")
        try:
            state = self.game.state_from_json(data)
        except SnapshotError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as error:
            raise fail(name, f"{where} is malformed ({type(error).__name__}: {error})") from None
        problems = self.game.invariants(state)
        if problems:
            raise fail(name, f"{where} breaks the rules: {'; '.join(problems)}")
        return state

    def _checked_aec(self, aec: Any, state: State) -> dict[str, Any]:
        """The bookkeeping of an explicit origin, checked and copied: a game in progress has exactly its fresh
        bookkeeping (every agent in, the state's player to move, no reward); a finished one is one of the
        endings of its state (:meth:`_recorded_ending`)."""
        name = self.metadata["name"]
        require_keys(name, "origin.aec", aec, AEC_KEYS)
        over, steps = aec["game_over"], aec["steps"]
        if over.__class__ is not bool:
            raise fail(name, f"origin.aec.game_over is {over!r:.60}, not a bool")
        if steps.__class__ is not int or not 0 <= steps <= self._max_steps:
            raise fail(name, f"origin.aec.steps is {steps!r:.60}, not an int in 0..{self._max_steps}")
        if not over:
            if state.is_terminal:
                raise fail(name, "origin: the state is terminal but aec.game_over is false")
            found = difference(aec, self._fresh_aec(state, steps), "origin.aec")
            if found:
                raise fail(name, f"{found} (a game in progress: every agent in, the state's player to move, "
                                 f"no reward, no info)")
            return self._fresh_aec(state, steps)
        return self._recorded_ending(aec, state)

    def _recorded_ending(self, aec: dict[str, Any], state: State) -> dict[str, Any]:
        """The bookkeeping of a finished explicit origin, derived like a replay's: ``state`` ended by the
        illegal action recorded (its player to move), or by its rules, its own cap or ``max_cycles`` after
        some seat's move; then the dead agents' steps. ``aec`` must be one of these endings."""
        name, steps, value = self.metadata["name"], aec["steps"], aec["illegal_action"]
        if value is not None:
            movers = [None] if not state.is_terminal else []
        else:
            movers = range(self.game.num_players) if state.is_terminal or steps >= self._max_steps else []
        if not movers:
            raise fail(name, "origin.aec.game_over is true but the state is neither finished nor truncated, and no "
                             "illegal action ended it")
        closest = None  # the difference of an ending that leaves the recorded agents in, if any
        for mover in movers:
            ended = self._scratch(state, None, self._fresh_aec(state, steps))
            if mover is not None:
                ended._end(mover)
            ended._end_as_recorded(aec)
            found = difference(aec, ended._aec_json(), "origin.aec")
            if not found:
                return ended._aec_json()
            if closest is None or not difference(aec["agents"], ended.agents, ""):
                closest = found
        raise fail(name, f"{closest} (the bookkeeping of this state's end, as the env records it)")
