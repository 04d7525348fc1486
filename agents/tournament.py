"""Seeded tournaments with seat rotation, and win rates with 95% confidence intervals."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hiddenhand.envs import make as make_env

from . import Agent, bind_agents, make


@dataclass
class GameRecord:
    """One finished game: who sat where and how it ended."""

    seed: int
    lineup: list[str]  # agent label per seat
    scores: list[float]
    rewards: list[float]
    winners: list[int]
    truncated: bool = False
    #: The game's action ids: with ``seed`` and the env options it replays the game (``serve`` replays).
    history: list[int] = field(default_factory=list)


@dataclass
class Standing:
    label: str
    seat_games: int = 0
    wins: float = 0.0  # a shared top counts 1/k
    score_sum: float = 0.0
    reward_sum: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.seat_games if self.seat_games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.seat_games)


@dataclass
class TournamentResult:
    game: str
    num_players: int
    records: list[GameRecord] = field(default_factory=list)

    def standings(self) -> list[Standing]:
        table: dict[str, Standing] = {}
        for record in self.records:
            for seat, label in enumerate(record.lineup):
                row = table.setdefault(label, Standing(label))
                row.seat_games += 1
                if seat in record.winners:
                    row.wins += 1.0 / len(record.winners)
                row.score_sum += record.scores[seat]
                row.reward_sum += record.rewards[seat]
        return sorted(table.values(), key=lambda row: -row.win_rate)

    def table(self) -> str:
        fair = 1.0 / self.num_players
        lines = [
            f"{self.game}, {self.num_players} players, {len(self.records)} games "
            f"(fair share of wins {fair:.1%})",
            f"{'agent':<24}{'seat-games':>11}{'win rate':>10}{'95% CI':>18}{'mean score':>12}{'mean reward':>13}",
        ]
        for row in self.standings():
            low, high = row.interval
            lines.append(
                f"{row.label:<24}{row.seat_games:>11}{row.win_rate:>10.1%}"
                f"{f'[{low:.1%}, {high:.1%}]':>18}{row.score_sum / row.seat_games:>12.1f}"
                f"{row.reward_sum / row.seat_games:>13.3f}"
            )
        return "\n".join(lines)


def wilson_interval(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(env, agents: Sequence[Agent], seed: int) -> tuple[list[float], list[float], list[int], bool]:
    """Play one game with ``agents[seat]`` in each seat; returns scores, rewards, winner seats, truncated.
    Agents are reseeded, then bound to their seat (``agent.bind(env, agent_id)``), before the game."""
    env.reset(seed=seed)
    for offset, agent in enumerate(agents):
        agent.reset(seed=seed * 1009 + offset)
    bind_agents(env, agents)
    raw = env.unwrapped
    seat_of = {name: i for i, name in enumerate(raw.possible_agents)}
    rewards = [0.0] * len(agents)
    info: dict = {}
    truncated = False
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        rewards[seat_of[name]] = float(reward)
        if termination or truncation:
            truncated = truncation
            env.step(None)
            continue
        env.step(agents[seat_of[name]].act(observation["observation"], observation["action_mask"]))
    scores = [float(info["scores"][name]) for name in raw.possible_agents]
    winners = [seat_of[name] for name in info["winners"]]
    return scores, rewards, winners, truncated


def game_seed(seed: int, index: int) -> int:
    """The env seed of game ``index`` of a run seeded with ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def play_games(
    game: str,
    lineup: Sequence[str],
    indices: Iterable[int],
    seed: int = 0,
    env_options: dict | None = None,
    agent_factory: Callable[[str, object, int], Agent] | None = None,
) -> Iterator[GameRecord]:
    """Play the games numbered ``indices``, yielding a record after each.

    Game g seats ``lineup`` rotated by g and is seeded by :func:`game_seed`; agents are reseeded every
    game, so a game's record depends only on (``seed``, g), whichever games are played in the same call.
    """
    env = make_env(game, num_players=len(lineup), **(env_options or {}))
    factory = agent_factory or make
    agents = [factory(name, env.unwrapped.game, seed + i) for i, name in enumerate(lineup)]
    n = len(lineup)
    for g in indices:
        order = [(seat + g) % n for seat in range(n)]
        env_seed = game_seed(seed, g)
        scores, rewards, winners, truncated = play_game(env, [agents[i] for i in order], env_seed)
        yield GameRecord(env_seed, [lineup[i] for i in order], scores, rewards, winners, truncated,
                         list(env.unwrapped.history))


def run_tournament(
    game: str,
    lineup: Sequence[str],
    games: int,
    seed: int = 0,
    env_options: dict | None = None,
    agent_factory: Callable[[str, object, int], Agent] | None = None,
) -> TournamentResult:
    """Play ``games`` seeded games in-process; game g seats ``lineup`` rotated by g, so every entry
    plays every seat. ``lineup`` has one agent name per seat; equal names are pooled in the standings.
    """
    records = play_games(game, lineup, range(games), seed, env_options, agent_factory)
    return TournamentResult(game, len(lineup), list(records))


RECORDS_FORMAT = "hiddenhand-records/1"


def save_records(path: str | Path, result: TournamentResult, env_options: dict[str, Any] | None = None) -> Path:
    """Write ``result``'s game records (seeds, line-ups, outcomes, action histories) as JSON, for
    ``python -m hiddenhand serve --records DIR`` to replay."""
    path = Path(path)
    path.write_text(json.dumps({"format": RECORDS_FORMAT, "game": result.game, "num_players": result.num_players,
                                "env_options": dict(env_options or {}),
                                "records": [asdict(record) for record in result.records]}))
    return path


def load_records(path: str | Path) -> dict[str, Any]:
    """The data :func:`save_records` wrote; ``ValueError`` naming what is wrong with anything else."""
    from hiddenhand.envs import entry

    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict) or data.get("format") != RECORDS_FORMAT:
        raise ValueError(f"{path}: not a {RECORDS_FORMAT} file")
    players, game = data.get("num_players"), data.get("game")
    if not isinstance(game, str) or players not in entry(game).player_counts or not isinstance(data.get("env_options"), dict):
        raise ValueError(f"{path}: bad game, player count or env options")
    for record in data.get("records", []) if isinstance(data.get("records"), list) else [None]:
        if not (isinstance(record, dict) and isinstance(record.get("seed"), int)
                and isinstance(record.get("history"), list) and isinstance(record.get("lineup"), list)
                and len(record["lineup"]) == players):
            raise ValueError(f"{path}: a record lacks its seed, line-up or history")
    return data
