"""Rattus game data and options (RA-1, RA-2, AM-1, §0, §2, §9.2, §10.7): loading, replacement by a
user YAML file, and errors naming the file, the entry and the problem."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

from hiddenhand.envs import rattus_v0
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.rattus.config import TOKEN_FILES, _shipped
from hiddenhand.envs.rattus.rules import RattusGame
from playing import play_random


def shipped(key):
    return copy.deepcopy(_shipped("games/rattus.yaml")[key])


def test_shipped_tables_and_the_default():
    """AM-1: the calibrated table is the default; the reconstruction is a named alternative; both have 12
    starting + 37 normal tokens and every class symbol 10 times (class balance, RA-2)."""
    for name in TOKEN_FILES:
        game = RattusGame(3, token_table=name)
        types = game.types
        assert sum(t.count for t in types if t.starting) == 12 and sum(t.count for t in types) == 49
        assert [sum(t.classes[c] * t.count for t in types) for c in range(6)] == [10] * 6
    for n in (2, 3, 4):
        calibrated, reconstructed = RattusGame(n).types, RattusGame(n, token_table="reconstructed").types
        assert sum(t.m * t.count for t in calibrated) > sum(t.m * t.count for t in reconstructed)
        assert [t.limit for t in reconstructed][:2] == [2, 2] and calibrated[0].limit == 1


def test_per_player_count_token_table():
    """AM-1 (G1 at 2 players): the default has its own, more lethal table at 2 players, class-balanced like
    the others (12 starting + 37 normal, every class symbol 10 times, 47 types so the observation keeps its
    size); token_types_by_players replaces token_types only at the counts it names."""
    two, three, four = (RattusGame(n).types for n in (2, 3, 4))
    assert three == four and two != three and len(two) == len(three) == 47
    assert sum(t.count for t in two if t.starting) == 12 and sum(t.count for t in two) == 49
    assert [sum(t.classes[c] * t.count for t in two) for c in range(6)] == [10] * 6
    for field in ("m", "a"):
        assert sum(getattr(t, field) * t.count for t in two) > sum(getattr(t, field) * t.count for t in three)
    # a user token table holds at every count unless per-count tables come with it
    assert RattusGame(2, config={"token_types": shipped("token_types")}).types == three
    assert RattusGame(2, config={"token_types_by_players": None}).types == three
    mine = {"token_types_by_players": {3: shipped("token_types_by_players")[2]}}
    assert RattusGame(3, config=mine).types == two and RattusGame(2, config=mine).types == three
    assert RattusGame(4, config=mine).types == four
    assert RattusGame(2, token_table="reconstructed").types == RattusGame(3, token_table="reconstructed").types


def test_map_degrees_and_single_neighbour_warning(monkeypatch):
    """§2, RA-1: the default map's degrees; Turcia has one neighbour with 3 players (a warning)."""
    game = RattusGame(3)
    r = game.regions.index
    assert game.nbrs[r("Turcia")] == (r("Bulgaria"),)
    assert len(RattusGame(4).nbrs[r("Polonia")]) == 5 and len(RattusGame(2).nbrs[r("Polonia")]) == 3
    assert r("Gallia") in game.nbrs[r("Hispania")] and r("Polonia") not in game.nbrs[r("Hispania")]
    from hiddenhand.envs.rattus import config

    monkeypatch.setattr(config, "_WARNED", set())  # shown once per process and board
    with pytest.warns(UserWarning, match="Turcia has a single neighbour"):
        RattusGame(3, config={"adjacency": shipped("adjacency")})


def test_custom_map_and_token_table_from_a_user_yaml(tmp_path):
    """RA-1, RA-2: a user file replaces the adjacency, the regions in play and the token table."""
    adjacency = shipped("adjacency")
    adjacency["Anglia"].append("Hispania")
    adjacency["Hispania"].append("Anglia")
    counts = shipped("player_counts")
    counts[2]["regions"] = ["Anglia", "Gallia", "Hispania", "Italia"]
    counts[2]["removed_unseen"] = 5
    tokens = [{"id": f"s{i}", "set": "starting", "limit": 1, "count": 1, "symbols": ["A"]} for i in range(12)]
    tokens.append({"id": "n", "set": "normal", "limit": 9, "count": 37, "symbols": ["M", "CHURCH"]})
    path = tmp_path / "board.yaml"
    path.write_text(yaml.safe_dump({"adjacency": adjacency, "player_counts": counts, "token_types": tokens}))
    env = rattus_v0.env(num_players=2, config=str(path), start_player=0)
    env.reset(seed=1)
    game = env.unwrapped.game
    assert [game.regions[r] for r in game.in_play] == ["Anglia", "Gallia", "Hispania", "Italia"]
    assert game.regions.index("Hispania") in game.nbrs[game.regions.index("Anglia")]
    state = env.unwrapped.state_
    assert len(state.rat_supply) == 49 - 4 - 5 and len(game.types) == 13
    assert env.observation_space("player_0")["observation"].shape == (931 + 13,)
    play_random(env, 0)
    assert env.unwrapped.state_.is_terminal


@pytest.mark.parametrize("change,match", [
    ({"adjacency": {**shipped("adjacency"), "Anglia": ["Gallia", "Scandia", "Turcia"]}},
     r"adjacency\.Anglia.*symmetric"),
    ({"adjacency": {**shipped("adjacency"), "Anglia": ["Atlantis"]}}, r"adjacency\.Anglia.*'Atlantis' is not a region"),
    ({"adjacency": {**shipped("adjacency"), "Anglia": ["Anglia"]}}, r"adjacency\.Anglia.*itself"),
    ({"regions": ["A", "B"]}, r"regions.*exactly 12"),
    ({"player_counts": {**shipped("player_counts"), 2: {"regions": ["Anglia", "Hispania"], "removed_unseen": 0}}},
     r"player_counts\.2\.regions.*no neighbour in play"),
    ({"player_counts": {**shipped("player_counts"), 2: {"regions": ["Anglia", "Gallia", "Russia", "Tartaria"],
                                                       "removed_unseen": 0}}}, r"player_counts\.2\.regions.*not connected"),
    ({"token_types": [{"id": "x", "set": "normal", "limit": 2, "count": 49, "symbols": ["M"]}]},
     r"token_types.*0 starting \+ 49 normal"),
    ({"token_types": [{"id": "x", "set": "starting", "limit": 2, "count": 12, "symbols": ["PLAGUE"]}]},
     r"token_types\[0\] \(x\).*unknown symbol 'PLAGUE'"),
    ({"token_types": [{"id": "x", "set": "starting", "limit": 0, "count": 12, "symbols": ["M"]}]},
     r"token_types\[0\] \(x\).*limit=0"),
    ({"token_types_by_players": {5: shipped("token_types")}}, r"token_types_by_players.*player counts 2, 3, 4"),
    ({"token_types_by_players": {2: [{"id": "x", "set": "starting", "limit": 2, "count": 12, "symbols": ["PLAGUE"]}]}},
     r"token_types_by_players\.2\[0\] \(x\).*unknown symbol 'PLAGUE'"),
    ({"token_types_by_players": {3: shipped("token_types")[:-1]}},
     r"token_types_by_players\.3: 12 starting \+ 36 normal"),
    ({"constants": {**shipped("constants"), "max_tokens_per_region": 4}},
     r"constants\.max_tokens_per_region.*=4 is not supported.*3"),
    ({"constants": {**shipped("constants"), "spread_new_tokens": {0: 0, 1: 1, 2: 2}}},
     r"constants\.spread_new_tokens.*keys must be exactly 0\.\.3"),
    ({"board": {}}, r"unknown key\(s\) \['board'\]"),
])
def test_malformed_data_names_the_file_entry_and_problem(tmp_path, change, match):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(change))
    with pytest.raises(ConfigError, match=match) as error:
        RattusGame(2, config=str(path))
    assert "bad.yaml" in str(error.value)
    with pytest.raises(ConfigError, match=match):
        RattusGame(2, config=change)


def test_bad_options_and_files():
    with pytest.raises(ConfigError, match="token_table"):
        RattusGame(2, token_table="real")
    with pytest.raises(ConfigError, match="plague_start"):
        RattusGame(2, plague_start="Russia")  # not in play with 2 players
    with pytest.raises(ConfigError, match="cannot be read"):
        RattusGame(2, config="/nonexistent/rattus.yaml")
    with pytest.raises(ConfigError, match="final_round_abilities"):
        RattusGame(2, final_round_abilities=["Knight"])
    with pytest.raises(ConfigError, match="reward"):
        RattusGame(2, reward={"win": -1, "loss": 1})
    game = RattusGame(4, plague_start="Russia", start_player=2)
    state = game.new_initial_state(np.random.default_rng(0))
    assert game.regions[state.plague] == "Russia" and state.start_seat == 2


@pytest.mark.parametrize("reward,key", [({"win": float("nan")}, "win"), ({"win": float("inf")}, "win"),
                                        ({"loss": float("-inf")}, "loss"), ({"win": 1e300, "loss": -1e300}, "win")])
def test_non_finite_rewards_are_refused(reward, key):
    """§10.4, issue 22: a reward value that is not a finite number (or so large that a shared win's
    (win + (k-1) loss) / k overflows) is refused, the error naming the option and the key."""
    with pytest.raises(ConfigError, match=rf"reward\.{key}=.*finite"):
        rattus_v0.env(reward=reward)


def test_config_file_errors_name_the_option(tmp_path):
    """Issue 22: an unreadable or malformed ``config`` file's error says ``config=`` and what is wrong."""
    with pytest.raises(ConfigError, match=r"rattus: config='/etc/passwd': .*mapping"):
        RattusGame(2, config="/etc/passwd")
    with pytest.raises(ConfigError, match=r"config='/nonexistent/rattus.yaml': cannot be read"):
        RattusGame(2, config="/nonexistent/rattus.yaml")
    binary = tmp_path / "board.yaml"
    binary.write_bytes(b"regions: [\xff\xfe]\n")
    with pytest.raises(ConfigError, match=r"config='.*board.yaml': not UTF-8"):
        RattusGame(2, config=str(binary))
    with pytest.raises(ConfigError, match=r"config='/dev/zero': not a regular file"):
        RattusGame(2, config="/dev/zero")
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * 2_000_000)
    with pytest.raises(ConfigError, match=r"config='.*big.yaml': .*bytes or more, more than"):
        RattusGame(2, config=str(big))
    with pytest.raises(ConfigError, match=r"config='.*bad.yaml': not valid YAML"):
        (tmp_path / "bad.yaml").write_text("regions: [")
        RattusGame(2, config=str(tmp_path / "bad.yaml"))
    with pytest.raises(ConfigError, match=r"config=\{'board': \.\.\.\}: unknown key"):
        RattusGame(2, config={"board": {}})


def test_a_relative_path_is_never_a_shipped_file(tmp_path, monkeypatch):
    """A user path that happens to look like a packaged file (``games/...``) is read from the disk only."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"config='games/rattus_cartus.yaml': cannot be read"):
        RattusGame(2, config="games/rattus_cartus.yaml")


@pytest.mark.parametrize("change,match", [
    ({"adjacency": {**shipped("adjacency"), "Anglia": [["Gallia"]]}}, r"adjacency\.Anglia.*\['Gallia'\] is not a region"),
    ({"player_counts": {2: {}, "3": {}, 4: {}}}, r"player_counts.*exactly the player counts 2, 3 and 4"),
    ({"player_counts": {**shipped("player_counts"), 2: {"regions": [["Anglia"]], "removed_unseen": 0}}},
     r"player_counts\.2\.regions"),
    ({"constants": {**shipped("constants"), "spread_new_tokens": {0: 0, "1": 1, 2: 2, 3: 2}}},
     r"constants\.spread_new_tokens.*keys must be exactly 0\.\.3"),
    ({"token_types": [{"id": "x", "set": ["starting"], "limit": 2, "count": 12, "symbols": ["M"]}]},
     r"token_types\[0\] \(x\).*set="),
    ({"token_types": [{"id": "x", "set": "starting", "limit": 2, "count": 12, "symbols": [["M"]]}]},
     r"token_types\[0\] \(x\).*unknown symbol"),
    ({"token_types_by_players": {2: None, "x": []}}, r"token_types_by_players.*player counts 2, 3, 4"),
])
def test_malformed_entries_of_any_type_are_config_errors(change, match):
    """Entries of an unexpected type (lists where names go, keys of mixed types) are ConfigErrors naming
    the entry, never a TypeError from inside the checks."""
    with pytest.raises(ConfigError, match=match):
        RattusGame(2, config=change)


def test_the_map_warning_is_shown_once_per_map(monkeypatch):
    """RA-1, issue 22: the single-neighbour warning is shown once per distinct board, not per env built
    (a long-lived process such as ``serve`` builds many)."""
    import warnings

    from hiddenhand.envs.rattus import config

    monkeypatch.setattr(config, "_WARNED", set())
    other = shipped("adjacency")
    other["Anglia"].append("Hispania")
    other["Hispania"].append("Anglia")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            RattusGame(3)
            rattus_v0.env(num_players=3, config={"adjacency": shipped("adjacency")})
            RattusGame(3, config={"adjacency": other})
    messages = [str(w.message) for w in caught if "single neighbour" in str(w.message)]
    assert len(messages) == 2 and all("Turcia" in m for m in messages)


def test_a_key_given_twice_is_refused(tmp_path):
    """YAML keeps the last of two equal keys silently; a data file that gives one twice is refused."""
    path = tmp_path / "twice.yaml"
    path.write_text("adjacency:\n  Anglia: [Gallia]\n  Anglia: [Scandia]\n")
    with pytest.raises(ConfigError, match=r"config='.*twice.yaml': key 'Anglia' is given twice \(lines 2 and 3\)"):
        RattusGame(2, config=str(path))


def test_a_refused_map_draws_no_warning(monkeypatch):
    """RA-1: the single-neighbour warning is for maps that load; a refused one only raises."""
    import warnings

    from hiddenhand.envs.rattus import config

    monkeypatch.setattr(config, "_WARNED", set())
    counts = shipped("player_counts")
    counts[2] = {"regions": ["Anglia", "Gallia", "Russia", "Tartaria"], "removed_unseen": 0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ConfigError, match="not connected"):
            RattusGame(2, config={"player_counts": counts})
    assert [str(w.message) for w in caught] == []
