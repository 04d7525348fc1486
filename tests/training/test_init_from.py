"""``init_from``: a run whose actor starts from a trained agent's policy (to continue a shipped agent with
other settings), checked against the run's network before anything trains."""

from __future__ import annotations

import numpy as np
import pytest

from hiddenhand.agents import save_policy
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.training.config import config_from_dict
from hiddenhand.training.runs import write_model_card
from hiddenhand.training.train import make_vec_env, new_model, policy_weights

BASE = {"game": "david_goliath", "env": {"num_players": 3, "rounds": 1}, "n_envs": 1, "vec_env": "dummy",
        "ppo": {"n_steps": 32, "batch_size": 32, "net_arch": [8]}}


def agent_file(tmp_path, widths=(8,), activation="tanh"):
    from hiddenhand.envs import make

    size = make("david_goliath", num_players=3).observation_space("player_0")["observation"].shape[0]
    rng = np.random.default_rng(0)
    sizes = [size, *widths, 90]
    weights = [(rng.normal(size=(b, a)).astype(np.float32), rng.normal(size=b).astype(np.float32))
               for a, b in zip(sizes, sizes[1:])]
    meta = {"name": "start", "game": "david_goliath", "num_players": 3, "activation": activation,
            "env_options": {"num_players": 3}}
    return str(save_policy(tmp_path / "start.npz", weights, meta)), weights


def test_the_actor_starts_from_the_agent(tmp_path):
    path, weights = agent_file(tmp_path)
    config = config_from_dict({**BASE, "init_from": path})
    env = make_vec_env(config, {})
    try:
        model = new_model(config, env, tmp_path)
        assert all(np.array_equal(a, b) and np.array_equal(c, d)
                   for (a, c), (b, d) in zip(policy_weights(model), weights))
    finally:
        env.close()
    assert config.to_dict()["init_from"] == path
    assert "init_from" not in config_from_dict(BASE).to_dict()  # runs recorded before the key resume unchanged


@pytest.mark.parametrize("widths, activation, match", [
    ((16,), "tanh", "has layers \\[16, 90\\] with tanh; the run's actor has \\[8, 90\\] with tanh"),
    ((8,), "relu", "with relu; the run's actor has \\[8, 90\\] with tanh"),
])
def test_an_agent_that_does_not_fit_is_refused(tmp_path, widths, activation, match):
    path, _ = agent_file(tmp_path, widths, activation)
    with pytest.raises(ConfigError, match=match):
        config_from_dict({**BASE, "init_from": path})
    with pytest.raises(ConfigError, match="'init_from' = 'nobody'"):
        config_from_dict({**BASE, "init_from": "nobody"})
    with pytest.raises(ConfigError, match="'init_from' = 'heuristic' is not a trained agent"):
        config_from_dict({**BASE, "init_from": "heuristic"})


def test_the_model_card_names_the_start(tmp_path):
    config = config_from_dict({**BASE, "init_from": agent_file(tmp_path)[0]})
    meta = {"name": "x", "game": "david_goliath", "num_players": 3, "env_options": {}, "timesteps": 1,
            "wall_time_s": 1.0, "train_steps_per_s": 1.0, "activation": "tanh", "libraries": {},
            "training_config": config.to_dict()}
    card = write_model_card(tmp_path / "x.md", meta).read_text()
    assert f"| warm start | the policy of {config.init_from} |" in card
