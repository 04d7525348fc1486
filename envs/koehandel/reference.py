"""Koehandel's readable specification beside the fast paths (docs/koehandel_rules.md §12).

:func:`observation` writes a seat's vector from scratch, block by block, each value by its name in
:mod:`.layout`: what the rules let that seat see of the state, nothing cached. The record blocks are
laid out from the seat's complete record (``state.memory``, part of the state and rebuilt from the events
on restore): the digest, then each event table in order (``full_record``) or its newest 16 rows, newest
first (``compact``, K-A40). :func:`legal_mask` lists the current player's legal actions plainly from the
rules. Slow is fine: tests compare the observer and the engine's masks with these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import actions as A
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, PEDIGREE, RAT, SPECIES_NAMES
from .layout import CARD_KINDS, PEDIGREES, ROLES, STATE_BLOCKS, Fields, observation_layout
from .money import legal_payments
from .records import COMPACT_ROWS, DIGEST_COLUMNS, RESPONSE_CODES, RESULT_CODES, SLOTS

SELECTIONS = (A.D_PAY, A.D_STAKE, A.D_PED_CARDS, A.D_OFFER, A.D_COUNTER)


# ---------------------------------------------------------------------------- observation
def observation(state, seat: int) -> np.ndarray:
    """``seat``'s observation of ``state``, written value by value (see the module docstring)."""
    layout = observation_layout(state.game)
    vector = np.zeros(layout.size, np.float32)
    acting = state.decision if state.current_player == seat and not state.is_terminal else 0
    values = {"decision": _decision(acting), "game": _game(state, seat), "own_hand": _own_hand(state, seat),
              "deck": _deck(state), "auction": _auction(state, seat, acting), "pedigree": _pedigree(state, seat),
              "rat_pot": _rat_pot(state, seat), "trade": _trade(state, seat),
              "selection": _selection(state, acting), "looked_card": {"looked_card": _looked(state, acting)}}
    for name, named in values.items():
        layout.view(vector, name)[:] = _in_order(STATE_BLOCKS[name], named)
    seats = layout.view(vector, "seats")
    for slot in range(state.n):
        seats[slot] = _in_order(STATE_BLOCKS["seats"], _seat_row(state, (seat + slot) % state.n))
    for name, rows in _record(state, seat).items():
        if rows:  # the rest of a table stays 0
            layout.view(vector, name)[: len(rows)] = rows
    return vector


def _in_order(fields: Fields, named: dict[str, Any]) -> list:
    """The block's values in its order; every name given, no other."""
    assert set(named) == set(fields), sorted(set(named) ^ set(fields))
    return [named[name] for name in fields]


def _denominations(prefix: str, counts) -> dict[str, int]:
    return {f"{prefix}_{worth}": k for worth, k in zip(DENOMINATIONS, counts)}


def _decision(acting: int) -> dict[str, int]:
    """The decision the seat faces, one-hot (§12.1); all 0 off turn."""
    return {"none": 0, **{f"D{d}": int(d == acting) for d in range(1, A.D_DISTRIBUTE + 1)}}


def _game(s, seat: int) -> dict[str, int]:
    return {"final_phase": int(not s.deck), "players": s.n, "turn": s.turns, "donkeys": s.donkeys,
            "deck_cards": len(s.deck), "turn_player_slot": (s.turn_player - seat) % s.n}


def _own_hand(s, seat: int) -> dict[str, int]:
    return {**_denominations("cards", s.hands[seat]), "cash": s.cash[seat]}


def _deck(s) -> dict[str, int]:
    """Red cards left per species and pedigree, money cards left, the top card's back (K-A6). A card
    being looked at (2 players) still counts as left: its face is the looker's (§8.1)."""
    cards = s.deck + ([s.looked] if s.decision == A.D_DISTRIBUTE else [])
    out = {f"{name}_left": cards.count(species) for species, name in enumerate(SPECIES_NAMES)}
    out.update({f"{name}_left": cards.count(PEDIGREE + species) for species, name in enumerate(PEDIGREES)})
    out["money_cards_left"] = sum(card >= MONEY for card in cards)
    out["top_card_back"] = int(s.deck[-1] >= MONEY) if s.deck else -1
    return out


def _seat_row(s, seat: int) -> dict[str, int]:
    """A seat's public row (K-A13: its number of money cards), its roles in the event going on."""
    roles = {"on_turn": s.turn_player, "auctioneer": s.auctioneer, "high_bidder": s.high_bidder,
             "challenger": s.challenger, "challenged": s.challenged, "pedigree_winner": s.winner if s.kstar else -1}
    assert tuple(roles) == ROLES
    return {"money_cards": s.sizes[seat], **dict(zip(SPECIES_NAMES, s.holdings[seat])),
            **{name: int(s.pedigree_owner[species] == seat) for species, name in enumerate(PEDIGREES)},
            **{role: int(holder == seat) for role, holder in roles.items()},
            "highest_bid_on_card": s.max_bid[seat], "present": 1}


def _auction(s, seat: int, acting: int) -> dict[str, int]:
    card = s.card if s.auctioneer >= 0 else -1
    if card < 0:
        kind, species = "none", -1
    elif card < NUM_ANIMALS:
        kind, species = "animal", card
    elif card == RAT:
        kind, species = "rat", RAT
    else:
        kind, species = "pedigree", card - PEDIGREE
    return {"card_kind": CARD_KINDS.index(kind), "species": species, "high_bid": s.high,
            "high_bidder_slot": _slot(s, s.high_bidder, seat), "passes": s.passes,
            "own_raise": s.pending if acting == A.D_BID else 0}


def _slot(s, other: int, seat: int) -> int:
    return -1 if other < 0 else (other - seat) % s.n


def _pedigree(s, seat: int) -> dict[str, int]:
    """The sealed count (§5.2): the seat's own commitment, the winner and k* once decided, the tied
    seats when ties are announced (K-A14)."""
    on_block = s.auctioneer >= 0 and PEDIGREE <= s.card < MONEY
    own = s.commits[seat] if on_block and s.commits[seat] is not None else -1
    tied = {(other - seat) % s.n for other in s.tied} if s.cfg.reveal_pedigree_ties else set()
    return {"own_commitment": own, "winner_slot": _slot(s, s.winner, seat) if s.kstar else -1, "count": s.kstar,
            **{f"tied_slot_{slot}": int(slot in tied) for slot in range(SLOTS)}}


def _rat_pot(s, seat: int) -> dict[str, int]:
    """Cards laid per slot (public); the seat's own laid cards by denomination (§6.1)."""
    layers = [(layer - seat) % s.n for layer, _ in s.pot]
    own = [sum(1 for layer, d in s.pot if layer == seat and d == denomination) for denomination in range(NUM_DENOMS)]
    return {**{f"cards_laid_slot_{slot}": layers.count(slot) for slot in range(SLOTS)},
            **_denominations("own_laid", own)}


def _trade(s, seat: int) -> dict[str, int]:
    """The cow trade going on (§7.5): seats, species, stake, round, the first round's response and result
    once over, the card counts laid (K-A22), the tied first round's cards to its two traders, and the
    seat's own offer lying face down."""
    unknown = [-1] * NUM_DENOMS
    if s.challenger < 0:
        return {"challenger_slot": -1, "challenged_slot": -1, "species": -1, "stake": 0, "round": 0,
                "round1_response": 0, "round1_result": 0, "round2_response": 0, "round1_offer_cards": 0,
                "round1_counter_cards": 0, "round2_offer_cards": 0, **_denominations("round1_offer", unknown),
                **_denominations("round1_counter", unknown), **_denominations("own_offer", unknown)}
    laid = sum(s.offers[0]) if s.decision in (A.D_RESPONSE, A.D_COUNTER) else 0
    first = s.rounds[0] if s.rounds else {}
    second = s.rounds[1] if len(s.rounds) > 1 else {}
    tied_round_over = "result" in first
    traders_see = tied_round_over and seat in (s.challenger, s.challenged)
    return {"challenger_slot": (s.challenger - seat) % s.n, "challenged_slot": (s.challenged - seat) % s.n,
            "species": s.species, "stake": s.trade_stake, "round": s.trade_round,
            "round1_response": RESPONSE_CODES.get(first.get("response"), 0),
            "round1_result": RESULT_CODES.get(first.get("result"), 0),
            "round2_response": RESPONSE_CODES.get(second.get("response"), 0),
            "round1_offer_cards": first["offer_cards"] if tied_round_over else laid,
            "round1_counter_cards": first["counter_cards"] if tied_round_over else 0,
            "round2_offer_cards": laid if s.trade_round == 2 else 0,
            **_denominations("round1_offer", first["offer"] if traders_see else unknown),
            **_denominations("round1_counter", first["counter"] if traders_see else unknown),
            **_denominations("own_offer", s.offers[0] if laid and seat == s.challenger else unknown)}


def _selection(s, acting: int) -> dict[str, int]:
    """The cards the seat has chosen so far (§12.3) and what they must reach: a payment's price, or k*."""
    chosen = s.selection if acting in SELECTIONS else [0] * NUM_DENOMS
    target = s.amount if acting == A.D_PAY else s.kstar if acting in (A.D_STAKE, A.D_PED_CARDS) else 0
    return {**_denominations("selected", chosen), "target": target}


def _looked(s, acting: int) -> int:
    return s.looked if acting == A.D_DISTRIBUTE else -1


def _record(s, seat: int) -> dict[str, list[list[int]]]:
    """Blocks 2 and 3: the digest rows of the opponent slots, then each event table's rows (§12.5)."""
    digest = s.memory.digest[seat].tolist()
    out = {"digest": [digest[k:k + DIGEST_COLUMNS] for k in range(0, len(digest), DIGEST_COLUMNS)]}
    for name, table in s.memory.record(seat).items():
        out[f"record_{name}"] = table if s.cfg.observation_mode == "full_record" else table[::-1][:COMPACT_ROWS]
    return out


# ---------------------------------------------------------------------------- legal mask
def legal_mask(state) -> np.ndarray:
    """The current player's legal actions (§12.1-§12.3), as an int8 mask; none once the game is over."""
    mask = np.zeros(A.NUM_ACTIONS, np.int8)
    if state.is_terminal or not state.decision:
        return mask
    mask[sorted(_legal(state, state.current_player))] = 1
    return mask


def _legal(s, p: int) -> set[int]:
    """Action by action, what the decision allows the player (§12.1)."""
    return _BY_DECISION[s.decision](s, p, s.hands[p])


def _can_offer(s, hand: list[int]) -> bool:
    return sum(hand) > 0 or s.cfg.allow_empty_offer


def _turn_choice(s, p: int, hand: list[int]) -> set[int]:
    """D1 (§3): auction while cards are left; trade with a partner and money (K-A21); only trade, money
    or not, once the deck is empty (K-A31)."""
    if not s.deck:
        return {A.TRADE}
    return {A.AUCTION} | ({A.TRADE} if _can_offer(s, hand) and _targets(s, p) else set())


def _commitments(s, p: int, hand: list[int]) -> set[int]:
    """D7: NEVER or a count; in mask mode none above the hand size (K-A15)."""
    top = A.MAX_SLAP if s.cfg.overbid_mode != "mask" else min(A.MAX_SLAP, s.sizes[p])
    return {A.NEVER} | {A.SLAP + k for k in range(1, top + 1)}


def _cards_to_lay(s, p: int, hand: list[int]) -> set[int]:
    """D8, D10: one more card of the hand; the selection closes by itself at k* cards."""
    return {A.CARD + m for m in range(NUM_DENOMS) if hand[m] > s.selection[m]}


def _offer_steps(s, p: int, hand: list[int]) -> set[int]:
    """D12, D14: one more card; DONE once a card is chosen (K-A21), or for an offer from an empty hand."""
    done = sum(s.selection) > 0 or s.cfg.allow_empty_offer or (s.decision == A.D_OFFER and not sum(hand))
    return _cards_to_lay(s, p, hand) | ({A.DONE} if done else set())


_BY_DECISION = {
    A.D_TURN: _turn_choice,
    A.D_TARGET: lambda s, p, hand: {A.target_action(offset, species) for offset, species in _targets(s, p)},
    A.D_FOLLOWUP: lambda s, p, hand: {A.AUCTION} | (set() if s.cfg.super_koehandel_mandatory else {A.END_TURN}),
    A.D_BID: lambda s, p, hand: _bid_steps(s, p),
    A.D_BUYRIGHT: lambda s, p, hand: {A.DECLINE} | ({A.BUY} if s.cash[p] >= s.high else set()),  # K-A10
    A.D_PAY: lambda s, p, hand: _payment_steps(s, hand),
    A.D_COMMIT: _commitments,
    A.D_STAKE: _cards_to_lay,
    A.D_PED_BUYRIGHT: lambda s, p, hand: {A.DECLINE} | ({A.BUY} if s.sizes[p] >= s.kstar else set()),  # K-A10
    A.D_PED_CARDS: _cards_to_lay,
    A.D_RAT: lambda s, p, hand: {A.TAKE} | {A.LAY + m for m in range(NUM_DENOMS) if hand[m]},  # §6.1, K-A17
    A.D_OFFER: _offer_steps,
    A.D_RESPONSE: lambda s, p, hand: {A.ACCEPT} | ({A.COUNTER} if _can_offer(s, hand) else set()),
    A.D_COUNTER: _offer_steps,
    A.D_DISTRIBUTE: lambda s, p, hand: {A.KEEP, A.GIVE},
}


def _targets(s, p: int) -> list[tuple[int, int]]:
    """(offset, species): another seat holding a species of which p holds 1-3 cards (§7.1, K-A20)."""
    return [(offset, species) for offset in range(1, s.n) for species in range(NUM_SPECIES)
            if 0 < s.holdings[p][species] < 4 and s.holdings[(p + offset) % s.n][species]]


def _bid_steps(s, p: int) -> set[int]:
    """D4 (K-A8): raises that keep the bid within the limit (K-A9); PASS before a raise, BID after."""
    if s.cfg.overbid_mode == "mask":
        limit = s.cash[p]
    else:
        limit = s.cfg.overbid_cap if s.cfg.overbid_cap is not None else sum(s.cash)
    room = limit - s.high - s.pending
    steps = {A.ADD + j for j, size in enumerate(A.RAISES) if size <= room}
    return steps | ({A.BID} if s.pending else {A.PASS})


def _payment_steps(s, hand: list[int]) -> set[int]:
    """D6 (§12.3): a card that some legal payment (§4.4, K-A11) holds beyond the cards chosen; DONE when
    the chosen cards are one."""
    payments = [list(f) for f in legal_payments(hand, s.amount, s.cfg.payment_rule)]
    chosen = s.selection
    steps = set()
    for m in range(NUM_DENOMS):
        more = [k + (j == m) for j, k in enumerate(chosen)]
        if any(all(x <= y for x, y in zip(more, f)) for f in payments):
            steps.add(A.CARD + m)
    return steps | ({A.DONE} if list(chosen) in payments else set())
