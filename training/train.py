"""Self-play training with sb3-contrib's MaskablePPO, readable top to bottom.

    python -m hiddenhand train david_goliath --config david_goliath_quick --run-dir runs/dg_quick

The run directory (``config.json``, ``checkpoints/``, ``tb/``, ``agent.npz`` and ``agent.md``) and its
rules are every backend's (:mod:`.runs`); a checkpoint here holds SB3's ``model.zip`` and the opponent
pool's ``snapshots.npz``. ``model.zip`` holds pickles: resume only run directories you trust.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from hiddenhand.agents import load as load_agent
from hiddenhand.agents.trained import Weights
from hiddenhand.envs import make as make_env

from .config import TrainConfig
from .imitation import clone, teacher_games
from .runs import (
    Checkpoints,
    TrainResult,
    agent_metadata,
    begin_run,
    evaluate_policy,
    export_agent,
    library_versions,
    next_multiple,
    open_run,
)
from .selfplay import OpponentPool, SelfPlayEnv

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
LIBRARIES = ("stable-baselines3", "sb3-contrib")


# ------------------------------------------------------------------------------------- policy
def policy_weights(model: MaskablePPO) -> Weights:
    """The actor's layers as numpy (weight, bias) pairs, for :class:`PolicyAgent`."""
    layers = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(model.policy.action_net)
    return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in layers]


def new_model(config: TrainConfig, vec_env: VecEnv, run_dir: Path) -> MaskablePPO:
    """A fresh model; with ``init_from`` its actor starts from that agent's layers."""
    p = config.ppo
    model = MaskablePPO(
        "MlpPolicy", vec_env, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range,
        ent_coef=p.ent_coef, vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=config.seed,
        policy_kwargs={"net_arch": list(p.net_arch), "activation_fn": ACTIVATIONS[p.activation]},
        tensorboard_log=str(run_dir / "tb"), device="cpu", verbose=0,
    )
    if config.init_from != "none":
        layers = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
        with torch.no_grad():
            for layer, (weight, bias) in zip([*layers, model.policy.action_net], load_agent(config.init_from).weights):
                layer.weight.copy_(torch.as_tensor(weight))
                layer.bias.copy_(torch.as_tensor(bias))
    return model


# ------------------------------------------------------------------------------------- envs
def make_vec_env(config: TrainConfig, metadata: dict[str, Any]) -> VecEnv:
    def factory(index: int):
        def build() -> SelfPlayEnv:
            game = make_env(config.game, **config.env).game
            pool = OpponentPool(game, metadata, config.pool.baselines, config.pool.window,
                                config.pool.latest_prob, config.pool.snapshot_prob, config.pool.baseline_prob,
                                seed=config.seed + index)
            return SelfPlayEnv(config.game, config.env, pool, dense_reward=config.dense_reward,
                               potential=config.potential)
        return build

    builders = [factory(i) for i in range(config.n_envs)]
    use_subprocesses = config.vec_env == "subproc" or (
        config.vec_env == "auto" and config.n_envs > 1 and (os.cpu_count() or 1) > 1)
    vec_env = SubprocVecEnv(builders, start_method="spawn") if use_subprocesses else DummyVecEnv(builders)
    vec_env.seed(config.seed)
    return vec_env


# ------------------------------------------------------------------------------------- checkpoints
CHECKPOINT_FILES = ("model.zip", "snapshots.npz")
#: Keys a resumed run may change without ``force``: train for more (or fewer) steps.
RESUMABLE = ("total_timesteps",)


def write_checkpoint(folder: Path, model: MaskablePPO, snapshots: list[Weights]) -> None:
    """The model (SB3's zip, which holds pickles) and the opponent pool's snapshots (plain arrays)."""
    model.save(folder / "model.zip")
    arrays = {f"s{i}_{kind}{j}": array for i, weights in enumerate(snapshots)
              for j, pair in enumerate(weights) for kind, array in zip("wb", pair)}
    with open(folder / "snapshots.npz", "wb") as handle:
        np.savez(handle, **arrays)


def load_checkpoint(path: Path, vec_env: VecEnv, run_dir: Path) -> tuple[MaskablePPO, list[Weights], float]:
    """Restore a checkpoint: the model (on ``vec_env``), the pool's snapshots and the wall time so far."""
    model = MaskablePPO.load(path / "model.zip", env=vec_env, device="cpu", tensorboard_log=str(run_dir / "tb"))
    return model, load_snapshots(path, model), float(Checkpoints.progress(path)["wall_time_s"])


def load_snapshots(path: Path, model: MaskablePPO) -> list[Weights]:
    """The pool's snapshots of a checkpoint, each checked to have the model's layer shapes."""
    shapes = [(w.shape, b.shape) for w, b in policy_weights(model)]
    with np.load(path / "snapshots.npz", allow_pickle=False) as data:
        count = len({key.split("_")[0] for key in data.files})
        snapshots = [[(data[f"s{i}_w{j}"], data[f"s{i}_b{j}"]) for j in range(len(shapes))] for i in range(count)]
        if len(data.files) != 2 * len(shapes) * count:
            raise ValueError(f"snapshots.npz holds {len(data.files)} arrays, not {count} snapshots of {len(shapes)} layers")
    for i, weights in enumerate(snapshots):
        if [(w.shape, b.shape) for w, b in weights] != shapes:
            raise ValueError(f"snapshots.npz: snapshot {i}'s layers do not have the model's shapes {shapes}")
    return snapshots


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
        self.next_snapshot = next_multiple(steps, c.pool.snapshot_every)
        self.next_checkpoint = next_multiple(steps, c.checkpoint_every)
        self.next_eval = next_multiple(steps, c.eval.every)
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
            self.next_snapshot = next_multiple(steps, c.pool.snapshot_every)
        if steps >= self.next_eval:
            for opponent, row in evaluate_policy(policy_weights(self.model), self.metadata, c).items():
                self.logger.record(f"eval/win_rate_vs_{opponent}", row["win_rate"])
            self.logger.record("time/env_steps_per_s", steps / max(self.elapsed(), 1e-9))
            self.next_eval = next_multiple(steps, c.eval.every)
        if steps >= self.next_checkpoint:
            self.checkpoints.save(steps, lambda folder: write_checkpoint(folder, self.model, self.snapshots),
                                  {"wall_time_s": self.elapsed()})
            self.next_checkpoint = next_multiple(steps, c.checkpoint_every)
        return True


# ------------------------------------------------------------------------------------- main entry
def train(config: TrainConfig, run_dir: str | Path, resume: bool = False, progress: bool = True,
          name: str | None = None, overwrite: bool = False, force: bool = False) -> TrainResult:
    """Train (or resume) a self-play agent; writes ``agent.npz`` and ``agent.md`` into ``run_dir``.

    ``resume``, ``overwrite`` and ``force`` follow the run-directory rules of :mod:`.runs`; a refusal is
    a :class:`~.runs.RunDirError` raised before anything in the directory changes.
    """
    run_dir = Path(run_dir)
    checkpoints, done = begin_run(run_dir, CHECKPOINT_FILES, config.to_dict(), config.total_timesteps, resume=resume,
                                  overwrite=overwrite, force=force, resumable=RESUMABLE)
    if done:
        return done
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    metadata = agent_metadata(config, name)
    vec_env = make_vec_env(config, metadata)
    try:
        loaded = open_run(run_dir, checkpoints, config.to_dict(), resume=resume, overwrite=overwrite,
                          load=lambda path: load_checkpoint(path, vec_env, run_dir))
        if loaded is not None:
            model, snapshots, elapsed_before = loaded
        else:
            model, snapshots, elapsed_before = new_model(config, vec_env, run_dir), [], 0.0
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
            model.learn(remaining, callback=callback, reset_num_timesteps=loaded is None,
                        progress_bar=progress, tb_log_name="ppo")
        steps_per_s = (model.num_timesteps - start_steps) / max(time.perf_counter() - started, 1e-9)
        wall = callback.elapsed()
        checkpoints.save(model.num_timesteps, lambda folder: write_checkpoint(folder, model, snapshots),
                         {"wall_time_s": wall})
        evaluation = evaluate_policy(policy_weights(model), metadata, config)
    finally:
        vec_env.close()
    metadata.update({
        "timesteps": int(model.num_timesteps), "wall_time_s": round(wall, 1),
        "train_steps_per_s": round(steps_per_s, 1), "training_config": config.to_dict(),
        "libraries": library_versions(LIBRARIES), "evaluation_during_training": evaluation,
    })
    result = export_agent(run_dir, policy_weights(model), metadata)
    print(f"trained {model.num_timesteps} steps in {wall:.0f}s ({steps_per_s:.0f} env steps/s incl. learning); "
          f"agent: {result.agent_path}")
    return result
