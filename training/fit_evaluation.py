"""Fit the constants of David & Goliath's evaluation (:mod:`hiddenhand.envs.david_goliath.evaluation`).

    python -m hiddenhand.training.fit_evaluation --players 4 --games 600

Heuristic players play every seat of ``games`` seeded games; every ``every``-th position is kept with
the game's winners. Each pair of constants on the grid is scored by the log loss of the winners (the
mean over positions of ``-log P(winner)``, shared wins averaged), and the grid is printed best first.
"""

from __future__ import annotations

import argparse
import itertools
import math

from hiddenhand.agents import bind_agents, load
from hiddenhand.envs import make
from hiddenhand.envs.core.estimates import win_chances
from hiddenhand.envs.david_goliath import evaluation


def positions(players: int, games: int, every: int = 4, seed: int = 1000) -> list[tuple[object, list[int]]]:
    """(position, winners of its game) pairs from heuristic games."""
    env = make("david_goliath", num_players=players)
    raw = env.unwrapped
    agents = [load("heuristic", raw.game, seed=seed + seat) for seat in range(players)]
    kept = []
    for game in range(games):
        env.reset(seed=seed + game)
        bind_agents(env, agents)
        states = []
        for ply, agent in enumerate(env.agent_iter()):
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            if ply % every == 0:
                states.append(raw.state_.clone())
            env.step(agents[raw.possible_agents.index(agent)].act(observation["observation"],
                                                                  observation["action_mask"]))
        won = raw.state_.winners()
        kept += [(state, won) for state in states]
    return kept


def log_loss(data: list[tuple[object, list[int]]], spread: float, round_sd: float) -> float:
    """Mean ``-log P(winner)`` of the evaluation with these constants."""
    total = 0.0
    for state, won in data:
        chances = win_chances(*evaluation.score_moments(state, round_sd), spread)
        total -= sum(math.log(max(chances[p], 1e-12)) for p in won) / len(won)
    return total / len(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--every", type=int, default=4, help="keep every k-th position")
    parser.add_argument("--spreads", type=float, nargs="+", default=[1.3, 1.5, 1.7, 1.9, 2.1])
    parser.add_argument("--round-sds", type=float, nargs="+", default=[10.0, 12.0, 14.0, 16.0, 18.0])
    args = parser.parse_args(argv)
    data = positions(args.players, args.games, args.every)
    print(f"{len(data)} positions; uniform guess: {math.log(args.players):.4f}")
    scored = sorted((log_loss(data, s, r), s, r) for s, r in itertools.product(args.spreads, args.round_sds))
    for loss, spread, round_sd in scored:
        print(f"SPREAD={spread:<5} ROUND_SD={round_sd:<5} log loss {loss:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
