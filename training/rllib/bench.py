"""Throughput of the RLlib backend on this machine, beside the SB3 trainer's, measured back to back.

    python -m hiddenhand.training.rllib.bench --preset david_goliath_quick --runners 1 2 --train-steps 20000

Env sampling: each env runner samples ``--sample-steps`` env steps with the learner module (after a
warm-up), all runners at once; env steps per second over the whole. Training: learner steps per second
of a run of ``--train-steps`` (start-up excluded) for both backends with the same game and preset.
Numbers depend on what else the machine runs: note the load beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import ray
import torch

from hiddenhand.training.backends import BACKENDS

from . import cluster
from .config import load_config
from .trainer import algorithm_config


def sampling(preset: str, runners: int, steps: int) -> float:
    """Env steps per second of ``runners`` env runners sampling at once (0: the driver samples)."""
    config = load_config(preset)
    cluster.start(None, max(2, runners + 1), 10)
    try:
        algo = algorithm_config(config, runners).build_algo()
        remote = runners > 0

        def run(count: int) -> int:
            collect = lambda r: sum(len(e) for e in r.sample(num_timesteps=count, explore=True))  # noqa: E731
            if remote:
                return sum(algo.env_runner_group.foreach_env_runner(collect, local_env_runner=False))
            return collect(algo.env_runner)

        run(200)  # warm-up: envs built, modules traced
        started = time.perf_counter()
        total = run(steps)
        rate = total / (time.perf_counter() - started)
        algo.stop()
        return rate
    finally:
        ray.shutdown()


def training(backend: str, preset: str, steps: int) -> float:
    """Learner steps per second of a ``steps``-step run of ``backend``'s preset (no periodic evaluations
    or checkpoints)."""
    configs, trainer = BACKENDS[backend].modules()
    config = configs.with_overrides(configs.load_config(preset), {"total_timesteps": steps, "eval.every": 10**9,
                                                                  "eval.games": 10, "checkpoint_every": 10**9})
    with tempfile.TemporaryDirectory() as run_dir:
        return trainer.train(config, run_dir, progress=False).metadata["train_steps_per_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="david_goliath_quick")
    parser.add_argument("--runners", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--sample-steps", type=int, default=5000)
    parser.add_argument("--train-steps", type=int, default=0, help="0: skip the training comparison")
    args = parser.parse_args()
    torch.set_num_threads(1)  # as the trainer does (torch_threads); remote env runners get one thread from Ray
    results = {"cpus": os.cpu_count(), "load_before": os.getloadavg()[0]}
    for runners in args.runners:
        results[f"sample_env_steps_per_s_{runners}_runners"] = round(sampling(args.preset, runners, args.sample_steps))
        print(json.dumps(results), flush=True)
    for backend in ("rllib", "sb3") if args.train_steps else ():
        results[f"train_learner_steps_per_s_{backend}"] = training(backend, args.preset, args.train_steps)
    results["load_after"] = os.getloadavg()[0]
    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    main()
