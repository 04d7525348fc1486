"""End-to-end training: a tiny run and its agent file (runs killed and resumed: test_runs.py)."""

import numpy as np
import pytest
import torch

from hiddenhand.agents import AgentFileError, load, load_policy, save_policy
from hiddenhand.envs.david_goliath.rules import DavidGoliathGame
from hiddenhand.training.config import config_from_dict
from hiddenhand.training.runs import RunDirError
from hiddenhand.training.train import new_model, policy_weights, train

TINY = {
    "game": "david_goliath", "env": {"num_players": 3, "rounds": 1}, "total_timesteps": 1200,
    "n_envs": 1, "vec_env": "dummy", "checkpoint_every": 400,
    "ppo": {"n_steps": 200, "batch_size": 100, "n_epochs": 1, "net_arch": [16]},
    "pool": {"snapshot_every": 300, "window": 2}, "eval": {"every": 600, "games": 6},
}


def test_tiny_training_run_produces_a_loadable_agent(tmp_path):
    result = train(config_from_dict(TINY), tmp_path, progress=False)
    assert result.metadata["timesteps"] >= 1200 and result.metadata["train_steps_per_s"] > 0
    agent = load(str(result.agent_path), DavidGoliathGame(3, rounds=1))
    assert agent.metadata["timesteps"] == result.metadata["timesteps"]
    assert agent.metadata["training_config"]["ppo"]["net_arch"] == [16]
    assert set(agent.metadata["evaluation_during_training"]) == {"random", "heuristic"}
    card = (tmp_path / "agent.md").read_text()
    assert "david_goliath" in card and "torch" in card and "win rate" in card
    assert list((tmp_path / "tb").rglob("events.out.tfevents*"))
    with pytest.raises(AgentFileError, match="trained for david_goliath with 3 players"):
        load(str(result.agent_path), DavidGoliathGame(4))
    with pytest.raises(RunDirError, match="--resume"):
        train(config_from_dict(TINY), tmp_path, progress=False)


def test_exported_weights_reproduce_the_torch_policy(tmp_path):
    from hiddenhand.training.runs import agent_metadata
    from hiddenhand.training.train import make_vec_env

    config = config_from_dict({**TINY, "ppo": {**TINY["ppo"], "net_arch": [32, 16], "activation": "relu"}})
    metadata = agent_metadata(config)
    vec_env = make_vec_env(config, metadata)
    model = new_model(config, vec_env, tmp_path)
    obs = np.random.default_rng(0).random((5, vec_env.observation_space.shape[0]), dtype=np.float32)
    with torch.no_grad():
        logits = model.policy.get_distribution(torch.as_tensor(obs)).distribution.logits.numpy()
    path = save_policy(tmp_path / "a.npz", policy_weights(model), metadata)
    agent = load_policy(path)
    ours = np.stack([agent.logits(row) for row in obs])
    # torch normalises logits (log-softmax): compare up to a per-row constant
    assert np.allclose(ours - ours.max(1, keepdims=True), logits - logits.max(1, keepdims=True), atol=1e-4)
    vec_env.close()


def test_agent_file_round_trip_and_corrupt_files(tmp_path):
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(4, 6)).astype(np.float32), rng.normal(size=4).astype(np.float32)),
               (rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=3).astype(np.float32))]
    meta = {"name": "x", "game": "david_goliath", "num_players": 3, "activation": "tanh"}
    path = save_policy(tmp_path / "x.npz", weights, meta)
    agent = load_policy(path)
    assert agent.metadata["name"] == "x" and agent.observation_size == 6 and agent.num_actions == 3
    assert agent.act(np.ones(6, np.float32), np.array([0, 1, 0], np.int8)) == 1
    broken = tmp_path / "broken.npz"
    broken.write_bytes(path.read_bytes()[:100])
    with pytest.raises(AgentFileError, match="not a readable hiddenhand agent file"):
        load_policy(broken)
    with pytest.raises(AgentFileError, match="not found"):
        load_policy(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", metadata=np.frombuffer(b'{"format": "other"}', np.uint8))
    with pytest.raises(AgentFileError, match="format"):
        load_policy(tmp_path / "other.npz")
    bad = save_policy(tmp_path / "bad.npz", [weights[1], weights[0]], meta)
    with pytest.raises(AgentFileError, match="do not chain"):
        load_policy(bad)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, metadata=np.array([{"evil": 1}], dtype=object))
    with pytest.raises(AgentFileError):
        load_policy(pickled)
