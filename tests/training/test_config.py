"""Training-config loading: shipped presets, validation errors and overrides."""

from __future__ import annotations

import json

import pytest

from hiddenhand.training.config import (
    ConfigError,
    PPOConfig,
    TrainConfig,
    config_from_dict,
    config_path,
    load_config,
    presets,
    with_overrides,
)


def write(tmp_path, text: str):
    path = tmp_path / "run.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def load_error(tmp_path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    return message


def test_presets_ship_and_load():
    assert {"david_goliath", "david_goliath_quick"} <= set(presets())
    full = load_config("david_goliath")
    assert full == load_config(config_path("david_goliath"))
    assert (full.game, full.env["num_players"]) == ("david_goliath", 4)
    assert full.total_timesteps > 10 * load_config("david_goliath_quick").total_timesteps
    quick = load_config("david_goliath_quick")
    assert (quick.total_timesteps, quick.ppo.net_arch, quick.pool.snapshot_every) == (
        60_000,
        [128, 128],
        10_000,
    )
    assert quick.ppo.learning_rate == PPOConfig().learning_rate  # defaults fill omitted keys


def test_to_dict_round_trips_through_json():
    config = load_config("david_goliath_quick")
    data = json.loads(json.dumps(config.to_dict()))
    assert config_from_dict(data) == config


def test_minimal_file_gets_defaults_and_ints_become_floats(tmp_path):
    config = load_config(write(tmp_path, "game: david_goliath\nppo: {gamma: 1, learning_rate: 0.001}\n"))
    assert config == TrainConfig(game="david_goliath", ppo=PPOConfig(gamma=1.0, learning_rate=0.001))
    assert isinstance(config.ppo.gamma, float)


def test_unknown_key_names_key_and_allowed_keys(tmp_path):
    message = load_error(tmp_path, "game: david_goliath\nppo: {lr: 0.1}\n")
    assert "unknown key 'ppo.lr'" in message
    assert "learning_rate" in message and "net_arch" in message


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        ("ppo: {n_steps: abc}", "'ppo.n_steps' must be int, got str 'abc'"),
        ("ppo: {n_steps: true}", "'ppo.n_steps' must be int, got bool True"),
        ("ppo: {n_epochs: 2.5}", "'ppo.n_epochs' must be int, got float 2.5"),
        ("ppo: {learning_rate: 3e-4}", "write 3.0e-4"),
        ("ppo: {net_arch: [64, x]}", "'ppo.net_arch[1]' must be int"),
        ("ppo: 5", "'ppo' must be a mapping, got int 5"),
        ("env: [1]", "'env' must be a mapping"),
    ],
)
def test_wrong_type(tmp_path, yaml_text, expected):
    assert expected in load_error(tmp_path, f"game: david_goliath\n{yaml_text}\n")


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        ("n_envs: 65", "'n_envs' must be in [1, 64], got 65"),
        ("total_timesteps: 0", "'total_timesteps' must be in [1, 1_000_000_000_000], got 0"),
        ("ppo: {learning_rate: 0.0}", "'ppo.learning_rate' must be in (0, 1], got 0.0"),
        ("ppo: {gamma: 0}", "'ppo.gamma' must be in (0, 1], got 0.0"),
        ("ppo: {gae_lambda: 1.5}", "'ppo.gae_lambda' must be in [0, 1], got 1.5"),
        ("ppo: {net_arch: []}", "'ppo.net_arch' must not be empty"),
        ("ppo: {net_arch: [64, 0]}", "'ppo.net_arch[1]' must be in [1, 8192], got 0"),
        ("ppo: {activation: gelu}", "'ppo.activation' must be one of ['tanh', 'relu'], got 'gelu'"),
        ("vec_env: threads", "'vec_env' must be one of ['auto', 'dummy', 'subproc']"),
        ("ppo: {max_grad_norm: .inf}", "'ppo.max_grad_norm' must be finite"),
    ],
)
def test_out_of_range(tmp_path, yaml_text, expected):
    assert expected in load_error(tmp_path, f"game: david_goliath\n{yaml_text}\n")


def test_pool_probabilities_must_sum_to_one(tmp_path):
    message = load_error(tmp_path, "game: david_goliath\npool: {latest_prob: 0.6}\n")
    assert "must sum to 1, got 1.1" in message
    ok = "game: david_goliath\npool: {latest_prob: 1, snapshot_prob: 0, baseline_prob: 0, baselines: []}"
    assert load_config(write(tmp_path, ok)).pool.latest_prob == 1.0


def test_bad_baseline_and_opponent_names(tmp_path):
    message = load_error(tmp_path, "game: david_goliath\npool: {baselines: [random, expert]}\n")
    assert "'pool.baselines[1]' must be one of ['random', 'heuristic'], got 'expert'" in message
    message = load_error(tmp_path, "game: david_goliath\neval: {opponents: [greedy]}\n")
    assert "'eval.opponents[0]'" in message


def test_game_is_required_and_checked(tmp_path):
    assert "missing required key 'game'" in load_error(tmp_path, "seed: 1\n")
    assert "'game' must be one of ['david_goliath', 'koehandel'], got 'chess'" in load_error(tmp_path, "game: chess\n")


@pytest.mark.parametrize(
    ("env", "expected"), [("{num_players: 9}", "num_players"), ("{colour_blind: true}", "colour_blind")]
)
def test_bad_env_option(tmp_path, env, expected):
    message = load_error(tmp_path, f"game: david_goliath\nenv: {env}\n")
    assert "'env'" in message and expected in message


def test_missing_file_lists_presets(tmp_path):
    with pytest.raises(ConfigError, match="not found.*david_goliath_quick"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="no preset named 'nope'"):
        config_path("nope")


def test_invalid_yaml_and_non_mapping(tmp_path):
    assert "invalid YAML" in load_error(tmp_path, "game: [david_goliath\n")
    assert "the top level must be a mapping, got list" in load_error(tmp_path, "- game\n")
    assert "the top level must be a mapping, got NoneType" in load_error(tmp_path, "")


def test_overrides_apply_and_revalidate():
    base = load_config("david_goliath_quick")
    changed = with_overrides(base, {"total_timesteps": 5000, "env.num_players": 3, "ppo.n_steps": 64,
                                  "ppo.batch_size": 64})
    assert (changed.total_timesteps, changed.env["num_players"], changed.ppo.n_steps) == (5000, 3, 64)
    assert changed.ppo.net_arch == base.ppo.net_arch and base.total_timesteps == 60_000
    with pytest.raises(ConfigError, match="<overrides>: unknown key 'ppo.lr'"):
        with_overrides(base, {"ppo.lr": 0.1})
    with pytest.raises(ConfigError, match="'n_envs' must be in"):
        with_overrides(base, {"n_envs": 0})
    with pytest.raises(ConfigError, match="num_players"):
        with_overrides(base, {"env.num_players": 9})


def test_bool_fields_accept_only_bools():
    from hiddenhand.training.config import config_from_dict

    assert config_from_dict({"game": "david_goliath", "dense_reward": True}).dense_reward is True
    with pytest.raises(ConfigError, match="'dense_reward' must be bool, got int 1"):
        config_from_dict({"game": "david_goliath", "dense_reward": 1})
    with pytest.raises(ConfigError, match="'seed' must be int, got bool True"):
        config_from_dict({"game": "david_goliath", "seed": True})
