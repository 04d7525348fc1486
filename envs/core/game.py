"""The contract between a game's rules engine and the shared AEC adapter.

Following OpenSpiel's split, a :class:`Game` is the immutable description of one configured game
(player count, options, action encoding) and a :class:`State` is one position in it. Rules engines
implement both with plain Python and small numpy arrays; they know nothing about PettingZoo.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from .layout import ObservationLayout
from .options import Int, check
from .rewards import winners


class SnapshotError(ValueError):
    """A snapshot or position that is malformed or breaks the game's rules; the message says what."""


class Game(ABC):
    """Static description of a configured game; creates initial states."""

    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: Divides score differences in ``reward_mode="score_margin"``.
    score_scale: ClassVar[float] = 1.0
    #: Rewards when the state truncates itself (``State.is_truncated``): ``"zero"`` for everyone, or
    #: ``"provisional"``, the terminal rewards of the current scores.
    truncation_reward: str = "zero"

    def __init__(self, num_players: int):
        self.num_players = check(self.name, "num_players", num_players, Int(self.min_players, self.max_players))

    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size of the Discrete action space."""

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """Upper bound on the number of actions in one game (sets the default truncation)."""

    @abstractmethod
    def config(self) -> dict[str, Any]:
        """JSON-serialisable options that, with ``num_players``, recreate this game."""

    @abstractmethod
    def new_initial_state(self, rng: np.random.Generator) -> State:
        """Deal a new game, drawing every chance outcome from ``rng``."""

    @abstractmethod
    def state_from_json(self, data: dict[str, Any]) -> State:
        """Inverse of :meth:`State.to_json`. Checks the types and ranges of what it reads and raises
        :class:`SnapshotError` naming the first problem (the rules are checked by :meth:`invariants`)."""

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """Short human-readable name of an action."""

    @abstractmethod
    def string_to_action(self, text: str) -> int:
        """Parse a human's input into an action id; ``ValueError`` if it names none."""

    @abstractmethod
    def invariants(self, state: State) -> list[str]:
        """What is wrong with ``state`` (empty when nothing is): conservation of cards and money, ranges,
        whose turn it is. :meth:`HiddenInfoAECEnv.restore` refuses a state with any, and the contract
        suite checks them after every step of random play."""

    def upgraded_state(self, data: Any) -> Any:
        """A state's JSON data in the form this revision writes, from data that an older one may have
        written: a game whose state dropped a field takes it out here (checked). Never changes ``data``;
        ``restore`` calls it on a snapshot's states before anything else. By default ``data`` itself."""
        return data

    def position(self, base: dict[str, Any], **spec: Any) -> dict[str, Any]:
        """A state (as ``to_json`` data) set up from ``base`` (a freshly dealt state's data) and ``spec``,
        the game's documented keywords (e.g. hands and leader). Used by ``env.set_position``, which
        validates the result like any snapshot."""
        raise NotImplementedError(f"{self.name} has no position helper; edit a snapshot and restore() it")

    def announce(self, state: State, action: int) -> str | None:
        """What the other players see of ``action`` about to be played in ``state`` (None: nothing)."""
        return self.action_to_string(action)


class State(ABC):
    """One position of a game. ``apply`` mutates in place; the adapter validates legality first."""

    game: Game
    current_player: int
    is_terminal: bool
    #: True when the game stopped at its own cap (also ``is_terminal``) rather than by its rules.
    is_truncated: bool = False

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """The current player's legal actions as an int8 mask (1 = legal). Read it, never change it: it
        may be shared or part of the state, and it holds until the state changes."""

    @abstractmethod
    def apply(self, action: int, rng: np.random.Generator) -> None:
        """Play a legal ``action`` for ``current_player``; chance events draw from ``rng``."""

    @abstractmethod
    def scores(self) -> list[float]:
        """Current (final, once terminal) score of every seat."""

    def winners(self) -> list[int]:
        """Seats that won a finished game: by default those sharing the top score. A game whose rules
        can leave nobody winning (everyone eliminated, say) overrides it and may return []."""
        return winners(self.scores())

    @abstractmethod
    def score_breakdown(self) -> dict[str, Any]:
        """JSON-serialisable explanation of the scores (reported in ``infos`` at the end)."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The complete state as JSON-serialisable data."""

    def clone(self) -> State:
        """An independent copy of this position sharing the game (and what the game holds). Trusted:
        nothing is validated, so it is for copying a state the engine made, not for loading one (that
        is :meth:`Game.state_from_json`). The default deep-copies; a game may override it for speed."""
        memo = {id(value): value for value in vars(self.game).values()}
        memo[id(self.game)] = self.game
        return copy.deepcopy(self, memo)

    @abstractmethod
    def resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        """Re-deal everything hidden from ``player`` consistently with what ``player`` has seen."""

    @abstractmethod
    def render(self, viewer: int | None = None) -> str:
        """What a spectator may see, as text; with ``viewer``, plus that seat's private information."""


def _signed_log(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float32)
    return np.sign(x) * np.log1p(np.abs(x))


#: Observation -> float32 network input, by name (recorded in agent files, applied by policies).
INPUT_TRANSFORMS = {
    "identity": lambda x: np.asarray(x, np.float32),
    "signed_log": _signed_log,
}


class Observer(ABC):
    """Encodes a state as one player's flat observation vector, laid out in named blocks."""

    #: Bounds and dtype of the observation vector (the Box space).
    low: ClassVar[float] = 0.0
    high: ClassVar[float] = 1.0
    dtype: ClassVar[type] = np.float32
    #: How a policy network should read the vector (see ``INPUT_TRANSFORMS``): ``"identity"`` for
    #: observations already scaled to about [0, 1], ``"signed_log"`` for raw counts and amounts.
    policy_input: ClassVar[str] = "identity"

    def __init__(self, game: Game):
        self.game = game
        self.layout = self.build_layout(game)

    @staticmethod
    @abstractmethod
    def build_layout(game: Game) -> ObservationLayout:
        """The named blocks of the observation for this game configuration."""

    @abstractmethod
    def encode(self, state: State, player: int) -> np.ndarray:
        """A new vector of ``dtype``: what ``player`` may see of ``state``, relative to its seat."""

    def __reduce__(self):
        """Copies and pickles are rebuilt from the game: caches (which may hold views into each other
        that a copy would split) are never copied."""
        return type(self), (self.game,)

    def rebuilt(self) -> Observer:
        """A new observer like this one (same kind, same game), its caches empty."""
        cls, args = self.__reduce__()[:2]
        return cls(*args)

    def invalidate(self) -> None:
        """Forget any cached encoding. The core calls it whenever a state changes other than through
        ``apply`` (restore, set_position, determinize); an observer with caches overrides it."""
