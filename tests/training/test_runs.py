"""Run directories never lose work: checksummed checkpoints, resume by scanning with fallback, a recorded
config, refusals before anything changes, and a trainer killed in the middle of a checkpoint write."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from hiddenhand.agents import load_policy
from hiddenhand.cli import main
from hiddenhand.training.config import config_from_dict
from hiddenhand.training.runs import Checkpoints, RunDirError
from hiddenhand.training.train import CHECKPOINT_FILES, train

FAST = {
    "game": "david_goliath", "env": {"num_players": 3, "rounds": 1}, "total_timesteps": 300,
    "n_envs": 1, "vec_env": "dummy", "checkpoint_every": 100,
    "ppo": {"n_steps": 50, "batch_size": 50, "n_epochs": 1, "net_arch": [8]},
    "pool": {"snapshot_every": 100, "window": 2}, "eval": {"every": 10**9, "games": 1},
}
STEP = "step_{:012d}".format


def config(**changes):
    data = json.loads(json.dumps(FAST))
    for dotted, value in changes.items():
        *sections, leaf = dotted.split("__")
        node = data
        for section in sections:
            node = node[section]
        node[leaf] = value
    return config_from_dict(data)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished FAST run: checkpoints at 100, 200 and 300 steps."""
    run = tmp_path_factory.mktemp("finished") / "run"
    train(config(), run, progress=False)
    return run


@pytest.fixture
def run(finished, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(finished, copy)
    return copy


def checkpoints(run_dir):
    return Checkpoints(run_dir, CHECKPOINT_FILES)


def tree(path):
    """Every file under ``path`` with its bytes (to show that a refusal changed nothing)."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def test_a_finished_run_holds_checksummed_checkpoints_and_its_config(finished):
    store = checkpoints(finished)
    assert [p.name for p in store.candidates()] == [STEP(300), STEP(200), STEP(100)]
    for path in store.candidates():
        assert store.verify(path) is None
        manifest = json.loads((path / "MANIFEST.json").read_text())
        assert set(manifest["files"]) == {"model.zip", "snapshots.npz", "progress.json"}
        assert all(len(entry["sha256"]) == 64 for entry in manifest["files"].values())
    assert (finished / "checkpoints" / "LATEST").read_text() == STEP(300)
    assert not [p for p in (finished / "checkpoints").iterdir() if p.name.startswith(".")]
    assert json.loads((finished / "config.json").read_text())["config"] == config().to_dict()


def test_deleted_latest_still_resumes_from_the_newest_intact_checkpoint(run, capsys):
    (run / "checkpoints" / "LATEST").unlink()
    result = train(config(total_timesteps=350), run, resume=True, progress=False)
    out, err = capsys.readouterr()
    assert f"resuming from {run / 'checkpoints' / STEP(300)} at 300 steps" in out
    assert "checkpoints/LATEST is missing" in err
    assert result.metadata["timesteps"] == 350  # went on from 300, not from 0
    assert (run / "checkpoints" / "LATEST").read_text() == STEP(350)


def test_latest_pointing_at_a_missing_directory(run, capsys):
    (run / "checkpoints" / "LATEST").write_text(STEP(999))
    train(config(total_timesteps=350), run, resume=True, progress=False)
    out, err = capsys.readouterr()
    assert "at 300 steps" in out and f"LATEST names '{STEP(999)}', which is no checkpoint here" in err


def truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip_a_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(("damage", "reason"), [
    (lambda c: truncate(c / "model.zip"), "model.zip is"),
    (lambda c: flip_a_byte(c / "model.zip"), "model.zip does not match its SHA-256 checksum"),
    (lambda c: flip_a_byte(c / "snapshots.npz"), "snapshots.npz does not match its SHA-256 checksum"),
    (lambda c: (c / "progress.json").write_text("{not json"), "progress.json is"),
    (lambda c: (c / "progress.json").unlink(), "progress.json is missing"),
    (lambda c: (c / "MANIFEST.json").unlink(), "it has no MANIFEST.json"),
    (lambda c: (c / "MANIFEST.json").write_text("[1]"), "its MANIFEST.json is not a hiddenhand-checkpoint/1 manifest"),
], ids=["model-truncated", "model-flipped", "snapshots-flipped", "progress-garbage", "progress-missing",
        "manifest-missing", "manifest-list"])
def test_a_damaged_newest_checkpoint_falls_back_to_the_one_before(run, capsys, damage, reason):
    newest = run / "checkpoints" / STEP(300)
    damage(newest)
    result = train(config(), run, resume=True, progress=False)
    out, err = capsys.readouterr()
    assert f"resuming from {run / 'checkpoints' / STEP(200)} at 200 steps" in out
    assert f"skipped checkpoint {STEP(300)}: {reason}" in err
    assert f"falling back to {STEP(200)}" in err
    assert (run / "checkpoints" / "skipped" / STEP(300)).is_dir()  # kept for inspection, out of the way
    assert result.metadata["timesteps"] == 300
    assert checkpoints(run).latest().name == STEP(300)


def test_snapshots_that_do_not_fit_the_model_are_not_loaded(run, capsys):
    """Checksums match (the manifest rewritten too), but the pool's snapshot has other layer shapes."""
    newest = run / "checkpoints" / STEP(300)
    np.savez(newest / "snapshots.npz", s0_w0=np.zeros((3, 3), np.float32), s0_b0=np.zeros(3, np.float32),
             s0_w1=np.zeros((2, 3), np.float32), s0_b1=np.zeros(2, np.float32))
    manifest = json.loads((newest / "MANIFEST.json").read_text())
    data = (newest / "snapshots.npz").read_bytes()
    manifest["files"]["snapshots.npz"] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (newest / "MANIFEST.json").write_text(json.dumps(manifest))
    train(config(total_timesteps=350), run, resume=True, progress=False)
    err = capsys.readouterr().err
    assert f"skipped checkpoint {STEP(300)}: it does not load (ValueError: snapshots.npz: snapshot 0's layers" in err
    assert f"falling back to {STEP(200)}" in err


def test_no_intact_checkpoint_is_an_error_that_changes_nothing(run):
    for path in checkpoints(run).candidates():
        flip_a_byte(path / "model.zip")
    before = tree(run)
    with pytest.raises(RunDirError) as info:
        train(config(), run, resume=True, progress=False)
    message = str(info.value)
    assert "no intact checkpoint" in message and "--overwrite" in message
    assert all(STEP(n) in message for n in (100, 200, 300))
    assert tree(run) == before


def test_a_fresh_run_refuses_a_directory_with_checkpoints(run, capsys):
    (run / "checkpoints" / "LATEST").unlink()  # the old code overwrote the run when LATEST was gone
    before = tree(run)
    with pytest.raises(RunDirError, match="already holds an earlier run.*--resume.*--overwrite"):
        train(config(), run, progress=False)
    code = main(["train", "david_goliath", "--config", "david_goliath_quick", "--run-dir", str(run),
                 "--no-progress"])
    assert code == 2 and "already holds an earlier run" in capsys.readouterr().err
    assert tree(run) == before


def test_overwrite_discards_the_earlier_run(run, capsys):
    (run / "notes.txt").write_text("mine")
    train(config(total_timesteps=100), run, overwrite=True, progress=False)
    assert [p.name for p in checkpoints(run).candidates()] == [STEP(100)]
    assert (run / "notes.txt").read_text() == "mine"  # only the run's own outputs go
    assert "--overwrite: removing" in capsys.readouterr().out
    with pytest.raises(ValueError, match="exclude each other"):
        train(config(), run, resume=True, overwrite=True)


def test_resuming_with_another_config_is_refused_unless_forced(run):
    before = tree(run)
    with pytest.raises(RunDirError) as info:
        train(config(ppo__learning_rate=0.001, env__rounds=2), run, resume=True, progress=False)
    message = str(info.value)
    assert "ppo.learning_rate: 0.0003 -> 0.001" in message and "env.rounds: 1 -> 2" in message
    assert "--force" in message and tree(run) == before
    forced = config(ppo__learning_rate=0.001)
    train(forced, run, resume=True, force=True, progress=False)
    assert json.loads((run / "config.json").read_text())["config"]["ppo"]["learning_rate"] == 0.001


def test_cli_resume_reads_the_recorded_config_and_refuses_changes(run, capsys):
    assert main(["train", "david_goliath", "--run-dir", str(run), "--resume", "--no-progress",
                 "--set", "total_timesteps=350"]) == 0
    assert "at 300 steps" in capsys.readouterr().out
    assert load_policy(run / "agent.npz").metadata["timesteps"] == 350
    assert main(["train", "david_goliath", "--run-dir", str(run), "--resume", "--no-progress",
                 "--set", "seed=5"]) == 2
    assert "seed: 0 -> 5" in capsys.readouterr().err
    assert main(["train", "david_goliath", "--run-dir", str(run), "--force"]) == 2
    assert "--force only applies with --resume" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "david_goliath", "--run-dir", str(run), "--resume", "--overwrite"])


def test_resume_without_checkpoints_keeps_the_agent_file_and_config(run, capsys):
    """Checkpoints deleted (to save space): --resume once trained afresh over agent.npz and config.json."""
    shutil.rmtree(run / "checkpoints")
    before = tree(run)
    with pytest.raises(RunDirError, match="no checkpoint to resume from, and starting afresh would replace its "
                                          "agent.npz, agent.md: pass --overwrite"):
        train(config(), run, resume=True, progress=False)
    assert main(["train", "david_goliath", "--run-dir", str(run), "--resume", "--no-progress"]) == 2
    assert "would replace its agent.npz" in capsys.readouterr().err
    assert tree(run) == before
    train(config(total_timesteps=100), run, overwrite=True, progress=False)  # asked for: starts afresh
    assert load_policy(run / "agent.npz").metadata["timesteps"] == 100


def test_a_fresh_run_refuses_a_directory_with_an_earlier_agent(run):
    shutil.rmtree(run / "checkpoints")
    (run / "config.json").unlink()
    before = tree(run)
    with pytest.raises(RunDirError, match=r"already holds an earlier run \(tb, agent.npz, agent.md\)"):
        train(config(), run, progress=False)
    assert tree(run) == before


def test_a_forced_config_never_replaces_the_recorded_one_without_a_checkpoint(run):
    shutil.rmtree(run / "checkpoints")
    for name in ("agent.npz", "agent.md"):
        (run / name).unlink()
    before = tree(run)
    with pytest.raises(RunDirError, match="would replace its config.json"):
        train(config(seed=5), run, resume=True, force=True, progress=False)
    assert tree(run) == before


def test_resume_before_the_first_checkpoint_starts_afresh(tmp_path, capsys):
    """Interrupted before its first checkpoint, a run holds only its config: resuming starts it again."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"config": config().to_dict()}))
    train(config(total_timesteps=100), run, resume=True, progress=False)
    assert "no checkpoint in" in capsys.readouterr().out


def test_a_forced_resume_says_what_the_recorded_config_becomes(run, capsys):
    train(config(seed=5), run, resume=True, force=True, progress=False)
    assert "--force: continuing with a changed config" in capsys.readouterr().err
    assert json.loads((run / "config.json").read_text())["config"]["seed"] == 5


def test_resuming_a_finished_run_changes_nothing(run, capsys):
    """It re-exported agent.npz, recording 0 env steps/s for the training it did not do."""
    before = tree(run)
    result = train(config(), run, resume=True, progress=False)
    assert "nothing to train" in capsys.readouterr().out
    assert tree(run) == before and result.metadata["timesteps"] == 300
    assert result.metadata["train_steps_per_s"] > 0


def test_resume_in_an_empty_directory_starts_a_fresh_run(tmp_path, capsys):
    train(config(total_timesteps=100), tmp_path / "new", resume=True, progress=False)
    assert "no checkpoint in" in capsys.readouterr().out
    assert checkpoints(tmp_path / "new").latest().name == STEP(100)


# A trainer that SIGKILLs itself in the middle of its second checkpoint write, at a chosen point.
KILLER = textwrap.dedent("""
    import os, signal, sys
    import hiddenhand.training.runs as T

    point, seen, write = sys.argv[1], [], T._write_durably

    def dying_write(path, text):
        if path.name == "MANIFEST.json":
            seen.append(path)
        if len(seen) == 2:
            if point == "manifest" and path.name == "MANIFEST.json":
                path.write_text(text[: len(text) // 2])  # half a manifest on disk, then death
                os.kill(os.getpid(), signal.SIGKILL)
            if point == "pointer" and path.name.startswith(".LATEST."):
                os.kill(os.getpid(), signal.SIGKILL)  # step dir renamed, LATEST not yet updated
        return write(path, text)

    T._write_durably = dying_write
    from hiddenhand.cli import main
    sys.exit(main(sys.argv[2:]))
""")


@pytest.mark.parametrize(("point", "resumed_at"), [("manifest", 100), ("pointer", 200)])
def test_killed_during_a_checkpoint_write_then_resumed(tmp_path, capsys, point, resumed_at):
    config_file = tmp_path / "fast.yaml"
    config_file.write_text(json.dumps(FAST))
    arguments = ["train", "david_goliath", "--config", str(config_file), "--run-dir", str(tmp_path / "run"),
                 "--no-progress"]
    killed = subprocess.run([sys.executable, "-c", KILLER, point, *arguments], capture_output=True, text=True,
                            timeout=300)
    assert killed.returncode == -9, killed.stderr
    root = tmp_path / "run" / "checkpoints"
    leftovers = [p.name for p in root.iterdir() if p.name.startswith(".")]
    if point == "manifest":
        assert [p.name for p in checkpoints(tmp_path / "run").candidates()] == [STEP(100)]
        assert any(name.startswith(f".tmp_{STEP(200)}") for name in leftovers)
    else:
        assert (root / "LATEST").read_text() == STEP(100) and (root / STEP(200)).is_dir()
    assert main(arguments + ["--resume"]) == 0
    out, err = capsys.readouterr()
    assert f"at {resumed_at} steps" in out
    if point == "manifest":
        assert f".tmp_{STEP(200)}" in err  # removed, and said so
    assert not [p for p in root.iterdir() if p.name.startswith((".tmp_", ".LATEST."))]
    assert load_policy(tmp_path / "run" / "agent.npz").metadata["timesteps"] == 300
    assert os.listdir(root / STEP(300))
