"""Any agent file, damaged bytes or made-up layers: ``load`` gives an agent that plays legal moves in the
game, or an ``AgentFileError`` naming the file; never another exception, never a late failure."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from hiddenhand.agents import AgentFileError, load, save_policy
from hiddenhand.envs import make

GAME_ENV = make("david_goliath", num_players=3)
GAME = GAME_ENV.unwrapped.game
OBS = GAME_ENV.observation_space("player_0")["observation"].shape[0]
META = {"name": "f", "game": "david_goliath", "num_players": 3, "activation": "tanh"}


def sound_file(directory):
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(4, OBS)).astype(np.float32), np.zeros(4, np.float32)),
               (rng.normal(size=(90, 4)).astype(np.float32), np.zeros(90, np.float32))]
    return save_policy(directory / "sound.npz", weights, META)


def plays(agent) -> None:
    GAME_ENV.reset(seed=0)
    observation = GAME_ENV.observe(GAME_ENV.agent_selection)
    action = agent.act(observation["observation"], observation["action_mask"])
    assert observation["action_mask"][action]


def check(path) -> None:
    try:
        agent = load(str(path), GAME)
    except AgentFileError as error:
        assert str(path) in str(error)
        return
    plays(agent)


@given(data=st.data())
def test_damaged_bytes_load_soundly_or_are_refused(tmp_path_factory, data):
    directory = tmp_path_factory.mktemp("agent")
    original = sound_file(directory).read_bytes()
    size = len(original)
    damage = data.draw(st.sampled_from(["flip", "cut", "insert", "overwrite"]), label="damage")
    at = data.draw(st.integers(0, size - 1), label="at")
    raw = bytearray(original)
    if damage == "flip":
        raw[at] ^= data.draw(st.integers(1, 255), label="mask")
    elif damage == "cut":
        raw = raw[:at]
    elif damage == "insert":
        raw[at:at] = data.draw(st.binary(min_size=1, max_size=16), label="bytes")
    else:
        chunk = data.draw(st.binary(min_size=1, max_size=16), label="bytes")
        raw[at:at + len(chunk)] = chunk
    path = directory / "damaged.npz"
    path.write_bytes(bytes(raw))
    check(path)


FLOATS = st.sampled_from([np.float16, np.float32, np.float64])
LAYER_DTYPES = st.one_of(FLOATS, st.sampled_from([np.int32, np.uint8, np.bool_, np.complex64]))


def layer(rows, cols, dtype):
    shape = st.sampled_from([(rows, cols), (rows,), (cols, rows), (rows, cols, 1), (0, cols)])
    return shape.flatmap(lambda s: hnp.arrays(dtype, s, elements=None if dtype == np.bool_ else
                                              hnp.from_dtype(np.dtype(dtype), allow_nan=True, allow_infinity=True)
                                              if np.dtype(dtype).kind == "f" else None))


@given(data=st.data())
def test_made_up_layers_load_soundly_or_are_refused(tmp_path_factory, data):
    hidden = data.draw(st.lists(st.integers(1, 6), min_size=0, max_size=2), label="hidden")
    sizes = [data.draw(st.sampled_from([OBS, OBS - 1, 3]), label="inputs"), *hidden,
             data.draw(st.sampled_from([90, 89, 50]), label="actions")]
    arrays = {}
    for i, (inputs, outputs) in enumerate(zip(sizes, sizes[1:])):
        arrays[f"w{i}"] = data.draw(layer(outputs, inputs, data.draw(LAYER_DTYPES)), label=f"w{i}")
        arrays[f"b{i}"] = data.draw(hnp.arrays(data.draw(FLOATS), st.sampled_from([(outputs,), (outputs + 1,), ()])),
                                    label=f"b{i}")
    meta = data.draw(st.one_of(st.just(META), st.fixed_dictionaries(
        {"activation": st.sampled_from(["tanh", "relu", "gelu", 3])}).map(lambda m: {**META, **m}),
        st.sampled_from([[], "x", 1, None, {"format": 2}])), label="meta")
    path = tmp_path_factory.mktemp("agent") / "made.npz"
    payload = json.dumps({**meta, "format": "hiddenhand-policy/1"} if isinstance(meta, dict) else meta).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for key, array in {"metadata": np.frombuffer(payload, np.uint8), **arrays}.items():
            with archive.open(f"{key}.npy", "w") as handle:
                np.lib.format.write_array(handle, np.asarray(array), allow_pickle=False)
    with np.errstate(all="ignore"):
        check(path)


@pytest.mark.parametrize("claim", [(1 << 40,), (1 << 20, 1 << 20), (1 << 62, 4), (0, 1 << 62)])
def test_huge_headers_never_reach_the_allocator(tmp_path, claim):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": claim})
    path = sound_file(tmp_path)
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    entries["w0.npy"] = header.getvalue() + b"\0" * 16
    with zipfile.ZipFile(path, "w") as archive:
        for name, raw in entries.items():
            archive.writestr(name, raw)
    with pytest.raises(AgentFileError, match="header declares"):
        load(str(path), GAME)
