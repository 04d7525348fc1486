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


def test_imitation_teacher_may_be_a_search_agent(tmp_path):
    config = load_config(write(tmp_path, "game: david_goliath\nimitation: {teacher: 'ismcts:iterations=8'}\n"))
    assert config.imitation.teacher == "ismcts:iterations=8"
    message = load_error(tmp_path, "game: david_goliath\nimitation: {teacher: expert}\n")
    assert "'imitation.teacher' must be one of ['random', 'heuristic'] or a search agent spec" in message
    message = load_error(tmp_path, "game: david_goliath\nimitation: {teacher: 'ismcts:iterations=0'}\n")
    assert "'imitation.teacher' = 'ismcts:iterations=0'" in message and "iterations" in message


def test_game_is_required_and_checked(tmp_path):
    assert "missing required key 'game'" in load_error(tmp_path, "seed: 1\n")
    from hiddenhand.envs.registry import REGISTRY

    assert f"'game' must be one of {list(REGISTRY)}, got 'chess'" in load_error(tmp_path, "game: chess\n")


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


def test_the_evaluation_potential_needs_the_games_evaluation_hook():
    from hiddenhand.training.config import config_from_dict

    assert config_from_dict({"game": "rattus_cartus", "potential": "evaluation"}).potential == "evaluation"
    with pytest.raises(ConfigError, match="'potential' = 'evaluation' needs an evaluation hook, which "
                                          "cow_trade has not; allowed: \\['score_margin'\\]"):
        config_from_dict({"game": "cow_trade", "potential": "evaluation"})
    with pytest.raises(ConfigError, match="'potential'"):
        config_from_dict({"game": "david_goliath", "potential": "vp"})


# ------------------------------------------------------------------ meaning, not only type (issue 10)
@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        # a one-step minibatch normalises its advantage to NaN: the old code crashed after the first update
        ("ppo: {batch_size: 1}", "'ppo.batch_size' must be in [2, 1_000_000], got 1"),
        ("ppo: {n_steps: 64, batch_size: 128}\nn_envs: 1",
         "'ppo.batch_size' must be at most one rollout, ppo.n_steps * n_envs = 64 * 1 = 64, got 128"),
        ("ppo: {n_steps: 65, batch_size: 32}\nn_envs: 1", "one step left over"),
        ("ppo: {learning_rate: 2.0}", "'ppo.learning_rate' must be in (0, 1], got 2.0"),
        ("ppo: {clip_range: 5.0}", "'ppo.clip_range' must be in (0, 1], got 5.0"),
        ("ppo: {learning_rate: 100000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "00000000000000000000000000000000000000000000000000000000000000000000000000000000000}",
         "'ppo.learning_rate' must be in (0, 1], got 1000"),
        ("ppo: {net_arch: [8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]}", "at most 16 items, got 17"),
        ("ppo: {net_arch: [100000]}", "'ppo.net_arch[0]' must be in [1, 8192], got 100000"),
        ("seed: 4294967296", "'seed' must be in [0, 2_147_483_647], got 4294967296"),
        ("total_timesteps: 1_000_000_000_000_000", "'total_timesteps' must be in [1, 1_000_000_000_000]"),
        ("pool: {window: 1000}", "'pool.window' must be in [1, 100], got 1000"),
        ("imitation: {games: 10000000}", "'imitation.games' must be in [0, 10_000], got 10000000"),
        ("env: {render_mode: human}", "'env.render_mode' = 'human' is not allowed in training"),
        ("ppo: {n_steps: 1000000, batch_size: 1000}\nn_envs: 64",
         "GiB, more than the 8 GiB allowed; lower 'ppo.n_steps' or 'n_envs'"),
        ("ppo: {activation: ''}", "'ppo.activation' must be a short non-empty string"),
    ],
)
def test_ranges_that_training_needs(tmp_path, yaml_text, expected):
    assert expected in load_error(tmp_path, f"game: david_goliath\n{yaml_text}\n")


def test_koehandel_turn_cap_is_bounded(tmp_path):
    """The old code accepted max_turns: 1000000000 and ran out of memory at reset."""
    message = load_error(tmp_path, "game: koehandel\nenv: {max_turns: 1000000000}\n")
    assert "max_turns=1000000000 is not allowed" in message and "allowed: an int in 1..100000" in message


def test_presets_keep_loading_under_the_new_rules():
    for name in presets():
        config = load_config(name)
        assert config.ppo.batch_size <= config.ppo.n_steps * config.n_envs


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("game: david_goliath\n# café\n".encode("latin-1"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message and "not UTF-8 text: byte 0xe9 on line 2 (offset 25" in message


@pytest.mark.parametrize(("yaml_text", "key", "lines"), [
    ("game: david_goliath\nseed: 1\nseed: 2\n", "'seed'", "lines 2 and 3"),
    ("game: david_goliath\nppo:\n  n_steps: 64\n  batch_size: 64\n  n_steps: 128\n", "'n_steps'", "lines 3 and 5"),
    ("game: david_goliath\nenv: {num_players: 3, num_players: 4}\n", "'num_players'", "lines 2 and 2"),
])
def test_duplicate_keys_are_an_error(tmp_path, yaml_text, key, lines):
    """The old code kept the last value silently."""
    message = load_error(tmp_path, yaml_text)
    assert f"key {key} is given twice ({lines})" in message


def test_merge_keys_may_override(tmp_path):
    text = "game: david_goliath\nbase: &b {n_steps: 64, batch_size: 64}\n"
    assert "unknown key 'base'" in load_error(tmp_path, text)  # anchors are YAML; unknown keys still are not
    path = write(tmp_path, "game: david_goliath\nppo: {<<: {n_steps: 64, batch_size: 32}, batch_size: 64}\n")
    assert load_config(path).ppo.batch_size == 64


def test_oversized_and_code_building_files(tmp_path):
    path = write(tmp_path, "game: david_goliath\n" + "#" * (1 << 20) + "\n")
    with pytest.raises(ConfigError, match="more than a config file may hold"):
        load_config(path)
    message = load_error(tmp_path, "game: !!python/object/apply:os.system ['echo hacked']\n")
    assert "invalid YAML" in message
    message = load_error(tmp_path, "game: david_goliath\nenv: " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nested too deeply" in message or "'env' must be a mapping" in message


def test_cli_set_reports_bad_yaml(capsys):
    from hiddenhand.cli import main

    code = main(["train", "david_goliath", "--config", "david_goliath_quick", "--set", "ppo.n_steps=[1",
                 "--run-dir", "/nonexistent/never-created"])
    assert code == 2 and "the value is not YAML" in capsys.readouterr().err
