"""Imitation warm start: the cloned policy agrees with its teacher far above chance."""

import numpy as np

from hiddenhand.training.config import config_from_dict
from hiddenhand.training.imitation import clone, teacher_games
from hiddenhand.training.runs import agent_metadata
from hiddenhand.training.train import make_vec_env, new_model

CONFIG = {
    "game": "koehandel", "env": {"num_players": 3, "auto_resolve_forced": True, "auto_payment": True},
    "dense_reward": True, "n_envs": 1, "vec_env": "dummy",
    "ppo": {"n_steps": 64, "batch_size": 64, "net_arch": [64]},
    "imitation": {"teacher": "heuristic", "games": 4, "epochs": 4, "batch_size": 256},
}


def test_teacher_games_record_legal_moves_and_return_targets():
    config = config_from_dict(CONFIG)
    data = teacher_games(config)
    size = len(data["actions"])
    assert size > 500 and data["observations"].shape[0] == data["masks"].shape[0] == size
    assert data["masks"][np.arange(size), data["actions"]].all()  # the teacher only plays legal moves
    assert np.isfinite(data["targets"]).all() and data["observations"].dtype == np.float32


def test_cloning_learns_the_teachers_moves(tmp_path):
    config = config_from_dict(CONFIG)
    vec_env = make_vec_env(config, agent_metadata(config))
    try:
        model = new_model(config, vec_env, tmp_path)
        data = teacher_games(config)
        report = clone(model, data, config)
    finally:
        vec_env.close()
    chance = np.mean(1 / data["masks"].sum(axis=1))  # agreement of a uniformly random legal move
    assert report["agreement"] > max(0.6, 2 * chance)


def test_a_search_teacher_is_bound_to_every_seat_and_plays_legal_moves():
    """Expert iteration's first step: the search agent teaches (it needs ``bind`` to reach the game)."""
    config = config_from_dict({"game": "david_goliath", "env": {"num_players": 3, "rounds": 1},
                               "n_envs": 1, "vec_env": "dummy", "ppo": {"n_steps": 64, "batch_size": 64},
                               "imitation": {"teacher": "pimc:determinizations=1", "games": 2}})
    data = teacher_games(config)
    size = len(data["actions"])
    assert size > 0 and data["masks"][np.arange(size), data["actions"]].all()
