"""Command line: ``python -m hiddenhand {quickstart,train,evaluate,tournament,play,bench,serve} ...``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from hiddenhand.envs.registry import REGISTRY
from hiddenhand.training.backends import BACKENDS, DEFAULT  # the table only: no learning library is imported


def _agent_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hiddenhand", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a game in the terminal against agents")
    play.add_argument("game", choices=sorted(REGISTRY))
    play.add_argument("--players", type=int, default=4)
    play.add_argument("--agents", type=_agent_list, default=None,
                      help="comma-separated opponents for the other seats (default: heuristic)")
    play.add_argument("--seat", type=int, default=0, help="your seat (0-based)")
    play.add_argument("--seed", type=int, default=None)

    tour = sub.add_parser("tournament", help="seeded games of agents with seat rotation; prints win rates")
    tour.add_argument("game", choices=sorted(REGISTRY))
    tour.add_argument("--agents", type=_agent_list, required=True, help="one agent per seat, comma-separated")
    tour.add_argument("--games", type=int, default=200)
    tour.add_argument("--seed", type=int, default=0)
    tour.add_argument("--save-records", default=None, metavar="FILE",
                      help="write the games (seeds, line-ups, action histories) as JSON, for serve --records DIR")

    quick = sub.add_parser("quickstart", help="the main job: train a 2-player Rattus agent from scratch (preset "
                           "rattus_2p_quick), then evaluate it against random and heuristic opponents")
    quick.add_argument("--run-dir", default="runs/quickstart")
    quick.add_argument("--games", type=int, default=400, help="evaluation games per opponent line-up")

    train = sub.add_parser("train", help="self-play training from a YAML config with one of the backends: "
                           + ", ".join(BACKENDS))
    train.add_argument("game", choices=sorted(REGISTRY))
    train.add_argument("--backend", choices=sorted(BACKENDS), default=DEFAULT,
                       help="; ".join(f"{b.name}: {b.summary} (pip install 'hiddenhand[{b.extra}]')"
                                      for b in BACKENDS.values()) + f" (default {DEFAULT})")
    for backend in BACKENDS.values():
        for flag, text in backend.options.items():
            train.add_argument(flag, default=None, help=f"with --backend {backend.name}: {text}")
    train.add_argument("--config", default=None,
                       help="a YAML file or a preset name, e.g. david_goliath_quick (with --resume and --run-dir: "
                            "default the run's recorded config)")
    train.add_argument("--run-dir", default=None, help="default: runs/<config name>" + "".join(
        f", runs/<config name>{b.run_dir_suffix} with --backend {b.name}" for b in BACKENDS.values() if b.run_dir_suffix))
    start = train.add_mutually_exclusive_group()
    start.add_argument("--resume", action="store_true",
                       help="continue from the run's newest intact checkpoint (damaged newer ones are skipped "
                            "with a message); starts fresh only if the run directory has no checkpoint and no agent file")
    start.add_argument("--overwrite", action="store_true",
                       help="start afresh in a run directory that holds an earlier run, discarding its outputs")
    train.add_argument("--force", action="store_true",
                       help="with --resume: continue even though the config differs from the run's recorded one")
    train.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="override a config key (dotted, YAML value), e.g. --set env.num_players=3")
    train.add_argument("--name", default=None, help="agent name in its metadata (default <game>_<N>p)")
    train.add_argument("--no-progress", action="store_true")

    evaluate = sub.add_parser("evaluate", help="seeded games in parallel: win rates, CIs, OpenSkill ratings")
    evaluate.add_argument("game", choices=sorted(REGISTRY))
    evaluate.add_argument("--players", type=int, required=True)
    evaluate.add_argument("--agents", type=_agent_list, required=True,
                          help="one per seat: random, heuristic, a shipped agent name or an agent file")
    evaluate.add_argument("--games", type=int, default=1000)
    evaluate.add_argument("--seed", type=int, default=0)
    evaluate.add_argument("--workers", type=int, default=None)
    evaluate.add_argument("--out", default=None, help="directory for games.csv, summary.json, winrates.png")

    ship = sub.add_parser("ship", help="evaluate a trained agent and copy it into agents/trained with its card")
    ship.add_argument("agent_file")
    ship.add_argument("--name", required=True, help="shipped name, e.g. david_goliath_4p")
    ship.add_argument("--games", type=int, default=1000)
    ship.add_argument("--overwrite", action="store_true", help="replace an agent already shipped under --name")

    from hiddenhand.training.distill import add_arguments as add_distill_arguments

    distill = sub.add_parser("distill", help="fit a network to one agent's moves in recorded games (evaluate --out)")
    add_distill_arguments(distill)

    bench = sub.add_parser("bench", help="env throughput against PettingZoo and OpenSpiel peers")
    bench.add_argument("--seconds", type=float, default=3.0, help="CPU seconds of measuring per environment")
    bench.add_argument("--rounds", type=int, default=5, help="turns the envs take, interleaved")

    from hiddenhand.web.cli import add_parser as add_serve_parser  # argparse only: no web framework import

    add_serve_parser(sub)
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
        result = run_tournament(args.game, args.agents, args.games, args.seed)
        print(result.table())
        if args.save_records:
            from hiddenhand.agents.tournament import save_records

            print(f"records: {save_records(args.save_records, result)}")
        return 0
    if args.command == "quickstart":
        from hiddenhand.training.quickstart import quickstart
        from hiddenhand.training.runs import TrainingError

        try:
            return quickstart(args.run_dir, args.games)
        except TrainingError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    if args.command == "train":
        return _train(args)
    if args.command == "evaluate":
        return _evaluate(args)
    if args.command == "distill":
        from hiddenhand.training.distill import run as run_distill

        return run_distill(args)
    if args.command == "ship":
        from hiddenhand.agents import AgentFileError
        from hiddenhand.training.ship import ship

        try:
            ship(args.agent_file, args.name, args.games, overwrite=args.overwrite)
        except (AgentFileError, ValueError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        return 0
    if args.command == "bench":
        from hiddenhand.benchmarks.throughput import main as bench_main

        return bench_main(seconds=args.seconds, rounds=args.rounds)
    if args.command == "serve":
        from hiddenhand.web.cli import run as serve

        return serve(args)
    return 2


def _train(args: argparse.Namespace) -> int:
    backend = BACKENDS[args.backend]
    for other in BACKENDS.values():
        for flag in set(other.options) - set(backend.options):
            if getattr(args, _dest(flag)) is not None:
                print(f"error: {flag} only applies with --backend {other.name}", file=sys.stderr)
                return 2
    try:
        configs, trainer = backend.modules()
    except ImportError as error:
        print(f"error: the {backend.name} backend needs packages that are not installed ({error}); install them "
              f"with pip install \"hiddenhand[{backend.extra}]\"", file=sys.stderr)
        return 2
    from hiddenhand.agents import AgentFileError
    from hiddenhand.training.config import ConfigError, command_config
    from hiddenhand.training.runs import CONFIG_FILE, TrainingError, recorded_config

    def recorded(run_dir: Path):
        data = recorded_config(run_dir)
        return None if data is None else configs.config_from_dict(data, source=str(run_dir / CONFIG_FILE))

    try:
        config = command_config(args, configs.load_config, recorded, configs.with_overrides)
        if config.game != args.game:
            raise ConfigError(f"config {args.config!r} is for game {config.game!r}, not {args.game!r}")
        run_dir = args.run_dir or f"runs/{Path(args.config).stem}{backend.run_dir_suffix}"
        options = {_dest(flag): getattr(args, _dest(flag)) for flag in backend.options}
        trainer.train(config, run_dir, resume=args.resume, progress=not args.no_progress, name=args.name,
                      overwrite=args.overwrite, force=args.force, **options)
    except (ConfigError, TrainingError, AgentFileError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def _dest(flag: str) -> str:
    """argparse's attribute name for a long option: ``--run-dir`` -> ``run_dir``."""
    return flag.lstrip("-").replace("-", "_")


def _evaluate(args: argparse.Namespace) -> int:
    from hiddenhand.training.evaluate import evaluate

    if len(args.agents) != args.players:
        print(f"error: --agents lists {len(args.agents)} agents for {args.players} players", file=sys.stderr)
        return 2
    try:
        result = evaluate(args.game, args.agents, args.games, seed=args.seed, workers=args.workers)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(result.table())
    if args.out:
        for kind, path in result.write(Path(args.out)).items():
            print(f"{kind}: {path}")
    return 0
