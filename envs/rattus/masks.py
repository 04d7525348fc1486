"""Rattus's masks for the turn decisions (MAIN, FINAL_ROUND) and the Witch's second peek, assembled as
bytes range by range: the fast form of :func:`.reference.legal_actions`, which defines them (§9.1).

A mask is the action layout's ranges in order (``end``, ``take``, ``place``, ``place_peasant``,
``merchant``, ``monk``, ``witch_peek``, ``witch_swap`` and ``witch_keep``, ``king``, then ``move_plague``,
``knight_stop`` and ``spread``), each range's bytes taken from tables made once per game
(:class:`MaskParts`) or from the state's per-region bytes (``state.counts``, ``state.holder_code``).
"""

from __future__ import annotations

from operator import getitem, itemgetter

from .config import CARDS, KING, MERCHANT, MERCHANT_MAX, MONK, NUM_REGIONS, PEASANT, SLOTS, WITCH
from .decisions import FINAL_ROUND

LEGAL = b"\1"
NONZERO = bytes([0] + [1] * 255)  # a bytes.translate table: 1 for a count above 0
MONK_CACHE_SIZE = 50_000
#: The action ranges in the order the masks join them.
RANGES = ("end", "take", "place", "place_peasant", "merchant", "monk", "witch_peek", "witch_swap", "witch_keep",
          "king", "move_plague", "knight_stop", "spread")


class MaskParts:
    """The bytes turn masks are joined from, for one game."""

    def __init__(self, game):
        layout, R = game.layout, NUM_REGIONS
        assert tuple(layout.ranges) == RANGES, "the masks join the action ranges in another order"
        self.none = {name: bytes(rng.size) for name, rng in layout.ranges.items()}  # each range, all illegal
        self.no_take, self.no_place, self.no_peasant = self.none["take"], self.none["place"], self.none["place_peasant"]
        self.no_merchant, self.no_monk, self.no_peek = self.none["merchant"], self.none["monk"], self.none["witch_peek"]
        self.no_king = self.none["king"]
        self.no_witch_decision = self.none["witch_swap"] + self.none["witch_keep"]
        self.no_plague_actions = self.none["move_plague"] + self.none["knight_stop"] + self.none["spread"]
        self.no_abilities = (self.no_merchant, self.no_monk, self.no_peek, self.no_king)
        self.before_peek = bytes(layout.start("witch_peek"))
        self.after_peek = bytes(layout.size - layout.stop("witch_peek"))
        #: which class cards' abilities may be used: in the main turn, in the final round (RA-19)
        self.all_cards = (True,) * len(CARDS)
        self.final_cards = tuple(card in game.final_cards for card in range(len(CARDS)))
        self.in_play = bytes(game.play_flag)  # PEASANT: any region in play
        #: per seat: a bytes.translate table of ``holder_code`` to its TAKE row (1 for a card it does not hold)
        self.take_tables = [bytes([code != p + 1 for code in range(256)]) for p in range(game.num_players)]
        self.column = [itemgetter(p) for p in range(game.num_players)]  # a seat's entry of a per-seat row
        #: MERCHANT from region f with c of the mover's cubes there: 1..min(3, c) cubes to each neighbour
        per_region = R * MERCHANT_MAX  # the MERCHANT actions from one region
        self.merchant = [[_range_bytes(layout, "merchant", [(f, t, m) for t in game.nbrs[f]
                                                            for m in range(min(MERCHANT_MAX, c))])[f * per_region:(f + 1) * per_region]
                          for c in range(game.cubes_per_player + 1)] for f in range(R)]
        #: PEEK in a region holding k tokens: its first k slots (regions out of play hold none)
        self.peek = [bytes(s < k for s in range(SLOTS)) for k in range(SLOTS + 1)]
        #: MONK: per region its neighbours (:func:`_region_set`); the rows of a region with k tokens end in zeros
        self.neighbours = [_region_set(game.nbrs[f]) for f in range(R)]
        self.no_monk_slots = [bytes(R * (SLOTS - k)) for k in range(SLOTS + 1)]
        self.monk_by_counts: dict[bytes, bytes] = {}  # the MONK range by the regions' token counts


def _range_bytes(layout, name: str, indices) -> bytes:
    """Range ``name``'s bytes with the actions at ``indices`` legal."""
    out, start = bytearray(layout.ranges[name].size), layout.start(name)
    for index in indices:
        out[layout.encode(name, *index) - start] = 1
    return bytes(out)


def turn_mask(state) -> bytes:
    """MAIN (§4, RA-4..RA-6: END, TAKE, PLACE / PEASANT, the abilities) and FINAL_ROUND (RA-19: END and the
    final-round abilities)."""
    parts, p = state.game.mask_parts, state.current_player
    if state.phase == FINAL_ROUND:
        merchant, monk, peek, king = abilities(state, p, parts.final_cards)
        return b"".join((LEGAL, parts.no_take, parts.no_place, parts.no_peasant, merchant, monk, peek,
                         parts.no_witch_decision, king, parts.no_plague_actions))
    if state.placed or state.supply[p] <= 0:
        place, peasant = parts.no_place, parts.no_peasant
    elif state.holder[PEASANT] != p:  # as many cubes as tokens: regions with tokens
        place, peasant = state.counts.translate(NONZERO), parts.no_peasant
    else:  # the Peasant's bonus anywhere in play; without it only if the bonus is optional
        place = state.counts.translate(NONZERO) if state.game.peasant_bonus_optional else parts.no_place
        peasant = parts.in_play
    end = state.game.placement_optional or state.placed or (place == parts.no_place and peasant == parts.no_peasant)
    take = parts.no_take if state.card_taken else state.holder_code.translate(parts.take_tables[p])
    merchant, monk, peek, king = abilities(state, p, parts.all_cards) if p in state.holder else parts.no_abilities
    return b"".join((LEGAL if end else b"\0", take, place, peasant, merchant, monk, peek, parts.no_witch_decision,
                     king, parts.no_plague_actions))


def abilities(state, p: int, allowed: tuple[bool, ...]) -> tuple[bytes, bytes, bytes, bytes]:
    """The MERCHANT, MONK, PEEK and KING ranges: the uses of the cards ``p`` holds, has not used this turn
    and may use (``allowed``, per card; §6)."""
    parts, holder, used = state.game.mask_parts, state.holder, state.used
    merchant, monk, peek, king = parts.no_abilities
    if holder[MERCHANT] == p and not used[MERCHANT] and allowed[MERCHANT]:  # RA-9: 1-3 own cubes to a neighbour
        merchant = b"".join(map(getitem, parts.merchant, map(parts.column[p], state.cubes)))
    if holder[MONK] == p and not used[MONK] and allowed[MONK]:  # RA-8: a token to a neighbour with room
        monk = _monk(parts, bytes(state.counts))
    if holder[WITCH] == p and not used[WITCH] and allowed[WITCH] and _witch_usable(state):  # RA-7: any token
        peek = b"".join(map(parts.peek.__getitem__, state.counts))
    if holder[KING] == p and not used[KING] and allowed[KING]:  # RA-10: an own cube from a token-free region
        king = bytes([not slot and row[p] > 0 for slot, row in zip(state.slots, state.cubes)])
    return merchant, monk, peek, king


def _monk(parts: MaskParts, counts: bytes) -> bytes:
    """The MONK range for the regions' token counts (cached by them): each token to a neighbour with room."""
    monk = parts.monk_by_counts.get(counts)
    if monk is None:
        if len(parts.monk_by_counts) >= MONK_CACHE_SIZE:
            parts.monk_by_counts.clear()
        room = _region_set([t for t in range(NUM_REGIONS) if counts[t] < SLOTS])
        monk = parts.monk_by_counts[counts] = b"".join([
            (room & neighbours).to_bytes(NUM_REGIONS, "little") * k + parts.no_monk_slots[k]
            for k, neighbours in zip(counts, parts.neighbours)])
    return monk


def _region_set(regions) -> int:
    """A set of regions as one byte per region (1: in the set) read as a little-endian int, so that ``&``
    intersects two sets and ``to_bytes`` gives a mask row."""
    return int.from_bytes(bytes(t in regions for t in range(NUM_REGIONS)), "little")


def _witch_usable(state) -> bool:
    """Two tokens to peek: in two regions (``witch_second_token="other_region"``), or anywhere."""
    counts = state.counts
    if state.game.witch_second_token == "other_region":
        return len(counts) - counts.count(0) >= 2
    return sum(counts) >= 2


def witch_second_mask(state) -> bytes:
    """WITCH_SECOND (RA-7): PEEK any token but the first (in another region with ``other_region``)."""
    parts = state.game.mask_parts
    first_region, first_slot = state.locate(state.witch[0])
    counts = list(state.counts)
    other_region = state.game.witch_second_token == "other_region"
    if other_region:
        counts[first_region] = 0
    peek = b"".join(map(parts.peek.__getitem__, counts))
    if not other_region:
        at = SLOTS * first_region + first_slot
        peek = peek[:at] + b"\0" + peek[at + 1:]
    return b"".join((parts.before_peek, peek, parts.after_peek))
