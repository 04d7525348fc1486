"""Koehandel Master options (spec Appendix A) and game data (``configs/games/koehandel.yaml``).

Every option is validated at construction; an error names the option and the allowed values.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from .cards import DENOMINATIONS, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, RAT  # noqa: F401  (re-exported)

MAX_PLAYERS = 6
DATA_FILE = "games/koehandel.yaml"

CHOICES = {
    "overbid_mode": ("mask", "reveal_and_restart"),
    "payment_rule": ("no_change", "strict"),
    "rat_removal": ("best_for_holder", "lowest_value"),
    "truncation_reward": ("zero", "provisional"),
    "observation_mode": ("compact", "full_record"),
}


MAX_CARDS_PER_DENOMINATION = 127  # far above any real deck; payments pack counts into 7 bits


class ConfigError(ValueError):
    """An invalid Koehandel option or game-data file."""


@lru_cache(maxsize=None)
def game_data() -> dict[str, Any]:
    """The game data file shipped in ``hiddenhand.configs``, validated."""
    text = resources.files("hiddenhand.configs").joinpath(DATA_FILE).read_text()
    data = yaml.safe_load(text)
    check_game_data(data, DATA_FILE)
    return data


def check_game_data(data: Any, source: str) -> None:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of game data")
    lengths = {"species": NUM_ANIMALS, "animal_values": NUM_ANIMALS, "donkey_payouts": 4,
               "money_composition": NUM_DENOMS, "starting_capital": NUM_DENOMS, "two_player_reserve": NUM_DENOMS}
    for key, length in lengths.items():
        value = data.get(key)
        if not isinstance(value, list) or len(value) != length:
            raise ConfigError(f"{source}: {key} must be a list of {length} entries, got {value!r}")
    for key in ("donkey_species", "pedigree_value", "two_player_removed"):
        if not isinstance(data.get(key), int) or data[key] < 0:
            raise ConfigError(f"{source}: {key} must be a non-negative int, got {data.get(key)!r}")
    if not 0 <= data["donkey_species"] < NUM_ANIMALS:
        raise ConfigError(f"{source}: donkey_species must be a species index 0..9")
    bad = [p for p in data["donkey_payouts"] if p not in DENOMINATIONS[1:]]
    if bad:
        raise ConfigError(f"{source}: donkey_payouts must be denominations {DENOMINATIONS[1:]}, got {bad}")


def _int_list(option: str, value: Any, length: int, minimum: int = 0) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != length or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in value):
        raise ConfigError(f"koehandel: {option} must be {length} ints >= {minimum}, got {value!r}")
    return tuple(value)


@dataclass(frozen=True)
class KoehandelConfig:
    """All options of spec Appendix A (defaults as there), plus the game data they rest on."""

    num_players: int = 4
    animal_values: tuple[int, ...] = ()
    money_composition: tuple[int, ...] = ()
    pass_is_final: bool = False
    overbid_mode: str = "mask"
    overbid_cap: int | None = None
    payment_rule: str = "no_change"
    auto_payment: bool = False
    public_auction_payments: bool = False
    reveal_pedigree_ties: bool = True
    rat_pot_attribution: bool = True
    allow_empty_offer: bool = False
    retrade_allows_accept: bool = True
    two_player_start_zeros: bool = True
    super_koehandel: bool = False
    super_koehandel_mandatory: bool = False
    money_counts: bool = False
    rat_removal: str = "best_for_holder"
    max_turns: int = 1000
    truncation_reward: str = "zero"
    auto_resolve_forced: bool = False
    observation_mode: str = "compact"
    # game data (from the YAML file, not options)
    starting_capital: tuple[int, ...] = field(default=(), repr=False)
    donkey_payouts: tuple[int, ...] = field(default=(), repr=False)
    donkey_species: int = field(default=6, repr=False)
    pedigree_value: int = field(default=250, repr=False)
    two_player_reserve: tuple[int, ...] = field(default=(), repr=False)
    two_player_removed: int = field(default=10, repr=False)

    @classmethod
    def from_options(cls, **options: Any) -> KoehandelConfig:
        """Validated config from env keyword options (unknown names are rejected)."""
        names = {f.name for f in dataclasses.fields(cls) if f.repr}
        unknown = sorted(set(options) - names)
        if unknown:
            raise ConfigError(f"koehandel: unknown option(s) {unknown}; options: {sorted(names)}")
        data = game_data()
        merged = {
            "animal_values": data["animal_values"], "money_composition": data["money_composition"],
            **options,
            "starting_capital": tuple(data["starting_capital"]), "donkey_payouts": tuple(data["donkey_payouts"]),
            "donkey_species": data["donkey_species"], "pedigree_value": data["pedigree_value"],
            "two_player_reserve": tuple(data["two_player_reserve"]),
            "two_player_removed": data["two_player_removed"],
        }
        merged["animal_values"] = _int_list("animal_values", merged["animal_values"], NUM_ANIMALS, 1)
        merged["money_composition"] = _int_list("money_composition", merged["money_composition"], NUM_DENOMS)
        config = cls(**merged)
        config._validate()
        return config

    def _validate(self) -> None:
        n = self.num_players
        if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= MAX_PLAYERS:
            raise ConfigError(f"koehandel: num_players must be an int in 2..6, got {n!r}")
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise ConfigError(f"koehandel: {f.name} must be True or False, got {value!r}")
        for option, allowed in CHOICES.items():
            if getattr(self, option) not in allowed:
                raise ConfigError(f"koehandel: {option}={getattr(self, option)!r} is not supported; "
                                  f"allowed: {list(allowed)}")
        if not isinstance(self.max_turns, int) or isinstance(self.max_turns, bool) or self.max_turns < 1:
            raise ConfigError(f"koehandel: max_turns must be a positive int, got {self.max_turns!r}")
        if self.overbid_cap is not None and (
                not isinstance(self.overbid_cap, int) or self.overbid_cap < 10 or self.overbid_cap % 10):
            raise ConfigError(f"koehandel: overbid_cap must be None or a positive multiple of 10, "
                              f"got {self.overbid_cap!r}")
        if max(self.money_composition) > MAX_CARDS_PER_DENOMINATION:
            raise ConfigError(f"koehandel: money_composition allows at most {MAX_CARDS_PER_DENOMINATION} cards "
                              f"per denomination, got {list(self.money_composition)}")
        need = self.required_money()
        short = [f"{DENOMINATIONS[d]}: {need[d]} needed, {have} given"
                 for d, have in enumerate(self.money_composition) if have < need[d]]
        if short:
            raise ConfigError(f"koehandel: money_composition cannot supply the starting capital and donkey "
                              f"payouts for num_players={n} ({'; '.join(short)})")
        if n == 2 and sum(self.two_player_deck_money()) < self.two_player_removed:
            raise ConfigError(f"koehandel: money_composition leaves fewer than {self.two_player_removed} "
                              f"money cards to remove in the 2-player game")

    def required_money(self) -> list[int]:
        """Cards per denomination needed for the starting capital and payouts (3-6p) or reserve (2p)."""
        n = self.num_players
        need = [n * c for c in self.starting_capital]
        if n == 2:
            if not self.two_player_start_zeros:
                need[0] = 0
            return [a + b for a, b in zip(need, self.two_player_reserve)]
        for payout in self.donkey_payouts:
            need[DENOMINATIONS.index(payout)] += n
        return need

    def start_hand(self) -> list[int]:
        hand = list(self.starting_capital)
        if self.num_players == 2 and not self.two_player_start_zeros:
            hand[0] = 0
        return hand

    def two_player_deck_money(self) -> list[int]:
        """Money shuffled (before the random removal) into the 2-player deck: all zeros leave (§2.2)."""
        need = self.required_money()
        rest = [have - used for have, used in zip(self.money_composition, need)]
        rest[0] = 0
        return rest

    def options(self) -> dict[str, Any]:
        """The option values as JSON-serialisable data (without the fixed game data)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.repr}
        out["animal_values"] = list(self.animal_values)
        out["money_composition"] = list(self.money_composition)
        return out
