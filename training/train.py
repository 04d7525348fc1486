"""Self-play training with sb3-contrib's MaskablePPO, readable top to bottom.

    python -m hiddenhand train david_goliath --config david_goliath_quick --run-dir runs/dg_quick

A run directory holds ``config.json`` (the run's config), ``checkpoints/`` (each written whole with
checksums; ``--resume`` continues from the newest intact one, losing at most one interval, and falls
back to an older one when the newest is damaged), ``tb/`` (TensorBoard: PPO losses, fps, evaluation win
rates) and, at the end, ``agent.npz`` (policy weights + metadata) with its model card ``agent.md``.
A fresh run refuses a directory with checkpoints unless told to ``--overwrite``; resuming with another
config is refused unless ``--force``d. Checkpoints hold SB3 pickles: load only run directories you trust.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import sys
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
class RunDirError(RuntimeError):
    """A run directory that cannot be used as asked: checkpoints in the way of a fresh run, none intact
    to resume from, or a recorded config that differs from the one given."""


CHECKPOINT_FORMAT = "hiddenhand-checkpoint/1"
CHECKPOINT_FILES = ("model.zip", "snapshots.npz", "progress.json")
MANIFEST = "MANIFEST.json"
_STEP_DIR = re.compile(r"step_(\d{1,15})")


class Checkpoints:
    """``checkpoints/step_<n>/`` directories, each written whole before it appears.

    A checkpoint is written into a hidden temporary directory, every file and the directory fsynced,
    its ``MANIFEST.json`` (size and SHA-256 of each file) written last, and only then renamed to
    ``step_<n>``; ``LATEST`` names the newest for people and tools. :meth:`find` does not rely on
    ``LATEST``: it scans the ``step_*`` directories newest first and takes the first whose files match
    their manifest, reporting each one it skips and why. The newest ``keep`` checkpoints are kept.
    """

    def __init__(self, run_dir: Path, keep: int = 3):
        self.root = Path(run_dir) / "checkpoints"
        self.keep = keep

    def candidates(self) -> list[Path]:
        """``step_<n>`` directories, newest (largest n) first."""
        if not self.root.is_dir():
            return []
        found = [(int(m.group(1)), path) for path in self.root.iterdir()
                 if (m := _STEP_DIR.fullmatch(path.name)) and path.is_dir()]
        return [path for _, path in sorted(found, reverse=True)]

    def latest(self) -> Path | None:
        """The newest intact checkpoint, or None."""
        return self.find()[0]

    def find(self) -> tuple[Path | None, list[tuple[Path, str]]]:
        """(newest intact checkpoint or None, [(newer checkpoint skipped, why)])."""
        skipped = []
        for path in self.candidates():
            problem = self.verify(path)
            if problem is None:
                return path, skipped
            skipped.append((path, problem))
        return None, skipped

    def pointer_note(self, chosen: Path | None) -> str | None:
        """What is off with ``LATEST`` (missing, dangling, or not the newest intact checkpoint), if anything."""
        pointer = self.root / "LATEST"
        if not pointer.is_file():
            return "checkpoints/LATEST is missing" if self.candidates() else None
        try:
            name = pointer.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            return f"checkpoints/LATEST is unreadable ({error})"
        if not _STEP_DIR.fullmatch(name) or not (self.root / name).is_dir():
            return f"checkpoints/LATEST names {name[:80]!r}, which is no checkpoint here"
        if chosen is not None and name != chosen.name:
            return f"checkpoints/LATEST names {name}, not the newest intact checkpoint {chosen.name}"
        return None

    @staticmethod
    def verify(path: Path) -> str | None:
        """Why the checkpoint at ``path`` cannot be trusted, or None when every file matches its manifest."""
        try:
            manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return f"it has no {MANIFEST} (an interrupted write, or written by an older hiddenhand)"
        except (OSError, ValueError) as error:
            return f"its {MANIFEST} is unreadable ({type(error).__name__}: {error})"
        if not isinstance(manifest, dict) or manifest.get("format") != CHECKPOINT_FORMAT \
                or not isinstance(manifest.get("files"), dict):
            return f"its {MANIFEST} is not a {CHECKPOINT_FORMAT} manifest"
        step = int(_STEP_DIR.fullmatch(path.name).group(1))
        if manifest.get("num_timesteps") != step:
            return f"its {MANIFEST} is for step {manifest.get('num_timesteps')!r}, not {step}"
        for name in CHECKPOINT_FILES:
            expected = manifest["files"].get(name)
            file = path / name
            if not isinstance(expected, dict):
                return f"its {MANIFEST} lists no {name}"
            if not file.is_file():
                return f"{name} is missing"
            size = file.stat().st_size
            if size != expected.get("bytes"):
                return f"{name} is {size:,} bytes, its manifest says {expected.get('bytes')!r} (truncated or changed)"
            if _sha256(file) != expected.get("sha256"):
                return f"{name} does not match its SHA-256 checksum (corrupt)"
        return None

    def save(self, model: MaskablePPO, snapshots: list[Weights], extra: dict[str, Any]) -> Path:
        steps = int(model.num_timesteps)
        target = self.root / f"step_{steps:012d}"
        tmp = self.root / f".tmp_{target.name}.{os.getpid()}"
        self.root.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        model.save(tmp / "model.zip")
        arrays = {f"s{i}_{kind}{j}": array for i, weights in enumerate(snapshots)
                  for j, pair in enumerate(weights) for kind, array in zip("wb", pair)}
        with open(tmp / "snapshots.npz", "wb") as handle:
            np.savez(handle, **arrays)
        progress = {**extra, "num_timesteps": steps, "snapshots": len(snapshots)}
        (tmp / "progress.json").write_text(json.dumps(progress), encoding="utf-8")
        files = {}
        for name in CHECKPOINT_FILES:
            _fsync(tmp / name)
            files[name] = {"bytes": (tmp / name).stat().st_size, "sha256": _sha256(tmp / name)}
        manifest = {"format": CHECKPOINT_FORMAT, "num_timesteps": steps, "files": files}
        _write_durably(tmp / MANIFEST, json.dumps(manifest, indent=1))
        _fsync(tmp)
        old = None
        if target.exists():  # the same step again (a finished run resumed): swap it out
            old = self.root / f".old_{target.name}.{os.getpid()}"
            os.replace(target, old)
        os.replace(tmp, target)
        _fsync(self.root)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        pointer_tmp = self.root / f".LATEST.{os.getpid()}.tmp"
        _write_durably(pointer_tmp, target.name)
        os.replace(pointer_tmp, self.root / "LATEST")
        _fsync(self.root)
        for stale in self.candidates()[self.keep:]:
            shutil.rmtree(stale, ignore_errors=True)
        return target

    def remove_leftovers(self) -> list[str]:
        """Delete what interrupted writes left behind (hidden temporary directories); returns their names."""
        if not self.root.is_dir():
            return []
        removed = []
        for path in self.root.iterdir():
            if path.name.startswith((".tmp_", ".old_", ".LATEST.")):
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
                removed.append(path.name)
        return sorted(removed)

    def set_aside(self, path: Path) -> Path:
        """Move a checkpoint that failed its checks to ``checkpoints/skipped/`` (kept, out of the way)."""
        aside = self.root / "skipped"
        aside.mkdir(exist_ok=True)
        target = aside / path.name
        suffix = 1
        while target.exists():
            target = aside / f"{path.name}.{suffix}"
            suffix += 1
        os.replace(path, target)
        return target

    @staticmethod
    def load_progress(path: Path) -> dict[str, Any]:
        progress = json.loads((path / "progress.json").read_text(encoding="utf-8"))
        if not isinstance(progress, dict) or not isinstance(progress.get("wall_time_s"), (int, float)):
            raise ValueError("progress.json lacks wall_time_s")
        return progress

    @staticmethod
    def load_snapshots(path: Path) -> list[Weights]:
        with np.load(path / "snapshots.npz", allow_pickle=False) as data:
            count = len({key.split("_")[0] for key in data.files})
            snapshots = []
            for i in range(count):
                layers = len([k for k in data.files if k.startswith(f"s{i}_w")])
                snapshots.append([(data[f"s{i}_w{j}"], data[f"s{i}_b{j}"]) for j in range(layers)])
        return snapshots


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync(path: Path) -> None:
    """Flush a file's or a directory's contents (a directory: its entries) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durably(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


# ------------------------------------------------------------------------------------- run directory
CONFIG_FILE = "config.json"
#: Keys a resumed run may change without ``force``: train for more (or fewer) steps.
RESUMABLE_CHANGES = ("total_timesteps",)
#: What a run writes into its directory (``overwrite`` removes exactly these).
RUN_OUTPUTS = ("checkpoints", "tb", CONFIG_FILE, "agent.npz", "agent.md")


def recorded_config(run_dir: Path) -> dict[str, Any] | None:
    """The config a run directory recorded (``config.json``), or None when it has none."""
    file = Path(run_dir) / CONFIG_FILE
    if not file.is_file():
        return None
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RunDirError(f"{file} is unreadable ({type(error).__name__}: {error}); pass --force to resume "
                          f"with the config given now") from None
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        raise RunDirError(f"{file} holds no recorded config; pass --force to resume with the config given now")
    return data["config"]


def config_changes(recorded: dict[str, Any], config: TrainConfig) -> list[str]:
    """``key: recorded -> now`` for each dotted key whose value differs (``RESUMABLE_CHANGES`` aside)."""
    old, new = _flatten(recorded), _flatten(json.loads(json.dumps(config.to_dict())))
    return [f"{key}: {old.get(key, '<absent>')!r} -> {new.get(key, '<absent>')!r}"
            for key in sorted(set(old) | set(new))
            if key not in RESUMABLE_CHANGES and old.get(key, _ABSENT) != new.get(key, _ABSENT)]


_ABSENT = object()


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def record_config(run_dir: Path, config: TrainConfig) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    tmp = run_dir / f".{CONFIG_FILE}.{os.getpid()}.tmp"
    _write_durably(tmp, json.dumps({"config": config.to_dict()}, indent=2) + "\n")
    os.replace(tmp, run_dir / CONFIG_FILE)


def clear_run(run_dir: Path) -> None:
    """Remove what an earlier run wrote into ``run_dir`` (``RUN_OUTPUTS``); other files stay."""
    for name in RUN_OUTPUTS:
        path = run_dir / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


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
          name: str | None = None, overwrite: bool = False, force: bool = False) -> TrainResult:
    """Train (or resume) a self-play agent; writes ``agent.npz`` and ``agent.md`` into ``run_dir``.

    A fresh run (``resume=False``) refuses a directory that holds checkpoints unless ``overwrite``,
    which first removes what the earlier run wrote. It records ``config.json``. ``resume=True``
    continues from the newest intact checkpoint (see :class:`Checkpoints`), says which newer ones it
    skipped and why (and moves them to ``checkpoints/skipped/``), and starts fresh only when the
    directory holds no checkpoint at all; it refuses when every checkpoint is damaged, and when the
    given config differs from the recorded one (except ``total_timesteps``) unless ``force``.
    Refusals raise :class:`RunDirError` before anything in the directory changes.
    """
    if resume and overwrite:
        raise ValueError("resume and overwrite exclude each other: resume continues the run, overwrite discards it")
    run_dir = Path(run_dir)
    checkpoints = Checkpoints(run_dir)
    candidates, skipped, latest = checkpoints.candidates(), [], None
    if not resume:
        if candidates:
            if not overwrite:
                raise RunDirError(f"{run_dir} already holds checkpoints (newest: {candidates[0].name}): pass "
                                  f"--resume to continue that run, --overwrite to discard it and start afresh, "
                                  f"or choose another --run-dir")
            print(f"--overwrite: removing the earlier run's outputs in {run_dir}")
        if overwrite:
            clear_run(run_dir)
    else:
        recorded = recorded_config(run_dir) if not force else None
        changes = config_changes(recorded, config) if recorded is not None else []
        if changes:
            raise RunDirError(f"{run_dir} was started with another config; changed: {'; '.join(changes)}. "
                              f"Resume with the recorded config ({run_dir / CONFIG_FILE}), or pass --force to "
                              f"continue with the new one")
        latest, skipped = checkpoints.find()
        if candidates and latest is None:
            reasons = "; ".join(f"{path.name}: {why}" for path, why in skipped)
            raise RunDirError(f"{run_dir}: no intact checkpoint to resume from ({reasons}). Pass --overwrite "
                              f"to start afresh")
    removed = checkpoints.remove_leftovers()
    if removed:
        print(f"removed what interrupted checkpoint writes left behind: {', '.join(removed)}", file=sys.stderr)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    metadata = agent_metadata(config, name)
    vec_env = make_vec_env(config, metadata)
    snapshots: list[Weights] = []
    elapsed_before = 0.0
    try:
        model = None
        while latest is not None:
            try:
                model = MaskablePPO.load(latest / "model.zip", env=vec_env, device="cpu",
                                         tensorboard_log=str(run_dir / "tb"))
                snapshots = Checkpoints.load_snapshots(latest)
                elapsed_before = float(Checkpoints.load_progress(latest)["wall_time_s"])
                break
            except Exception as error:  # a checkpoint that passed its checksums yet does not load
                skipped.append((latest, f"it does not load ({type(error).__name__}: {error})"))
                model, snapshots, latest = None, [], None
                latest = next((path for path in checkpoints.candidates()
                               if all(path != s for s, _ in skipped) and checkpoints.verify(path) is None), None)
        if resume:
            _report_fallback(checkpoints, latest, skipped, candidates)
        if model is None and resume and candidates:
            raise RunDirError(f"{run_dir}: no checkpoint could be loaded; pass --overwrite to start afresh")
        if model is not None:
            print(f"resuming from {latest} at {model.num_timesteps} steps")
            record_config(run_dir, config)  # the same config but total_timesteps, or a forced new one
        else:
            if resume:
                print(f"no checkpoint in {run_dir}: starting a fresh run")
            record_config(run_dir, config)
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


def _report_fallback(checkpoints: Checkpoints, chosen: Path | None, skipped: list[tuple[Path, str]],
                     candidates: list[Path]) -> None:
    """Say (on stderr) which checkpoints a resume skipped and why, and move them out of the way."""
    note = checkpoints.pointer_note(chosen)
    if note:
        print(f"note: {note}; resuming from the newest intact checkpoint found by scanning", file=sys.stderr)
    if chosen is None:
        return
    for path, why in skipped:
        if not path.exists():
            continue
        aside = checkpoints.set_aside(path)
        print(f"skipped checkpoint {path.name}: {why}; moved to {aside}", file=sys.stderr)
    if skipped:
        print(f"falling back to {chosen.name}, the newest intact checkpoint", file=sys.stderr)


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


#: The model card's first words per training backend (``metadata["backend"]``, absent for SB3 runs).
BACKEND_TITLES = {"sb3": "MaskablePPO self-play", "rllib": "RLlib PPO self-play (league)"}


def write_model_card(path: Path, metadata: dict[str, Any], evaluation: dict[str, Any] | None = None) -> Path:
    """A markdown model card from an agent's metadata (plus a final evaluation, when given)."""
    lines = [
        f"# {metadata['name']}", "",
        f"{BACKEND_TITLES[metadata.get('backend', 'sb3')]} agent for **{metadata['game']}**, "
        f"{metadata['num_players']} players.", "",
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
