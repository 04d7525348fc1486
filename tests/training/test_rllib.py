"""The RLlib backend (issue 14): the module, the league, the env, presets and bad input (its command-line run,
checkpoint, resume and export: test_backends.py).
Skipped when Ray RLlib is not installed (``pip install "hiddenhand[rllib]"``).
"""

from __future__ import annotations

import json
import socket
import time

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra is not installed: pip install 'hiddenhand[rllib]'")

from hiddenhand.envs import make
from hiddenhand.envs.registry import REGISTRY
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.cli import main
from hiddenhand.training.rllib.cluster import ClusterError, start
from hiddenhand.training.rllib.config import load_config, presets, with_overrides
from hiddenhand.training.rllib.env import LeagueEnv
from hiddenhand.training.rllib.league import LEARNER, League, snapshot_id
from hiddenhand.training.rllib.trainer import train
from hiddenhand.training.runs import RunDirError

#: A few hundred learner steps per iteration, two iterations a checkpoint: seconds on two cores.
TINY = {"total_timesteps": 600, "ppo.n_steps": 300, "ppo.batch_size": 150, "ppo.n_epochs": 2,
        "ppo.net_arch": [32], "checkpoint_every": 300, "pool.snapshot_every": 300, "eval.every": 10**9,
        "eval.games": 4, "ray.num_env_runners": 0, "ray.num_cpus": 1}


def tiny(**extra):
    return with_overrides(load_config("david_goliath_quick"), {**TINY, **extra})


def train_command(*arguments: str) -> int:
    """``hiddenhand train david_goliath --backend rllib`` with ``arguments`` (the quick preset by default)."""
    preset = () if "--config" in arguments else ("--config", "david_goliath_quick")
    return main(["train", "david_goliath", "--backend", "rllib", "--no-progress", *preset, *arguments])


def test_resume_without_checkpoints_never_replaces_the_agent_file(tmp_path):
    """The run-directory rules are every backend's: refused before Ray starts, nothing changed."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "agent.npz").write_bytes(b"a finished run's agent")
    with pytest.raises(RunDirError, match="no checkpoint to resume from.*would replace its agent.npz.*--overwrite"):
        train(tiny(), run, resume=True, progress=False)
    assert (run / "agent.npz").read_bytes() == b"a finished run's agent" and sorted(run.iterdir()) == [run / "agent.npz"]


def test_exported_layers_compute_the_modules_logits(tmp_path):
    """The agent file's numpy MLP is the RLlib actor: same masked logits for the same observation."""
    import torch

    from hiddenhand.training.rllib.module import actor_weights
    from hiddenhand.training.rllib.trainer import module_spec
    from hiddenhand.agents import PolicyAgent

    config = tiny()
    spec, env_config = module_spec(config)
    module = spec.build()
    agent = PolicyAgent(actor_weights(module), {"activation": "tanh", "input_transform": "identity"})
    env = make("david_goliath", num_players=4)
    env.reset(seed=3)
    seen = env.observe(env.agent_selection)
    batch = {"obs": {"observations": torch.tensor(seen["observation"][None], dtype=torch.float32),
                     "action_mask": torch.tensor(seen["action_mask"][None], dtype=torch.float32)}}
    logits = module.forward_inference(batch)["action_dist_inputs"][0].detach().numpy()
    legal = seen["action_mask"].astype(bool)
    np.testing.assert_allclose(logits[legal], agent.logits(seen["observation"])[legal], rtol=1e-4, atol=1e-5)
    assert (logits[~legal] < -1e30).all()  # illegal moves are never sampled


def test_league_lineup_has_one_learner_and_only_filled_snapshots():
    league = League(window=3, probabilities=(0.0, 1.0, 0.0), baselines=["heuristic"])
    rng = np.random.default_rng(0)
    seats = [f"player_{i}" for i in range(4)]
    assert sorted(league.lineup(seats, rng).values()) == [LEARNER] * 4  # no snapshot yet: learner fills in
    assert [league.add_snapshot(step) for step in range(4)] == [snapshot_id(i) for i in (0, 1, 2, 0)]
    lineup = league.lineup(seats, rng)
    assert list(lineup.values()).count(LEARNER) == 1
    assert set(lineup.values()) - {LEARNER} <= {snapshot_id(i) for i in range(3)}


def test_presets_load():
    assert "david_goliath_quick" in presets()
    for name in presets():
        load_config(name)


@pytest.mark.parametrize("text, problem", [
    ("game: david_goliath\nn_envs: 4\n", "'n_envs' is a setting of the SB3 trainer"),
    ("game: david_goliath\nray:\n  num_env_runners: many\n", "'ray.num_env_runners' must be int"),
    ("game: david_goliath\nleague:\n  win_rate_threshold: 1.5\n", "'league.win_rate_threshold'"),
    ("game: david_goliath\nray: [1, 2]\n", "'ray' must be a mapping"),
    ("game: david_goliath\nppo: {batch_size: 4096, n_steps: 1024}\n", "'ppo.batch_size' must be at most"),
    ("game: david_goliath\n  bad indent: [\n", "invalid YAML"),
])
def test_malformed_preset_is_a_clear_error(tmp_path, text, problem, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=problem.replace("[", r"\[")):
        load_config(path)
    assert train_command("--config", str(path)) == 2
    assert problem in capsys.readouterr().err


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens there once the socket is closed


def test_unreachable_address_fails_fast_with_a_clear_error(tmp_path, capsys, monkeypatch):
    port = closed_port()
    started = time.monotonic()
    with pytest.raises(ClusterError, match=f"no Ray cluster answers at '127.0.0.1:{port}'"):
        start(f"127.0.0.1:{port}", 0, timeout_s=3)
    with pytest.raises(ClusterError, match="expected host:port"):
        start("127.0.0.1:http", 0, timeout_s=3)
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")  # the CLI reads RAY_ADDRESS like --address
    assert train_command("--run-dir", str(tmp_path / "run")) == 2
    assert f"no Ray cluster answers at '127.0.0.1:{port}'" in capsys.readouterr().err
    assert time.monotonic() - started < 30
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_token_mode_without_a_token_is_a_clear_error(tmp_path, monkeypatch):
    """RAY_AUTH_MODE=token with no token at hand was Ray's AuthenticationError traceback."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    for name in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as server:  # something answers: the check comes from Ray itself
        server.bind(("127.0.0.1", 0))
        server.listen()
        with pytest.raises(ClusterError, match="RAY_AUTH_MODE=token asks for token authentication, but no token"):
            start(f"127.0.0.1:{server.getsockname()[1]}", 0, timeout_s=3)


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_league_env_plays_every_game_with_terminal_rewards_for_each_neural_seat(game):
    """Baseline seats move inside the env; each neural seat sees only its own turns, legal masks, and
    gets its terminal reward at the end whoever moved last (the SB3 trainer's convention)."""
    env = LeagueEnv({"game": game, "env": {"reward_mode": "score_margin"}, "dense_reward": True, "seed": 1})
    seats = env.possible_agents
    # two-player games (the cow trade): a baseline and the learner
    kinds = ("heuristic", "random", LEARNER, snapshot_id(0)) if len(seats) > 2 else ("heuristic", LEARNER)
    env.set_lineup({seat: kinds[i % len(kinds)] for i, seat in enumerate(seats)})
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=5)
    neural = set(env.agents)
    assert neural == {seat for i, seat in enumerate(seats) if kinds[i % len(kinds)] not in ("heuristic", "random")}
    returns = dict.fromkeys(neural, 0.0)
    for _ in range(20_000):
        (agent, seen), = observations.items()
        assert agent in neural and seen["observations"].shape == env.observation_spaces[agent]["observations"].shape
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        observations, rewards, terminateds, truncateds, infos = env.step({agent: action})
        for seat, reward in rewards.items():
            returns[seat] += reward
        if terminateds["__all__"] or truncateds["__all__"]:
            break
    else:
        pytest.fail("the game did not end")
    assert set(observations) == set(rewards) == set(infos) <= neural
    for seat in observations:
        assert returns[seat] == pytest.approx(env.aec.rewards[seat])
        assert infos[seat]["won"] == (seats.index(seat) in env.aec.state_.winners())


def test_the_league_stays_plain_json_when_rllib_reports_numpy_numbers():
    """RLlib's ``num_episodes`` is an np.int64: added into block_games it broke league.json."""
    league = League(window=2, probabilities=(0.5, 0.25, 0.25), baselines=["random"])
    assert not league.passes(np.float64(0.5), np.int64(7), threshold=0.6, min_games=50)
    assert League.from_dict(json.loads(json.dumps(league.to_dict()))) == league


@pytest.mark.parametrize("change, problem", [
    ({"block_games": -1}, "non-negative ints"),
    ({"window": 0}, "non-negative ints"),
    ({"filled": [0, 5]}, "distinct slots below window"),
    ({"probabilities": [0.5, "x", 0.5]}, "three non-negative numbers"),
    ({"baselines": ["ismcts"]}, "baselines are among"),
    ({"block_wins": 9.0}, "from 0 to block_games"),
    ({"extra": 1}, "keys"),
])
def test_a_tampered_league_is_refused(change, problem):
    data = League(window=2, probabilities=(0.5, 0.25, 0.25), baselines=["random"]).to_dict() | change
    with pytest.raises(ValueError, match=problem):
        League.from_dict(data)


def test_threshold_snapshot_needs_a_block_of_games_at_the_win_rate():
    league = League(window=2, probabilities=(0.5, 0.25, 0.25), baselines=["random"])
    assert not league.passes(0.9, 30, threshold=0.6, min_games=50)  # 30 games: too few yet
    assert league.passes(0.5, 30, threshold=0.6, min_games=50)  # 60 games at (27 + 15) / 60 = 0.7
    assert not league.passes(0.5, 60, threshold=0.6, min_games=50)  # a new block, below the threshold
    assert not league.passes(1.0, 60, threshold=0.0, min_games=50)  # 0: threshold snapshots off
    league.passes(0.9, 30, threshold=0.6, min_games=50)
    league.add_snapshot(step=100)
    assert league.block_games == 0  # a snapshot starts a new block
