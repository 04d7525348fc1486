"""Rattus options (docs/rattus_rules.md §10.7) and game data (``configs/games/rattus*.yaml``).

The map, the regions in play per player count, the constants and the token table are data (RA-1,
RA-2): the shipped files give the defaults, ``token_table`` picks a shipped table and ``config`` (a
mapping, or the path of a YAML file) replaces any top-level key whole. ``token_types_by_players`` (player
count -> token table) replaces ``token_types`` at the counts it names; a ``config`` that gives
``token_types`` without it drops the shipped per-count tables, so the user's table holds at every count.
Everything is validated when the game is built; a malformed file is a :class:`ConfigError` naming the
file (``rattus: config='my_board.yaml'`` for the user's), the entry and the problem. A user file is read
by :func:`~..core.yaml_files.read_yaml` (a regular UTF-8 file of at most 1 MiB, safe YAML with no key
given twice in one mapping). A region with a single neighbour in play is a warning, shown once per board
in a process.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.options import Bool, Choice, ConfigError, Int, Kind, Option, Options, check_with, is_int
from ..core.yaml_files import read_yaml, shipped_yaml

DATA_FILE = "games/rattus.yaml"
TOKEN_FILES = {"calibrated": DATA_FILE, "reconstructed": "games/rattus_reconstructed_tokens.yaml"}
CLASSES = ("PEASANTRY", "BOURGEOISIE", "CHURCH", "CHIVALRY", "MAGIC", "ROYALTY")
CARDS = ("Peasant", "Merchant", "Monk", "Knight", "Witch", "King")
PEASANT, MERCHANT, MONK, KNIGHT, WITCH, KING = range(6)
NUM_REGIONS = 12
SLOTS = 3
MERCHANT_MAX = 3
NUM_TOKENS = 49
NUM_STARTING = 12
MAX_SYMBOLS = 6
#: Constants the action layout is built on (§9.2): changing them is refused.
LAYOUT_CONSTANTS = {"max_tokens_per_region": SLOTS, "merchant_max_cubes": MERCHANT_MAX, "knight_max_steps": 2}
DEFAULT_SPREAD = {0: 0, 1: 1, 2: 2, 3: 2}
FREE_CONSTANTS = {"cubes_per_player": (5, 200), "opening_placements_per_player": (0, 5),
                  "opening_cubes_per_placement": (1, 10), "peasant_bonus_cubes": (0, 5)}
DATA_KEYS = ("regions", "adjacency", "player_counts", "constants", "token_types", "token_types_by_players")
BY_PLAYERS = "token_types_by_players"
REWARD_LIMIT = 1e6  # |win|, |loss|: a shared win's (win + (k-1) loss) / k stays finite
#: single-neighbour warnings already shown, by board (regions, adjacency, regions in play, region): once each
_WARNED: set[tuple] = set()


@dataclass(frozen=True)
class TokenType:
    id: str
    starting: bool
    limit: int
    count: int
    m: int  # M symbols
    a: int  # A symbols
    classes: tuple[int, ...]  # class symbol counts, canonical order


@dataclass(frozen=True)
class GameData:
    """The validated data of one configured game."""

    regions: tuple[str, ...]
    adjacency: tuple[tuple[int, ...], ...]  # full map, by region index
    in_play: dict[int, tuple[int, ...]]  # player count -> region indices
    removed_unseen: dict[int, int]
    constants: dict[str, Any]
    types: tuple[TokenType, ...]  # the table of every player count not in ``types_by_players``
    types_by_players: dict[int, tuple[TokenType, ...]]

    def for_players(self, n: int) -> GameData:
        """This data with the token table of ``n`` players as ``types``."""
        return replace(self, types=self.types_by_players.get(n, self.types))


def _fail(source: str, entry: str, problem: str) -> ConfigError:
    return ConfigError(f"{source}: {entry}: {problem}")


@lru_cache(maxsize=None)
def _shipped(file: str) -> dict[str, Any]:
    data = shipped_yaml(file)
    if not isinstance(data, dict):
        raise ConfigError(f"{file}: expected a mapping of {list(DATA_KEYS)}")
    return data


def _user_data(config: Any) -> tuple[dict[str, Any], str]:
    """The ``config`` option's data and the prefix of its errors (``rattus: config=...``)."""
    if isinstance(config, dict):
        source = "rattus: config={" + ", ".join(f"{key!r}: ..." for key in config) + "}"
        data = config
    else:
        source = f"rattus: config={config!r}"
        data = read_yaml(config, source, "game-data file")
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping with any of {list(DATA_KEYS)}, got "
                          f"{type(data).__name__}")
    unknown = sorted(set(data) - set(DATA_KEYS), key=str)
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) {unknown}; keys: {list(DATA_KEYS)}")
    return data, source


def check_regions(value: Any, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) != NUM_REGIONS or not all(isinstance(v, str) for v in value):
        raise _fail(source, "regions", f"must be a list of exactly {NUM_REGIONS} names (a layout constant), "
                                       f"got {value!r:.120}")
    if len(set(value)) != NUM_REGIONS:
        raise _fail(source, "regions", "names must be distinct")
    return tuple(value)


def check_adjacency(value: Any, regions: tuple[str, ...], source: str) -> tuple[tuple[int, ...], ...]:
    """Symmetric and irreflexive, naming only known regions (§2)."""
    if not isinstance(value, dict):
        raise _fail(source, "adjacency", "must map region names to lists of neighbours")
    index = {name: r for r, name in enumerate(regions)}
    nbrs: list[set[int]] = [set() for _ in regions]
    for name, others in value.items():
        if name not in index:
            raise _fail(source, f"adjacency.{name}", f"is not a region; regions: {list(regions)}")
        if not isinstance(others, list):
            raise _fail(source, f"adjacency.{name}", f"must be a list of region names, got {others!r:.120}")
        for other in others:
            if not isinstance(other, str) or other not in index:
                raise _fail(source, f"adjacency.{name}", f"{other!r:.80} is not a region")
            if other == name:
                raise _fail(source, f"adjacency.{name}", "a region cannot neighbour itself")
            nbrs[index[name]].add(index[other])
    for r, ns in enumerate(nbrs):
        for t in ns:
            if r not in nbrs[t]:
                raise _fail(source, f"adjacency.{regions[r]}",
                            f"lists {regions[t]} but adjacency.{regions[t]} does not list {regions[r]} "
                            "(the relation must be symmetric)")
    return tuple(tuple(sorted(ns)) for ns in nbrs)


def check_player_counts(value: Any, regions: tuple[str, ...], adjacency, source: str):
    """Regions in play per player count: connected, every region with a neighbour in play (§2); the count of
    tokens removed unseen (§3.4)."""
    if not isinstance(value, dict) or not all(is_int(n) for n in value) or set(value) != {2, 3, 4}:
        raise _fail(source, "player_counts", "must map exactly the player counts 2, 3 and 4 to "
                                             "{regions, removed_unseen}")
    in_play, removed = {}, {}
    for n in (2, 3, 4):
        where = f"player_counts.{n}"
        in_play[n], removed[n] = _count_entry(value[n], regions, source, where)
        _check_reachable(in_play[n], regions, adjacency, source, f"{where}.regions")
    return in_play, removed


def _count_entry(entry: Any, regions: tuple[str, ...], source: str, where: str) -> tuple[tuple[int, ...], int]:
    """One player count's regions in play (region indices, ascending) and removed-unseen count."""
    if not isinstance(entry, dict) or set(entry) != {"regions", "removed_unseen"}:
        raise _fail(source, where, "must hold exactly the keys regions and removed_unseen")
    names = entry["regions"]
    if not isinstance(names, list) or not names or not all(isinstance(name, str) and name in regions for name in names):
        raise _fail(source, f"{where}.regions", f"must be a non-empty list of regions of {list(regions)}, "
                                                f"got {names!r:.120}")
    if len(set(names)) != len(names):
        raise _fail(source, f"{where}.regions", "lists a region twice")
    if len(names) > NUM_STARTING:
        raise _fail(source, f"{where}.regions", f"more regions than the {NUM_STARTING} starting tokens")
    cut, supply = entry["removed_unseen"], NUM_TOKENS - len(names)
    if not is_int(cut) or not 0 <= cut < supply:
        raise _fail(source, f"{where}.removed_unseen", f"must be an int in 0..{supply - 1}, got {cut!r:.80}")
    return tuple(sorted(map(regions.index, names))), int(cut)


def _check_reachable(play: tuple[int, ...], regions: tuple[str, ...], adjacency, source: str, where: str) -> None:
    """Every region in play has a neighbour in play (RA-12) and all of them are connected."""
    inside = set(play)
    for r in play:
        if not inside.intersection(adjacency[r]):
            raise _fail(source, where, f"{regions[r]} has no neighbour in play (RA-12)")
    seen, todo = {play[0]}, [play[0]]
    while todo:
        for t in adjacency[todo.pop()]:
            if t in inside and t not in seen:
                seen.add(t)
                todo.append(t)
    if seen != inside:
        lost = sorted(regions[r] for r in inside - seen)
        raise _fail(source, where, f"the regions in play are not connected ({lost} unreachable)")


def _warn_single_neighbours(regions: tuple[str, ...], adjacency, in_play: dict[int, tuple[int, ...]],
                            source: str) -> None:
    """A region in play with a single neighbour in play is legal but easy to type by mistake (RA-1): a
    warning, once per board (regions, adjacency, regions in play) and region in a process, however many
    games are built on it."""
    for n, play in in_play.items():
        for r in play:
            ns = [t for t in adjacency[r] if t in play]
            if len(ns) == 1 and (regions, adjacency, play, r) not in _WARNED:
                _WARNED.add((regions, adjacency, play, r))
                warnings.warn(f"{source}: player_counts.{n}.regions: {regions[r]} has a single neighbour in play "
                              f"({regions[ns[0]]}); legal, but check the map (RA-1)", UserWarning, stacklevel=4)


def check_constants(value: Any, source: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(source, "constants", "must be a mapping")
    unknown = sorted(set(value) - set(FREE_CONSTANTS) - set(LAYOUT_CONSTANTS) - {"spread_new_tokens"}, key=str)
    if unknown:
        raise _fail(source, "constants", f"unknown key(s) {unknown}")
    out: dict[str, Any] = {"spread_new_tokens": _check_spread(value.get("spread_new_tokens", DEFAULT_SPREAD), source)}
    for key, (low, high) in FREE_CONSTANTS.items():
        v = value.get(key)
        if not is_int(v) or not low <= v <= high:
            raise _fail(source, f"constants.{key}", f"must be an int in {low}..{high}, got {v!r:.80}")
        out[key] = int(v)
    for key, fixed in LAYOUT_CONSTANTS.items():
        if key in value and value[key] != fixed:
            raise _fail(source, f"constants.{key}", f"={value[key]!r:.80} is not supported; the action layout "
                                                    f"is built on {fixed}, the only value allowed (§9.2)")
    if out["cubes_per_player"] <= out["opening_placements_per_player"] * out["opening_cubes_per_placement"]:
        raise _fail(source, "constants.cubes_per_player", "must exceed the opening cubes (§4.6)")
    return out


def _check_spread(spread: Any, source: str) -> dict[int, int]:
    """New tokens per token count of the plague region (§5.1): the keys are the layout's 0..3."""
    if not isinstance(spread, dict) or not all(is_int(k) for k in spread) or set(spread) != {0, 1, 2, 3}:
        raise _fail(source, "constants.spread_new_tokens", f"={spread!r:.120}: the keys must be exactly 0..3 "
                                                           "(a layout constant, §9.2)")
    for k, v in spread.items():
        if not is_int(v) or not 0 <= v <= 3:
            raise _fail(source, f"constants.spread_new_tokens.{k}", f"must be an int in 0..3, got {v!r:.80}")
    return {int(k): int(spread[k]) for k in sorted(spread)}


def check_token_types(value: Any, source: str, key: str = "token_types") -> tuple[TokenType, ...]:
    """Known sets and symbols, limits >= 1, 12 starting + 37 normal = 49 tokens (RA-2); ``key`` names
    the entry in errors."""
    if not isinstance(value, list) or not value:
        raise _fail(source, key, "must be a non-empty list of token types")
    out, ids = [], set()
    for i, entry in enumerate(value):
        out.append(_token_type(entry, source, f"{key}[{i}]", ids))
    starting = sum(t.count for t in out if t.starting)
    normal = sum(t.count for t in out if not t.starting)
    if (starting, normal) != (NUM_STARTING, NUM_TOKENS - NUM_STARTING):
        raise _fail(source, key, f"{starting} starting + {normal} normal tokens; the game needs "
                                 f"{NUM_STARTING} + {NUM_TOKENS - NUM_STARTING} = {NUM_TOKENS}")
    return tuple(out)


def _token_type(entry: Any, source: str, where: str, ids: set[str]) -> TokenType:
    """One entry of a token table; ``ids`` (the ids so far) gets its id."""
    if not isinstance(entry, dict) or set(entry) != {"id", "set", "limit", "count", "symbols"}:
        raise _fail(source, where, f"must hold exactly id, set, limit, count, symbols; got {entry!r:.120}")
    tid = entry["id"]
    if not isinstance(tid, str) or tid in ids:
        raise _fail(source, where, f"id {tid!r:.80} must be a distinct string")
    ids.add(tid)
    where = f"{where} ({tid})"
    if entry["set"] not in ("starting", "normal"):
        raise _fail(source, where, f"set={entry['set']!r:.80}; allowed: starting, normal")
    for field in ("limit", "count"):
        if not is_int(entry[field]) or not 1 <= entry[field] <= 99:
            raise _fail(source, where, f"{field}={entry[field]!r:.80}; allowed: an int in 1..99")
    symbols = entry["symbols"]
    if not isinstance(symbols, list) or not 1 <= len(symbols) <= MAX_SYMBOLS:
        raise _fail(source, where, f"symbols must be a list of 1..{MAX_SYMBOLS} symbols, got {symbols!r:.120}")
    for symbol in symbols:
        if symbol not in CLASSES and symbol not in ("M", "A"):
            raise _fail(source, where, f"unknown symbol {symbol!r:.80}; symbols: {list(CLASSES)}, M, A")
    return TokenType(tid, entry["set"] == "starting", int(entry["limit"]), int(entry["count"]), symbols.count("M"),
                     symbols.count("A"), tuple(symbols.count(c) for c in CLASSES))


def check_by_players(value: Any, source: str) -> dict[int, tuple[TokenType, ...]]:
    """Per-player-count token tables: a mapping of some of 2, 3, 4 to tables checked like ``token_types``."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not value or not all(is_int(n) and n in (2, 3, 4) for n in value):
        raise _fail(source, BY_PLAYERS, "must map some of the player counts 2, 3, 4 to token tables, got "
                                        f"keys {list(value) if isinstance(value, dict) else value!r:.120}")
    return {int(n): check_token_types(table, source, f"{BY_PLAYERS}.{n}") for n, table in sorted(value.items())}


def load_data(token_table: str, config: Any) -> GameData:
    """The shipped data with ``token_table``'s tokens, each key of ``config`` replacing the shipped one."""
    tokens = _shipped(TOKEN_FILES[token_table])
    merged = {key: (_shipped(DATA_FILE)[key], DATA_FILE) for key in DATA_KEYS[:4]}
    merged["token_types"] = (tokens["token_types"], TOKEN_FILES[token_table])
    merged[BY_PLAYERS] = (tokens.get(BY_PLAYERS), TOKEN_FILES[token_table])
    if config is not None:
        user, source = _user_data(config)
        if "token_types" in user and BY_PLAYERS not in user:
            merged[BY_PLAYERS] = (None, source)
        merged.update({key: (value, source) for key, value in user.items()})
    regions = check_regions(*merged["regions"])
    adjacency = check_adjacency(merged["adjacency"][0], regions, merged["adjacency"][1])
    in_play, removed = check_player_counts(merged["player_counts"][0], regions, adjacency, merged["player_counts"][1])
    constants = check_constants(*merged["constants"])
    types = check_token_types(*merged["token_types"])
    data = GameData(regions, adjacency, in_play, removed, constants, types, check_by_players(*merged[BY_PLAYERS]))
    _warn_single_neighbours(regions, adjacency, in_play, merged["player_counts"][1])
    return data


class StartPlayer(Kind):
    allowed = "'random' or a seat index"

    def convert(self, value: Any) -> Any:
        if isinstance(value, str) and value == "random":
            return value
        if is_int(value) and 0 <= value < 4:
            return int(value)
        raise ValueError


class Text(Kind):
    allowed = "'random' or a region name"

    def convert(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError
        return value


class Abilities(Kind):
    allowed = "a list of distinct names among Merchant, Monk, Witch, King"

    def convert(self, value: Any) -> tuple[str, ...]:
        if not isinstance(value, (list, tuple)) or len(set(value)) != len(value) or \
                any(v not in ("Merchant", "Monk", "Witch", "King") for v in value):
            raise ValueError
        return tuple(v for v in ("Merchant", "Monk", "Witch", "King") if v in value)


class Reward(Kind):
    """The mapping's shape and types; :func:`resolve` checks each value's size and ``win > loss``."""

    allowed = "a mapping {win: number, loss: number, zero_sum: bool}"

    def convert(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict) or set(value) - {"win", "loss", "zero_sum"}:
            raise ValueError
        out = {"win": 1.0, "loss": -1.0, "zero_sum": False, **value}
        if any(isinstance(out[k], bool) or not isinstance(out[k], (int, float)) for k in ("win", "loss")) \
                or not isinstance(out["zero_sum"], bool):
            raise ValueError
        try:
            return {"win": float(out["win"]), "loss": float(out["loss"]), "zero_sum": out["zero_sum"]}
        except OverflowError:  # an int beyond floats
            raise ValueError from None


class DataConfig(Kind):
    allowed = "None, a mapping of game-data keys or the path of a YAML file"

    def convert(self, value: Any) -> Any:
        if value is None or isinstance(value, dict):
            return value
        if isinstance(value, (str, Path)):
            return str(value)
        raise ValueError


OPTIONS = Options("rattus", [
    Option("token_table", "calibrated", Choice("calibrated", "reconstructed"), "shipped token table (AM-1, RA-2)"),
    Option("config", None, DataConfig(), "user game data replacing shipped keys (RA-1, RA-2)"),
    Option("start_player", "random", StartPlayer(), "§3.7, RA-22"),
    Option("plague_start", "random", Text(), "§3.5, RA-22"),
    Option("starting_mark_public", True, Bool(), "RA-3"),
    Option("placement_optional", False, Bool(), "RA-4"),
    Option("peasant_bonus_optional", True, Bool(), "RA-4"),
    Option("reveal_order", "slot", Choice("slot", "random"), "RA-14"),
    Option("m_majority_snapshot", True, Bool(), "RA-15"),
    Option("witch_second_token", "other_region", Choice("other_region", "any_other_token"), "RA-7"),
    Option("witch_peek_sequential", True, Bool(), "RA-7"),
    Option("knight_may_end_at_origin", False, Bool(), "RA-11"),
    Option("end_check_active_player_only", True, Bool(), "RA-17"),
    Option("palace_counts_as_on_board", True, Bool(), "RA-17"),
    Option("final_round_direction", "counterclockwise", Choice("counterclockwise", "clockwise"), "RA-19, AM-4"),
    Option("final_round_abilities", ("Merchant", "Monk", "Witch", "King"), Abilities(), "RA-19"),
    Option("final_plague_order", "plague_region_then_index", Choice("plague_region_then_index", "index"), "RA-20"),
    Option("tie_break", "next_player", Choice("next_player", "shared"), "RA-21"),
    Option("auto_resolve_forced", False, Bool(), "§9.1"),
    Option("max_regular_turns", 100, Int(1, 1000), "RA-23"),
    Option("turn_cap_mode", "score", Choice("score", "truncate"), "RA-23"),
    Option("no_progress_turns", 12, Int(1, 1000), "RA-24"),
    Option("reward", {"win": 1.0, "loss": -1.0, "zero_sum": False}, Reward(), "§10.4"),
])


def resolve(num_players: int, options: dict[str, Any]) -> tuple[dict[str, Any], GameData]:
    where = "rattus"
    out = OPTIONS.resolve(options, where=where)
    check_with(where, "start_player", out["start_player"], lambda v: v == "random" or v < num_players,
               f"'random' or a seat index 0..{num_players - 1}")
    reward = out["reward"]
    for key in ("win", "loss"):
        check_with(where, f"reward.{key}", reward[key], lambda v: math.isfinite(v) and abs(v) <= REWARD_LIMIT,
                   f"a finite number in -{REWARD_LIMIT:.0e}..{REWARD_LIMIT:.0e}")
    check_with(where, "reward", reward, lambda v: v["win"] > v["loss"], "win > loss")
    data = load_data(out["token_table"], out["config"]).for_players(num_players)
    names = [data.regions[r] for r in data.in_play[num_players]]
    check_with(where, "plague_start", out["plague_start"], lambda v: v == "random" or v in names,
               f"'random' or a region in play: {names}")
    return out, data
