"""Rattus Cartus's observation and legal actions written plainly from the rules: the definition that the
fast observer (:mod:`.observation`) and the engine's mask (:meth:`.rules.RattusCartusState.legal_mask`)
must match at every step. Slow on purpose; reads the layout's named blocks and the state, nothing else.

Relative seat ``r`` is the player ``r`` places clockwise of the observer. What the observer may not see
never appears (docs/rattus_cartus_rules.md §7): other hands, others' committed cards before their
reveal, nun-row cards it has not looked at, others' rats with ``rats_public=False`` (R-A30), and what
follows from a hidden building set (R-A32).
"""

from __future__ import annotations

import numpy as np

from .cards import COMMITTABLE, I_PASS, ITEM_TYPE, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUM_NUN_VALUES, NUN_ROW_SIZE, TREASURY
from .decisions import D1, D2, D3, D4, D5, D6, D7, D8, D9, D10, PHASE_D, PHASE_OVER
from .observation import (
    CANDIDATE, CONTEXT_FIELDS, FLUTE_WINNER, GAME_FIELDS, IN_GAME, OWN_TOKENS_FIELDS, REPLACEMENT_BOTTOM,
    ROW_SLOT_FIELDS, SEAT_FIELDS, SUPPLY_FIELDS, SWORD_LOSER, SWORD_WINNER, UNREVEALED, USED, WATCHTOWER_VICTIM,
    RattusCartusObserver,
)


def observation(state, seat: int) -> np.ndarray:
    """What ``seat`` sees of ``state``, block by block."""
    game, n = state.game, state.n
    layout = RattusCartusObserver.build_layout(game)
    out = np.zeros(layout.size, np.float32)
    block = layout.views(out)

    def relative(q: int) -> int:
        return (q - seat) % n

    block["decision"][state.decision] = 1.0
    if state.current_player >= 0:
        block["actor"][relative(state.current_player)] = 1.0
    block["start_player"][relative(state.start)] = 1.0
    _context(state, relative, CONTEXT_FIELDS.views(block["context"]), block["context_seats"])
    block["own_hand"][:] = state.hands[seat]
    block["own_pending"][:] = state.pending[seat]
    block["own_committed"][:] = state.committed[seat]
    tokens = OWN_TOKENS_FIELDS.views(block["own_tokens"])
    tokens["number"][0], tokens["value"][0] = len(state.tokens[seat]), sum(state.tokens[seat])
    for position in range(NUN_ROW_SIZE):  # only what the observer looked at
        if state.peeked[seat][position]:
            block["nun_row"][position, state.nun_row[position]] = 1.0
            block["nun_row"][position, -1] = 1.0
    block["seen_outside"][:] = state.seen_now(seat)  # §7.5 item 4
    ranks = _ranks(state)
    for q in range(n):
        r = relative(q)
        if r:  # §7.5 item 5: what the observer gave q in hidden transfers, and whether q passed on cards
            block["gifts"][r, :NUM_ITEMS] = state.gifts[seat][q]
            block["gifts"][r, NUM_ITEMS] = state.gift_flag[seat][q]
        _seat_row(state, q, ranks[q], SEAT_FIELDS.views(block["seats"][r]))
        if r and not game.rats_public:  # R-A30
            block["seats"][r, SEAT_FIELDS.offset("rats")] = 0.0
        block["looks"][r] = state.peek_count[q]
        if state.revealed[q]:
            block["reveals"][r] = state.last_reveal[q]
    _game_values(state, GAME_FIELDS.views(block["game"]))
    for s, card in enumerate(state.row):
        slot = ROW_SLOT_FIELDS.views(block["row"][s])
        slot["building"][card // 5] = slot["copy"][card % 5] = slot["present"][0] = 1.0
        slot["supply_action"][:] = game.supply_action[card]
    supply = SUPPLY_FIELDS.views(block["supply"])
    if game.finite:
        supply["specials"][:] = state.supply
        supply["point_tokens"][0] = len(state.token_supply)
    else:
        supply["unlimited"][0] = 1.0
    block["discard"][:] = state.discard
    block["reshuffled_deck"][:] = state.reshuffle_comp
    buildings = block["buildings"]
    if game.building_set_public:  # R-A32
        buildings[IN_GAME, state.building_set] = 1.0
        buildings[UNREVEALED, state.bdeck + state.repl] = 1.0
    buildings[USED, state.used] = 1.0
    for position in range(state.repl_known):  # the cards put under the replacement pile face up (§3.1)
        buildings[REPLACEMENT_BOTTOM, state.repl[position]] = position + 1
    return out


def _context(state, relative, context: dict, seats: np.ndarray) -> None:
    """The decision's context and, in phase D, the seats it names."""
    context["due"][0] = state.left
    if state.first_pos >= 0:
        context["first_look"][state.first_pos] = 1.0
    if state.phase != PHASE_D:
        return
    if state.slot < state.game.k:
        context["slot"][state.slot] = 1.0
    if state.qi < len(state.queue):
        context["special"][0] = state.queue[state.qi][1]
    if state.wt_t >= 0:
        context["watchtower"][0] = state.wt_t + 1
    for q in state.cands:
        seats[CANDIDATE, relative(q)] = 1.0
    for row, q in ((SWORD_WINNER, state.sword[0]), (SWORD_LOSER, state.sword[1]), (FLUTE_WINNER, state.flute)):
        if q >= 0:
            seats[row, relative(q)] = 1.0
    for q in state.wt_victims:
        seats[WATCHTOWER_VICTIM, relative(q)] = 1.0


def _seat_row(state, p: int, ranks: list[int], row: dict) -> None:
    """Seat ``p``'s public row (see :data:`.observation.SEAT_FIELDS`)."""
    committed = sum(state.committed[p]) if state.entered[p] >= 0 else 0
    row["rats"][0] = state.rats[p]
    row["hand_size"][0] = state.hand_size[p]
    row["pending"][0] = sum(state.pending[p]) if state.phase == PHASE_D else 0
    row["committed"][0] = committed
    row["announced"][0] = state.announced[p] >= 0
    row["tokens"][0] = len(state.tokens[p])
    if state.supply_slot[p] >= 0:
        row["supply_slot"][state.supply_slot[p]] = 1.0
    if state.entered[p] >= 0:
        row["entered"][state.entered[p]] = 1.0
    row["entry_pos"][0] = state.entry_pos[p] + 1
    row["entry_order"][0] = state.entry_order[p] + 1
    row["passes"][0] = state.passes[p]
    row["taken"][:] = state.taken[p]
    row["shown"][:] = state.shown[p]
    row["hidden_in"][0], row["hidden_out"][0] = state.hidden_in[p], state.hidden_out[p]
    row["unrevealed"][0] = 0 if state.revealed[p] else committed
    row["revealed"][0] = state.revealed[p]
    row["level"][:] = state.level[p]
    row["rank"][:] = ranks
    row["start"][0] = p == state.start
    row["special_player"][0] = p == state.rsp


def _ranks(state) -> list[list[int]]:
    """Influence rank of every seat per class (1 = first; 0 = level 0), ties by arrival (§6.1, R-A24)."""
    out = [[0] * NUM_CLASSES for _ in range(state.n)]
    for c in range(NUM_CLASSES):
        ranked = sorted((-state.level[p][c], state.stamp[p][c], p) for p in range(state.n) if state.level[p][c])
        for place, (_, _, p) in enumerate(ranked, 1):
            out[p][c] = place
    return out


def _game_values(state, values: dict) -> None:
    game = state.game
    values["round"][0] = min(state.round + 1, game.rounds)
    values["rounds"][0] = game.rounds
    values["last_round"][0] = state.round == game.rounds - 1 and state.phase != PHASE_OVER
    values["phase"][state.phase] = 1.0
    values["k"][0] = game.k
    values["building_deck"][0], values["replacement"][0] = len(state.bdeck), len(state.repl)
    values["deck"][0], values["discard"][0] = len(state.deck), sum(state.discard)
    values["clock"][0], values["reshuffles"][0] = state.clock, state.reshuffles
    treasury = range(5 * TREASURY, 5 * TREASURY + 5)
    values["gold"][0] = game.building_set_public and any(card in treasury for card in state.building_set)
    values["entered"][0] = state.num_entered


def legal_mask(state) -> np.ndarray:
    """The current player's legal actions (§8.1), as an int8 mask."""
    mask = np.zeros(state.game.layout.size, np.int8)
    mask[legal_actions(state)] = 1
    return mask


def legal_actions(state) -> list[int]:
    """The legal action ids of the decision on turn (§8.1, §8.2)."""
    game, d, p = state.game, state.decision, state.current_player
    encode, hand = game.layout.encode, state.hands[p] if p >= 0 else []
    slots = [encode("slot", s) for s in range(game.k)]
    if d == D1:  # a supply slot
        return slots
    if d == D3:  # enter a slot, or play a Pass while somebody else is still to enter (R-A10)
        may_pass = hand[I_PASS] > 0 and state.num_entered < state.n - 1
        return slots + ([encode("pass")] if may_pass else [])
    if d in (D2, D8):  # a nun-row look; the D8 second look differs from the first (R-A8)
        positions = [q for q in range(NUN_ROW_SIZE) if q != state.first_pos]
        if game.mask_known_peeks:  # only unknown positions while one remains
            positions = [q for q in positions if not state.peeked[p][q]] or positions
        return [encode("pos", q) for q in positions]
    if d == D4:  # commit a committable card (R-A9) or stop
        return _cards(state, [item for item in COMMITTABLE if hand[item]]) + [encode("stop")]
    if d in (D6, D10):  # give a card: exactly the cards due, no stop
        return _cards(state, [item for item in range(NUM_ITEMS) if hand[item]])
    if d == D9:  # discard a card or stop (R-A17)
        return _cards(state, [item for item in range(NUM_ITEMS) if hand[item]]) + [encode("stop")]
    if d in (D5, D7):  # a candidate, by its seat offset
        return sorted(encode("target", (c - p) % state.n - 1) for c in state.cands)
    return []


def _cards(state, items: list[int]) -> list[int]:
    """The CARD actions that move these items: per item with ``population_choice="full"``, else per type."""
    encode = state.game.layout.encode
    if state.game.full_choice:
        return sorted({encode("card_kind", *divmod(item, NUM_NUN_VALUES)) if item < NUM_KINDS else
                       encode("card_special", item - NUM_KINDS) for item in items})
    return sorted({encode("card", ITEM_TYPE[item]) for item in items})

