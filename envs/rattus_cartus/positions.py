"""Rattus Cartus position helper: ``env.set_position(seed, **spec)`` keywords turned into snapshot data
(see :meth:`.rules.RattusCartusGame.position`). What the keywords leave open comes from the fresh deal
``base``; the result is validated like any snapshot."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.game import SnapshotError
from ..core.schema import copy_lists, is_int
from .cards import BUILDINGS, KIND_COPIES, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUN_ROW_SIZE, SPECIAL_COPIES
from .cards import parse_building_card, parse_item
from .decisions import D1, PHASE_B

if TYPE_CHECKING:
    from .rules import RattusCartusGame

KEYWORDS = frozenset({"hands", "nun_row", "deck_top", "row", "building_deck_top", "round", "start_player", "rats",
                      "influence", "point_tokens"})


def position(game: RattusCartusGame, base: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """See :meth:`RattusCartusGame.position`."""
    unknown = sorted(set(spec) - KEYWORDS)
    if unknown:
        raise SnapshotError(f"rattus_cartus: unknown position keyword(s) {unknown}; keywords: {sorted(KEYWORDS)}")
    data = {key: copy_lists(value) for key, value in base.items()}
    if data["phase"] != PHASE_B or data["turn"] != 0 or data["decision"] != D1:
        raise SnapshotError("rattus_cartus: position() starts from a fresh deal")
    _population_cards(game, base, spec, data)
    _buildings(game, spec, data)
    _start_player(game, spec, data)
    _rats(game, spec, data)
    _point_tokens(game, spec, data)
    _influence(game, spec, data)
    return data


class _Pool:
    """The population cards not placed yet, by kind."""

    def __init__(self) -> None:
        self.left = list(KIND_COPIES)

    def take(self, name: Any, where: str) -> int:
        """The item ``name`` names (a bare class: its kind with most copies left), a population card taken
        from the pool."""
        try:
            item, exact = parse_item(name)
        except ValueError as error:
            raise SnapshotError(f"rattus_cartus: position {where}: {error}") from None
        if exact is None:
            for kind in sorted(range(item * 5, item * 5 + 5), key=lambda v: -self.left[v]):
                if self.left[kind]:
                    self.left[kind] -= 1
                    return kind
            raise SnapshotError(f"rattus_cartus: position {where}: no {name} card left")
        if item < NUM_KINDS:
            if not self.left[item]:
                raise SnapshotError(f"rattus_cartus: position {where}: no {name} card left (4 or 2 copies)")
            self.left[item] -= 1
        return item

    def take_population(self, name: Any, where: str) -> int:
        kind = self.take(name, where)
        if kind >= NUM_KINDS:
            raise SnapshotError(f"rattus_cartus: position {where}: {name!r} is not a population card")
        return kind

    def take_kind(self, kind: int) -> bool:
        """Take a card of ``kind`` if one is left."""
        if self.left[kind]:
            self.left[kind] -= 1
            return True
        return False


# ====================================================================== population cards (§2.2)
def _population_cards(game: RattusCartusGame, base: dict[str, Any], spec: dict[str, Any],
                      data: dict[str, Any]) -> None:
    """Hands, nun row and deck top as named; every other population card goes to the deck."""
    n = game.num_players
    pool = _Pool()
    hands = spec.get("hands")
    if hands is not None and (not isinstance(hands, (list, tuple)) or len(hands) != n):
        raise SnapshotError(f"rattus_cartus: position hands must list {n} hands")
    row_kinds = _named_nun_row(spec.get("nun_row"), pool)
    new_hands = _dealt_hands(base, pool, n) if hands is None else _named_hands(hands, pool)
    if row_kinds is None:
        row_kinds = _dealt_nun_row(base, pool)
    deck_top = [pool.take_population(name, f"deck_top[{i}]") for i, name in enumerate(spec.get("deck_top", []))]
    rest = base["deck"] + base["nun_row"] + [v for h in base["hands"] for v in range(NUM_KINDS) for _ in range(h[v])]
    deck = [kind for kind in rest if pool.take_kind(kind)]
    data["deck"] = deck + list(reversed(deck_top))
    data["nun_row"] = row_kinds
    supply = list(SPECIAL_COPIES)
    for p in range(n):
        for s in range(5):
            supply[s] -= new_hands[p][NUM_KINDS + s]
            data["taken"][p][s] = new_hands[p][NUM_KINDS + s]
    if game.finite and min(supply) < 0:
        raise SnapshotError("rattus_cartus: position hands hold more special cards than exist")
    data["supply"] = supply if game.finite else list(SPECIAL_COPIES)
    data["hands"] = new_hands
    data["hand_size"] = [sum(h) for h in new_hands]
    data["seen"] = [[new_hands[p][v] for v in range(NUM_KINDS)] for p in range(n)]


def _named_nun_row(nun_row: Any, pool: _Pool) -> list[int] | None:
    if nun_row is None:
        return None
    if not isinstance(nun_row, (list, tuple)) or len(nun_row) != NUN_ROW_SIZE:
        raise SnapshotError("rattus_cartus: position nun_row must name 5 population cards")
    return [pool.take_population(name, f"nun_row[{i}]") for i, name in enumerate(nun_row)]


def _dealt_hands(base: dict[str, Any], pool: _Pool, n: int) -> list[list[int]]:
    """The fresh deal's hands (refused if the named nun row took one of their cards)."""
    hands = [[0] * NUM_ITEMS for _ in range(n)]
    for p in range(n):
        for kind in range(NUM_KINDS):
            for _ in range(base["hands"][p][kind]):
                if not pool.take_kind(kind):
                    raise SnapshotError("rattus_cartus: position: the nun row takes a card of a dealt hand; "
                                        "give the hands too")
                hands[p][kind] += 1
    return hands


def _named_hands(hands: list | tuple, pool: _Pool) -> list[list[int]]:
    out = [[0] * NUM_ITEMS for _ in hands]
    for p, hand in enumerate(hands):
        if not isinstance(hand, (list, tuple)):
            raise SnapshotError(f"rattus_cartus: position hands[{p}] must be a list of card names")
        for name in hand:
            out[p][pool.take(name, f"hands[{p}]")] += 1
    return out


def _dealt_nun_row(base: dict[str, Any], pool: _Pool) -> list[int]:
    """The fresh deal's nun row, a card the hands took replaced by the first kind left."""
    row = [kind if pool.take_kind(kind) else None for kind in base["nun_row"]]
    for i, kind in enumerate(row):
        if kind is None:
            row[i] = next(v for v in range(NUM_KINDS) if pool.left[v])
            pool.left[row[i]] -= 1
    return row


# ====================================================================== buildings (§2.2, §3.1)
def _buildings(game: RattusCartusGame, spec: dict[str, Any], data: dict[str, Any]) -> None:
    """The round, the row and the building deck's top as named; the set extended to hold them."""
    k = game.k
    rnd = spec.get("round", data["round"])
    if not is_int(rnd) or not 0 <= rnd < game.rounds:
        raise SnapshotError(f"rattus_cartus: position round={rnd!r} is not an int in 0..{game.rounds - 1}")
    data["round"] = rnd
    wanted_row = [_building(card, "row") for card in spec.get("row", [])]
    wanted_top = [_building(card, "building_deck_top") for card in spec.get("building_deck_top", [])]
    if wanted_row and len(wanted_row) != k:
        raise SnapshotError(f"rattus_cartus: position row must name {k} building cards")
    named = wanted_row + wanted_top
    if len(set(named)) != len(named):
        raise SnapshotError("rattus_cartus: position names a building card twice")
    building_set = _set_holding(data["building_set"], named)
    others = [c for c in data["bdeck"] + data["repl"] + data["row"] + data["used"] if c in building_set
              and c not in named]
    others += [c for c in building_set if c not in others and c not in named]
    row = wanted_row or [c for c in data["row"] if c in others][:k]
    others = [c for c in others if c not in row]
    if len(row) < k:
        row, others = row + others[:k - len(row)], others[k - len(row):]
    repl, others = others[:game.replacement], others[game.replacement:]
    deck_size = (game.rounds - 1 - rnd) * k
    need = deck_size - len(wanted_top)
    if need < 0:
        raise SnapshotError(f"rattus_cartus: position building_deck_top names more than the {deck_size} cards left")
    bdeck = others[:need] + list(reversed(wanted_top))
    used = others[need:]
    data.update(building_set=building_set, row=row, repl=repl, bdeck=bdeck, used=used, repl_known=0)


def _set_holding(building_set: list[int], named: list[int]) -> list[int]:
    """The building set with each named card swapped in for an unnamed card of its class."""
    building_set = list(building_set)
    for card in named:
        if card not in building_set:
            cls = card // 10
            swap = next((c for c in building_set if c // 10 == cls and c not in named), None)
            if swap is None:
                raise SnapshotError(f"rattus_cartus: position: {BUILDINGS[card // 5]} does not fit the set")
            building_set[building_set.index(swap)] = card
    return sorted(building_set)


def _building(card: Any, where: str) -> int:
    try:
        return parse_building_card(card)
    except ValueError as error:
        raise SnapshotError(f"rattus_cartus: position {where}: {error}") from None


# ====================================================================== seats
def _start_player(game: RattusCartusGame, spec: dict[str, Any], data: dict[str, Any]) -> None:
    if "start_player" in spec:
        start = spec["start_player"]
        if not is_int(start) or not 0 <= start < game.num_players:
            raise SnapshotError(f"rattus_cartus: position start_player={start!r} is not a seat "
                                f"0..{game.num_players - 1}")
        data["start"] = start
        data["current_player"] = start


def _rats(game: RattusCartusGame, spec: dict[str, Any], data: dict[str, Any]) -> None:
    if "rats" in spec:
        data["rats"] = _counts(spec["rats"], game.num_players, "rats")


def _point_tokens(game: RattusCartusGame, spec: dict[str, Any], data: dict[str, Any]) -> None:
    """Each seat takes its number of tokens from the lowest values left (R-A2)."""
    if "point_tokens" not in spec:
        return
    counts = _counts(spec["point_tokens"], game.num_players, "point_tokens")
    supply_tokens = sorted(game.point_token_values)
    if sum(counts) > len(supply_tokens) and game.finite:
        raise SnapshotError("rattus_cartus: position point_tokens: more than the 20 tokens")
    data["tokens"] = []
    for c in counts:
        data["tokens"].append(sorted(supply_tokens[:c]) if game.finite else [game.point_token_values[0]] * c)
        if game.finite:
            supply_tokens = supply_tokens[c:]
    data["token_supply"] = supply_tokens if game.finite else sorted(game.point_token_values)


def _counts(value: Any, n: int, keyword: str) -> list[int]:
    if not isinstance(value, (list, tuple)) or len(value) != n or not all(is_int(v) and v >= 0 for v in value):
        raise SnapshotError(f"rattus_cartus: position {keyword} must be {n} non-negative ints")
    return list(value)


def _influence(game: RattusCartusGame, spec: dict[str, Any], data: dict[str, Any]) -> None:
    """Levels per seat and class; arrival stamps in seat order, class by class (§3.4.2, R-A24)."""
    if "influence" not in spec:
        return
    n, influence = game.num_players, spec["influence"]
    if not isinstance(influence, (list, tuple)) or len(influence) != n or not all(
            isinstance(row, (list, tuple)) and len(row) == NUM_CLASSES and all(is_int(v) and v >= 0 for v in row)
            for row in influence):
        raise SnapshotError(f"rattus_cartus: position influence must be {n} lists of 6 levels")
    clock = 0
    data["level"] = [list(row) for row in influence]
    data["stamp"] = [[0] * NUM_CLASSES for _ in range(n)]
    for c in range(NUM_CLASSES):
        for p in range(n):
            if influence[p][c]:
                clock += 1
                data["stamp"][p][c] = clock
    data["clock"] = clock
