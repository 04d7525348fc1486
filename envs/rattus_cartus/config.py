"""Rattus Cartus options (docs/rattus_cartus_rules.md §2.4) and game data (``configs/games/rattus_cartus.yaml``).

Every option is a core :class:`~hiddenhand.envs.core.options.Option`, resolved and checked when the game
is built. The supply-action table (§5, R-A40) and the named building sets (R-A4) are data: the shipped
file gives the defaults, and ``supply_table`` takes a replacement (a mapping, or the path of a YAML file
holding one). A malformed table is a :class:`ConfigError` naming the file, the entry and the problem.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.options import Bool, Choice, ConfigError, IntList, Kind, Option, Options, check_with, is_int
from ..core.yaml_files import read_yaml, shipped_yaml
from .cards import BUILDING_CLASS, BUILDINGS, COPIES_PER_BUILDING, NUM_BUILDINGS, NUM_POINT_TOKENS, WATCHTOWER

DATA_FILE = "games/rattus_cartus.yaml"
SUPPLY_FIELDS = ("draw", "discard_rats", "peek")
MAX_DRAW = 20
MAX_PEEK = 5
MAX_TOKEN_VALUE = 100


@lru_cache(maxsize=None)
def game_data() -> dict[str, Any]:
    """The shipped game data, validated."""
    data = shipped_yaml(DATA_FILE)
    if not isinstance(data, dict) or set(data) != {"supply_table", "agreed_sets"}:
        raise ConfigError(f"{DATA_FILE}: expected exactly the keys ['agreed_sets', 'supply_table']")
    data["supply_table"] = check_supply_table(data["supply_table"], DATA_FILE, range(NUM_BUILDINGS))
    sets = data["agreed_sets"]
    if not isinstance(sets, dict) or not sets:
        raise ConfigError(f"{DATA_FILE}: agreed_sets must map preset names to building sets")
    data["agreed_sets"] = {name: check_building_counts(value, f"{DATA_FILE}: agreed_sets.{name}")
                           for name, value in sets.items()}
    return data


def check_supply_table(table: Any, source: str, needed) -> dict[str, Any]:
    """The canonical supply table (``{"id", "execution_order", "buildings": {name: [5 entries]}}``) of
    ``table``, or a :class:`ConfigError` naming ``source``, the entry and the problem. ``needed`` are the
    building indices that must be present (those the selection method can use)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: supply_table must be a mapping with a 'buildings' key, got {type(table).__name__}")
    unknown = sorted(set(table) - {"id", "execution_order", "buildings"})
    if unknown:
        raise ConfigError(f"{source}: supply_table has unknown key(s) {unknown}; keys: id, execution_order, buildings")
    order = table.get("execution_order", list(SUPPLY_FIELDS))
    if list(order) != list(SUPPLY_FIELDS):
        raise ConfigError(f"{source}: supply_table.execution_order={order!r} is not allowed; "
                          f"only {list(SUPPLY_FIELDS)} (§3.2)")
    table_id = table.get("id", "custom")
    if not isinstance(table_id, str):
        raise ConfigError(f"{source}: supply_table.id must be a string, got {table_id!r}")
    buildings = table.get("buildings")
    if not isinstance(buildings, dict):
        raise ConfigError(f"{source}: supply_table.buildings must map building names to 5 entries")
    for name in buildings:
        if name not in BUILDINGS:
            raise ConfigError(f"{source}: supply_table.buildings.{name} is not a building; buildings: {list(BUILDINGS)}")
    out = {}
    for b in range(NUM_BUILDINGS):
        name = BUILDINGS[b]
        if name not in buildings:
            if b in needed:
                raise ConfigError(f"{source}: supply_table.buildings lacks {name}, which this game can use")
            continue
        entries = buildings[name]
        where = f"{source}: supply_table.buildings.{name}"
        if not isinstance(entries, list) or len(entries) != COPIES_PER_BUILDING:
            raise ConfigError(f"{where} must be a list of exactly 5 entries (copies 0..4), got {entries!r}")
        rows = [None] * COPIES_PER_BUILDING
        for position, entry in enumerate(entries):
            here = f"{where}[{position}]"
            if not isinstance(entry, dict) or set(entry) - {"copy", *SUPPLY_FIELDS} or "copy" not in entry:
                raise ConfigError(f"{here} must be a mapping of copy, draw, discard_rats, peek; got {entry!r}")
            number = entry["copy"]
            if not is_int(number) or not 0 <= number < COPIES_PER_BUILDING or rows[number] is not None:
                raise ConfigError(f"{here}: copy={number!r} must be a distinct int in 0..4")
            values = {}
            for field in SUPPLY_FIELDS:
                value = entry.get(field, 0)
                high = MAX_PEEK if field == "peek" else MAX_DRAW
                if not is_int(value) or not 0 <= value <= high:
                    raise ConfigError(f"{here}: {field}={value!r} is not allowed; allowed: an int in 0..{high}")
                values[field] = int(value)
            if not any(values.values()):
                raise ConfigError(f"{here}: a supply action needs at least one non-zero field (§5)")
            rows[int(number)] = {"copy": int(number), **values}
        out[name] = rows
    return {"id": table_id, "execution_order": list(SUPPLY_FIELDS), "buildings": out}


def check_building_counts(value: Any, where: str) -> dict[str, int]:
    """An agreed set ``{building: copies}``: each 0..5, five cards per class (§2.3)."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: a building set maps building names to copies, got {value!r}")
    per_class = [0] * 6
    out = {}
    for name, count in value.items():
        if name not in BUILDINGS:
            raise ConfigError(f"{where}: {name!r} is not a building; buildings: {list(BUILDINGS)}")
        if not is_int(count) or not 0 <= count <= COPIES_PER_BUILDING:
            raise ConfigError(f"{where}: {name}={count!r} is not allowed; allowed: an int in 0..5")
        per_class[BUILDING_CLASS[BUILDINGS.index(name)]] += int(count)
        if count:
            out[name] = int(count)
    if per_class != [5] * 6:
        raise ConfigError(f"{where}: the copies of each class must sum to 5 (§2.3), got {per_class} "
                          f"(classes in order peasantry..royalty)")
    return {name: out[name] for name in BUILDINGS if name in out}


class SupplyTable(Kind):
    """``None`` (the shipped table), a mapping in the §5 format, or the path of a YAML file holding one
    (under a ``supply_table`` key or at the top level). Converted to the canonical mapping; the needed
    buildings are checked once the selection method is known."""

    allowed = "None, a supply table mapping (§5) or the path of a YAML file holding one"

    def convert(self, value: Any) -> Any:
        if value is None or isinstance(value, dict):
            return value
        if isinstance(value, (str, Path)):
            return value
        raise ValueError


class AgreedSet(Kind):
    allowed = "a preset name (e.g. 'beginner') or a mapping building -> copies (5 per class)"

    def convert(self, value: Any) -> Any:
        if isinstance(value, str):
            if value not in game_data()["agreed_sets"]:
                raise ValueError
            return value
        if isinstance(value, dict):
            return value
        raise ValueError


class StartPlayer(Kind):
    allowed = "'random' or a seat index"

    def convert(self, value: Any) -> Any:
        if value == "random" and isinstance(value, str):
            return value
        if is_int(value) and 0 <= value < 5:
            return int(value)
        raise ValueError


OPTIONS = Options("rattus_cartus", [
    Option("building_selection", "random_cards_per_class",
           Choice("agreed", "random_building_per_class", "random_cards_per_class"), "§2.3, R-A4"),
    Option("agreed_set", "beginner", AgreedSet(), "with building_selection='agreed' (R-A4)"),
    Option("building_set_public", True, Bool(), "random selections: the 30 cards are public (R-A32)"),
    Option("exclude_watchtower_2p", True, Bool(), "2 players, random selection: no Watchtower (§2.3)"),
    Option("start_player", "random", StartPlayer(), "R-A5"),
    Option("supply_table", None, SupplyTable(), "§5, R-A40"),
    Option("point_token_values", (1,) * NUM_POINT_TOKENS, IntList(NUM_POINT_TOKENS, 0, MAX_TOKEN_VALUE), "R-A2"),
    Option("finite_supplies", True, Bool(), "R-A3"),
    Option("rats_public", True, Bool(), "R-A30"),
    Option("population_choice", "random", Choice("random", "lowest_nun", "full"), "R-A31"),
    Option("all_dead_variant", False, Bool(), "§6.8, R-A29"),
    Option("auto_resolve_forced", False, Bool(), "§8.3"),
    Option("mask_known_peeks", False, Bool(), "§8 D2/D8"),
])


def resolve(num_players: int, options: dict[str, Any]) -> dict[str, Any]:
    """All options, checked, with the supply table loaded and the agreed set expanded."""
    where = "rattus_cartus"
    out = OPTIONS.resolve(options, where=where)
    check_with(where, "start_player", out["start_player"],
               lambda v: v == "random" or v < num_players, f"'random' or a seat index 0..{num_players - 1}")
    values = out["point_token_values"]
    check_with(where, "point_token_values", list(values),
               lambda v: len(set(v)) == 1 or out["finite_supplies"],
               "uniform values, unless finite_supplies=True (R-A2)")
    agreed = out["agreed_set"]
    if isinstance(agreed, str):
        counts = dict(game_data()["agreed_sets"][agreed])
    else:
        counts = check_building_counts(agreed, f"{where}: agreed_set")
    out["agreed_counts"] = counts
    selection = out["building_selection"]
    if selection == "agreed":
        needed = {BUILDINGS.index(name) for name in counts}
    else:
        needed = set(range(NUM_BUILDINGS))
        if num_players == 2 and out["exclude_watchtower_2p"]:
            needed.discard(WATCHTOWER)
    table = out["supply_table"]
    if table is None:
        table = copy.deepcopy(game_data()["supply_table"])
        source = DATA_FILE
    elif isinstance(table, dict):
        source = f"{where}: supply_table"
    else:
        source = str(table)
        loaded = read_yaml(table, f"{where}: supply_table file {source!r}", "supply-table file")
        table = loaded["supply_table"] if isinstance(loaded, dict) and "supply_table" in loaded else loaded
    out["supply_table"] = check_supply_table(table, source, needed)
    return out
