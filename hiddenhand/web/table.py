"""One game on the server's table: the env, the public log and each seat's JSON view.

A game with a view module (``hiddenhand.web.views.<game>``, else ``hiddenhand.envs.<game>.view``:
``seat_view(state, seat, memory)``, optional ``track(before, action, after, memory)``,
``action_label(state, action)`` and ``announce(state, action)``, what the table sees of a move in the
game's words) gets its table view; every other game the generic one: the seat's text rendering. The same class replays a finished game from its
seed and action history, where ``seat=None`` (the spectator) sees every hand.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from hiddenhand.envs import entry
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs import make as make_env

LOG_LENGTH = 40


def view_module(game: str) -> ModuleType | None:
    """The game's view module, or None when it has none (the generic view)."""
    for name in (f"hiddenhand.web.views.{game}", f"hiddenhand.envs.{game}.view"):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
    return None


class Table:
    """An env reset with ``seed``, moved only by :meth:`apply`, which also keeps the public log."""

    def __init__(self, game: str, players: int, seed: int, options: dict[str, Any] | None = None):
        self.game, self.players, self.seed = game, players, seed
        self.options = dict(options or {})
        self.title = entry(game).title
        self.env = make_env(game, num_players=players, illegal_action="raise", **self.options)
        self.raw = self.env.unwrapped
        self.env.reset(seed=seed)
        self.module = view_module(game)
        self.memory: dict[str, Any] = {}
        self.log: list[dict[str, Any]] = []  # what the table saw of each move (Game.announce)

    @classmethod
    def resumed(cls, game: str, players: int, seed: int, options: dict[str, Any], snapshot: dict[str, Any],
                history: list[int], memory: dict[str, Any], log: list[dict[str, Any]]) -> Table:
        """A stored game where it stood: restored from its ``snapshot``, or replayed from ``seed`` and
        ``history`` where the snapshot no longer restores or disagrees with the moves."""
        table = cls(game, players, seed, options)
        try:
            table.raw.restore(snapshot)
        except SnapshotError:
            return replayed(game, players, seed, history, len(history), options)
        if list(table.raw.history) != list(history):
            return replayed(game, players, seed, history, len(history), options)
        table.memory, table.log = memory, log
        return table

    @property
    def over(self) -> bool:
        return any(self.raw.terminations.values()) or any(self.raw.truncations.values())

    @property
    def to_move(self) -> int | None:
        return None if self.over else self.raw.state_.current_player

    @property
    def steps(self) -> int:
        return len(self.raw.history)

    def legal(self) -> list[int]:
        return self.raw.legal_actions()

    def label(self, action: int) -> str:
        labeller = getattr(self.module, "action_label", None)
        return labeller(self.raw.state_, action) if labeller else self.raw.game.action_to_string(action)

    def choice(self, action: int) -> dict[str, Any]:
        """A legal action for the page: its id, its label and, where the game's view decodes it, the move
        (what a click on the table means)."""
        out = {"id": action, "label": self.label(action)}
        decode = getattr(self.module, "action_move", None)
        if decode:
            out["move"] = decode(self.raw.state_, action)
        return out

    def apply(self, action: int) -> None:
        """Play a legal ``action`` for the seat to move (the caller checked both)."""
        state, seat = self.raw.state_, self.to_move
        seen = getattr(self.module, "announce", self.raw.game.announce)(state, action)
        track = getattr(self.module, "track", None)
        before = state.clone() if track else None
        self.env.step(action)
        if track:
            track(before, action, self.raw.state_, self.memory)
        if seen is not None:
            self.log.append({"step": self.steps, "seat": seat, "text": seen})

    def result(self) -> dict[str, Any] | None:
        if not self.over:
            return None
        info = next(iter(self.raw.infos.values()))
        return {"scores": {k: float(v) for k, v in info.get("scores", {}).items()},
                "rewards": {k: float(v) for k, v in self.raw.rewards.items()},
                "winners": list(info.get("winners", [])),
                "truncated": any(self.raw.truncations.values())}

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see now (``None``: everything, for replays of finished games)."""
        state = self.raw.state_
        if self.module is not None:
            return self.module.seat_view(state, seat, self.memory)
        if seat is None:
            return {"kind": "text", "text": state.render(),
                    "seats": [state.render(viewer=other) for other in range(self.players)]}
        return {"kind": "text", "text": state.render(viewer=seat)}

    def frame(self, seat: int | None, seats: list[dict[str, Any]]) -> dict[str, Any]:
        """The JSON answer for ``seat``: the view, whose turn, its legal actions, the log, the result."""
        to_move = self.to_move
        mine = to_move is not None and to_move == seat
        return {
            "game": self.game, "title": self.title, "num_players": self.players, "seat": seat, "seats": seats,
            "status": "finished" if self.over else "playing", "step": self.steps, "to_move": to_move,
            "your_turn": mine,
            "legal": [self.choice(a) for a in self.legal()] if mine else [],
            "view": self.view(seat), "log": self.log[-LOG_LENGTH:], "result": self.result(),
        }


def replayed(game: str, players: int, seed: int, history: list[int], step: int,
             options: dict[str, Any] | None = None) -> Table:
    """A table after the first ``step`` actions of ``history`` (``ValueError`` if one is not legal)."""
    if not 0 <= step <= len(history):
        raise ValueError(f"step must be in 0..{len(history)}, got {step}")
    table = Table(game, players, seed, options)
    for index, action in enumerate(history[:step]):
        if table.over or action not in table.legal():
            raise ValueError(f"action {index} ({action}) of the record is not legal in its game")
        table.apply(action)
    return table
