"""Time to strength: train from scratch in chunks and, after each, play the agent against the heuristic
until its 95% interval lies above the fair share; report the CPU-minutes that took.

    python -m hiddenhand.training.time_to_strength rattus --config rattus --set env.num_players=2 \\
        --chunk 25000 --run-dir runs/tts_rattus_2p

CPU time is the training's own (process time; one process: SB3 runs with ``vec_env: dummy``, the expert
backend counts its workers' time itself), without the measuring games, so figures taken on a busy
machine mean what they would on a quiet one. Each chunk resumes the run (``total_timesteps`` or
``iterations`` raised by ``--chunk``); the rows go to ``<run-dir>/time_to_strength.jsonl`` and an
interrupted measurement continues where it stopped when run again.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from hiddenhand.training.backends import BACKENDS
from hiddenhand.training.config import parse_overrides

from .evaluate import evaluate

#: The config keys each backend counts its progress in, and what a chunk sets besides (quiet, one process).
PROGRESS_KEY = {"sb3": "total_timesteps", "expert": "iterations"}
CHUNK_SETTINGS = {"sb3": {"vec_env": "dummy", "eval.every": 10**12, "eval.games": 1, "eval.opponents": ["random"]},
                  "expert": {"eval.every": 10**6, "eval.games": 1, "eval.opponents": ["random"]}}


def measure(game: str, backend: str, preset: str, overrides: dict, chunk: int, run_dir: Path, games: int = 400,
            max_cpu_minutes: float = 30.0) -> list[dict]:
    """Chunks until the agent's interval against the heuristic lies above the fair share (or the CPU
    budget is spent); returns the rows (progress, CPU-minutes, win rate, interval)."""
    configs, trainer = BACKENDS[backend].modules()
    base = configs.with_overrides(configs.load_config(preset), {**overrides, **CHUNK_SETTINGS[backend]})
    log = run_dir / "time_to_strength.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []
    while not rows or (rows[-1]["ci95"][0] <= rows[-1]["fair_share"] and rows[-1]["cpu_minutes"] < max_cpu_minutes):
        target = (len(rows) + 1) * chunk
        config = configs.with_overrides(base, {PROGRESS_KEY[backend]: target})
        started = time.process_time()
        result = trainer.train(config, run_dir, resume=bool(rows), progress=False)
        spent = time.process_time() - started
        if backend == "expert":  # its workers' time is in the agent's metadata (cumulative)
            spent = result.metadata["cpu_time_s"] - (rows[-1]["cpu_minutes"] * 60 if rows else 0.0)
        players = result.metadata["num_players"]
        agent = str(result.agent_path)
        options = {k: v for k, v in result.metadata["env_options"].items() if k not in ("num_players", "reward_mode")}
        report = evaluate(game, [agent] + ["heuristic"] * (players - 1), games, seed=12345, env_options=options,
                          workers=1, progress=False)
        row = next(r for r in report.summary()["standings"] if r["agent"] == agent)
        rows.append({"progress": target, "cpu_minutes": (rows[-1]["cpu_minutes"] if rows else 0.0) + spent / 60,
                     "games": games, "win_rate": row["win_rate"], "ci95": row["ci95"], "fair_share": 1 / players})
        with log.open("a") as handle:
            handle.write(json.dumps(rows[-1]) + "\n")
        print(f"{PROGRESS_KEY[backend]} {target}: {rows[-1]['cpu_minutes']:.1f} CPU-minutes, {row['win_rate']:.1%} "
              f"[{row['ci95'][0]:.1%}, {row['ci95'][1]:.1%}] against the heuristic (fair share {1 / players:.1%})",
              flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--backend", choices=sorted(PROGRESS_KEY), default="sb3")
    parser.add_argument("--config", required=True, help="a preset name or YAML file of the backend")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--chunk", type=int, required=True, help="steps (sb3) or iterations (expert) per chunk")
    parser.add_argument("--games", type=int, default=400, help="games against the heuristic after each chunk")
    parser.add_argument("--max-cpu-minutes", type=float, default=30.0)
    parser.add_argument("--run-dir", required=True)
    args = parser.parse_args(argv)
    rows = measure(args.game, args.backend, args.config, parse_overrides(args.set), args.chunk, Path(args.run_dir),
                   args.games, args.max_cpu_minutes)
    last = rows[-1]
    reached = last["ci95"][0] > last["fair_share"]
    print(f"{'reached' if reached else 'not reached'}: {last['cpu_minutes']:.1f} CPU-minutes, "
          f"{PROGRESS_KEY[args.backend]} {last['progress']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
