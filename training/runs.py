"""What every training backend shares: the run directory, its checkpoints, the agent's metadata and
model card, and the errors a user sees. Imports no learning library, so a backend takes only its own.

A run directory holds ``config.json`` (the run's config), ``checkpoints/step_<n>/`` (each written whole,
with a manifest of checksums), ``tb/`` (TensorBoard) and, at the end, ``agent.npz`` with its model card
``agent.md``. Nothing in it is replaced without being asked: a fresh run refuses a directory holding an
earlier run unless ``overwrite``; ``resume`` continues from the newest intact checkpoint, and where there
is none it starts afresh only if that replaces nothing (no agent file, the same config); a config other
than the recorded one needs ``force``. Every refusal is a :class:`RunDirError` raised before anything
changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from hiddenhand.agents import PolicyAgent, load, load_policy, save_policy
from hiddenhand.agents.tournament import run_tournament
from hiddenhand.agents.trained import Weights
from hiddenhand.envs import make as make_env

from .config import TrainConfig

T = TypeVar("T")


class TrainingError(RuntimeError):
    """A training run that cannot go on as asked; the message says why and what to do instead."""


class RunDirError(TrainingError):
    """A run directory that cannot be used as asked: an earlier run in the way of a fresh one, no
    intact checkpoint to resume from, or a recorded config that differs from the one given."""


@dataclass
class TrainResult:
    agent_path: Path
    metadata: dict[str, Any]


# ------------------------------------------------------------------------------------- checkpoints
CHECKPOINT_FORMAT = "hiddenhand-checkpoint/1"
MANIFEST = "MANIFEST.json"
PROGRESS = "progress.json"
_STEP_DIR = re.compile(r"step_(\d{1,15})")


class Checkpoints:
    """``checkpoints/step_<n>/`` directories, each written whole before it appears.

    A backend writes its files (``required`` among them) into a hidden temporary directory; then
    ``progress.json`` is added, every file and directory fsynced, ``MANIFEST.json`` (size and SHA-256 of
    each file) written last, and only then the directory renamed to ``step_<n>``; ``LATEST`` names the
    newest for people and tools. :meth:`find` does not rely on ``LATEST``: it scans the ``step_*``
    directories newest first and takes the first whose files match their manifest, reporting each one it
    skips and why. The newest ``keep`` checkpoints are kept.
    """

    def __init__(self, run_dir: Path, required: Sequence[str], keep: int = 3):
        self.root = Path(run_dir) / "checkpoints"
        self.required = (*required, PROGRESS)
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

    def verify(self, path: Path) -> str | None:
        """Why the checkpoint at ``path`` cannot be trusted, or None when it lists every required file and
        every file it lists matches its size and checksum."""
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
        files = manifest["files"]
        for name in self.required:
            if not any(listed == name or listed.startswith(f"{name}/") for listed in files):
                return f"its {MANIFEST} lists no {name}"
        for name, expected in files.items():
            parts = PurePosixPath(name).parts
            if not parts or name.startswith("/") or ".." in parts or not isinstance(expected, dict):
                return f"its {MANIFEST} lists {name[:80]!r}, which is no file of a checkpoint"
            file = path.joinpath(*parts)
            if not file.is_file():
                return f"{name} is missing"
            size = file.stat().st_size
            if size != expected.get("bytes"):
                return f"{name} is {size:,} bytes, its manifest says {expected.get('bytes')!r} (truncated or changed)"
            if _sha256(file) != expected.get("sha256"):
                return f"{name} does not match its SHA-256 checksum (corrupt)"
        return None

    def save(self, steps: int, write: Callable[[Path], None], progress: dict[str, Any]) -> Path:
        """Write a checkpoint at ``steps``: ``write(folder)`` puts the backend's files into ``folder``,
        ``progress`` (with ``num_timesteps``) becomes ``progress.json``."""
        steps = int(steps)
        target = self.root / f"step_{steps:012d}"
        tmp = self.root / f".tmp_{target.name}.{os.getpid()}"
        self.root.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        write(tmp)
        (tmp / PROGRESS).write_text(json.dumps({**progress, "num_timesteps": steps}), encoding="utf-8")
        files = {}
        for file in sorted(tmp.rglob("*")):
            _fsync(file)
            if file.is_file():
                files[file.relative_to(tmp).as_posix()] = {"bytes": file.stat().st_size, "sha256": _sha256(file)}
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

    def resume(self, load: Callable[[Path], T]) -> tuple[Path | None, T | None]:
        """The newest intact checkpoint that ``load`` accepts and what it made of it; (None, None) when
        there is no checkpoint. Checkpoints skipped (damaged, or not loading) are named on stderr with
        the reason and moved to ``checkpoints/skipped/``; a :class:`RunDirError` when none loads."""
        candidates = self.candidates()
        chosen, loaded, skipped = None, None, []
        for path in candidates:
            problem = self.verify(path)
            if problem is None:
                try:
                    chosen, loaded = path, load(path)
                    break
                except Exception as error:  # a checkpoint that passed its checksums yet does not load
                    problem = f"it does not load ({type(error).__name__}: {error})"
            skipped.append((path, problem))
        if candidates and chosen is None:
            raise _nothing_to_resume(self, skipped)
        note = self.pointer_note(chosen)
        if note:
            print(f"note: {note}; resuming from the newest intact checkpoint found by scanning", file=sys.stderr)
        for path, why in skipped:
            print(f"skipped checkpoint {path.name}: {why}; moved to {self.set_aside(path)}", file=sys.stderr)
        if skipped:
            print(f"falling back to {chosen.name}, the newest intact checkpoint", file=sys.stderr)
        return chosen, loaded

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
    def progress(path: Path) -> dict[str, Any]:
        """The checkpoint's ``progress.json``: a JSON object with an int ``num_timesteps`` and a number
        ``wall_time_s``; ``ValueError`` otherwise."""
        progress = json.loads((path / PROGRESS).read_text(encoding="utf-8"))
        if not isinstance(progress, dict):
            raise ValueError(f"{PROGRESS} is not a JSON object")
        for key, kinds in (("num_timesteps", (int,)), ("wall_time_s", (int, float))):
            if not isinstance(progress.get(key), kinds) or isinstance(progress.get(key), bool) or progress[key] < 0:
                raise ValueError(f"{PROGRESS} lacks a non-negative {key}")
        return progress


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
#: What a run writes at its end: a resume with no checkpoint to continue from must not replace these.
AGENT_FILES = ("agent.npz", "agent.md")
#: What a run writes into its directory (``overwrite`` removes exactly these).
RUN_OUTPUTS = ("checkpoints", "tb", CONFIG_FILE, *AGENT_FILES)


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


def config_changes(recorded: dict[str, Any], config: dict[str, Any], resumable: Sequence[str]) -> list[str]:
    """``key: recorded -> now`` for each dotted key whose value differs, keys starting with one of
    ``resumable`` aside."""
    old, new = _flatten(recorded), _flatten(json.loads(json.dumps(config)))
    return [f"{key}: {old.get(key, '<absent>')!r} -> {new.get(key, '<absent>')!r}"
            for key in sorted(set(old) | set(new))
            if not key.startswith(tuple(resumable)) and old.get(key, _ABSENT) != new.get(key, _ABSENT)]


_ABSENT = object()


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def check_run_dir(run_dir: Path, checkpoints: Checkpoints, config: dict[str, Any], *, resume: bool,
                  overwrite: bool, force: bool, resumable: Sequence[str]) -> None:
    """Refuse, changing nothing, what ``run_dir`` does not allow (see the module docstring)."""
    if resume and overwrite:
        raise ValueError("resume and overwrite exclude each other: resume continues the run, overwrite discards it")
    if not resume:
        earlier = [name for name in RUN_OUTPUTS if (run_dir / name).exists()]
        if earlier and not overwrite:
            raise RunDirError(f"{run_dir} already holds an earlier run ({', '.join(earlier)}): pass --resume to "
                              f"continue that run, --overwrite to discard it and start afresh, or choose another "
                              f"--run-dir")
        return
    try:
        recorded = recorded_config(run_dir)
    except RunDirError:
        if not force:
            raise
        recorded = None
    changes = config_changes(recorded, config, resumable) if recorded is not None else []
    if changes and not force:
        raise RunDirError(f"{run_dir} was started with another config; changed: {'; '.join(changes)}. Resume "
                          f"with the recorded config ({run_dir / CONFIG_FILE}), or pass --force to continue with "
                          f"the new one")
    if checkpoints.candidates():
        latest, skipped = checkpoints.find()
        if latest is None:
            raise _nothing_to_resume(checkpoints, skipped)
    else:
        kept = [name for name in AGENT_FILES if (run_dir / name).exists()] + [CONFIG_FILE] * bool(changes)
        if kept:
            raise RunDirError(f"{run_dir} holds no checkpoint to resume from, and starting afresh would replace "
                              f"its {', '.join(kept)}: pass --overwrite to discard the earlier run, or choose "
                              f"another --run-dir")
    if changes:
        print(f"--force: continuing with a changed config, which {run_dir / CONFIG_FILE} will record; changed: "
              f"{'; '.join(changes)}", file=sys.stderr)


def begin_run(run_dir: Path, files: Sequence[str], config: dict[str, Any], target: int, *, resume: bool,
              overwrite: bool, force: bool, resumable: Sequence[str]) -> tuple[Checkpoints, TrainResult | None]:
    """A run's checkpoints (holding ``files``) once :func:`check_run_dir` has passed, and, when a resumed
    run has already reached ``target``, its result (:func:`finished_run`): nothing is left to train."""
    checkpoints = Checkpoints(run_dir, files)
    check_run_dir(run_dir, checkpoints, config, resume=resume, overwrite=overwrite, force=force, resumable=resumable)
    return checkpoints, finished_run(run_dir, checkpoints, target) if resume and not force else None


def _nothing_to_resume(checkpoints: Checkpoints, skipped: list[tuple[Path, str]]) -> RunDirError:
    reasons = "; ".join(f"{path.name}: {why}" for path, why in skipped)
    return RunDirError(f"{checkpoints.root.parent}: no intact checkpoint to resume from ({reasons}). Pass "
                       f"--overwrite to start afresh")


def record_config(run_dir: Path, config: dict[str, Any]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    tmp = run_dir / f".{CONFIG_FILE}.{os.getpid()}.tmp"
    _write_durably(tmp, json.dumps({"config": config}, indent=2) + "\n")
    os.replace(tmp, run_dir / CONFIG_FILE)


def clear_run(run_dir: Path) -> None:
    """Remove what an earlier run wrote into ``run_dir`` (``RUN_OUTPUTS``); other files stay."""
    for name in RUN_OUTPUTS:
        path = run_dir / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def open_run(run_dir: Path, checkpoints: Checkpoints, config: dict[str, Any], *, resume: bool, overwrite: bool,
             load: Callable[[Path], T]) -> T | None:
    """Once :func:`check_run_dir` has passed: clear the earlier run (``overwrite``) and what interrupted
    checkpoint writes left, resume from the newest checkpoint ``load`` accepts (``resume``), record the
    config, and say each; what ``load`` made of the checkpoint, or None for a fresh start."""
    if overwrite and any((run_dir / name).exists() for name in RUN_OUTPUTS):
        print(f"--overwrite: removing the earlier run's outputs in {run_dir}")
        clear_run(run_dir)
    removed = checkpoints.remove_leftovers()
    if removed:
        print(f"removed what interrupted checkpoint writes left behind: {', '.join(removed)}", file=sys.stderr)
    latest, loaded = checkpoints.resume(load) if resume else (None, None)
    record_config(run_dir, config)
    if latest is not None:
        print(f"resuming from {latest} at {Checkpoints.progress(latest)['num_timesteps']} steps")
    elif resume:
        print(f"no checkpoint in {run_dir}: starting a fresh run")
    return loaded


def finished_run(run_dir: Path, checkpoints: Checkpoints, total_timesteps: int) -> TrainResult | None:
    """A resumed run with nothing left to train: its agent, when ``agent.npz`` was exported from the newest
    intact checkpoint and that checkpoint holds ``total_timesteps`` steps or more; else None."""
    latest = checkpoints.latest()
    agent_file = run_dir / "agent.npz"
    if latest is None or not agent_file.is_file():
        return None
    try:
        steps = Checkpoints.progress(latest)["num_timesteps"]
        metadata = load_policy(agent_file).metadata
    except (OSError, ValueError):  # AgentFileError is a ValueError: export the agent again
        return None
    if steps < total_timesteps or metadata.get("timesteps") != steps:
        return None
    print(f"{run_dir} already holds its agent trained for {steps} steps: nothing to train; agent: {agent_file}")
    return TrainResult(agent_file, metadata)


# ------------------------------------------------------------------------------------- the agent
def agent_metadata(config: TrainConfig, name: str | None = None) -> dict[str, Any]:
    """What an agent file records about the game it plays; the default name is ``<game>_<N>p``."""
    env = make_env(config.game, **config.env).unwrapped
    players = env.game.num_players
    return {"name": name or f"{config.game}_{players}p", "game": config.game, "num_players": players,
            "env_options": dict(config.env), "activation": config.ppo.activation,
            "input_transform": env.observer.policy_input}


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
        results[opponent] = {"opponent": opponent, "games": config.eval.games, "win_rate": float(row.win_rate),
                             "ci95": [float(bound) for bound in row.interval], "fair_share": 1.0 / n}
    return results


#: Every backend's libraries; a backend adds its own (:func:`library_versions`).
LIBRARIES = ("hiddenhand", "numpy", "gymnasium", "pettingzoo", "torch")


def library_versions(extra: Sequence[str] = ()) -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in (*LIBRARIES, *extra):
        versions[package] = version(package)
    return versions


def export_agent(run_dir: Path, weights: Weights, metadata: dict[str, Any],
                 value_weights: Weights | None = None) -> TrainResult:
    """Write ``agent.npz`` (with a value head, when given) and its model card ``agent.md`` into ``run_dir``."""
    agent_path = save_policy(run_dir / "agent.npz", weights, metadata, value_weights)
    write_model_card(agent_path.with_suffix(".md"), metadata)
    return TrainResult(agent_path, metadata)


#: The model card's first words per training backend (``metadata["backend"]``, absent for SB3 runs).
BACKEND_TITLES = {"sb3": "MaskablePPO self-play", "rllib": "RLlib PPO self-play (league)",
                  "expert": "Expert iteration (PUCT search with a policy-value network)",
                  "distill": "Distilled (a network fitted to another agent's moves)"}


def _warm_start(training_config: dict[str, Any]) -> str:
    imitation = training_config.get("imitation", {})
    starts = [f"the policy of {training_config['init_from']}"] if training_config.get("init_from") else []
    if imitation.get("games"):
        starts.append(f"imitation of the {imitation['teacher']} over {imitation['games']} games, "
                      f"{imitation['epochs']} epochs")
    return ", then ".join(starts) or "none (self-play from scratch)"


def write_model_card(path: Path, metadata: dict[str, Any], evaluation: dict[str, Any] | None = None) -> Path:
    """A markdown model card from an agent's metadata (plus a final evaluation, when given)."""
    lines = [
        f"# {metadata['name']}", "",
        f"{BACKEND_TITLES[metadata.get('backend', 'sb3')]} agent for **{metadata['game']}**, "
        f"{metadata['num_players']} players.", "",
        "| field | value |", "|---|---|",
        f"| env options | `{json.dumps(metadata['env_options'])}` |",
        *_ROWS.get(metadata.get("backend", "sb3"), _ppo_rows)(metadata),
        f"| libraries | {', '.join(f'{k} {v}' for k, v in metadata['libraries'].items())} |",
    ]
    if metadata.get("evaluation_during_training"):  # none for a distilled agent or without eval.opponents
        lines += ["", "## Evaluation during training", "",
                  "| opponents | games | win rate | 95% CI | fair share |", "|---|---|---|---|---|"]
    for row in metadata.get("evaluation_during_training", {}).values():
        lines.append(f"| {row['opponent']} | {row['games']} | {row['win_rate']:.1%} | "
                     f"[{row['ci95'][0]:.1%}, {row['ci95'][1]:.1%}] | {row['fair_share']:.1%} |")
    if evaluation:
        lines += ["", "## Final evaluation", "", evaluation.get("table", "")]
    lines += ["", "## Training configuration", "", "```json", json.dumps(metadata["training_config"], indent=2), "```"]
    path.write_text("\n".join(lines) + "\n")
    return path


def _ppo_rows(metadata: dict[str, Any]) -> list[str]:
    return [f"| training steps | {metadata['timesteps']:,} |",
            f"| wall time | {metadata['wall_time_s']:.0f} s |",
            f"| env steps/s incl. learning | {metadata['train_steps_per_s']:.0f} |",
            f"| network | MLP {metadata['training_config']['ppo']['net_arch']}, {metadata['activation']} |",
            f"| warm start | {_warm_start(metadata['training_config'])} |"]


def _expert_rows(metadata: dict[str, Any]) -> list[str]:
    config = metadata["training_config"]
    network = config["network"]
    return [f"| iterations | {metadata['timesteps']:,} ({config['self_play']['games']} games each) |",
            f"| positions learned | {metadata['positions']:,} |",
            f"| wall time / CPU time | {metadata['wall_time_s']:.0f} s / {metadata['cpu_time_s']:.0f} s |",
            f"| network | MLP {network['net_arch']}, {metadata['activation']}; value head {network['value_arch']} |",
            f"| search | {_expert_search(config)} |",
            *([f"| warm start | {_warm_start(config)} |"] if config.get("init_from") else [])]


def _expert_search(config: dict[str, Any]) -> str:
    if config["guided_search"] == "none":
        return f"`{config['search']}` throughout"
    if config.get("init_from"):
        return f"`{config['guided_search']}` reading the network throughout (first: {config['init_from']})"
    return f"first `{config['search']}`, then `{config['guided_search']}` reading the network"


def _distill_rows(metadata: dict[str, Any]) -> list[str]:
    config, report = metadata["training_config"], metadata["distill"]
    teachers = config.get("agents") or [config["agent"]]  # files distilled before several teachers: "agent"
    return [f"| teacher | {' and '.join(f'`{name}`' for name in teachers)}, {report['moves']:,} of "
            f"{'its' if len(teachers) == 1 else 'their'} moves in "
            f"{report['games']:,} recorded games |",
            f"| held-out agreement | {report['held_out_agreement']:.1%} (epoch {report['epoch']} of "
            f"{config['epochs']}, {config['held_out']:.0%} of the games held out, kept: "
            f"{config.get('keep', 'best')}) |",
            f"| fit time / CPU time | {metadata['wall_time_s']:.0f} s / {metadata['cpu_time_s']:.0f} s |",
            f"| network | MLP {list(config['hidden'])}, {metadata['activation']} |"]


_ROWS = {"sb3": _ppo_rows, "rllib": _ppo_rows, "expert": _expert_rows, "distill": _distill_rows}


def next_multiple(steps: int, every: int) -> int:
    """The first multiple of ``every`` after ``steps`` (when the next checkpoint or evaluation is due)."""
    return (steps // every + 1) * every
