"""Time to strength: train from scratch in chunks and, after each, play the agent against the heuristic
until its 95% interval lies above the fair share; report the CPU-minutes that took.

    python -m hiddenhand.training.time_to_strength rattus --config rattus --set env.num_players=2 \\
        --chunk 25000 --run-dir runs/tts_rattus_2p --confirm 1000

CPU time is the training's own (process time; one process: SB3 runs with ``vec_env: dummy``, the expert
backend counts its workers' time itself), without the measuring games, so figures taken on a busy
machine mean what they would on a quiet one. Each chunk resumes the run (``total_timesteps`` or
``iterations`` raised by ``--chunk``); the rows go to ``<run-dir>/time_to_strength.jsonl`` and an
interrupted measurement continues where it stopped when run again. ``--confirm GAMES`` then plays the
reached agent in that many further games with another seed (``confirmation.json``; the check's row keeps
it too): a first check above can be luck among many checks, so where the further games do not hold it,
training goes on (within the budget) to the next check above.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from hiddenhand.agents import load_policy
from hiddenhand.training.backends import BACKENDS
from hiddenhand.training.config import parse_overrides

from .evaluate import evaluate

#: The config keys each backend counts its progress in, and what a chunk sets besides (one process, no
#: evaluation of its own: the checks are the evaluation).
PROGRESS_KEY = {"sb3": "total_timesteps", "expert": "iterations"}
#: Seeds of the checks after each chunk and of the confirming games (``--confirm``).
CHECK_SEED, CONFIRM_SEED = 12345, 4242
CHUNK_SETTINGS = {"sb3": {"vec_env": "dummy", "eval.opponents": []}, "expert": {"eval.opponents": []}}


def against_heuristic(game: str, agent: Path, metadata: dict, games: int, seed: int) -> dict:
    """The agent file's standings row (win rate, interval) in ``games`` against heuristics in the other
    seats, seat rotation, with the env options it was trained with."""
    options = {k: v for k, v in metadata["env_options"].items() if k not in ("num_players", "reward_mode")}
    players = metadata["num_players"]
    report = evaluate(game, [str(agent)] + ["heuristic"] * (players - 1), games, seed=seed, env_options=options,
                      workers=1, progress=False)
    return next(r for r in report.summary()["standings"] if r["agent"] == str(agent))


def confirm(game: str, run_dir: Path, games: int = 1000) -> dict:
    """Play the run's agent in ``games`` further games against the heuristic with another seed than the
    checks' (a first check above can be luck among many checks); written to ``<run-dir>/confirmation.json``."""
    agent = run_dir / "agent.npz"
    metadata = load_policy(agent).metadata
    row = against_heuristic(game, agent, metadata, games, CONFIRM_SEED)
    result = {"games": games, "seed": CONFIRM_SEED, "win_rate": row["win_rate"], "ci95": row["ci95"],
              "fair_share": 1 / metadata["num_players"], "held": row["ci95"][0] > 1 / metadata["num_players"]}
    (run_dir / "confirmation.json").write_text(json.dumps(result) + "\n")
    return result


def reached(row: dict) -> bool:
    """Whether a check's interval lies above the fair share."""
    return row["ci95"][0] > row["fair_share"]


def measure(game: str, backend: str, preset: str, overrides: dict, chunk: int, run_dir: Path, games: int = 400,
            max_cpu_minutes: float = 30.0, confirm_games: int = 0) -> list[dict]:
    """Chunks until the agent's interval against the heuristic lies above the fair share (or the CPU
    budget is spent); with ``confirm_games``, until ``confirm`` also holds it. Returns the rows (progress,
    CPU-minutes, win rate, interval and, for a confirmed check, its ``confirmation``)."""
    configs, trainer = BACKENDS[backend].modules()
    base = configs.with_overrides(configs.load_config(preset), {**overrides, **CHUNK_SETTINGS[backend]})
    log = run_dir / "time_to_strength.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []
    while True:
        if rows and reached(rows[-1]):
            if not confirm_games:
                break
            if "confirmation" not in rows[-1]:
                rows[-1]["confirmation"] = confirm(game, run_dir, confirm_games)
                log.write_text("".join(json.dumps(row) + "\n" for row in rows))
            if rows[-1]["confirmation"]["held"]:
                break
        if rows and rows[-1]["cpu_minutes"] >= max_cpu_minutes:
            break
        target = (len(rows) + 1) * chunk
        config = configs.with_overrides(base, {PROGRESS_KEY[backend]: target})
        started = time.process_time()
        result = trainer.train(config, run_dir, resume=bool(rows), progress=False)
        spent = time.process_time() - started
        if backend == "expert":  # its workers' time is in the agent's metadata (cumulative)
            spent = result.metadata["cpu_time_s"] - (rows[-1]["cpu_minutes"] * 60 if rows else 0.0)
        players = result.metadata["num_players"]
        row = against_heuristic(game, result.agent_path, result.metadata, games, CHECK_SEED)
        rows.append({"progress": target, "cpu_minutes": (rows[-1]["cpu_minutes"] if rows else 0.0) + spent / 60,
                     "games": games, "win_rate": row["win_rate"], "ci95": row["ci95"], "fair_share": 1 / players})
        with log.open("a") as handle:
            handle.write(json.dumps(rows[-1]) + "\n")
        print(f"{PROGRESS_KEY[backend]} {target}: {rows[-1]['cpu_minutes']:.1f} CPU-minutes, {row['win_rate']:.1%} "
              f"[{row['ci95'][0]:.1%}, {row['ci95'][1]:.1%}] against the heuristic (fair share {1 / players:.1%})",
              flush=True)
        if reached(rows[-1]) and confirm_games:
            print(f"checking with {confirm_games} further games", flush=True)
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
    parser.add_argument("--confirm", type=int, default=0, metavar="GAMES",
                        help="once reached, play this many further games with another seed (e.g. 1000); "
                             "where they do not hold it, train on")
    args = parser.parse_args(argv)
    rows = measure(args.game, args.backend, args.config, parse_overrides(args.set), args.chunk, Path(args.run_dir),
                   args.games, args.max_cpu_minutes, args.confirm)
    last = rows[-1]
    print(f"{'reached' if reached(last) else 'not reached'}: {last['cpu_minutes']:.1f} CPU-minutes, "
          f"{PROGRESS_KEY[args.backend]} {last['progress']}")
    for row in rows:
        if "confirmation" in row:
            result = row["confirmation"]
            low, high = result["ci95"]
            print(f"{PROGRESS_KEY[args.backend]} {row['progress']}: {result['games']} further games: "
                  f"{result['win_rate']:.1%} [{low:.1%}, {high:.1%}], {'held' if result['held'] else 'not held'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
