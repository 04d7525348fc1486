"""Agent files are checked when they load: every failure is an AgentFileError naming the file and the
problem, sizes are checked before anything is allocated, and names never lead outside agents/trained/.
The shipped agents keep loading and playing as before."""

import io
import json
import zipfile

import numpy as np
import pytest

import hiddenhand.agents as agents
from hiddenhand.agents import AgentFileError, PolicyAgent, load, load_policy, save_policy, shipped
from hiddenhand.agents.tournament import run_tournament
from hiddenhand.envs import make

GAME = make("david_goliath", num_players=3).unwrapped.game
OBS = make("david_goliath", num_players=3).observation_space("player_0")["observation"].shape[0]
META = {"name": "x", "game": "david_goliath", "num_players": 3, "activation": "tanh",
        "env_options": {"num_players": 3}}


def weights(sizes=(OBS, 8, 90), seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(out, inp)).astype(np.float32), rng.normal(size=out).astype(np.float32))
            for inp, out in zip(sizes, sizes[1:])]


def npy(array=None, header=None, data=b""):
    """The bytes of one .npy entry: a real array, or a hand-written header followed by ``data``."""
    buffer = io.BytesIO()
    if header is None:
        np.lib.format.write_array(buffer, array, allow_pickle=True)
    else:
        np.lib.format.write_array_header_1_0(buffer, header)
        buffer.write(data)
    return buffer.getvalue()


def metadata_entry(meta=META):
    return npy(np.frombuffer(json.dumps({**meta, "format": "hiddenhand-policy/1"}).encode(), np.uint8))


def write_archive(path, entries):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def entries_of(layers, meta=META):
    entries = {"metadata.npy": metadata_entry(meta)}
    for i, (w, b) in enumerate(layers):
        entries[f"w{i}.npy"], entries[f"b{i}.npy"] = npy(w), npy(b)
    return entries


def refused(path, match, game=None):
    with pytest.raises(AgentFileError, match=match) as info:
        load(str(path), game) if game is not None else load_policy(path)
    assert str(path) in str(info.value)
    return str(info.value)


def test_a_sound_file_loads_and_plays(tmp_path):
    path = save_policy(tmp_path / "a.npz", weights(), META)
    agent = load(str(path), GAME)
    env = make("david_goliath", num_players=3)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][agent.act(observation["observation"], observation["action_mask"])]


@pytest.mark.parametrize("signs", ["+", "-", "+-"])
def test_huge_finite_weights_still_play_a_legal_move(tmp_path, signs):
    """Finite weights whose logits overflow (to inf, or NaN from inf - inf) rank legal moves, never drop them
    (a case the agent-file fuzz found: 7e36 in every cell of a float32 layer, at the edge of overflow)."""
    row = np.resize([1e38 if sign == "+" else -1e38 for sign in signs], OBS).astype(np.float32)
    layers = [(np.tile(row, (90, 1)), np.zeros(90, np.float32))]
    agent = load(str(save_policy(tmp_path / "huge.npz", layers, META)), GAME)
    env = make("david_goliath", num_players=3)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    with np.errstate(over="ignore", invalid="ignore"):
        for deterministic in (True, False):
            agent.deterministic = deterministic
            assert observation["action_mask"][agent.act(observation["observation"], observation["action_mask"])]


def test_output_layer_must_match_the_games_action_count(tmp_path):
    path = save_policy(tmp_path / "fifty.npz", weights((OBS, 8, 50)), META)
    load_policy(path)  # consistent in itself ...
    message = refused(path, "50 outputs", GAME)  # ... but not for a 90-action game
    assert "90 actions" in message


def test_input_layer_must_match_the_observation_size(tmp_path):
    path = save_policy(tmp_path / "narrow.npz", weights((OBS - 1, 8, 90)), META)
    refused(path, f"observations of size {OBS - 1}.*gives {OBS}", GAME)


@pytest.mark.parametrize(("layers", "match"), [
    (lambda w: [(w[0][0], w[0][1][:-1]), w[1]], "b0 has 7 entries for the 8 outputs of w0"),
    (lambda w: [(np.where(np.arange(w[0][0].size).reshape(w[0][0].shape) == 5, np.nan, w[0][0]), w[0][1]), w[1]],
     "w0 holds non-finite values"),
    (lambda w: [w[0], (w[1][0], np.full(90, np.inf, np.float32))], "b1 holds non-finite values"),
    (lambda w: [(w[0][0].ravel(), w[0][1]), w[1]], "w0 must be 2-D"),
    (lambda w: [w[1], w[0]], "do not chain"),
    (lambda w: [(w[0][0].astype(np.int32), w[0][1]), w[1]], "dtype int32 is not allowed"),
    (lambda w: [(w[0][0][:0], w[0][1][:0]), w[1]], "empty"),
], ids=["bias-length", "nan-weight", "inf-bias", "1d-weight", "not-chaining", "int-weights", "empty-layer"])
def test_bad_layers(tmp_path, layers, match):
    path = write_archive(tmp_path / "bad.npz", entries_of(layers(weights())))
    refused(path, match)


def test_zero_byte_file(tmp_path):
    (tmp_path / "empty.npz").write_bytes(b"")
    refused(tmp_path / "empty.npz", "empty")


def test_metadata_must_be_a_json_object(tmp_path):
    entries = entries_of(weights())
    entries["metadata.npy"] = npy(np.frombuffer(b'["hiddenhand-policy/1"]', np.uint8))
    refused(write_archive(tmp_path / "list.npz", entries), "metadata is a JSON list, expected a JSON object")
    entries["metadata.npy"] = npy(np.frombuffer(b"\xff\xfe{}", np.uint8))
    refused(write_archive(tmp_path / "bytes.npz", entries), "metadata is not UTF-8 JSON")
    entries["metadata.npy"] = metadata_entry({**META, "num_players": "three"})
    refused(write_archive(tmp_path / "players.npz", entries), "num_players='three' is not an int")
    del entries["metadata.npy"]
    refused(write_archive(tmp_path / "none.npz", entries), "holds no metadata")


def test_a_header_claiming_four_tebibytes_is_refused_before_reading(tmp_path):
    entries = entries_of(weights())
    entries["w0.npy"] = npy(header={"descr": "<f4", "fortran_order": False, "shape": (1 << 20, 1 << 20)},
                            data=b"\0" * 64)
    refused(write_archive(tmp_path / "huge.npz", entries), r"header declares shape \(1048576, 1048576\)")


def test_a_header_claiming_more_than_the_entry_holds(tmp_path):
    entries = entries_of(weights())
    entries["b0.npy"] = npy(header={"descr": "<f4", "fortran_order": False, "shape": (8,)}, data=b"\0" * 12)
    refused(write_archive(tmp_path / "short.npz", entries), "the entry holds")


def test_pickles_are_refused_and_never_run(tmp_path):
    class Boom:
        def __reduce__(self):
            return (pytest.fail, ("unpickled: code ran",))

    entries = entries_of(weights())
    entries["w1.npy"] = npy(np.array([Boom()], dtype=object))
    refused(write_archive(tmp_path / "pickle.npz", entries), "dtype object is not allowed")
    entries = entries_of(weights())
    entries["metadata.npy"] = npy(np.array([{"format": 1}], dtype=object))
    refused(write_archive(tmp_path / "meta-pickle.npz", entries), "metadata must be 1-D uint8")


@pytest.mark.parametrize(("change", "match"), [
    (lambda e: e.update({"evil.py": b"print(1)"}), "unexpected entry 'evil.py'"),
    (lambda e: e.pop("b1.npy"), r"missing \['b1'\]"),
    (lambda e: e.update({"w7.npy": e["w1.npy"]}), "layers are not"),
], ids=["extra-entry", "missing-bias", "gap-in-layers"])
def test_archive_layout(tmp_path, change, match):
    entries = entries_of(weights())
    change(entries)
    refused(write_archive(tmp_path / "layout.npz", entries), match)


@pytest.mark.parametrize("data", [b"PK\x03\x04" + b"\0" * 40, b"not a zip at all", b"\x93NUMPY\x01\x00"],
                         ids=["broken-zip", "text", "bare-npy"])
def test_unreadable_bytes(tmp_path, data):
    (tmp_path / "junk.npz").write_bytes(data)
    refused(tmp_path / "junk.npz", "not a readable hiddenhand agent file")


def test_a_truncated_file(tmp_path):
    path = save_policy(tmp_path / "a.npz", weights(), META)
    for cut in (10, 100, path.stat().st_size // 2, path.stat().st_size - 1):
        (tmp_path / "cut.npz").write_bytes(path.read_bytes()[:cut])
        refused(tmp_path / "cut.npz", r"\S")


def test_names_resolve_only_inside_the_trained_folder(tmp_path, monkeypatch):
    save_policy(tmp_path / "outside.npz", weights(), META)
    folder = tmp_path / "trained"
    folder.mkdir()
    monkeypatch.setattr(agents, "TRAINED_DIR", folder)
    monkeypatch.chdir(folder)
    with pytest.raises(ValueError, match="unknown agent '../outside'"):
        load("../outside")  # the old code read trained/../outside.npz
    (folder / "link.npz").symlink_to(tmp_path / "outside.npz")
    with pytest.raises(ValueError, match="unknown agent 'link'"):
        load("link")  # a symlink does not lead a name out of the folder
    assert load("../outside.npz").metadata["name"] == "x"  # an explicit path is taken as given
    assert load(str(tmp_path / "outside.npz")).metadata["name"] == "x"
    assert agents.resolve("../outside.npz") == agents.Path("../outside.npz")


def test_a_bare_name_never_reads_the_working_directory(tmp_path, monkeypatch):
    """``load("cwdagent")`` once loaded ``./cwdagent``: a name resolves only in agents/trained."""
    save_policy(tmp_path / "cwdagent.npz", weights(), META)
    (tmp_path / "cwdagent").write_bytes((tmp_path / "cwdagent.npz").read_bytes())
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"never reads the working directory: to load a file, give its path "
                                         r"\(e.g. ./cwdagent\)"):
        load("cwdagent")
    assert load("./cwdagent").metadata["name"] == "x"  # the path the error suggests
    assert load("cwdagent.npz").metadata["name"] == "x"  # a file name ending in .npz is a path


@pytest.mark.parametrize("name", shipped())
def test_shipped_agents_load_and_play_as_before(name):
    """The same weights as a plain read of the file, the same logits, and full legal games."""
    agent = load(name)
    game, players = agent.metadata["game"], agent.metadata["num_players"]
    options = {k: v for k, v in agent.metadata["env_options"].items() if k != "num_players"}
    env = make(game, num_players=players, **options)
    load(name, env.unwrapped.game)  # fits the game's observation size and action count
    with np.load(agents.TRAINED_DIR / f"{name}.npz", allow_pickle=False) as raw:
        plain = [(raw[f"w{i}"], raw[f"b{i}"]) for i in range(len(agent.weights))]
    assert all(np.array_equal(w, pw) and np.array_equal(b, pb) for (w, b), (pw, pb) in zip(agent.weights, plain))
    env.reset(seed=1)
    observation = env.observe(env.agent_selection)["observation"]
    hidden = agent._input(observation)
    for w, b in plain[:-1]:
        hidden = np.tanh(w @ hidden + b)
    assert np.array_equal(agent.logits(observation), plain[-1][0] @ hidden + plain[-1][1])
    result = run_tournament(game, [name] + ["heuristic"] * (players - 1), games=players, seed=0,
                            env_options={k: v for k, v in options.items() if k != "reward_mode"})
    assert len(result.records) == players


def test_policy_agent_checks_what_it_is_given():
    with pytest.raises(AgentFileError, match="metadata must be a JSON object"):
        PolicyAgent(weights(), ["tanh"])
    with pytest.raises(AgentFileError, match="holds no layers"):
        PolicyAgent([], META)
    agent = PolicyAgent(weights(), META)
    with pytest.raises(ValueError, match=f"expects an observation of shape \\({OBS},\\)"):
        agent.act(np.zeros(OBS + 1, np.float32), np.ones(90, np.int8))
    with pytest.raises(ValueError, match="has 90 actions, the mask 50"):
        agent.act(np.zeros(OBS, np.float32), np.ones(50, np.int8))
