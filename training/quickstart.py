"""The README's main job: train a 4-player David & Goliath agent with the quick preset (a few
minutes on 2 cores), then evaluate it against random and heuristic opponents."""

from __future__ import annotations

from pathlib import Path

from .config import load_config
from .evaluate import evaluate
from .train import train

PRESET = "david_goliath_quick"


def quickstart(run_dir: str | Path = "runs/quickstart", games: int = 400) -> int:
    """Train (resuming an interrupted run in ``run_dir``), evaluate, print tables, write reports."""
    run_dir = Path(run_dir)
    config = load_config(PRESET)
    print(f"training {config.game} ({config.env}) with preset {PRESET!r}, {config.total_timesteps:,} steps")
    result = train(config, run_dir, resume=True)
    players = result.metadata["num_players"]
    for opponent in ("random", "heuristic"):
        lineup = [str(result.agent_path)] + [opponent] * (players - 1)
        evaluation = evaluate(config.game, lineup, games, seed=0)
        print()
        print(evaluation.table())
        for kind, path in evaluation.write(run_dir / f"eval_vs_{opponent}").items():
            print(f"  {kind}: {path}")
    return 0
