"""Koehandel game data (configs/games/koehandel.yaml) and its validation (K-A1, K-A2)."""

import pytest

from hiddenhand.envs.koehandel.config import ConfigError, KoehandelConfig, check_game_data, game_data


def test_shipped_game_data_is_the_spec_table():
    data = game_data()
    assert data["animal_values"] == [10, 40, 90, 160, 250, 350, 500, 650, 800, 1000]  # K-A1
    assert data["money_composition"] == [12, 18, 6, 12, 6, 6, 6]  # K-A2: 66 cards, 5,700
    assert sum(data["money_composition"]) == 66
    assert data["donkey_payouts"] == [50, 100, 200, 500]


@pytest.mark.parametrize("key, bad, message", [
    ("animal_values", [10, 40], "animal_values must be a list of 10 entries"),
    ("money_composition", "lots", "money_composition must be a list of 7 entries"),
    ("donkey_payouts", [50, 100, 200, 300], "donkey_payouts must be denominations"),
    ("donkey_species", 12, "donkey_species must be a species index"),
    ("pedigree_value", -250, "pedigree_value must be a non-negative int"),
])
def test_corrupt_game_data_is_rejected_naming_the_key(key, bad, message):
    data = {**game_data(), key: bad}
    with pytest.raises(ConfigError, match=message):
        check_game_data(data, "koehandel.yaml")


def test_options_override_the_data_and_are_validated():
    config = KoehandelConfig.from_options(num_players=3, animal_values=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert config.animal_values == tuple(range(1, 11))
    with pytest.raises(ConfigError, match="animal_values must be 10 ints >= 1"):
        KoehandelConfig.from_options(animal_values=[0] * 10)
    with pytest.raises(ConfigError, match="cannot supply the starting capital"):
        KoehandelConfig.from_options(num_players=6, money_composition=[12, 18, 6, 6, 6, 6, 6])
    with pytest.raises(ConfigError, match="money_composition allows at most 127 cards"):
        KoehandelConfig.from_options(money_composition=[10, 200, 10, 10, 10, 10, 10])
