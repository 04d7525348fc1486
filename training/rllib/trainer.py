"""Self-play training on Ray RLlib (new API stack: RLModule, Learner, env runners), start to export.

The run directory and its rules are every backend's (:mod:`hiddenhand.training.runs`): ``config.json``,
``checkpoints/step_<n>/`` (here RLlib's own checkpoint of the algorithm in ``algorithm/``, which holds
pickles, with the league beside it), ``tb/`` (TensorBoard: PPO losses, throughput, league composition and
win rates) and at the end ``agent.npz`` with its model card ``agent.md``: the learner's actor in the
project's agent-file format, played with numpy like an SB3-trained agent. Imports no SB3 code.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    LEARNER_RESULTS,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    NUM_MODULE_STEPS_SAMPLED,
)
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from hiddenhand.training.runs import (
    Checkpoints,
    TrainResult,
    agent_metadata,
    check_run_dir,
    evaluate_policy,
    export_agent,
    finished_run,
    library_versions,
    next_multiple,
    open_run,
)

from . import cluster
from .config import RLlibConfig
from .env import LeagueEnv
from .league import LEARNER, League, LeagueCallback, policy_mapping_fn, set_league, snapshot_id
from .module import MaskedPPOModule, actor_weights

LIBRARIES = ("ray",)
CHECKPOINT_FILES = ("algorithm", "league.json")
KEEP_CHECKPOINTS = 2
#: Keys a resumed run may change without ``force``: the length of the run and where it runs.
RESUMABLE = ("total_timesteps", "ray.")


def module_spec(config: RLlibConfig) -> tuple[RLModuleSpec, dict[str, Any]]:
    """The learner's module spec and the env config (built once to read the spaces)."""
    t = config.train
    env_config = {"game": t.game, "env": dict(t.env), "dense_reward": t.dense_reward,
                  "potential": t.potential, "seed": t.seed}
    probe = LeagueEnv(env_config)
    agent = probe.possible_agents[0]
    spec = RLModuleSpec(module_class=MaskedPPOModule, observation_space=probe.observation_spaces[agent],
                        action_space=probe.action_spaces[agent],
                        model_config={"fcnet_hiddens": list(t.ppo.net_arch), "fcnet_activation": t.ppo.activation,
                                      "vf_share_layers": False})
    return spec, env_config


def algorithm_config(config: RLlibConfig, num_env_runners: int) -> PPOConfig:
    """Multi-agent PPO: the learner and ``pool.window`` frozen snapshot modules, one mapping function."""
    t, p, r = config.train, config.train.ppo, config.ray
    spec, env_config = module_spec(config)
    modules = {LEARNER: spec} | {snapshot_id(i): spec for i in range(t.pool.window)}
    envs = max(1, num_env_runners) * r.num_envs_per_env_runner
    return (
        PPOConfig()
        .environment(LeagueEnv, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=r.num_envs_per_env_runner,
                     num_cpus_per_env_runner=r.num_cpus_per_env_runner, rollout_fragment_length="auto")
        .learners(num_learners=r.num_learners)
        .multi_agent(policies=set(modules), policy_mapping_fn=policy_mapping_fn, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(lr=p.learning_rate, gamma=p.gamma, lambda_=p.gae_lambda, clip_param=p.clip_range,
                  entropy_coeff=p.ent_coef, vf_loss_coeff=p.vf_coef, grad_clip=p.max_grad_norm,
                  grad_clip_by="global_norm", use_kl_loss=False, num_epochs=p.n_epochs,
                  train_batch_size_per_learner=p.n_steps * envs, minibatch_size=p.batch_size)
        .callbacks(LeagueCallback)
        .debugging(seed=t.seed, log_level="ERROR")
    )


# ------------------------------------------------------------------------------------- checkpoints
def write_checkpoint(folder: Path, algo, league: League) -> None:
    """RLlib's own checkpoint of the algorithm (it holds pickles) and the league beside it."""
    algo.save_to_path(str((folder / "algorithm").resolve()))
    (folder / "league.json").write_text(json.dumps(league.to_dict()), encoding="utf-8")


def load_checkpoint(path: Path, algo) -> tuple[League, int, float]:
    """Restore ``algo`` from a checkpoint: the league, the learner steps and the wall time so far."""
    algo.restore_from_path(str((path / "algorithm").resolve()))
    league = League.from_dict(json.loads((path / "league.json").read_text(encoding="utf-8")))
    progress = Checkpoints.progress(path)
    return league, progress["num_timesteps"], float(progress["wall_time_s"])


# ------------------------------------------------------------------------------------- training
def learner_steps(result: dict[str, Any]) -> int:
    """The learner module's steps sampled in this iteration."""
    return int(result[ENV_RUNNER_RESULTS].get(NUM_MODULE_STEPS_SAMPLED, {}).get(LEARNER, 0))


def exported_weights(algo, spec: RLModuleSpec):
    module = spec.build()
    module.set_state(algo.learner_group.get_weights([LEARNER])[LEARNER])
    return actor_weights(module)


def _push(algo, league: League) -> None:
    state = league.to_dict()
    set_league(state)
    algo.env_runner_group.foreach_env_runner(lambda runner: set_league(state))


def _snapshot(algo, league: League, steps: int) -> str:
    """Copy the learner into the next snapshot slot, on the learners and on every env runner."""
    slot = league.add_snapshot(steps)
    algo.learner_group.set_weights({slot: algo.learner_group.get_weights([LEARNER])[LEARNER]})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, policies=[slot],
                                       inference_only=True)
    _push(algo, league)
    return slot


def _scalars(result: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """Flatten the numeric leaves of RLlib's result dict (TensorBoard tags)."""
    out = {}
    for key, value in result.items():
        tag = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_scalars(value, f"{tag}/"))
        elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool) and math.isfinite(value):
            out[tag] = float(value)
    return out


def train(config: RLlibConfig, run_dir: str | Path, resume: bool = False, progress: bool = True,
          name: str | None = None, overwrite: bool = False, force: bool = False,
          address: str | None = None) -> TrainResult:
    """Train (or resume) on Ray RLlib; writes ``agent.npz`` and ``agent.md`` into ``run_dir``.

    ``address`` (else ``RAY_ADDRESS``, else ``ray.address`` of the config) joins a running Ray cluster;
    without one Ray starts in-process. The run directory's rules are every backend's
    (:mod:`hiddenhand.training.runs`); ``ray.*`` keys may change on resume like ``total_timesteps``.
    """
    t, r = config.train, config.ray
    run_dir = Path(run_dir).resolve()
    checkpoints = Checkpoints(run_dir, CHECKPOINT_FILES, keep=KEEP_CHECKPOINTS)
    check_run_dir(run_dir, checkpoints, config.to_dict(), resume=resume, overwrite=overwrite, force=force,
                  resumable=RESUMABLE)
    if resume and not force and (done := finished_run(run_dir, checkpoints, t.total_timesteps)):
        return done
    address = address or os.environ.get("RAY_ADDRESS") or r.address or None
    resources = cluster.start(address, r.num_cpus, r.connect_timeout_s)
    algo = None
    try:
        runners = r.num_env_runners if r.num_env_runners >= 0 else max(1, int(resources.get("CPU", 1)) - 1)
        torch.manual_seed(t.seed)
        torch.set_num_threads(t.torch_threads)
        spec, _ = module_spec(config)
        algo = algorithm_config(config, runners).build_algo()
        # Ray is up and the algorithm built: now the earlier run may be discarded
        loaded = open_run(run_dir, checkpoints, config.to_dict(), resume=resume, overwrite=overwrite,
                          load=lambda path: load_checkpoint(path, algo))
        if loaded is not None:
            league, steps, wall_before = loaded
        else:
            league = League(t.pool.window, (t.pool.latest_prob, t.pool.snapshot_prob, t.pool.baseline_prob),
                            list(t.pool.baselines))
            steps, wall_before = 0, 0.0
        _push(algo, league)
        metadata = agent_metadata(t, name)
        writer = SummaryWriter(str(run_dir / "tb"))
        bar = tqdm(total=t.total_timesteps, initial=min(steps, t.total_timesteps), unit="step",
                   disable=not progress, file=sys.stdout)
        started, first = time.perf_counter(), steps
        next_checkpoint, next_eval = next_multiple(steps, t.checkpoint_every), next_multiple(steps, t.eval.every)
        env_steps = 0
        while steps < t.total_timesteps:
            result = algo.train()
            steps += learner_steps(result)
            env_steps = int(result[ENV_RUNNER_RESULTS].get(NUM_ENV_STEPS_SAMPLED_LIFETIME, env_steps))
            league_stats = result[ENV_RUNNER_RESULTS].get("league", {})
            win_rate = league_stats.get("win_rate", {}).get(LEARNER)
            episodes = result[ENV_RUNNER_RESULTS].get("num_episodes", 0)
            passed = league.passes(win_rate, episodes, config.league.win_rate_threshold, config.league.min_episodes)
            if passed or steps - league.last_snapshot_step >= t.pool.snapshot_every:
                _snapshot(algo, league, steps)
            scalars = _scalars({k: result.get(k, {}) for k in (ENV_RUNNER_RESULTS, LEARNER_RESULTS)})
            scalars |= {"league/snapshots": len(league.filled), "league/snapshots_taken": league.snapshots_taken,
                        "time/learner_steps_per_s": (steps - first) / max(time.perf_counter() - started, 1e-9)}
            for tag, value in scalars.items():
                writer.add_scalar(tag, value, steps)
            if steps >= next_eval:
                for opponent, row in evaluate_policy(exported_weights(algo, spec), metadata, t).items():
                    writer.add_scalar(f"eval/win_rate_vs_{opponent}", row["win_rate"], steps)
                next_eval = next_multiple(steps, t.eval.every)
            if steps >= next_checkpoint:
                checkpoints.save(steps, lambda folder: write_checkpoint(folder, algo, league),
                                 {"wall_time_s": wall_before + time.perf_counter() - started})
                next_checkpoint = next_multiple(steps, t.checkpoint_every)
            bar.set_postfix_str(f"win {win_rate if win_rate is not None else float('nan'):.2f} | "
                                f"snapshots {len(league.filled)}", refresh=False)
            bar.update(min(steps, t.total_timesteps) - bar.n)
        bar.close()
        writer.close()
        wall = wall_before + time.perf_counter() - started
        rate = (steps - first) / max(time.perf_counter() - started, 1e-9)
        checkpoints.save(steps, lambda folder: write_checkpoint(folder, algo, league), {"wall_time_s": wall})
        weights = exported_weights(algo, spec)
        nodes = cluster.env_runner_nodes(algo)
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    metadata.update({
        "timesteps": steps, "wall_time_s": round(wall, 1), "train_steps_per_s": round(rate, 1),
        "training_config": config.to_dict(), "backend": "rllib", "libraries": library_versions(LIBRARIES),
        "evaluation_during_training": evaluate_policy(weights, metadata, t),
        "league": league.to_dict(), "env_steps": env_steps, "env_runner_nodes": sorted(set(nodes)),
    })
    result = export_agent(run_dir, weights, metadata)
    print(f"trained {steps} learner steps in {wall:.0f}s ({rate:.0f} learner steps/s incl. learning) on "
          f"{len(set(nodes)) or 1} node(s); agent: {result.agent_path}")
    return result
