"""Koehandel options (core Option specs) and game data (configs/games/koehandel.yaml): K-A1, K-A2, Appendix A."""

import copy

import pytest

from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.koehandel.config import KoehandelConfig, check_game_data, game_data, option_specs


def test_shipped_game_data_is_the_spec_table():
    data = game_data()
    assert data["animal_values"] == [10, 40, 90, 160, 250, 350, 500, 650, 800, 1000]  # K-A1
    assert data["money_composition"] == [12, 18, 6, 12, 6, 6, 6]  # K-A2: 66 cards, 5,700
    assert sum(data["money_composition"]) == 66
    assert data["donkey_payouts"] == [50, 100, 200, 500]


@pytest.mark.parametrize("key, bad, message", [
    ("animal_values", [10, 40], r"koehandel.yaml: animal_values=\[10, 40\] is not allowed; allowed: a list of 10"),
    ("money_composition", "lots", "koehandel.yaml: money_composition='lots' is not allowed"),
    ("money_composition", [12, 18, 6, 12, 6, 6, 200], "money_composition=.*each in 0..127"),
    ("donkey_payouts", [50, 100, 200, 300], "koehandel.yaml: donkey_payouts=.*allowed: 4 denominations"),
    ("donkey_species", 12, "koehandel.yaml: donkey_species=12 is not allowed; allowed: an int in 0..9"),
    ("pedigree_value", -250, "koehandel.yaml: pedigree_value=-250"),
    ("two_player_removed", True, "koehandel.yaml: two_player_removed=True"),
    ("species", ["cow"] * 10, "koehandel.yaml: species="),
])
def test_corrupt_game_data_is_rejected_naming_the_file_and_key(key, bad, message):
    data = {**game_data(), key: bad}
    with pytest.raises(ConfigError, match=message):
        check_game_data(data, "koehandel.yaml")


def test_game_data_keys_are_checked():
    data = dict(game_data())
    del data["pedigree_value"]
    with pytest.raises(ConfigError, match=r"koehandel.yaml: missing key\(s\) \['pedigree_value'\]"):
        check_game_data(data, "koehandel.yaml")
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['colour'\]"):
        check_game_data({**game_data(), "colour": 1}, "koehandel.yaml")
    with pytest.raises(ConfigError, match="expected a mapping"):
        check_game_data([1, 2], "koehandel.yaml")


def test_every_option_is_a_core_option_with_the_documented_default():
    specs = option_specs()
    assert specs.owner == "koehandel"
    defaults = {name: spec.default for name, spec in specs.specs.items()}
    config = KoehandelConfig.from_options()
    assert {name: getattr(config, name) for name in defaults} == defaults
    assert config.options() == {**defaults, "animal_values": list(defaults["animal_values"]),
                                "money_composition": list(defaults["money_composition"])}
    assert koehandel_v0.env().unwrapped.game.config() == {k: v for k, v in config.options().items()
                                                          if k != "num_players"}


def test_options_override_the_data_and_are_validated():
    config = KoehandelConfig.from_options(num_players=3, animal_values=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert config.animal_values == tuple(range(1, 11))
    with pytest.raises(ConfigError, match=r"koehandel: animal_values=\[0, .*allowed: a list of 10 ints, each in 1"):
        KoehandelConfig.from_options(animal_values=[0] * 10)
    with pytest.raises(ConfigError, match="money_composition=.*to supply the starting capital"):
        KoehandelConfig.from_options(num_players=6, money_composition=[12, 18, 6, 6, 6, 6, 6])
    with pytest.raises(ConfigError, match=r"money_composition=.*each in 0..127"):
        KoehandelConfig.from_options(money_composition=[10, 200, 10, 10, 10, 10, 10])


@pytest.mark.parametrize("option, value, allowed", [
    ("max_turns", 0, "an int in 1..100000"),
    ("max_turns", 10**9, "an int in 1..100000"),  # a full record of that size would exhaust memory
    ("max_turns", True, "an int in 1..100000"),
    ("overbid_cap", 15, "None or an int in 10..1000000, a multiple of 10"),
    ("overbid_cap", 0, "None or an int in 10..1000000, a multiple of 10"),
    ("overbid_mode", "bluff", r"one of \['mask', 'reveal_and_restart'\]"),
    ("pass_is_final", 1, "True or False"),
    ("money_composition", [12, 18, 6, 12, 6, 6], "a list of 7 ints"),
    ("num_players", 7, "an int in 2..6"),
])
def test_option_errors_name_the_option_the_value_and_what_is_allowed(option, value, allowed):
    with pytest.raises(ConfigError, match=rf"koehandel: {option}=.* is not allowed; allowed: {allowed}"):
        KoehandelConfig.from_options(**{option: value})


def test_numpy_ints_are_accepted_as_ints():
    import numpy as np

    config = KoehandelConfig.from_options(max_turns=np.int64(50), overbid_cap=np.int32(300))
    assert config.max_turns == 50 and type(config.max_turns) is int and config.overbid_cap == 300


def test_two_player_money_must_leave_cards_to_remove():
    with pytest.raises(ConfigError, match="removed unseen"):
        KoehandelConfig.from_options(num_players=2, money_composition=[4, 6, 2, 4, 2, 2, 2])


def test_the_two_player_reserve_must_pay_both_players_each_donkey():
    """K-A27: with 2 players every donkey placed pays both players from the reserve, so the game data's
    reserve must hold two cards of each payout (a short reserve paid one player only, unlike the record)."""
    data = copy.deepcopy(game_data())
    check_game_data(data, "koehandel.yaml")
    data["two_player_reserve"] = [0, 0, 0, 1, 2, 2, 2]  # one 50 for the first donkey's two payouts
    with pytest.raises(ConfigError, match=r"two_player_reserve=.*both players receive each donkey payout"):
        check_game_data(data, "koehandel.yaml")
