"""``hiddenhand train --backend rllib`` from the command line, and --address only with that backend."""

import pytest

from hiddenhand.cli import main


def test_address_needs_the_rllib_backend(capsys):
    assert main(["train", "david_goliath", "--config", "david_goliath_quick", "--address", "x:1"]) == 2
    assert "--address only applies with --backend rllib" in capsys.readouterr().err


def test_cli_trains_with_the_rllib_backend(tmp_path):
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    run = tmp_path / "run"
    assert main(["train", "david_goliath", "--backend", "rllib", "--config", "david_goliath_quick",
                 "--run-dir", str(run), "--no-progress", "--set", "total_timesteps=300", "--set", "ppo.n_steps=300",
                 "--set", "ppo.batch_size=150", "--set", "ppo.net_arch=[32]", "--set", "ray.num_env_runners=0",
                 "--set", "eval.games=4", "--set", "ray.num_cpus=1"]) == 0
    assert (run / "agent.npz").is_file()
    assert "RLlib PPO self-play (league) agent for **david_goliath**" in (run / "agent.md").read_text()
