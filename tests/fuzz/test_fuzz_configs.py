"""Any training config, as data or as file bytes: a validated ``TrainConfig`` or a ``ConfigError`` naming
the source; never another exception. A config that validates builds its env and the PPO batch rules."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from hiddenhand.envs.core.options import ConfigError
from hiddenhand.training.config import PRESET_DIR, TrainConfig, config_from_dict, load_config

from fuzzing import ANY_SCALAR, GAMES


def sections(cls) -> dict:
    """Field names of a config dataclass; nested sections as dicts."""
    out = {}
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else None
        out[f.name] = sections(type(default)) if dataclasses.is_dataclass(default) else None
    return out


SHAPE = sections(TrainConfig)
NUMBERS = st.one_of(st.integers(-2, 3000), st.sampled_from([0.0, 0.5, 1.0, 1e-3, 3e-4, 2.0, -1.0, 2**40]),
                    st.sampled_from(["random", "heuristic", "tanh", "relu", "auto", "dummy"]))
VALUES = st.one_of(NUMBERS, ANY_SCALAR.filter(lambda v: not hasattr(v, "dtype")),
                   st.lists(st.one_of(st.integers(-1, 300), st.sampled_from(["random", "heuristic"])), max_size=3))


def mapping(shape: dict):
    keys = st.sampled_from(sorted(shape) + ["unknown"])
    return st.dictionaries(keys, st.deferred(lambda: VALUES), max_size=5).flatmap(
        lambda d: st.fixed_dictionaries({k: (mapping(shape[k]) if shape.get(k) else st.just(v)) for k, v in d.items()}))


ENV = st.dictionaries(st.sampled_from(["num_players", "rounds", "max_turns", "reward_mode", "render_mode", "x"]),
                      VALUES, max_size=2)


@given(game=st.sampled_from(GAMES), body=mapping(SHAPE), env=ENV, keep_env=st.booleans())
def test_any_config_data_validates_or_is_a_config_error(game, body, env, keep_env):
    data = {**body, "game": game}
    if keep_env:
        data["env"] = env
    if game == "koehandel" and isinstance(data.get("env", {}), dict):
        data["env"] = {"max_turns": 50, **data.get("env", {})}  # keep the env's game short
    try:
        config = config_from_dict(data, source="<fuzz>")
    except ConfigError as error:
        assert str(error).startswith("<fuzz>: ")
        return
    assert 2 <= config.ppo.batch_size <= config.ppo.n_steps * config.n_envs
    assert (config.ppo.n_steps * config.n_envs) % config.ppo.batch_size != 1
    assert config_from_dict(config.to_dict()) == config


PRESET = (PRESET_DIR / "david_goliath_quick.yaml").read_bytes()


@given(edit=st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda t: t.encode("utf-8")),
    st.tuples(st.integers(0, len(PRESET)), st.binary(min_size=1, max_size=8)).map(
        lambda e: PRESET[:e[0]] + e[1] + PRESET[e[0]:]),
    st.integers(0, len(PRESET)).map(lambda cut: PRESET[:cut]),
))
def test_any_file_bytes_load_or_are_a_config_error(tmp_path_factory, edit):
    path = tmp_path_factory.mktemp("cfg") / "run.yaml"
    path.write_bytes(edit)
    try:
        load_config(path)
    except ConfigError as error:
        assert str(path) in str(error)
