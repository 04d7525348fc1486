"""Rattus's observation and legal actions written plainly from the rules: the definition that the fast
observer (:mod:`.observation`) and the engine's mask (:meth:`.rules.RattusState.legal_mask`) must match
at every step. Slow on purpose; reads the layout's named blocks and the state, nothing else.

Seats are relative: column ``j`` of a seat block shows the seat ``j`` places clockwise of the observer
(spec §8, §10.3; docs/rattus_rules.md §8 and the env card).
"""

from __future__ import annotations

import numpy as np

from .config import KING, MERCHANT, MERCHANT_MAX, MONK, PEASANT, SLOTS, WITCH
from .decisions import (
    FINAL_ROUND, KNIGHT_STEP, MAIN, OPENING, OVER, PLAGUE_MOVE, SPREAD, WITCH_DECIDE, WITCH_SECOND,
)
from .observation import (
    CARD_FIELDS, FACE_FIELDS, FINAL_FIELDS, FLAGS_FIELDS, RATS_FIELDS, REGION_FIELDS, SLOT_FIELDS, SPREAD_FIELDS,
    TURNS_FIELDS, RattusObserver,
)


def observation(state, seat: int) -> np.ndarray:
    """What ``seat`` sees of ``state``, block by block."""
    game = state.game
    layout = RattusObserver.build_layout(game)
    out = np.zeros(layout.size, np.float32)
    block = layout.views(out)

    def column(q: int) -> int:  # the relative seat column of absolute seat q
        return (q - seat) % state.n

    def mark(token: int) -> float:  # a token's starting mark as shown (RA-3)
        return float(game.types[state.face[token]].starting and game.starting_mark_public)

    for r in range(len(block["regions"])):
        region = REGION_FIELDS.views(block["regions"][r])
        region["in_play"][0] = r in game.in_play
        region["plague"][0] = r == state.plague
        region["tokens"][0] = len(state.slots[r])
        for q in range(state.n):
            region["cubes"][column(q)] = state.cubes[r][q]
        for s, token in enumerate(state.slots[r]):
            slot = SLOT_FIELDS.views(region["slots"][s])
            slot["present"][0] = 1.0
            slot["mark"][0] = mark(token)
            for q in range(state.n):
                slot["known_by"][column(q)] = state.known[q][token]  # §8: who peeked it is public
            if state.swapped_by[token] >= 0:  # AM-2
                slot["swapped_by"][column(state.swapped_by[token])] = 1.0
            if state.known[seat][token]:  # the face only to a seat that peeked it
                token_type = game.types[state.face[token]]
                face = FACE_FIELDS.views(slot["face"])
                face["limit"][0], face["m"][0], face["a"][0] = token_type.limit, token_type.m, token_type.a
                face["classes"][:] = token_type.classes
    for q in range(state.n):
        block["palace"][column(q)] = state.palace[q]
        block["cube_supply"][column(q)] = state.supply[q]
        block["seats"][column(q)] = 1.0
    for card, holder in enumerate(state.holder):
        row = CARD_FIELDS.views(block["cards"][card])
        if holder < 0:
            row["unheld"][0] = 1.0
        else:
            row["holder"][column(holder)] = 1.0
    rats = RATS_FIELDS.views(block["rats"])
    rats["supply"][0] = len(state.rat_supply)
    rats["removed"][0] = len(state.removed)
    rats["supply_marks"][0] = sum(mark(token) for token in state.rat_supply)
    rats["removed_marks"][0] = sum(mark(token) for token in state.removed)
    for token in state.revealed:
        block["revealed"][state.face[token]] += 1.0
    if state.phase != OVER:
        block["phase"][state.phase] = 1.0
    flags = FLAGS_FIELDS.views(block["flags"])
    flags["card_taken"][0], flags["placed"][0] = state.card_taken, state.placed
    flags["used"][:] = state.used
    spread = SPREAD_FIELDS.views(block["spread"])
    spread["due"][0] = state.spread_due
    spread["pending_mark"][0] = mark(state.pending) if state.pending >= 0 else 0.0
    if state.phase in (WITCH_SECOND, WITCH_DECIDE):  # the tokens peeked in this Witch use (public)
        for i, token in enumerate(state.witch):
            if token >= 0:
                r, s = state.locate(token)
                block["witch"][i, SLOTS * r + s] = 1.0
    if state.phase == KNIGHT_STEP:
        block["origin"][state.origin] = 1.0
    if state.ender >= 0:
        final = FINAL_FIELDS.views(block["final"])
        final["final_round"][0] = state.phase in (FINAL_ROUND, WITCH_SECOND, WITCH_DECIDE, OVER)
        final["ender"][column(state.ender)] = 1.0
    block["start_seat"][column(state.start_seat)] = 1.0
    turns = TURNS_FIELDS.views(block["turns"])
    turns["regular"][0] = state.regular_turns / game.max_regular_turns
    turns["no_progress"][0] = state.no_progress  # AM-5
    if state.phase != OVER:
        block["actor"][column(state.current_player)] = 1.0
    return out


def legal_mask(state) -> np.ndarray:
    """The current player's legal actions (§9.1), as an int8 mask."""
    mask = np.zeros(state.game.layout.size, np.int8)
    mask[legal_actions(state)] = 1
    return mask


def legal_actions(state) -> list[int]:
    """The legal action ids of the decision on turn, by phase (§9.1)."""
    game, encode, plague = state.game, state.game.layout.encode, state.plague
    if state.phase == OPENING:  # RA-18: any region in play
        return [encode("place", r) for r in game.in_play]
    if state.phase == MAIN:
        return _main_turn(state)
    if state.phase == FINAL_ROUND:  # RA-19: the final-round abilities, or END
        return [encode("end")] + _abilities(state, game.final_cards)
    if state.phase == WITCH_SECOND:  # RA-7: another token (in another region with other_region)
        first_region, first_slot = state.locate(state.witch[0])
        if game.witch_second_token == "other_region":
            return [encode("witch_peek", r, s) for r, s in _tokens(state) if r != first_region]
        return [encode("witch_peek", r, s) for r, s in _tokens(state) if (r, s) != (first_region, first_slot)]
    if state.phase == WITCH_DECIDE:
        return [encode("witch_swap"), encode("witch_keep")]
    if state.phase == PLAGUE_MOVE:  # RA-12: any neighbour in play
        return [encode("move_plague", r) for r in game.nbrs[plague]]
    if state.phase == KNIGHT_STEP:  # RA-11: a second step, not back to the origin unless allowed, or stop
        steps = [r for r in game.nbrs[plague] if r != state.origin or game.knight_may_end_at_origin]
        return [encode("move_plague", r) for r in steps] + [encode("knight_stop")]
    if state.phase == SPREAD:  # RA-13: a neighbour with room
        return [encode("spread", r) for r in game.nbrs[plague] if len(state.slots[r]) < SLOTS]
    return []


def _main_turn(state) -> list[int]:
    """§4, RA-4..RA-6: take a card not held (once), place (once, mandatory while possible unless
    ``placement_optional``), the abilities of held unused cards, END."""
    game, encode, p = state.game, state.game.layout.encode, state.current_player
    takes = [] if state.card_taken else [encode("take", k) for k, holder in enumerate(state.holder) if holder != p]
    places = []
    if not state.placed and state.supply[p] > 0:
        with_tokens = [r for r in game.in_play if state.slots[r]]  # a place adds as many cubes as tokens
        if state.holder[PEASANT] != p:
            places = [encode("place", r) for r in with_tokens]
        else:  # the Peasant's bonus, even with no tokens; without it only if the bonus is optional
            plain = with_tokens if game.peasant_bonus_optional else []
            places = [encode("place", r) for r in plain] + [encode("place_peasant", r) for r in game.in_play]
    end = game.placement_optional or state.placed or not places
    return sorted(([encode("end")] if end else []) + takes + places + _abilities(state, None))


def _abilities(state, allowed: set[int] | None) -> list[int]:
    """The uses of the class cards the current player holds and has not used this turn (§6), of the
    cards in ``allowed`` if given."""
    game, encode, p = state.game, state.game.layout.encode, state.current_player

    def usable(card: int) -> bool:
        return state.holder[card] == p and not state.used[card] and (allowed is None or card in allowed)

    out = []
    if usable(MERCHANT):  # RA-9: 1-3 own cubes from a region to a neighbour
        out += [encode("merchant", f, t, m - 1) for f in game.in_play for t in game.nbrs[f]
                for m in range(1, min(MERCHANT_MAX, state.cubes[f][p]) + 1)]
    if usable(MONK):  # RA-8: a token, by slot, to a neighbour with room
        out += [encode("monk", f, s, t) for f, s in _tokens(state) for t in game.nbrs[f]
                if len(state.slots[t]) < SLOTS]
    if usable(WITCH) and _witch_usable(state):  # RA-7: the first peek
        out += [encode("witch_peek", r, s) for r, s in _tokens(state)]
    if usable(KING):  # RA-10: an own cube from a token-free region to the palace
        out += [encode("king", r) for r in game.in_play if not state.slots[r] and state.cubes[r][p] > 0]
    return sorted(out)


def _witch_usable(state) -> bool:
    """Two tokens to peek: in two regions (``other_region``), or anywhere."""
    if state.game.witch_second_token == "other_region":
        return sum(1 for slot in state.slots if slot) >= 2
    return len(_tokens(state)) >= 2


def _tokens(state) -> list[tuple[int, int]]:
    """(region, slot) of every token on the board."""
    return [(r, s) for r in range(len(state.slots)) for s in range(len(state.slots[r]))]
