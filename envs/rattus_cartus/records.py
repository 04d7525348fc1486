"""Rattus Cartus invariants of the records a state keeps beside the cards (docs/rattus_cartus_rules.md §7):
pending counters, hidden transfers, the public record of special cards, what each seat saw and looked at,
reshuffles, reveals and gift records. :func:`problems` lists what is wrong.

Each record is tied to the cards or to the public records it follows from, as tightly as a re-dealt copy
(whose other players' private records the re-deal rebuilds or drops, :mod:`.sampler`) allows; every fact
the re-deal reads about a world is checked here, so that any accepted state can be re-dealt."""

from __future__ import annotations

from operator import add, gt
from typing import TYPE_CHECKING

from .cards import I_GOLD, I_PASS, ITEM_TYPE, KIND_COPIES, NUM_ITEMS, NUM_KINDS, NUN_ROW_SIZE

if TYPE_CHECKING:
    from .rules import RattusCartusGame, RattusCartusState


def problems(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    return (_pending(game, state) + _transfer_counts(game, state) + _transfer_records(game, state)
            + _knowledge(game, state) + _reshuffle(state) + _special_record(game, state)
            + _special_holders(game, state) + _reveals(game, state) + _gifts_held(game, state))


def _pending(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§3.4.9: pending cards are the public counts of cards drawn (population cards), taken from a supply
    and received this slot."""
    out = []
    for p in range(game.num_players):
        pending, taken = state.pending[p], state.pend_taken[p]
        if state.pend_drawn[p] + state.pend_hidden[p] + sum(taken) != sum(pending) or any(
                pending[NUM_KINDS + s] < taken[s] for s in range(5)) or sum(pending[:NUM_KINDS]) < state.pend_drawn[p]:
            out.append(f"seat {p}: pending cards disagree with their public record")
        if any(taken[s] > state.taken[p][s] for s in range(5)):
            out.append(f"seat {p}: more pending cards taken from a supply than taken in all")
    return out


def _transfer_counts(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.1: the public counts of hidden transfers (Sword, Watchtower) add up; nobody gives to itself."""
    out = []
    for p in range(game.num_players):
        if sum(state.flow_count[p]) != state.hidden_out[p] or sum(row[p] for row in state.flow_count) != state.hidden_in[p]:
            out.append(f"seat {p}: hidden transfer counts disagree")
        if state.flow_count[p][p] or any(state.flow[p][p]) or any(state.slot_gift[p][p]) or any(state.gifts[p][p]):
            out.append(f"seat {p}: a hidden transfer to itself")
    return out


def _transfer_records(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.1, §7.5: what a giver knows of its hidden transfers fits their public counts: the special cards
    among them (``flow``), those of this slot, still pending (``slot_gift``), and those not shown since
    (``gifts``)."""
    n = game.num_players
    out = []
    for p in range(n):
        for q in range(n):
            count, specials = state.flow_count[p][q], state.flow[p][q]
            slot, gifts = state.slot_gift[p][q], state.gifts[p][q]
            if sum(specials) > count:
                out.append(f"seat {p}: hidden special cards given to seat {q} exceed the cards given")
            if sum(slot) > count or sum(gifts) > count or any(
                    max(slot[NUM_KINDS + s], gifts[NUM_KINDS + s]) > specials[s] for s in range(5)):
                out.append(f"seat {p}'s records of cards given to seat {q} exceed what it gave")
    for q in range(n):  # this slot's receipts lie in the pending area, beside what was drawn and taken
        received = [sum(column) for column in zip(*(state.slot_gift[p][q] for p in range(n)))]
        pending = state.pending[q]
        if sum(received) > state.pend_hidden[q] or any(received[i] > pending[i] for i in range(NUM_KINDS)) or any(
                received[NUM_KINDS + s] > pending[NUM_KINDS + s] - state.pend_taken[q][s] for s in range(5)):
            out.append(f"seat {q}: cards received this slot are not all pending")
    return out


def _knowledge(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.5: cards seen outside the nun row fit outside it and include the newest reshuffled deck (seen
    whole when it formed); looks agree with the public look counts."""
    out = []
    for p in range(game.num_players):
        for kind in range(NUM_KINDS):
            outside = KIND_COPIES[kind] - state.nun_row.count(kind)
            if not state.reshuffle_comp[kind] <= state.seen[p][kind] <= outside:
                out.append(f"seat {p} saw {state.seen[p][kind]} cards of kind {kind} outside the nun row: "
                           f"{outside} are, and the reshuffled deck showed {state.reshuffle_comp[kind]}")
                break
        for q in range(NUN_ROW_SIZE):
            if state.peeked[p][q] != (state.peek_count[p][q] > 0):
                out.append(f"seat {p} position {q}: peeked and the public look count disagree")
    return out


def _reshuffle(state: RattusCartusState) -> list[str]:
    """§3.6, §7.2: a reshuffle makes a deck of a public make-up (never empty); until the next one the deck
    is what is left of it."""
    comp = state.reshuffle_comp
    if (state.reshuffles == 0) != (sum(comp) == 0):
        return [f"{state.reshuffles} reshuffles with a reshuffled deck of {sum(comp)} cards"]
    if state.reshuffles:
        deck = [0] * NUM_KINDS
        for kind in state.deck:
            deck[kind] += 1
        if any(deck[kind] > comp[kind] for kind in range(NUM_KINDS)):
            return ["the population deck holds cards its reshuffled make-up did not"]
    return []


def _special_record(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.2a: every special card taken and not shown is held by somebody (hidden transfers cancel out over
    all players; revealed cards are shown but still lie in front of their owner)."""
    n = game.num_players
    out = []
    for s in range(5):
        item = NUM_KINDS + s
        held = sum(state.hands[p][item] + state.pending[p][item] + state.committed[p][item] for p in range(n))
        record = sum(state.taken[p][s] - state.shown[p][6 + s] + (state.committed[p][item] if state.revealed[p] else 0)
                     for p in range(n))
        if held != record:
            out.append(f"special type {s}: {held} held but the public record accounts for {record}")
    return out


def _special_holders(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.2a: a player holds, per special type, what it took and did not show, give or take no more cards
    than it received and gave in hidden transfers."""
    out = []
    for p in range(game.num_players):
        for s in range(5):
            item = NUM_KINDS + s
            held = state.hands[p][item] + state.pending[p][item] + (0 if state.revealed[p] else state.committed[p][item])
            net = held - state.taken[p][s] + state.shown[p][6 + s]
            if not -state.hidden_out[p] <= net <= state.hidden_in[p]:
                out.append(f"seat {p} holds {held} special cards of type {s}, which its public record cannot explain")
    return out


def _reveals(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§3.4.2: a reveal record only after revealing: the cards announced, shown, still committed until the
    slot's step c; never a Pass or Gold."""
    out = []
    for p in range(game.num_players):
        record = state.last_reveal[p]
        if not state.revealed[p]:
            if any(record):
                out.append(f"seat {p} has a reveal record without having revealed")
            continue
        shown = [0] * 11
        for item in range(NUM_ITEMS):
            shown[ITEM_TYPE[item]] += record[item]
        current = state.entered[p] == state.slot  # its committed cards are still there
        if (sum(record) != state.announced[p] or record[I_PASS] or record[I_GOLD]
                or any(shown[t] > state.shown[p][t] for t in range(11)) or (current and record != state.committed[p])):
            out.append(f"seat {p}'s reveal record disagrees with its announced, shown and committed cards")
    return out


def _gifts_held(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.5 item 5: a seat that never gave hidden cards holds the cards given to it that it has not shown
    since: this slot's in its pending area, older ones in hand or committed face down. Every other seat
    flags it as a giver exactly when it gave hidden cards."""
    n = game.num_players
    out = []
    for q in range(n):
        if [state.gift_flag[p][q] for p in range(n)] != [p != q and state.hidden_out[q] > 0 for p in range(n)]:
            out.append(f"the flags of seat {q} as a giver disagree with its hidden transfers")
        if state.hidden_out[q]:
            continue
        older = [0] * NUM_ITEMS  # given in earlier slots, not shown since
        for p in range(n):
            if any(state.gifts[p][q]):
                older = [total + max(0, given - now) for total, given, now
                         in zip(older, state.gifts[p][q], state.slot_gift[p][q])]
        committed = [0] * NUM_ITEMS if state.revealed[q] else state.committed[q]
        if any(map(gt, older, map(add, state.hands[q], committed))):
            out.append(f"the records of cards given to seat {q} exceed what it holds")
    return out
