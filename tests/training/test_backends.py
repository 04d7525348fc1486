"""Every training backend walks the path a user walks (issue 22): ``hiddenhand train`` long enough to
finish games and pass a checkpoint, ``--resume`` from the recorded config, ``evaluate`` the exported
agent. And the backends stand on an equal footing (issue 23): one table, one run-directory module, and
the RLlib backend imports no SB3 code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hiddenhand.agents import load
from hiddenhand.cli import build_parser, main
from hiddenhand.envs import make
from hiddenhand.training.backends import BACKENDS
from hiddenhand.training.runs import BACKEND_TITLES, Checkpoints

#: Games of 60 moves (4 players, one round), 300 learner steps an update: games end within the first
#: update, a checkpoint follows it, and the first snapshot comes only after that checkpoint.
TINY = ["env.rounds=1", "total_timesteps=600", "checkpoint_every=300", "pool.snapshot_every=450",
        "ppo.n_steps=300", "ppo.batch_size=150", "ppo.n_epochs=2", "ppo.net_arch=[32]", "eval.every=1000000",
        "eval.games=4"]
#: Each backend's settings for a small busy machine: one env, in this process.
ONE_ENV = {"sb3": ["n_envs=1", "vec_env=dummy"], "rllib": ["ray.num_env_runners=0", "ray.num_cpus=1"]}
#: The files of a backend's checkpoint besides progress.json and the manifest.
CHECKPOINT_FILES = {"sb3": ("model.zip", "snapshots.npz"), "rllib": ("algorithm", "league.json")}


def sets(items):
    return [argument for item in items for argument in ("--set", item)]


@pytest.mark.parametrize("backend", sorted(ONE_ENV))  # the PPO backends; expert: tests/training/test_expert.py
def test_train_checkpoint_resume_evaluate_from_the_command_line(backend, tmp_path, capsys):
    if backend == "rllib":
        pytest.importorskip("ray.rllib", reason="the rllib extra is not installed: pip install 'hiddenhand[rllib]'")
    run = tmp_path / "run"
    command = ["train", "david_goliath", "--backend", backend, "--run-dir", str(run), "--no-progress"]
    assert main([*command, "--config", "david_goliath_quick", *sets(TINY + ONE_ENV[backend])]) == 0
    store = Checkpoints(run, CHECKPOINT_FILES[backend])
    first = store.candidates()[-1]  # the checkpoint after the first update, before any snapshot
    assert all(store.verify(path) is None for path in store.candidates())
    assert 300 <= Checkpoints.progress(first)["num_timesteps"] < 600
    if backend == "rllib":  # the games it finished were counted as plain JSON (np.int64 crashed here)
        league = json.loads((first / "league.json").read_text())
        assert league["block_games"] > 0 and league["snapshots_taken"] == 0
    done = Checkpoints.progress(store.latest())["num_timesteps"]
    capsys.readouterr()

    assert main([*command, "--resume", "--set", "total_timesteps=900"]) == 0  # the recorded config
    assert f"at {done} steps" in capsys.readouterr().out
    agent_file = run / "agent.npz"
    metadata = load(str(agent_file)).metadata
    assert metadata["timesteps"] >= 900 and metadata["training_config"]["env"]["rounds"] == 1
    assert metadata.get("backend", "sb3") == backend
    assert json.loads(json.dumps(metadata)) == metadata
    assert f"{BACKEND_TITLES[backend]} agent for **david_goliath**" in (run / "agent.md").read_text()
    if backend == "rllib":
        assert metadata["league"]["snapshots_taken"] >= 1  # pool.snapshot_every reached

    exported = agent_file.read_bytes()
    capsys.readouterr()
    assert main([*command, "--resume"]) == 0  # finished: nothing to train, nothing rewritten
    assert "nothing to train" in capsys.readouterr().out and agent_file.read_bytes() == exported

    assert main(["evaluate", "david_goliath", "--players", "4", "--games", "4", "--workers", "1",
                 "--agents", f"{agent_file},random,random,random"]) == 0
    env = make("david_goliath", num_players=4, rounds=1)
    agent = load(str(agent_file), env.unwrapped.game, seed=0)
    env.reset(seed=1)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else agent.act(observation["observation"],
                                                                 observation["action_mask"])
        assert action is None or observation["action_mask"][action] == 1
        env.step(action)


def test_the_cli_offers_the_backends_of_the_table(capsys):
    parser = build_parser()
    for name, entry in BACKENDS.items():
        options = [argument for flag in entry.options for argument in (flag, "x")]
        assert parser.parse_args(["train", "david_goliath", "--backend", name, *options]).backend == name
    with pytest.raises(SystemExit):
        parser.parse_args(["train", "david_goliath", "--backend", "other"])
    assert f"choose from {', '.join(map(repr, sorted(BACKENDS)))}" in capsys.readouterr().err


def test_a_backend_option_is_refused_with_another_backend(capsys):
    assert main(["train", "david_goliath", "--config", "david_goliath_quick", "--address", "x:1"]) == 2
    assert "--address only applies with --backend rllib" in capsys.readouterr().err


def test_importing_the_rllib_backend_imports_no_sb3_code():
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed: pip install 'hiddenhand[rllib]'")
    code = ("import sys; import hiddenhand.cli, hiddenhand.training.rllib.trainer, hiddenhand.training.rllib.bench; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'stable_baselines3', 'sb3_contrib'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True).stdout
    assert out.strip() == "[]"
