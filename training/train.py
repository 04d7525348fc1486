"""Self-play training with sb3-contrib's MaskablePPO, readable top to bottom.

    python -m hiddenhand train david_goliath --config david_goliath_quick --run-dir runs/dg_quick

A run directory holds ``checkpoints/`` (written atomically; ``--resume`` continues from the newest,
losing at most one interval), ``tb/`` (TensorBoard: PPO losses, fps, evaluation win rates) and, at the
end, ``agent.npz`` (policy weights + metadata) with its model card ``agent.md``.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from hiddenhand.agents import PolicyAgent, load, save_policy
from hiddenhand.agents.tournament import run_tournament
from hiddenhand.envs import make as make_env

from .config import TrainConfig
from .imitation import clone, teacher_games
from .selfplay import OpponentPool, SelfPlayEnv, Weights

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
LIBRARIES = ("hiddenhand", "numpy", "gymnasium", "pettingzoo", "torch", "stable-baselines3", "sb3-contrib")


@dataclass
class TrainResult:
    agent_path: Path
    metadata: dict[str, Any]


# ------------------------------------------------------------------------------------- policy
def policy_weights(model: MaskablePPO) -> Weights:
    """The actor's layers as numpy (weight, bias) pairs, for :class:`PolicyAgent`."""
    layers = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(model.policy.action_net)
    return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in layers]


def agent_metadata(config: TrainConfig, name: str | None = None) -> dict[str, Any]:
    """What an agent file records about the game it plays; the default name is ``<game>_<N>p``."""
    env = make_env(config.game, **config.env).unwrapped
    players = env.game.num_players
    return {"name": name or f"{config.game}_{players}p", "game": config.game, "num_players": players,
            "env_options": dict(config.env), "activation": config.ppo.activation,
            "input_transform": env.observer.policy_input}


# ------------------------------------------------------------------------------------- envs
def make_vec_env(config: TrainConfig, metadata: dict[str, Any]) -> VecEnv:
    def factory(index: int):
        def build() -> SelfPlayEnv:
            game = make_env(config.game, **config.env).game
            pool = OpponentPool(game, metadata, config.pool.baselines, config.pool.window,
                                config.pool.latest_prob, config.pool.snapshot_prob, config.pool.baseline_prob,
                                seed=config.seed + index)
            return SelfPlayEnv(config.game, config.env, pool, dense_reward=config.dense_reward)
        return build

    builders = [factory(i) for i in range(config.n_envs)]
    use_subprocesses = config.vec_env == "subproc" or (
        config.vec_env == "auto" and config.n_envs > 1 and (os.cpu_count() or 1) > 1)
    vec_env = SubprocVecEnv(builders, start_method="spawn") if use_subprocesses else DummyVecEnv(builders)
    vec_env.seed(config.seed)
    return vec_env


# ------------------------------------------------------------------------------------- checkpoints
class Checkpoints:
    """``checkpoints/step_<n>/`` directories, each complete before ``LATEST`` points at it."""

    def __init__(self, run_dir: Path, keep: int = 2):
        self.root = run_dir / "checkpoints"
        self.keep = keep

    def latest(self) -> Path | None:
        pointer = self.root / "LATEST"
        if not pointer.is_file():
            return None
        path = self.root / pointer.read_text().strip()
        return path if (path / "model.zip").is_file() else None

    def save(self, model: MaskablePPO, snapshots: list[Weights], extra: dict[str, Any]) -> Path:
        target = self.root / f"step_{model.num_timesteps:012d}"
        tmp = self.root / f".tmp_{target.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        model.save(tmp / "model.zip")
        arrays = {f"s{i}_{kind}{j}": array for i, weights in enumerate(snapshots)
                  for j, pair in enumerate(weights) for kind, array in zip("wb", pair)}
        np.savez(tmp / "snapshots.npz", **arrays)
        (tmp / "progress.json").write_text(json.dumps({**extra, "num_timesteps": model.num_timesteps,
                                                       "snapshots": len(snapshots)}))
        shutil.rmtree(target, ignore_errors=True)
        os.replace(tmp, target)
        pointer_tmp = self.root / ".LATEST.tmp"
        pointer_tmp.write_text(target.name)
        os.replace(pointer_tmp, self.root / "LATEST")
        for old in sorted(self.root.glob("step_*"))[:-self.keep]:
            shutil.rmtree(old, ignore_errors=True)
        return target

    @staticmethod
    def load_snapshots(path: Path) -> list[Weights]:
        with np.load(path / "snapshots.npz", allow_pickle=False) as data:
            count = len({key.split("_")[0] for key in data.files})
            snapshots = []
            for i in range(count):
                layers = len([k for k in data.files if k.startswith(f"s{i}_w")])
                snapshots.append([(data[f"s{i}_w{j}"], data[f"s{i}_b{j}"]) for j in range(layers)])
        return snapshots


# ------------------------------------------------------------------------------------- evaluation
def evaluate_policy(weights: Weights, metadata: dict[str, Any], config: TrainConfig) -> dict[str, dict]:
    """Win share of the (deterministic) policy in one seat against each ``eval.opponents`` in all others."""
    agent = PolicyAgent(weights, metadata)
    n = metadata["num_players"]
    options = {key: value for key, value in config.env.items() if key != "num_players"}
    results = {}
    for opponent in config.eval.opponents:
        factory = lambda name, game, seed: agent if name == "learner" else load(name, game, seed)  # noqa: E731
        result = run_tournament(config.game, ["learner"] + [opponent] * (n - 1), config.eval.games,
                                seed=10_000, env_options=options, agent_factory=factory)
        row = next(row for row in result.standings() if row.label == "learner")
        results[opponent] = {"opponent": opponent, "games": config.eval.games, "win_rate": row.win_rate,
                             "ci95": list(row.interval), "fair_share": 1.0 / n}
    return results


# ------------------------------------------------------------------------------------- callback
class SelfPlayCallback(BaseCallback):
    """Feeds the pool (latest policy each rollout, snapshots every K steps), checkpoints and evaluates."""

    def __init__(self, config: TrainConfig, checkpoints: Checkpoints, metadata: dict, snapshots: list[Weights],
                 elapsed_before: float):
        super().__init__()
        self.config = config
        self.checkpoints = checkpoints
        self.metadata = metadata
        self.snapshots = snapshots
        self.elapsed_before = elapsed_before
        self.started = time.perf_counter()
        self.next_snapshot = self.next_checkpoint = self.next_eval = 0

    def elapsed(self) -> float:
        return self.elapsed_before + time.perf_counter() - self.started

    def _on_training_start(self) -> None:
        steps, c = self.num_timesteps, self.config
        self.next_snapshot = _next_multiple(steps, c.pool.snapshot_every)
        self.next_checkpoint = _next_multiple(steps, c.checkpoint_every)
        self.next_eval = _next_multiple(steps, c.eval.every)
        for weights in self.snapshots:
            self.training_env.env_method("add_snapshot", weights)
        self.training_env.env_method("set_latest", policy_weights(self.model))

    def _on_rollout_end(self) -> None:
        self.training_env.env_method("set_latest", policy_weights(self.model))

    def _on_step(self) -> bool:
        steps, c = self.num_timesteps, self.config
        if steps >= self.next_snapshot:
            weights = policy_weights(self.model)
            self.snapshots[:] = (self.snapshots + [weights])[-c.pool.window:]
            self.training_env.env_method("add_snapshot", weights)
            self.next_snapshot = _next_multiple(steps, c.pool.snapshot_every)
        if steps >= self.next_eval:
            for opponent, row in evaluate_policy(policy_weights(self.model), self.metadata, c).items():
                self.logger.record(f"eval/win_rate_vs_{opponent}", row["win_rate"])
            self.logger.record("time/env_steps_per_s", steps / max(self.elapsed(), 1e-9))
            self.next_eval = _next_multiple(steps, c.eval.every)
        if steps >= self.next_checkpoint:
            self.checkpoints.save(self.model, self.snapshots, {"wall_time_s": self.elapsed()})
            self.next_checkpoint = _next_multiple(steps, c.checkpoint_every)
        return True


def _next_multiple(steps: int, every: int) -> int:
    return (steps // every + 1) * every


# ------------------------------------------------------------------------------------- main entry
def train(config: TrainConfig, run_dir: str | Path, resume: bool = False, progress: bool = True,
          name: str | None = None) -> TrainResult:
    """Train (or resume) a self-play agent; writes ``agent.npz`` and ``agent.md`` into ``run_dir``."""
    run_dir = Path(run_dir)
    checkpoints = Checkpoints(run_dir)
    latest = checkpoints.latest()
    if latest is not None and not resume:
        raise FileExistsError(f"{run_dir} already holds checkpoints: pass --resume to continue, "
                              f"or choose another --run-dir")
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    metadata = agent_metadata(config, name)
    vec_env = make_vec_env(config, metadata)
    snapshots: list[Weights] = []
    elapsed_before = 0.0
    try:
        if latest is not None:
            model = MaskablePPO.load(latest / "model.zip", env=vec_env, device="cpu",
                                     tensorboard_log=str(run_dir / "tb"))
            snapshots = Checkpoints.load_snapshots(latest)
            elapsed_before = json.loads((latest / "progress.json").read_text())["wall_time_s"]
            print(f"resuming from {latest} at {model.num_timesteps} steps")
        else:
            model = new_model(config, vec_env, run_dir)
            if config.imitation.games:
                started = time.perf_counter()
                report = clone(model, teacher_games(config), config)
                print(f"imitation of {config.imitation.teacher} over {config.imitation.games} games "
                      f"({report['samples']:.0f} moves) in {time.perf_counter() - started:.0f}s: "
                      f"agrees on {report['agreement']:.1%} of its moves")
        callback = SelfPlayCallback(config, checkpoints, metadata, snapshots, elapsed_before)
        remaining = config.total_timesteps - model.num_timesteps
        start_steps, started = model.num_timesteps, time.perf_counter()
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=latest is None,
                        progress_bar=progress, tb_log_name="ppo")
        steps_per_s = (model.num_timesteps - start_steps) / max(time.perf_counter() - started, 1e-9)
        checkpoints.save(model, snapshots, {"wall_time_s": callback.elapsed()})
        evaluation = evaluate_policy(policy_weights(model), metadata, config)
        wall = callback.elapsed()
    finally:
        vec_env.close()
    metadata.update({
        "timesteps": int(model.num_timesteps), "wall_time_s": round(wall, 1),
        "train_steps_per_s": round(steps_per_s, 1), "training_config": config.to_dict(),
        "libraries": library_versions(), "evaluation_during_training": evaluation,
    })
    agent_path = save_policy(run_dir / "agent.npz", policy_weights(model), metadata)
    write_model_card(agent_path.with_suffix(".md"), metadata)
    print(f"trained {model.num_timesteps} steps in {wall:.0f}s ({steps_per_s:.0f} env steps/s incl. learning); "
          f"agent: {agent_path}")
    return TrainResult(agent_path, metadata)


def new_model(config: TrainConfig, vec_env: VecEnv, run_dir: Path) -> MaskablePPO:
    p = config.ppo
    return MaskablePPO(
        "MlpPolicy", vec_env, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range,
        ent_coef=p.ent_coef, vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=config.seed,
        policy_kwargs={"net_arch": list(p.net_arch), "activation_fn": ACTIVATIONS[p.activation]},
        tensorboard_log=str(run_dir / "tb"), device="cpu", verbose=0,
    )


def _warm_start(training_config: dict[str, Any]) -> str:
    imitation = training_config.get("imitation", {})
    if not imitation.get("games"):
        return "none (self-play from scratch)"
    return f"imitation of the {imitation['teacher']} over {imitation['games']} games, {imitation['epochs']} epochs"


def library_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in LIBRARIES:
        versions[package] = version(package)
    return versions


def write_model_card(path: Path, metadata: dict[str, Any], evaluation: dict[str, Any] | None = None) -> Path:
    """A markdown model card from an agent's metadata (plus a final evaluation, when given)."""
    lines = [
        f"# {metadata['name']}", "",
        f"MaskablePPO self-play agent for **{metadata['game']}**, {metadata['num_players']} players.", "",
        "| field | value |", "|---|---|",
        f"| env options | `{json.dumps(metadata['env_options'])}` |",
        f"| training steps | {metadata['timesteps']:,} |",
        f"| wall time | {metadata['wall_time_s']:.0f} s |",
        f"| env steps/s incl. learning | {metadata['train_steps_per_s']:.0f} |",
        f"| network | MLP {metadata['training_config']['ppo']['net_arch']}, {metadata['activation']} |",
        f"| warm start | {_warm_start(metadata['training_config'])} |",
        f"| libraries | {', '.join(f'{k} {v}' for k, v in metadata['libraries'].items())} |", "",
        "## Evaluation during training", "",
        "| opponents | games | win rate | 95% CI | fair share |", "|---|---|---|---|---|",
    ]
    for row in metadata.get("evaluation_during_training", {}).values():
        lines.append(f"| {row['opponent']} | {row['games']} | {row['win_rate']:.1%} | "
                     f"[{row['ci95'][0]:.1%}, {row['ci95'][1]:.1%}] | {row['fair_share']:.1%} |")
    if evaluation:
        lines += ["", "## Final evaluation", "", evaluation.get("table", "")]
    lines += ["", "## Training configuration", "", "```json", json.dumps(metadata["training_config"], indent=2), "```"]
    path.write_text("\n".join(lines) + "\n")
    return path
