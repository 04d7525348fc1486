"""Koehandel Master options (docs/koehandel_rules.md, Appendix A) and game data (``configs/games/koehandel.yaml``).

Every option is a core :class:`~hiddenhand.envs.core.options.Option`, resolved and checked by
:meth:`Options.resolve` at construction; the rules that tie options to each other and to the game data
are checked with :func:`check_with`. Errors are the core :class:`ConfigError`, naming the option (or the
file and key), the value and what is allowed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..core.options import Bool, Choice, ConfigError, Int, IntList, Option, Options
from ..core.options import Optional as Maybe
from ..core.options import check, check_with
from ..core.yaml_files import shipped_yaml
from .cards import DENOMINATIONS, NUM_ANIMALS, NUM_DENOMS, SPECIES_NAMES

DATA_FILE = "games/koehandel.yaml"
#: Far above any real deck; payments pack counts into 7 bits (``money.pack``).
MAX_CARDS_PER_DENOMINATION = 127
MAX_VALUE = 1_000_000  # quartet values, the pedigree value and the overbid cap: exact in float32 observations

#: The game data file: key -> what it holds (besides ``species``, the names in card order); every key is
#: required and checked, unknown keys are rejected.
DATA_KINDS = {
    "animal_values": IntList(NUM_ANIMALS, 1, MAX_VALUE),
    "donkey_species": Int(0, NUM_ANIMALS - 1),
    "donkey_payouts": IntList(4, 10, 500),
    "pedigree_value": Int(0, MAX_VALUE),
    "money_composition": IntList(NUM_DENOMS, 0, MAX_CARDS_PER_DENOMINATION),
    "starting_capital": IntList(NUM_DENOMS, 0, MAX_CARDS_PER_DENOMINATION),
    "two_player_reserve": IntList(NUM_DENOMS, 0, MAX_CARDS_PER_DENOMINATION),
    "two_player_removed": Int(0, 100),
}


@lru_cache(maxsize=None)
def game_data() -> dict[str, Any]:
    """The game data file shipped in ``hiddenhand.configs``, validated."""
    data = shipped_yaml(DATA_FILE)
    check_game_data(data, DATA_FILE)
    return data


def check_game_data(data: Any, source: str) -> None:
    """:class:`ConfigError` naming ``source`` and the key unless ``data`` is valid game data."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of game data, got {type(data).__name__}")
    keys = ["species", *DATA_KINDS]
    missing, unknown = sorted(set(keys) - set(data)), sorted(set(data) - set(keys))
    if missing or unknown:
        raise ConfigError(f"{source}: " + "; ".join(
            [f"missing key(s) {missing}"] * bool(missing) + [f"unknown key(s) {unknown}"] * bool(unknown))
            + f"; keys: {keys}")
    check_with(source, "species", data["species"], lambda v: v == list(SPECIES_NAMES[:NUM_ANIMALS]),
               f"the species in card order {list(SPECIES_NAMES[:NUM_ANIMALS])}")
    for key, kind in DATA_KINDS.items():
        check(source, key, data[key], kind)
    check_with(source, "donkey_payouts", data["donkey_payouts"], lambda v: all(p in DENOMINATIONS[1:] for p in v),
               f"4 denominations of {list(DENOMINATIONS[1:])}")
    due = [2 * data["donkey_payouts"].count(worth) for worth in DENOMINATIONS]  # 2 players: both paid (K-A27)
    check_with(source, "two_player_reserve", data["two_player_reserve"], lambda v: all(map(int.__ge__, v, due)),
               f"at least {due} cards per denomination: both players receive each donkey payout")


@lru_cache(maxsize=None)
def option_specs() -> Options:
    """Every option of Appendix A with its default and allowed values (defaults of ``animal_values`` and
    ``money_composition`` from the game data file)."""
    data = game_data()
    return Options("koehandel", [
        Option("num_players", 4, Int(2, 6), "players"),
        Option("animal_values", tuple(data["animal_values"]), IntList(NUM_ANIMALS, 1, MAX_VALUE),
               "quartet values of the ten species (K-A1)"),
        Option("money_composition", tuple(data["money_composition"]),
               IntList(NUM_DENOMS, 0, MAX_CARDS_PER_DENOMINATION),
               "money cards per denomination 0, 10, 20, 50, 100, 200, 500 (K-A2)"),
        Option("pass_is_final", False, Bool(), "a pass drops the bidder from this card's auction (K-A7)"),
        Option("overbid_mode", "mask", Choice("mask", "reveal_and_restart"), "bids above one's cash (K-A9)"),
        Option("overbid_cap", None, Maybe(Int(10, MAX_VALUE, multiple_of=10)),
               "highest bid in reveal_and_restart mode; None: all money in hands"),
        Option("payment_rule", "no_change", Choice("no_change", "strict"), "K-A11"),
        Option("auto_payment", False, Bool(), "the env picks auction payments"),
        Option("public_auction_payments", False, Bool(), "K-A12"),
        Option("reveal_pedigree_ties", True, Bool(), "K-A14"),
        Option("rat_pot_attribution", True, Bool(), "K-A18"),
        Option("allow_empty_offer", False, Bool(), "K-A21"),
        Option("retrade_allows_accept", True, Bool(), "K-A23"),
        Option("two_player_start_zeros", True, Bool(), "K-A5"),
        Option("super_koehandel", False, Bool(), "variant, K-A29"),
        Option("super_koehandel_mandatory", False, Bool(), "K-A29"),
        Option("money_counts", False, Bool(), "variant: money adds to the score"),
        Option("rat_removal", "best_for_holder", Choice("best_for_holder", "lowest_value"), "K-A33"),
        Option("max_turns", 1000, Int(1, 100_000), "turns before truncation (K-A32)"),
        Option("truncation_reward", "zero", Choice("zero", "provisional"), "reward on truncation"),
        Option("auto_resolve_forced", False, Bool(), "K-A38"),
        Option("observation_mode", "compact", Choice("compact", "full_record"), "K-A40"),
    ])


@dataclass(frozen=True)
class KoehandelConfig:
    """All options of Appendix A (defaults as there), plus the game data they rest on. Build it with
    :meth:`from_options`, which validates everything."""

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
        data = game_data()
        config = cls(**option_specs().resolve(options),
                     starting_capital=tuple(data["starting_capital"]), donkey_payouts=tuple(data["donkey_payouts"]),
                     donkey_species=data["donkey_species"], pedigree_value=data["pedigree_value"],
                     two_player_reserve=tuple(data["two_player_reserve"]),
                     two_player_removed=data["two_player_removed"])
        need = config.required_money()
        check_with("koehandel", "money_composition", list(config.money_composition),
                   lambda have: all(h >= k for h, k in zip(have, need)),
                   f"at least {need} cards per denomination, to supply the starting capital and the donkey "
                   f"payouts (2 players: the reserve) for num_players={config.num_players}")
        if config.num_players == 2:
            check_with("koehandel", "money_composition", list(config.money_composition),
                       lambda _: sum(config.two_player_deck_money()) >= config.two_player_removed,
                       f"enough money left over for the {config.two_player_removed} cards removed unseen "
                       f"in the 2-player game")
        return config

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
