"""Rattus positions from keywords (``env.unwrapped.set_position``; see :meth:`.rules.RattusGame.position`).

The result is ``to_json`` data at the start of a regular turn (``MAIN``), built on a freshly dealt game;
``restore`` then checks it like any snapshot. Reads the game duck-typed.
"""

from __future__ import annotations

from typing import Any

from ..core.game import SnapshotError
from ..core.schema import copy_lists, is_int
from .config import CARDS, NUM_REGIONS, NUM_TOKENS
from .decisions import MAIN

KEYWORDS = ("active", "start_seat", "cubes", "palace", "plague", "holders", "tokens", "rat_supply", "known",
            "regular_turns", "no_progress")


def position(game, base: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """``base`` (a dealt game's data) turned into the position ``spec`` describes."""
    unknown = sorted(set(spec) - set(KEYWORDS))
    if unknown:
        raise SnapshotError(f"rattus: unknown position keyword(s) {unknown}; keywords: {sorted(KEYWORDS)}")
    for key in ("cubes", "holders", "tokens", "known"):
        if key in spec and not isinstance(spec[key], dict):
            raise SnapshotError(f"rattus: position {key}={spec[key]!r:.80} is not a mapping")
    builder = _Builder(game, {key: copy_lists(value) for key, value in base.items()})
    builder.turn(spec)
    builder.cubes(spec.get("cubes", {}), spec.get("palace", [0] * game.num_players))
    if "plague" in spec:
        builder.data["plague"] = builder.region(spec["plague"], "plague")
    builder.holders(spec.get("holders", {}))
    free = builder.tokens(spec["tokens"]) if "tokens" in spec else builder.free_of_base()
    builder.off_board(free, spec.get("rat_supply"))
    builder.known(spec.get("known", {}))
    return builder.data


class _Builder:
    """The steps of :func:`position`, each filling fields of ``data``."""

    def __init__(self, game, data: dict[str, Any]):
        self.game, self.data = game, data
        self.index = {name: r for r, name in enumerate(game.regions)}

    def region(self, name: Any, where: str) -> int:
        if not isinstance(name, str) or name not in self.index:
            raise SnapshotError(f"rattus: position {where}: {name!r} is not a region; regions: {list(self.game.regions)}")
        return self.index[name]

    def seat(self, value: Any, where: str) -> int:
        n = self.game.num_players
        if not is_int(value) or not 0 <= value < n:
            raise SnapshotError(f"rattus: position {where}: {value!r} is not a seat 0..{n - 1}")
        return value

    def turn(self, spec: dict[str, Any]) -> None:
        """The seat on turn, the start seat and the counters; the per-turn flags cleared."""
        active = self.seat(spec.get("active", 0), "active")
        self.data.update(phase=MAIN, active=active, current_player=active, start_seat=spec.get("start_seat", active),
                         card_taken=False, placed=False, used=[False] * 6, productive=False,
                         regular_turns=spec.get("regular_turns", 0), no_progress=spec.get("no_progress", 0))
        self.data["start_seat"] = self.seat(self.data["start_seat"], "start_seat")
        self.data["opening_order"] = self.game.snake_order(self.data["start_seat"])
        self.data["opening_step"] = len(self.data["opening_order"])

    def cubes(self, rows: dict[str, Any], palace: Any) -> None:
        """Cubes per region (others empty) and in the palace; the supplies hold the rest."""
        n = self.game.num_players
        cubes = [[0] * n for _ in range(NUM_REGIONS)]
        for name, row in rows.items():
            cubes[self.region(name, "cubes")] = self.counts(row, f"cubes.{name}")
        self.data["cubes"], self.data["palace"] = cubes, self.counts(palace, "palace")
        self.data["supply"] = [self.game.cubes_per_player - sum(row[p] for row in cubes) - self.data["palace"][p]
                               for p in range(n)]

    def counts(self, value: Any, where: str) -> list[int]:
        """A list of one cube count per seat."""
        n = self.game.num_players
        if not isinstance(value, (list, tuple)) or len(value) != n or not all(is_int(v) and v >= 0 for v in value):
            raise SnapshotError(f"rattus: position {where}: {value!r:.80} is not a list of {n} cube counts")
        return list(value)

    def holders(self, holders: dict[str, Any]) -> None:
        out = [-1] * 6
        for card, who in holders.items():
            if card not in CARDS:
                raise SnapshotError(f"rattus: position holders: {card!r} is not a card; cards: {list(CARDS)}")
            out[CARDS.index(card)] = self.seat(who, f"holders.{card}")
        self.data["holder"] = out

    def _base_order(self) -> list[int]:
        """The base deal's token ids: supply, removed, then the board's."""
        d = self.data
        return d["rat_supply"] + d["removed"] + [t for slot in d["slots"] for t in slot]

    def free_of_base(self) -> list[int]:
        """The base deal's ids off the board (its board kept)."""
        board = {t for slot in self.data["slots"] for t in slot}
        return [t for t in self._base_order() if t not in board]

    def tokens(self, regions: dict[str, Any]) -> list[int]:
        """Each region's tokens by type id (``"?"``: any) from the free ids; returns the ids left free."""
        free = self._base_order()
        type_ids = [tt.id for tt in self.game.types]
        faces = self.data["face"]
        slots: list[list[int]] = [[] for _ in range(NUM_REGIONS)]
        for name, names in regions.items():
            r = self.region(name, "tokens")
            if not isinstance(names, list):
                raise SnapshotError(f"rattus: position tokens.{name}: {names!r:.80} is not a list of token type ids")
            for face in names:
                if face != "?" and face not in type_ids:
                    raise SnapshotError(f"rattus: position tokens.{name}: {face!r} is not a token type id")
                match = next((t for t in free if face == "?" or faces[t] == type_ids.index(face)), None)
                if match is None:
                    raise SnapshotError(f"rattus: position tokens.{name}: no {face!r} token left")
                free.remove(match)
                slots[r].append(match)
        self.data["slots"] = slots
        self.data["setup_token"] = [False] * NUM_TOKENS
        return free

    def off_board(self, free: list[int], supply: Any) -> None:
        """The game's count of tokens removed unseen (§3.4), ``supply`` tokens in the rat supply (default:
        the rest) and the rest revealed earlier."""
        removed = self.game.removed_count
        if supply is None:
            supply = len(free) - removed
        if not is_int(supply) or not 0 <= supply <= len(free) - removed:
            raise SnapshotError(f"rattus: position rat_supply={supply!r}: an int in 0..{len(free) - removed}, the "
                                f"{len(free)} tokens off the board less the {removed} removed unseen")
        self.data["rat_supply"] = sorted(free[:supply])
        self.data["removed"] = sorted(free[supply:supply + removed])
        self.data["revealed"] = free[supply + removed:]

    def known(self, known: dict[Any, Any]) -> None:
        """Faces peeked with the Witch: ``{seat: [[region, slot], ...]}``; swap marks cleared."""
        n = self.game.num_players
        out = [[False] * NUM_TOKENS for _ in range(n)]
        for who, places in known.items():
            who = self.seat(who, "known")
            if not isinstance(places, list):
                raise SnapshotError(f"rattus: position known.{who}: {places!r:.80} is not a list of [region, slot]")
            for place in places:
                if not isinstance(place, (list, tuple)) or len(place) != 2:
                    raise SnapshotError(f"rattus: position known.{who}: {place!r:.80} is not a [region, slot] pair")
                r_name, s = place
                slot = self.data["slots"][self.region(r_name, "known")]
                if not is_int(s) or not 0 <= s < len(slot):
                    raise SnapshotError(f"rattus: position known: {r_name} has no slot {s!r}")
                out[who][slot[s]] = True
        self.data["known"] = out
        self.data["swapped_by"] = [-1] * NUM_TOKENS
