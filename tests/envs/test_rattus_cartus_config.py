"""Rattus Cartus options and game data (§2.4, §5, R-A2, R-A4, R-A40): every bad value is a ConfigError
naming the option, or the file, entry and problem of a supply table."""

from __future__ import annotations

import copy
from importlib import resources

import pytest
import yaml

from hiddenhand.envs import rattus_cartus_v0
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.rattus_cartus.config import game_data
from hiddenhand.envs.rattus_cartus.rules import RattusCartusGame


@pytest.mark.parametrize("option,value,match", [
    ("building_selection", "all", "building_selection"),
    ("agreed_set", "expert", "agreed_set"),
    ("agreed_set", {"farm": 5}, "sum to 5"),
    ("agreed_set", {"farm": 6, "marketplace": 5, "monastery": 5, "castle": 5, "fortune_tellers_tent": 5,
                    "palace": 5}, "farm=6"),
    ("agreed_set", {"mill": 5}, "not a building"),
    ("start_player", 4, "start_player"),
    ("start_player", "first", "start_player"),
    ("point_token_values", [1] * 19, "point_token_values"),
    ("population_choice", "best", "population_choice"),
    ("rats_public", 1, "rats_public"),
    ("supply_table", 5, "supply_table"),
])
def test_bad_options_name_the_option(option, value, match):
    with pytest.raises(ConfigError, match=match):
        rattus_cartus_v0.env(num_players=4, **{option: value})


def test_non_uniform_point_tokens_need_finite_supplies():
    """R-A2."""
    with pytest.raises(ConfigError, match="finite_supplies"):
        RattusCartusGame(3, point_token_values=list(range(20)), finite_supplies=False)
    RattusCartusGame(3, point_token_values=[2] * 20, finite_supplies=False)


def test_the_default_table_holds_the_rulebook_example_cards():
    """R-A40: Tent copy 1 = draw 2 + look 1, Monastery copy 0 = draw 4, copy 3 = discard 2 rats; every
    entry worth 4 units (1 per card, 2 per rat, 2 per look)."""
    table = game_data()["supply_table"]["buildings"]
    assert table["fortune_tellers_tent"][1] == {"copy": 1, "draw": 2, "discard_rats": 0, "peek": 1}
    assert table["monastery"][0] == {"copy": 0, "draw": 4, "discard_rats": 0, "peek": 0}
    assert table["monastery"][3] == {"copy": 3, "draw": 0, "discard_rats": 2, "peek": 0}
    assert all(e["draw"] + 2 * e["discard_rats"] + 2 * e["peek"] == 4 for rows in table.values() for e in rows)


def test_a_replacement_table_from_a_mapping_or_a_file(tmp_path):
    """§5, R-A40: the table is data; a user file replaces it and the game uses its entries."""
    table = copy.deepcopy(game_data()["supply_table"])
    for rows in table["buildings"].values():
        for entry in rows:
            entry.update(draw=1, discard_rats=0, peek=0)
    game = RattusCartusGame(4, supply_table=table)
    assert set(game.supply_action) == {(1, 0, 0)}
    path = tmp_path / "table.yaml"
    path.write_text(yaml.safe_dump({"supply_table": table}))
    game = RattusCartusGame(4, supply_table=str(path))
    assert game.config()["supply_table"]["buildings"]["farm"][0]["draw"] == 1
    assert RattusCartusGame(4, **{k: v for k, v in game.config().items() if k != "num_players"}).config() == game.config()


@pytest.mark.parametrize("edit,match", [
    (lambda t: t["buildings"]["farm"].pop(), r"buildings.farm must be a list of exactly 5"),
    (lambda t: t["buildings"]["farm"][2].update(draw=-1), r"buildings.farm\[2\]: draw=-1"),
    (lambda t: t["buildings"]["castle"][1].update(draw=0, peek=0), r"castle\[1\]: a supply action needs"),
    (lambda t: t["buildings"]["palace"][0].update(peek=6), r"palace\[0\]: peek=6"),
    (lambda t: t["buildings"]["palace"][0].update(copy=1), r"palace\[1\]: copy=1 must be a distinct"),
    (lambda t: t["buildings"].pop("treasury"), r"lacks treasury"),
    (lambda t: t["buildings"].update(mill=[]), r"mill is not a building"),
    (lambda t: t.update(execution_order=["peek", "draw", "discard_rats"]), r"execution_order"),
])
def test_a_malformed_table_names_file_entry_and_problem(tmp_path, edit, match):
    table = copy.deepcopy(game_data()["supply_table"])
    edit(table)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"supply_table": table}))
    with pytest.raises(ConfigError, match=match) as error:
        RattusCartusGame(4, supply_table=str(path))
    assert str(path) in str(error.value)
    with pytest.raises(ConfigError, match=match):
        RattusCartusGame(4, supply_table=table)


def test_a_table_only_needs_the_buildings_a_game_can_use():
    table = copy.deepcopy(game_data()["supply_table"])
    del table["buildings"]["treasury"]
    RattusCartusGame(4, supply_table=table, building_selection="agreed")  # the beginner set has no Treasury
    with pytest.raises(ConfigError, match="lacks treasury"):
        RattusCartusGame(4, supply_table=table)


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot be read"):
        RattusCartusGame(4, supply_table=str(tmp_path / "missing.yaml"))
    path = tmp_path / "broken.yaml"
    path.write_text("supply_table: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        RattusCartusGame(4, supply_table=str(path))


def test_a_supply_table_file_is_read_like_every_user_yaml_file(tmp_path):
    """§5 (issue 23): the supply-table file was read with plain ``yaml.safe_load``: a key given twice kept
    its last value silently, ``/dev/zero`` was read without end, and the text's encoding was the locale's.
    It is read by the one strict reader now (``envs/core/yaml_files.py``), its errors naming the option."""
    shipped = (resources.files("hiddenhand.configs") / "games" / "rattus_cartus.yaml").read_text(encoding="utf-8")
    twice = tmp_path / "twice.yaml"
    twice.write_text(shipped.replace("      - {copy: 0, draw: 4, discard_rats: 0, peek: 0}",
                                     "      - {copy: 0, draw: 4, discard_rats: 0, peek: 0, draw: 1}", 1),
                     encoding="utf-8")
    with pytest.raises(ConfigError, match=r"supply_table file '.*twice.yaml': key 'draw' is given twice"):
        RattusCartusGame(4, supply_table=str(twice))
    with pytest.raises(ConfigError, match=r"supply_table file '/dev/zero': not a regular file"):
        RattusCartusGame(4, supply_table="/dev/zero")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(shipped.replace("# Rattus Cartus", "# Rattus Cartus café", 1).encode("latin-1"))
    with pytest.raises(ConfigError, match=r"supply_table file '.*latin.yaml': not UTF-8 text: byte 0xe9 on line 1"):
        RattusCartusGame(4, supply_table=str(latin))


def test_config_and_snapshots_share_nothing_with_the_live_game():
    """§2.4, §5 (issue 22): editing a returned config or snapshot, or the mapping given as an option, changes
    neither the env nor earlier snapshots, which still restore."""
    agreed = copy.deepcopy(game_data()["agreed_sets"]["beginner"])
    env = rattus_cartus_v0.env(num_players=3, building_selection="agreed", agreed_set=agreed)
    env.reset(seed=18)
    raw = env.unwrapped
    before = raw.game.config()
    earlier = copy.deepcopy(raw.snapshot())
    snapshot = raw.snapshot()
    snapshot["config"]["supply_table"]["buildings"]["farm"][0]["draw"] = 7
    snapshot["config"]["agreed_set"]["farm"] = 0
    raw.game.config()["supply_table"]["buildings"]["farm"][1]["draw"] = 9
    agreed["farm"] = 1
    assert raw.game.config() == before
    raw.restore(earlier)
    assert raw.snapshot() == earlier
