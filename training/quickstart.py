"""The README's main job: train a 2-player Rattus agent from scratch with the ``rattus_2p_quick`` preset
(a few minutes on 2 cores), then evaluate it against random and heuristic opponents and say plainly how
it compares with the heuristic. (Rattus, not David & Goliath: no David & Goliath preset gets above its
heuristic within minutes; docs/agents.md has the measurements.)"""

from __future__ import annotations

from pathlib import Path

from .config import load_config
from .evaluate import EvaluationResult, evaluate
from .train import train

PRESET = "rattus_2p_quick"


def quickstart(run_dir: str | Path = "runs/quickstart", games: int = 400) -> int:
    """Train (resuming an interrupted run in ``run_dir``), evaluate, print tables, write reports."""
    run_dir = Path(run_dir)
    config = load_config(PRESET)
    print(f"training {config.game} ({config.env}) with preset {PRESET!r}, {config.total_timesteps:,} steps")
    result = train(config, run_dir, resume=True)
    players = result.metadata["num_players"]
    agent = str(result.agent_path)
    for opponent in ("random", "heuristic"):
        evaluation = evaluate(config.game, [agent] + [opponent] * (players - 1), games, seed=0)
        print()
        print(evaluation.table())
        for kind, path in evaluation.write(run_dir / f"eval_vs_{opponent}").items():
            print(f"  {kind}: {path}")
    print()
    print(compared_with_heuristic(evaluation, agent))
    return 0


def compared_with_heuristic(evaluation: EvaluationResult, agent: str) -> str:
    """One sentence on the agent against heuristic opponents. A heuristic among heuristics wins the fair
    share by symmetry, so the agent is better than the heuristic when its interval lies above it."""
    row = next(row for row in evaluation.tournament.standings() if row.label == agent)
    low, high = row.interval
    fair = 1 / evaluation.tournament.num_players
    if low > fair:
        verdict = "stronger than the heuristic"
    elif high < fair:
        verdict = "weaker than the heuristic"
    else:
        verdict = "not distinguishable from the heuristic at this sample size"
    return (f"summary: against heuristic opponents the trained agent wins {row.win_rate:.1%} "
            f"[{low:.1%}, {high:.1%}] of games, fair share {fair:.1%} (what the heuristic itself wins "
            f"there): {verdict}.")
