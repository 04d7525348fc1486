"""Fit the constants of a game's evaluation (:mod:`hiddenhand.envs.david_goliath.evaluation`,
:mod:`hiddenhand.envs.rattus.evaluation`).

    python -m hiddenhand.training.fit_evaluation --players 4 --games 600
    python -m hiddenhand.training.fit_evaluation rattus --players 4 --games 400

Heuristic players play every seat of ``games`` seeded games; every ``every``-th position is kept with
the game's winners. Each combination of constants on the grid (``--grid NAME=v1,v2,...`` replaces one
constant's values) is scored by the log loss of the winners (the mean over positions of
``-log P(winner)``, shared wins averaged), and the grid is printed best first.
"""

from __future__ import annotations

import argparse
import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hiddenhand.agents import bind_agents, load, play_decisions
from hiddenhand.envs import make
from hiddenhand.envs.core.estimates import win_chances
from hiddenhand.envs.david_goliath import evaluation
from hiddenhand.envs.rattus import evaluation as rattus_evaluation


@dataclass(frozen=True)
class Fit:
    """How to fit one game's evaluation: its constants with their default grids, what is kept of a
    position (``features``, computed once) and the win chances from it under given constants."""

    grid: dict[str, tuple[float, ...]]
    features: Callable[[Any], Any]
    chances: Callable[..., list[float]]


def _rattus_features(state) -> tuple[list[float], list[int], int]:
    """Expected scores without the supply's value (as the player to move knows the tokens), the
    supplies and the rats left."""
    scores = rattus_evaluation.expected_scores(state, max(state.current_player, 0), supply_value=0.0)
    return scores, list(state.supply), len(state.rat_supply)


def _rattus_chances(features, spread: float, per_rat: float, supply_value: float) -> list[float]:
    scores, supply, rats_left = features
    return rattus_evaluation.win_probabilities([s + supply_value * c for s, c in zip(scores, supply)],
                                               rats_left, spread, per_rat)


FITS: dict[str, Fit] = {
    "david_goliath": Fit({"SPREAD": (1.3, 1.5, 1.7, 1.9, 2.1), "ROUND_SD": (10.0, 12.0, 14.0, 16.0, 18.0)},
                         features=lambda state: state.clone(),
                         chances=lambda state, spread, round_sd: win_chances(
                             *evaluation.score_moments(state, round_sd), spread)),
    "rattus": Fit({"SPREAD": (0.5, 1.0, 1.5, 2.0), "SPREAD_PER_RAT": (0.2, 0.4, 0.6, 0.8),
                   "SUPPLY_VALUE": (0.0, 0.1, 0.2, 0.3)},
                  features=_rattus_features, chances=_rattus_chances),
}


def heuristic_play(game: str, players: int, seed: int, agents: list | None = None) -> Iterator[tuple[Any, str | None]]:
    """Play one seeded game of heuristic players (or ``agents``), yielding ``(raw env, agent to move)``
    before every decision, then ``(raw env, None)`` at the end."""
    env = make(game, num_players=players)
    raw = env.unwrapped
    agents = agents or [load("heuristic", raw.game, seed=seed + seat) for seat in range(players)]
    env.reset(seed=seed)
    bind_agents(env, agents)
    for agent, _, _ in play_decisions(env, agents):
        yield raw, agent
    yield raw, None


def positions(players: int, games: int, every: int = 4, seed: int = 1000,
              game: str = "david_goliath") -> list[tuple[Any, list[int]]]:
    """(features of a position, winners of its game) pairs from heuristic games."""
    features = FITS[game].features
    agents = [load("heuristic", make(game, num_players=players).unwrapped.game, seed=seed + seat)
              for seat in range(players)]
    kept = []
    for number in range(games):
        found = []
        for ply, (raw, agent) in enumerate(heuristic_play(game, players, seed + number, agents)):
            if agent is None:
                kept += [(item, raw.state_.winners()) for item in found]
            elif ply % every == 0:
                found.append(features(raw.state_))
    return kept


def log_loss(data: list[tuple[Any, list[int]]], *constants: float, game: str = "david_goliath") -> float:
    """Mean ``-log P(winner)`` of the evaluation with these constants (in the order of the game's grid)."""
    chances_of = FITS[game].chances
    total = 0.0
    for item, won in data:
        chances = chances_of(item, *constants)
        total -= sum(math.log(max(chances[p], 1e-12)) for p in won) / len(won)
    return total / len(data)


def _grid_option(text: str) -> tuple[str, tuple[float, ...]]:
    name, sep, values = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=v1,v2,...")
    try:
        return name.strip(), tuple(float(v) for v in values.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the values must be numbers") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default="david_goliath", choices=sorted(FITS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--every", type=int, default=4, help="keep every k-th position")
    parser.add_argument("--grid", type=_grid_option, action="append", default=[], metavar="NAME=v1,v2,...",
                        help="the values tried for one constant (repeatable)")
    args = parser.parse_args(argv)
    grid = dict(FITS[args.game].grid)
    for name, values in args.grid:
        if name not in grid:
            parser.error(f"--grid: {args.game} has no constant {name!r}; constants: {list(grid)}")
        grid[name] = values
    data = positions(args.players, args.games, args.every, game=args.game)
    print(f"{len(data)} positions; uniform guess: {math.log(args.players):.4f}")
    scored = sorted((log_loss(data, *point, game=args.game), point) for point in itertools.product(*grid.values()))
    for loss, point in scored:
        print(" ".join(f"{name}={value:<5}" for name, value in zip(grid, point)) + f" log loss {loss:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
