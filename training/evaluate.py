"""Evaluation engine: seeded games with seat rotation played over cores, win rates with Wilson
intervals, OpenSkill (Plackett-Luce) ratings, and a CSV / JSON / PNG report."""

from __future__ import annotations

import csv
import json
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from openskill.models import PlackettLuce
from tqdm import tqdm

from hiddenhand.agents import env_options_for, load
from hiddenhand.agents.tournament import GameRecord, TournamentResult, play_games, save_records
from hiddenhand.envs import make as make_env


@dataclass
class Rating:
    """An OpenSkill rating; ``ordinal`` (mu - 3 sigma) is the conservative skill estimate."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass
class EvaluationResult:
    """The game records of an evaluation, its configuration and the agents' ratings."""

    tournament: TournamentResult
    agents: list[str]
    seed: int
    env_options: dict
    ratings: dict[str, Rating]
    truncated: int  # games cut at max_cycles: no winner, left out of the ratings

    def table(self) -> str:
        t = self.tournament
        header = (f"{t.game}, {t.num_players} players, {len(t.records)} games "
                  f"(fair share of wins {1 / t.num_players:.1%})")
        if self.truncated:
            header += f", {self.truncated} truncated"
        lines = [header, f"{'agent':<24}{'seat-games':>11}{'win rate':>10}{'95% CI':>18}"
                         f"{'mean score':>12}{'rating':>16}{'ordinal':>9}"]
        for row in t.standings():
            low, high = row.interval
            rating = self.ratings[row.label]
            lines.append(
                f"{row.label:<24}{row.seat_games:>11}{row.win_rate:>10.1%}{f'[{low:.1%}, {high:.1%}]':>18}"
                f"{row.score_sum / row.seat_games:>12.1f}{f'{rating.mu:.1f} ± {rating.sigma:.1f}':>16}"
                f"{rating.ordinal:>9.1f}"
            )
        return "\n".join(lines)

    def summary(self) -> dict:
        """Configuration, standings and ratings as JSON-ready data."""
        t = self.tournament
        standings = []
        for row in t.standings():
            low, high = row.interval
            standings.append({
                "agent": row.label, "seat_games": row.seat_games, "wins": row.wins, "win_rate": row.win_rate,
                "ci95": [low, high], "mean_score": row.score_sum / row.seat_games,
                "mean_reward": row.reward_sum / row.seat_games,
            })
        return {
            "config": {"game": t.game, "players": t.num_players, "games": len(t.records), "seed": self.seed,
                       "env_options": self.env_options, "agents": self.agents},
            "fair_share": 1 / t.num_players,
            "truncated_games": self.truncated,
            "standings": standings,
            "ratings": {label: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal}
                        for label, r in self.ratings.items()},
        }

    def write(self, out_dir: Path) -> dict[str, Path]:
        """Write ``games.csv``, ``summary.json``, ``winrates.png`` and ``records.json`` (the games with their
        action histories, replayable with ``serve --records``) into ``out_dir``; returns their paths."""
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        paths = {"games": out_dir / "games.csv", "summary": out_dir / "summary.json",
                 "plot": out_dir / "winrates.png"}
        seats = range(self.tournament.num_players)
        with paths["games"].open("w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["index", "seed", *(f"agent_{s}" for s in seats), *(f"score_{s}" for s in seats),
                             "winners", "truncated"])
            for index, r in enumerate(self.tournament.records):
                writer.writerow([index, r.seed, *r.lineup, *r.scores, " ".join(map(str, r.winners)),
                                 int(r.truncated)])
        paths["summary"].write_text(json.dumps(self.summary(), indent=2) + "\n")
        paths["records"] = save_records(out_dir / "records.json", self.tournament, self.env_options)
        self._plot(paths["plot"])
        return paths

    def _plot(self, path: Path) -> None:
        """Horizontal bars of win rate per agent with 95% CI error bars and the fair share dashed."""
        from matplotlib.figure import Figure  # no pyplot: renders with Agg, leaves global state alone

        t = self.tournament
        rows = t.standings()[::-1]  # best on top
        rates = [row.win_rate for row in rows]
        errors = [[rate - row.interval[0] for rate, row in zip(rates, rows)],
                  [row.interval[1] - rate for rate, row in zip(rates, rows)]]
        fig = Figure(figsize=(7, 1.2 + 0.5 * len(rows)), layout="constrained")
        ax = fig.subplots()
        ax.barh([row.label for row in rows], rates, xerr=errors, capsize=4, color="tab:blue")
        ax.axvline(1 / t.num_players, color="k", linestyle="--", label="fair share")
        ax.set_xlim(0, 1)
        ax.set_xlabel("win rate (95% Wilson CI)")
        ax.set_title(f"{t.game}, {t.num_players} players, {len(t.records)} games")
        ax.legend(loc="lower right")
        fig.savefig(path, dpi=120)


def rate(records: list[GameRecord], labels: list[str]) -> tuple[dict[str, Rating], int]:
    """Plackett-Luce ratings of ``labels`` from the records, game by game; returns (ratings, truncated).

    Each seat is a team of one ranked by final score (ties share a rank); a label in several seats of a
    game is rated once per seat and its rating becomes the mean of those updates. Truncated games are
    skipped and counted.
    """
    model = PlackettLuce()
    ratings = {label: model.rating() for label in labels}
    truncated = 0
    for record in records:
        if record.truncated:
            truncated += 1
            continue
        ranks = [1 + sum(other > score for other in record.scores) for score in record.scores]
        updated = model.rate([[ratings[label]] for label in record.lineup], ranks=ranks)
        for label in set(record.lineup):
            seats = [seat for seat, name in enumerate(record.lineup) if name == label]
            mu = sum(updated[seat][0].mu for seat in seats) / len(seats)
            sigma = sum(updated[seat][0].sigma for seat in seats) / len(seats)
            ratings[label] = model.rating(mu, sigma)
    return {label: Rating(r.mu, r.sigma) for label, r in ratings.items()}, truncated


def evaluate(
    game: str,
    agents: list[str],
    games: int,
    seed: int = 0,
    env_options: dict | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> EvaluationResult:
    """Play ``games`` seeded games of ``agents`` (one name per seat, rotated every game, as in
    :func:`~hiddenhand.agents.tournament.run_tournament`) over ``workers`` processes and rate them.

    ``workers`` defaults to min(cores, 4); 1 plays in this process. Records do not depend on it.
    Without ``env_options``, trained agents' own options apply (e.g. observation features they need).
    ``agents`` may name search agents (``"ismcts"``, ``"pimc:determinizations=4"``): every worker builds its
    own agents and env, and :func:`~hiddenhand.agents.tournament.play_game` binds each agent to its seat
    (``agent.bind(env, agent_id)``) before every game.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    env_options = dict(env_options if env_options is not None else env_options_for(agents))
    env = make_env(game, num_players=len(agents), **env_options)  # raises on unknown game or player count
    for name in set(agents):
        load(name, env.unwrapped.game)  # fail here, not in a worker, on an unusable agent
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    workers = min(workers or min(os.cpu_count() or 1, 4), games)
    with tqdm(total=games, desc=f"{game} games", unit="game", disable=not progress) as bar:
        if workers == 1:
            records = []
            for record in play_games(game, agents, range(games), seed, env_options):
                records.append(record)
                bar.update()
        else:
            chunk = -(-games // (4 * workers))  # several chunks per worker keep the bar moving
            starts = range(0, games, chunk)
            parts: dict[int, list[GameRecord]] = {}
            with ProcessPoolExecutor(workers) as pool:
                futures = {pool.submit(_play_list, game, agents, range(start, min(start + chunk, games)), seed,
                                       env_options): start for start in starts}
                for future in as_completed(futures):
                    start = futures[future]
                    parts[start] = future.result()
                    bar.update(len(parts[start]))
            records = [record for start in starts for record in parts[start]]
    labels = list(dict.fromkeys(agents))
    ratings, truncated = rate(records, labels)
    return EvaluationResult(TournamentResult(game, len(agents), records), list(agents), seed, env_options,
                            ratings, truncated)


def _play_list(*args) -> list[GameRecord]:
    """Worker: :func:`play_games` with its own env and agents (built and bound here), as a list."""
    return list(play_games(*args))
