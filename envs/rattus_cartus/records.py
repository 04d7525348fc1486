"""Rattus Cartus invariants of the records a state keeps beside the cards (docs/rattus_cartus_rules.md §7):
pending counters, hidden transfers, the public record of special cards, what each seat saw and looked at,
reveals and gift records. :func:`problems` lists what is wrong."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import KIND_COPIES, NUM_ITEMS, NUM_KINDS, NUN_ROW_SIZE

if TYPE_CHECKING:
    from .rules import RattusCartusGame, RattusCartusState


def problems(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    return (_pending(game, state) + _transfers(game, state) + _knowledge(game, state)
            + _special_record(game, state) + _reveals_and_gifts(game, state))


def _pending(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§3.4.9: pending cards are the public counts of cards drawn, taken and received this slot."""
    out = []
    for p in range(game.num_players):
        pending = state.pending[p]
        if state.pend_drawn[p] + state.pend_hidden[p] + sum(state.pend_taken[p]) != sum(pending) or any(
                pending[NUM_KINDS + s] < state.pend_taken[p][s] for s in range(5)):
            out.append(f"seat {p}: pending cards disagree with their public record")
    return out


def _transfers(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.1: hidden transfers (Sword, Watchtower): public counts, private contents."""
    n = game.num_players
    out = []
    for p in range(n):
        if sum(state.flow_count[p]) != state.hidden_out[p] or sum(row[p] for row in state.flow_count) != state.hidden_in[p]:
            out.append(f"seat {p}: hidden transfer counts disagree")
        if sum(state.slot_gift[q][p][i] for q in range(n) for i in range(NUM_ITEMS)) > state.pend_hidden[p] or any(
                state.slot_gift[q][p][i] > state.pending[p][i] for q in range(n) for i in range(NUM_ITEMS)):
            out.append(f"seat {p}: cards received this slot are not all pending")
        if any(sum(state.flow[p][q]) > state.flow_count[p][q] for q in range(n)):
            out.append(f"seat {p}: hidden special cards given exceed the cards given")
    return out


def _knowledge(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.5: cards seen outside the nun row fit outside it; looks agree with the public look counts."""
    out = []
    for p in range(game.num_players):
        for kind in range(NUM_KINDS):
            outside = KIND_COPIES[kind] - state.nun_row.count(kind)
            if state.seen[p][kind] > outside:
                out.append(f"seat {p} saw {state.seen[p][kind]} cards of kind {kind} outside the nun row, "
                           f"only {outside} are")
                break
        for q in range(NUN_ROW_SIZE):
            if state.peeked[p][q] != (state.peek_count[p][q] > 0):
                out.append(f"seat {p} position {q}: peeked and the public look count disagree")
    return out


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


def _reveals_and_gifts(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§7.5: a reveal record only after revealing; a record of cards given to a seat that has given none
    since is held by that seat, and the flag of a giver follows the public transfer counts."""
    n = game.num_players
    out = []
    for p in range(n):
        if not state.revealed[p] and any(state.last_reveal[p]):
            out.append(f"seat {p} has a reveal record without having revealed")
        for q in range(n):
            if q != p and not state.gift_flag[p][q]:
                holding = [state.hands[q][i] + state.pending[q][i] + state.committed[q][i] for i in range(NUM_ITEMS)]
                if any(state.gifts[p][q][i] > holding[i] for i in range(NUM_ITEMS)):
                    out.append(f"seat {p}'s record of cards given to seat {q} exceeds what {q} holds")
            if state.gift_flag[p][q] and not state.hidden_out[q]:
                out.append(f"seat {p} flags seat {q} as a giver, but {q} gave no hidden cards")
    return out
