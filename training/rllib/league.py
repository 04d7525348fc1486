"""The self-play league: who sits where each episode, and when the learner is frozen into a snapshot.

Module ids: ``learner`` (trained), ``snapshot_<i>`` (frozen copies of the learner, ``window`` slots
filled round-robin) and the baselines ``heuristic`` and ``random`` (played inside the env by the
project's agents). Before each episode the league callback draws a line-up: one seat, uniformly, for
the learner; every other seat independently the learner itself, a filled snapshot slot or a baseline,
with the pool probabilities of the preset (an empty group is skipped, the others renormalised;
the learner fills in while there is nothing else). The
policy-mapping function reads the line-up from the episode. The driver holds the :class:`League` and
pushes it to every env runner after each change; the env runners log win rates per module and the
learner's per opponent kind (means over each training iteration), which the driver adds up into
blocks of games to decide on threshold snapshots.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback

LEARNER = "learner"
BASELINE_MODULES = ("heuristic", "random")
#: Most games a win rate is averaged over within an iteration (per env runner).
WIN_RATE_WINDOW = 1000


def snapshot_id(slot: int) -> str:
    return f"snapshot_{slot}"


def kind(module_id: str) -> str:
    """``learner``, ``snapshot``, ``heuristic`` or ``random``."""
    return "snapshot" if module_id.startswith("snapshot_") else module_id


@dataclass
class League:
    """League composition; a plain JSON-serialisable record (checkpointed beside RLlib's state)."""

    window: int
    probabilities: tuple[float, float, float]  # learner, snapshot, baseline
    baselines: list[str]
    filled: list[int] = field(default_factory=list)  # snapshot slots in use, oldest first
    snapshots_taken: int = 0
    last_snapshot_step: int = 0
    block_wins: float = 0.0  # learner wins and games since the last snapshot or failed block
    block_games: int = 0

    def passes(self, win_rate: float | None, games: int, threshold: float, min_games: int) -> bool:
        """Add an iteration's learner win rate over ``games`` games; True when a block of at least
        ``min_games`` games since the last snapshot reaches ``threshold`` (0: never). A block that
        falls short starts the next one."""
        if not threshold or win_rate is None or not games:
            return False
        games = int(games)  # RLlib reports numpy numbers; the league stays plain JSON
        self.block_wins += float(win_rate) * games
        self.block_games += games
        if self.block_games < min_games:
            return False
        passed = self.block_wins / self.block_games >= threshold
        self.block_wins, self.block_games = 0.0, 0
        return passed

    def add_snapshot(self, step: int) -> str:
        """The slot the learner is copied into next (the oldest once all ``window`` slots are in use)."""
        slot = self.snapshots_taken % self.window
        self.filled = [s for s in self.filled if s != slot] + [slot]
        self.snapshots_taken += 1
        self.last_snapshot_step = step
        self.block_wins, self.block_games = 0.0, 0
        return snapshot_id(slot)

    def lineup(self, seats: list[str], rng: np.random.Generator) -> dict[str, str]:
        learner_seat = seats[rng.integers(len(seats))]
        groups = ([LEARNER], [snapshot_id(s) for s in self.filled], list(self.baselines))
        weights = np.array([p if group else 0.0 for p, group in zip(self.probabilities, groups)])
        if weights.sum() == 0:  # only snapshots asked for, none taken yet: the learner plays itself
            weights[0] = 1.0
        lineup = {}
        for seat in seats:
            if seat == learner_seat:
                lineup[seat] = LEARNER
            else:
                group = groups[rng.choice(3, p=weights / weights.sum())]
                lineup[seat] = group[rng.integers(len(group))]
        return lineup

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> League:
        """The inverse of :meth:`to_dict`; ``ValueError`` naming the first field that is not as written."""
        names = [f.name for f in fields(cls)]
        if not isinstance(data, dict) or sorted(data) != sorted(names):
            raise ValueError(f"a league is a JSON object with the keys {names}")
        league = cls(**{**data, "probabilities": tuple(data["probabilities"])})
        counts = (league.window, league.snapshots_taken, league.last_snapshot_step, league.block_games)
        checks = {
            "window, snapshots_taken, last_snapshot_step and block_games are non-negative ints":
                all(type(n) is int and n >= 0 for n in counts) and league.window > 0,
            "probabilities are three non-negative numbers":
                len(league.probabilities) == 3 and all(_number(p) and p >= 0 for p in league.probabilities),
            f"baselines are among {list(BASELINE_MODULES)}":
                isinstance(league.baselines, list) and set(league.baselines) <= set(BASELINE_MODULES),
            "filled holds distinct slots below window": isinstance(league.filled, list)
                and all(type(s) is int and 0 <= s < league.window for s in league.filled)
                and len(set(league.filled)) == len(league.filled),
            "block_wins is a number from 0 to block_games":
                _number(league.block_wins) and 0 <= league.block_wins <= league.block_games + 1e-6,
        }
        for rule, holds in checks.items():
            if not holds:
                raise ValueError(f"league: {rule}")
        return league


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


_LEAGUE: League | None = None  # this process's copy, set by set_league (env runners and the driver)


def set_league(league_dict: dict[str, Any]) -> None:
    global _LEAGUE
    _LEAGUE = League.from_dict(league_dict)


def policy_mapping_fn(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """The module of ``agent_id``'s seat in this episode's line-up (RLlib's space probes: the learner)."""
    return getattr(episode, "custom_data", {}).get("lineup", {}).get(agent_id, LEARNER)


class LeagueCallback(RLlibCallback):
    """Draws each episode's line-up (env runners) and logs win rates; ``league/...`` metrics."""

    def __init__(self):
        super().__init__()
        self._rng: np.random.Generator | None = None

    def on_episode_created(self, *, episode, env_runner, env, env_index, **kwargs) -> None:
        if self._rng is None:
            self._rng = np.random.default_rng([env_runner.config.seed or 0, env_runner.worker_index])
        sub = env.envs[env_index].unwrapped
        lineup = _LEAGUE.lineup(sub.possible_agents, self._rng) if _LEAGUE else {}
        sub.set_lineup(lineup)
        episode.custom_data["lineup"] = lineup

    def on_episode_end(self, *, episode, metrics_logger, **kwargs) -> None:
        lineup = episode.custom_data.get("lineup", {})
        infos = episode.get_infos(-1)
        for agent, info in infos.items():
            if "won" not in info:
                continue
            module = lineup.get(agent, LEARNER)
            metrics_logger.log_value(("league", "win_rate", module), float(info["won"]), reduce="mean",
                                     window=WIN_RATE_WINDOW)
            if module != LEARNER:
                continue
            for opponent in {kind(m) for seat, m in lineup.items() if seat != agent}:
                metrics_logger.log_value(("league", "learner_win_rate_vs", opponent), float(info["won"]),
                                         reduce="mean", window=WIN_RATE_WINDOW)
