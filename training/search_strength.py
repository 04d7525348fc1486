"""How strong a search agent is per unit of CPU: its win rate against heuristics (seat rotation, Wilson
interval) and the CPU time of its moves (median and 95th percentile of the moves with a choice).

    python -m hiddenhand.training.search_strength david_goliath "ismcts" --players 4 --games 400

Games are played in this process, one after the other, so that the CPU time of a move is the search's
own (process time around ``act``); a busy machine slows the wall clock, not these figures.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hiddenhand.agents import Agent, load
from hiddenhand.agents.tournament import play_games, wilson_interval
from hiddenhand.training.config import parse_overrides


class TimedAgent(Agent):
    """Another agent, the CPU time of each of its moves with a choice recorded."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.name = agent.name
        self.times: list[float] = []

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def bind(self, env, agent_id: str) -> None:
        self.agent.bind(env, agent_id)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        started = time.process_time()
        action = self.agent.act(observation, action_mask)
        if np.count_nonzero(action_mask) > 1:
            self.times.append(time.process_time() - started)
        return action


def measure(game: str, spec: str, players: int, games: int, opponent: str = "heuristic", seed: int = 0,
            env_options: dict | None = None) -> dict:
    """Win rate (with its interval) and move CPU times of ``spec`` against ``opponent`` in the other seats."""
    timed: list[TimedAgent] = []

    def factory(name, game_, agent_seed):
        if name != spec:
            return load(name, game_, agent_seed)
        timed.append(TimedAgent(load(name, game_, agent_seed)))
        return timed[-1]

    wins = 0.0
    for record in play_games(game, [spec] + [opponent] * (players - 1), range(games), seed, env_options, factory):
        seat = record.lineup.index(spec)
        if seat in record.winners:
            wins += 1.0 / len(record.winners)
    times = np.array([t for agent in timed for t in agent.times]) * 1000
    low, high = wilson_interval(wins, games)
    return {"game": game, "agent": spec, "players": players, "opponent": opponent, "games": games,
            "win_rate": wins / games, "ci95": [low, high], "fair_share": 1 / players,
            "move_cpu_ms_p50": float(np.percentile(times, 50)), "move_cpu_ms_p95": float(np.percentile(times, 95))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("agent", help="a search spec, e.g. 'ismcts:iterations=120'")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="an env option (YAML value), e.g. --env card_features=true")
    args = parser.parse_args(argv)
    row = measure(args.game, args.agent, args.players, args.games, args.opponent, args.seed, parse_overrides(args.env))
    low, high = row["ci95"]
    print(f"{args.agent} against {args.players - 1} x {args.opponent} ({args.game}, {args.players} players, "
          f"{args.games} games): {row['win_rate']:.1%} [{low:.1%}, {high:.1%}], fair share {row['fair_share']:.1%}; "
          f"CPU per move p50 {row['move_cpu_ms_p50']:.0f} ms, p95 {row['move_cpu_ms_p95']:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
