"""Rattus Cartus invariants of the round flow: the decision on turn agrees with the phase, the entries and
the slot being resolved, and every record of the round belongs to the decision that uses it
(docs/rattus_cartus_rules.md §3, §8.1). :func:`problems` lists what is wrong."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import HOSPITAL, I_FLUTE, I_SWORD, NUM_KINDS, PASS, TENT, WATCHTOWER
from .decisions import (
    D1, D2, D3, D4, D5, D6, D7, D8, D9, D10, NONE, PHASE_B, PHASE_C, PHASE_OVER, ST_ACTIONS, ST_FLUTE,
    ST_START, ST_SWORD,
)

if TYPE_CHECKING:
    from .rules import RattusCartusGame, RattusCartusState

#: The building whose action asks each action decision (§4, §8.1).
_ACTION_BUILDING = {D8: TENT, D9: HOSPITAL, D10: WATCHTOWER}
#: The resolution stage of each phase-D decision (§3.4.2-§3.4.7).
_STAGE = {D5: ST_SWORD, D6: ST_SWORD, D7: ST_FLUTE, D8: ST_ACTIONS, D9: ST_ACTIONS, D10: ST_ACTIONS}
_CARDS_DUE = (D2, D6, D8, D9, D10)  # the decisions that count looks, cards or discards still due


def problems(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """What is wrong with the decision on turn and the records of the round so far."""
    if state.phase == PHASE_OVER:
        return _game_over(game, state) + _round_records(game, state)
    p = state.current_player
    if state.is_terminal or state.decision == NONE or not 0 <= p < game.num_players or state.round >= game.rounds:
        return ["a running game has a decision and a player on turn"]
    entered = [q for q in range(game.num_players) if state.entered[q] >= 0]
    out = _entries(game, state, entered) + _round_records(game, state) + _decision_records(state)
    if state.phase == PHASE_B:
        return out + _resolution_records(game, state) + _phase_b(game, state, entered)
    if state.phase == PHASE_C:
        return out + _resolution_records(game, state) + _phase_c(game, state, entered)
    return out + _phase_d(game, state, entered)


def _game_over(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§3.5: after the last round nobody is on turn and the round's entries are cleared."""
    out = []
    if not state.is_terminal or state.decision != NONE or state.current_player != -1 or state.round != game.rounds:
        out.append("a finished game has no decision, no player on turn and all rounds played")
    if any(s >= 0 for s in state.entered) or any(state.entrants) or state.num_entered != game.num_players or min(
            state.announced) < 0 or state.left or state.queue or state.cands or state.wt_victims or (
            state.wt_t != -1 or state.sword != [-1, -1] or state.flute != -1 or state.slot or state.qi
            or state.stage != ST_START or state.first_pos != -1 or any(map(any, state.pending))):
        out.append("a finished game keeps records of a round in progress")
    return out


def _entries(game: RattusCartusGame, state: RattusCartusState, entered: list[int]) -> list[str]:
    """§3.3.1: entrants, entered slots, entry positions and orders agree; only entrants commit cards."""
    out = []
    for s in range(game.k):
        if any(state.entered[q] != s or state.entry_pos[q] != position for position, q in enumerate(state.entrants[s])):
            out.append(f"slot {s}: entrants disagree with entered/entry_pos")
    if sorted(q for s in range(game.k) for q in state.entrants[s]) != entered or state.num_entered != len(entered):
        out.append("entrants, entered and num_entered disagree")
    if sorted(state.entry_order[q] for q in entered) != list(range(len(entered))):
        out.append("entry orders are not 0..entered-1")
    for q in range(game.num_players):
        if state.entered[q] < 0 and (any(state.committed[q]) or state.announced[q] >= 0):
            out.append(f"seat {q} committed cards without entering")
        if state.entered[q] < 0 and (state.entry_pos[q] != -1 or state.entry_order[q] != -1):
            out.append(f"seat {q} has an entry position without entering")
    return out


def _round_records(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§3.2, §3.3.2: supply choices are all made after phase B; Pass cards played this round were shown."""
    n = game.num_players
    out = []
    if state.phase != PHASE_B and (min(state.supply_slot) < 0 or state.turn != n):
        out.append("a supply choice missing after phase B")
    if any(state.passes[q] > state.shown[q][PASS] or (state.phase == PHASE_B and state.passes[q])
           for q in range(n)):
        out.append("Pass cards played this round disagree with the phase or the cards shown")
    return out


def _decision_records(state: RattusCartusState) -> list[str]:
    """§8.1: what one decision counts or lists is empty under the others."""
    d = state.decision
    out = []
    if d not in _CARDS_DUE and state.left:
        out.append(f"decision {d} with {state.left} cards, looks or discards due")
    if d != D8 and state.first_pos != -1:
        out.append("a first Tent look outside D8")
    if d not in (D5, D7) and state.cands:
        out.append("Sword or Flute candidates outside D5/D7")
    if d != D10 and (state.wt_t != -1 or state.wt_victims):
        out.append("Watchtower victims outside D10")
    return out


def _resolution_records(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """The records of phase D (§3.4) are empty in phases B and C."""
    if (state.queue or state.sword != [-1, -1] or state.flute != -1 or state.rsp != -1 or any(state.revealed)
            or state.slot or state.stage != ST_START or state.qi or any(map(any, state.pending))):
        return ["resolution records outside phase D"]
    return []


def _phase_b(game: RattusCartusGame, state: RattusCartusState, entered: list[int]) -> list[str]:
    """§3.2: supply choices in turn order, looks due only while the chosen action has them."""
    n, d, p = game.num_players, state.decision, state.current_player
    out = []
    if d not in (D1, D2) or state.turn >= n or p != (state.start + state.turn) % n or entered:
        out.append(f"phase B: decision {d} of seat {p} at turn {state.turn}")
    chosen = [state.supply_slot[(state.start + t) % n] >= 0 for t in range(n)]
    if chosen != [t < state.turn or (t == state.turn and d == D2) for t in range(n)]:
        out.append("supply choices disagree with the turn")
    if d == D2 and not 1 <= state.left <= game.supply_action[state.row[state.supply_slot[p]]][2]:
        out.append("D2 with more or fewer looks due than the supply action gives")
    return out + _no_legal_action(state)


def _phase_c(game: RattusCartusGame, state: RattusCartusState, entered: list[int]) -> list[str]:
    """§3.3: a turn start for a seat still to enter, or the commits of the seat that entered last."""
    d, p = state.decision, state.current_player
    out = []
    if d == D3:
        if state.entered[p] >= 0:
            out.append(f"D3 for seat {p}, which already entered")
    elif d == D4:
        if state.entered[p] < 0 or state.announced[p] >= 0 or state.entry_order[p] != state.num_entered - 1:
            out.append(f"D4 for seat {p} that is not committing")
    else:
        out.append(f"phase C with decision {d}")
    if sum(a >= 0 for a in state.announced) == game.num_players:
        out.append("phase C with everybody's cards announced")
    for q in entered:
        if (state.announced[q] >= 0) == (d == D4 and q == p) or (
                state.announced[q] >= 0 and state.announced[q] != sum(state.committed[q])):
            out.append(f"seat {q}'s announced count disagrees")
    return out + _no_legal_action(state)


def _phase_d(game: RattusCartusGame, state: RattusCartusState, entered: list[int]) -> list[str]:
    """§3.4: the slot being resolved has entrants, and the decision belongs to its resolution."""
    out = []
    if len(entered) != game.num_players or any(a < 0 for a in state.announced) or not state.slot < game.k:
        out.append("phase D before everybody entered and announced, or past the last slot")
    entrants = state.entrants[state.slot] if state.slot < game.k else []
    if not entrants:
        return out + ["phase D waits on an empty slot"]
    if _STAGE.get(state.decision) != state.stage:
        return out + [f"phase D with decision {state.decision} at stage {state.stage}"]
    out += _slot_reveals(game, state)
    out += _round_special_player(game, state)
    out += _sword(state, entrants) + _flute(state, entrants)
    if state.stage == ST_ACTIONS:
        out += _action_queue(game, state, entrants)
    elif state.queue or state.qi:
        out.append("an action queue before the slot's actions")
    out += _decision_owner(state, entrants)
    if not state.legal_mask().any():
        out.append("no legal action")
    return out


def _slot_reveals(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§3.4.2: slots before this one are revealed and emptied, this one from step a on."""
    out = []
    if any(state.announced[q] != sum(state.committed[q]) for q in range(game.num_players)
           if state.entered[q] >= state.slot):
        out.append("committed cards disagree with the announced counts")
    for q in range(game.num_players):
        done = state.entered[q] < state.slot or (state.entered[q] == state.slot and state.stage != ST_START)
        if state.revealed[q] != done or (state.entered[q] < state.slot and any(state.committed[q])):
            out.append(f"seat {q}'s reveal disagrees with the slot being resolved")
    return out


def _round_special_player(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """§3.4.6, R-A20: with two players the round's special-action player is fixed when phase D starts, by
    the cards committed (still all there until the first entered slot's step c)."""
    if game.num_players != 2:
        return ["a round special-action player with more than 2 players"] if state.rsp != -1 else []
    if state.rsp < 0:
        return ["2 players: no special-action player in phase D"]
    m = [sum(state.committed[q][:NUM_KINDS]) + state.committed[q][NUM_KINDS] for q in range(2)]
    first = 0 if state.entry_order[0] < state.entry_order[1] else 1
    if min(state.entered) >= state.slot and state.rsp != (0 if m[0] > m[1] else 1 if m[1] > m[0] else first):
        return ["the 2-player special-action player disagrees with the cards committed"]
    return []


def _contest(state: RattusCartusState, entrants: list[int], item: int) -> tuple[int, list[int]]:
    """The entrant with most cards of ``item`` committed (ties: lowest entry position, R-A11) and those with
    fewest; ``(-1, [])`` when all committed as many (§3.4.3, §3.4.4)."""
    counts = [state.committed[q][item] for q in entrants]
    high, low = max(counts), min(counts)
    if high == low:
        return -1, []
    return entrants[counts.index(high)], [q for q, v in zip(entrants, counts) if v == low]


def _sword(state: RattusCartusState, entrants: list[int]) -> list[str]:
    """§3.4.3, R-A14, R-A36: the Sword winner, and its choice (D5) or the loser paying (D6) or chosen,
    follow from the Swords committed."""
    d, p = state.decision, state.current_player
    winner, low = _contest(state, entrants, I_SWORD)
    if winner < 0:
        return [] if state.sword == [-1, -1] and d not in (D5, D6) else ["a Sword resolution without a Sword majority"]
    loser = state.sword[1]
    if state.sword[0] != winner or (d == D5 and (p != winner or state.cands != low or loser != -1)) or (
            d != D5 and loser not in low):
        return ["the Sword resolution disagrees with the Swords committed"]
    if d == D6 and (loser != p or 2 * state.left > state.hand_size[p]):
        return ["D6 by a seat that is no Sword loser, or more than half its hand due"]
    return []


def _flute(state: RattusCartusState, entrants: list[int]) -> list[str]:
    """§3.4.4, R-A15: the Flute winner, and its choice of a receiver (D7), follow from the Flutes committed;
    nothing is settled before the Sword."""
    d, p = state.decision, state.current_player
    winner, low = _contest(state, entrants, I_FLUTE)
    if state.stage == ST_SWORD:
        settled = state.flute == -1
    elif d == D7:
        settled = state.flute == p == winner and state.cands == low and state.rats[p] >= 1
    else:
        settled = state.flute == winner
    return [] if settled else ["the Flute resolution disagrees with the Flutes committed"]


def _action_queue(game: RattusCartusGame, state: RattusCartusState, entrants: list[int]) -> list[str]:
    """§3.4.5-§3.4.8: the slot's actions in order, the one performed asking the decision on turn."""
    d = state.decision
    special = state.special_player(entrants)
    expected = [] if state.round == game.rounds - 1 else (
        ([[special, 1]] if special >= 0 else []) + [[q, 0] for q in entrants if q != special])
    if state.queue != expected:
        return ["the action queue disagrees with the slot"]
    if state.qi >= len(state.queue):
        return ["an action decision outside the action queue"]
    owner, special_flag = state.queue[state.qi]
    if state.row[state.slot] // 5 != _ACTION_BUILDING[d] or (d == D10 and not special_flag):
        return ["the decision does not belong to the building resolving"]
    if d == D10:
        return _watchtower(game, state, owner)
    if owner != state.current_player:
        return ["D8/D9 by a seat not performing the action"]
    if d == D8 and not (state.left <= (2 if special_flag else 1) and (state.first_pos < 0) == (
            state.left == 2 or not special_flag)):
        return ["D8 looks disagree with the action"]
    if d == D9 and state.left > (3 if special_flag else 2):
        return ["D9 discards beyond the Hospital's limit"]
    return []


def _watchtower(game: RattusCartusGame, state: RattusCartusState, owner: int) -> list[str]:
    """R-A19: victims clockwise from the owner's left, unprotected, each holding at least ``t`` cards (the
    owner's hand size, unchanged while it collects) when its turn to give comes."""
    n, victims = game.num_players, state.wt_victims
    protected = {q for q in range(n) if state.row[state.entered[q]] // 5 == WATCHTOWER}
    order = [(q - owner) % n for q in victims]
    if (order != sorted(set(order)) or 0 in order or any(q in protected for q in victims) or state.left > 3
            or state.wt_t != state.hand_size[owner] or any(state.hand_size[q] < max(state.wt_t, 1) for q in victims[1:])):
        return ["Watchtower victims disagree with the protection"]
    return []


def _decision_owner(state: RattusCartusState, entrants: list[int]) -> list[str]:
    """The seat on turn is the one the phase-D decision asks, with something left to decide (§8.3)."""
    d, p = state.decision, state.current_player
    if d in (D5, D7) and (len(state.cands) < 2 or not set(state.cands) <= set(entrants) - {p}):
        return ["D5/D7 candidates must be other entrants of the slot"]
    if d == D6 and (state.left < 1 or state.hand_size[p] < state.left):
        return ["D6 by the Sword loser with cards due"]
    if d in (D8, D9) and state.left < 1:
        return ["D8/D9 with nothing due"]
    if d == D9 and (state.rats[p] < 1 or state.hand_size[p] < 1):
        return ["D9 without rats or cards"]
    if d == D10 and (not state.wt_victims or state.wt_victims[0] != p or state.left < 1
                     or state.hand_size[p] < state.left):
        return ["D10 by a seat not due to give"]
    return []


def _no_legal_action(state: RattusCartusState) -> list[str]:
    return ["no legal action"] if state.legal_mask().any() == 0 else []
