"""Command line: ``python -m hiddenhand {play,tournament,bench} ...``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from hiddenhand.envs import GAMES


def _agent_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hiddenhand", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a game in the terminal against agents")
    play.add_argument("game", choices=sorted(GAMES))
    play.add_argument("--players", type=int, default=4)
    play.add_argument("--agents", type=_agent_list, default=None,
                      help="comma-separated opponents for the other seats (default: heuristic)")
    play.add_argument("--seat", type=int, default=0, help="your seat (0-based)")
    play.add_argument("--seed", type=int, default=None)

    tour = sub.add_parser("tournament", help="seeded games of agents with seat rotation; prints win rates")
    tour.add_argument("game", choices=sorted(GAMES))
    tour.add_argument("--agents", type=_agent_list, required=True, help="one agent per seat, comma-separated")
    tour.add_argument("--games", type=int, default=200)
    tour.add_argument("--seed", type=int, default=0)

    bench = sub.add_parser("bench", help="env throughput against PettingZoo and OpenSpiel peers")
    bench.add_argument("--seconds", type=float, default=3.0, help="measuring time per environment")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "play":
        from hiddenhand.agents.human import play_in_terminal

        return play_in_terminal(args.game, args.players, args.agents, args.seat, args.seed)
    if args.command == "tournament":
        from hiddenhand.agents.tournament import run_tournament

        if args.games < 1:
            print("--games must be at least 1", file=sys.stderr)
            return 2
        print(run_tournament(args.game, args.agents, args.games, args.seed).table())
        return 0
    if args.command == "bench":
        from hiddenhand.benchmarks.throughput import main as bench_main

        return bench_main(seconds=args.seconds)
    return 2
