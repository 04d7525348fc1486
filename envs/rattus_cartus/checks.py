"""Rattus Cartus snapshots, invariants and the position helper.

``to_json`` lists every field of the state; :func:`parse_state` checks the type and range of each
(``SnapshotError`` naming the first problem) and :func:`invariants` the rules that tie them together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.game import SnapshotError
from ..core.schema import copy_lists, dump_fields, is_int, load_fields
from .cards import (
    BUILDINGS, BUILDINGS_IN_GAME, I_GOLD, I_PASS, INITIAL_HAND, INITIAL_RATS, KIND_COPIES, MAX_RATS,
    NUM_BUILDING_CARDS, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUM_POINT_TOKENS, NUN_ROW_SIZE, SPECIAL_COPIES,
    parse_building_card, parse_item,
)
from .decisions import (
    D1, D2, D3, D4, D5, D6, D7, D8, D9, D10, NONE, PHASE_B, PHASE_C, PHASE_D, PHASE_OVER, ST_ACTIONS, ST_START,
)
from .scoring import final_result

if TYPE_CHECKING:
    from .rules import RattusCartusGame, RattusCartusState

BIG = 10**6

#: Field -> (kind, arguments), as :mod:`envs.core.schema` reads them.
def _schema(game: RattusCartusGame) -> dict[str, tuple]:
    n, k = game.num_players, game.k
    return {
        "hands": ("grid", n, NUM_ITEMS, 0, BIG),
        "pending": ("grid", n, NUM_ITEMS, 0, BIG),
        "committed": ("grid", n, NUM_ITEMS, 0, BIG),
        "nun_row": ("ints", NUN_ROW_SIZE, 0, NUM_KINDS - 1),
        "deck": ("ints", None, 0, NUM_KINDS - 1),
        "discard": ("ints", NUM_KINDS, 0, 4),
        "supply": ("ints", 5, 0, BIG),
        "token_supply": ("ints", None, 0, BIG),
        "tokens": ("lists", n, 0, BIG),
        "rats": ("ints", n, 0, MAX_RATS - 1),
        "level": ("grid", n, NUM_CLASSES, 0, BIG),
        "stamp": ("grid", n, NUM_CLASSES, 0, BIG),
        "clock": ("int", 0, BIG),
        "building_set": ("ints", BUILDINGS_IN_GAME, 0, NUM_BUILDING_CARDS - 1),
        "bdeck": ("ints", None, 0, NUM_BUILDING_CARDS - 1),
        "repl": ("ints", game.replacement, 0, NUM_BUILDING_CARDS - 1),
        "repl_known": ("int", 0, game.replacement),
        "used": ("ints", None, 0, NUM_BUILDING_CARDS - 1),
        "row": ("ints", None, 0, NUM_BUILDING_CARDS - 1),
        "round": ("int", 0, game.rounds),
        "phase": ("int", PHASE_B, PHASE_OVER),
        "start": ("int", 0, n - 1),
        "decision": ("int", NONE, D10),
        "current_player": ("int", -1, n - 1),
        "is_terminal": ("bool",),
        "turn": ("int", 0, n),
        "left": ("int", 0, BIG),
        "first_pos": ("int", -1, NUN_ROW_SIZE - 1),
        "cands": ("ints", None, 0, n - 1),
        "supply_slot": ("ints", n, -1, k - 1),
        "entered": ("ints", n, -1, k - 1),
        "entry_pos": ("ints", n, -1, n - 1),
        "entry_order": ("ints", n, -1, n - 1),
        "entrants": ("lists", k, 0, n - 1),
        "num_entered": ("int", 0, n),
        "announced": ("ints", n, -1, BIG),
        "passes": ("ints", n, 0, BIG),
        "rsp": ("int", -1, n - 1),
        "slot": ("int", 0, k),
        "stage": ("int", ST_START, ST_ACTIONS),
        "revealed": ("bools", n),
        "last_reveal": ("grid", n, NUM_ITEMS, 0, BIG),
        "sword": ("ints", 2, -1, n - 1),
        "flute": ("int", -1, n - 1),
        "queue": ("grid", None, 2, 0, n - 1),
        "qi": ("int", 0, n),
        "wt_t": ("int", -1, BIG),
        "wt_victims": ("ints", None, 0, n - 1),
        "taken": ("grid", n, 5, 0, BIG),
        "shown": ("grid", n, 11, 0, BIG),
        "hidden_in": ("ints", n, 0, BIG),
        "hidden_out": ("ints", n, 0, BIG),
        "peek_count": ("grid", n, NUN_ROW_SIZE, 0, BIG),
        "reshuffles": ("int", 0, BIG),
        "reshuffle_comp": ("ints", NUM_KINDS, 0, 4),
        "peeked": ("boolgrid", n, NUN_ROW_SIZE),
        "seen": ("grid", n, NUM_KINDS, 0, 4),
        "gifts": ("cube", n, n, NUM_ITEMS, 0, BIG),
        "gift_flag": ("boolgrid", n, n),
        "hand_size": ("ints", n, 0, BIG),
        "flow_count": ("grid", n, n, 0, BIG),
        "pend_taken": ("grid", n, 5, 0, BIG),
        "pend_drawn": ("ints", n, 0, BIG),
        "pend_hidden": ("ints", n, 0, BIG),
        "flow": ("cube", n, n, 5, 0, BIG),
        "slot_gift": ("cube", n, n, NUM_ITEMS, 0, BIG),
    }


def to_json(state: RattusCartusState) -> dict[str, Any]:
    return dump_fields(state, _schema(state.game))


def parse_state(game: RattusCartusGame, data: dict[str, Any]) -> RattusCartusState:
    """The state of ``to_json`` data, every field's type and range checked."""
    state = load_fields("rattus_cartus", game.blank_state(), _schema(game), data)
    if state.is_terminal:
        if state.phase != PHASE_OVER:
            raise SnapshotError("rattus_cartus: state is_terminal but phase is not game over")
        state.result = final_result(state)
    return state


# ====================================================================== invariants
def invariants(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    problems: list[str] = []
    n, k = game.num_players, game.k
    # --- population cards (§1.2): every kind in exactly one place
    count = [0] * NUM_KINDS
    for p in range(n):
        for where in (state.hands[p], state.pending[p], state.committed[p]):
            for kind in range(NUM_KINDS):
                count[kind] += where[kind]
    for kind in state.nun_row + state.deck:
        count[kind] += 1
    for kind in range(NUM_KINDS):
        count[kind] += state.discard[kind]
    if count != list(KIND_COPIES):
        bad = [kind for kind in range(NUM_KINDS) if count[kind] != KIND_COPIES[kind]]
        problems.append(f"population cards not conserved: kinds {bad} counted {[count[b] for b in bad]}")
    # --- special cards and point tokens (R-A3)
    for p in range(n):
        if state.committed[p][I_PASS] or state.committed[p][I_GOLD]:
            problems.append(f"seat {p} committed a Pass or Gold card (R-A9)")
        if state.pend_drawn[p] + state.pend_hidden[p] + sum(state.pend_taken[p]) != sum(state.pending[p]) or any(
                state.pending[p][NUM_KINDS + s] < state.pend_taken[p][s] for s in range(5)):
            problems.append(f"seat {p}: pending cards disagree with their public record")
        if sum(state.flow_count[p]) != state.hidden_out[p] or sum(row[p] for row in state.flow_count) != state.hidden_in[p]:
            problems.append(f"seat {p}: hidden transfer counts disagree")
        if sum(state.slot_gift[q][p][i] for q in range(n) for i in range(NUM_ITEMS)) > state.pend_hidden[p] or any(
                state.slot_gift[q][p][i] > state.pending[p][i] for q in range(n) for i in range(NUM_ITEMS)):
            problems.append(f"seat {p}: cards received this slot are not all pending")
        if any(sum(state.flow[p][q]) > state.flow_count[p][q] for q in range(n)):
            problems.append(f"seat {p}: hidden special cards given exceed the cards given")
        if state.hand_size[p] != sum(state.hands[p]):
            problems.append(f"hand_size[{p}]={state.hand_size[p]} but the hand holds {sum(state.hands[p])} cards")
    if game.finite:
        for s in range(5):
            held = sum(state.hands[p][NUM_KINDS + s] + state.pending[p][NUM_KINDS + s]
                       + state.committed[p][NUM_KINDS + s] for p in range(n))
            if held + state.supply[s] != SPECIAL_COPIES[s]:
                problems.append(f"special type {s}: supply {state.supply[s]} + held {held} != {SPECIAL_COPIES[s]}")
        tokens = sorted(state.token_supply + [v for held in state.tokens for v in held])
        if tokens != sorted(game.point_token_values):
            problems.append("point tokens not conserved")
    else:
        if state.supply != list(SPECIAL_COPIES) or state.token_supply != sorted(game.point_token_values):
            problems.append("unlimited supplies never change")
        if any(v != game.point_token_values[0] for held in state.tokens for v in held):
            problems.append("a point token of another value")
    if not game.uniform_tokens and any(held != sorted(held) for held in state.tokens):
        problems.append("point tokens are kept sorted")
    # --- influence (§3.4.2): levels and unique stamps
    stamps = []
    for p in range(n):
        for c in range(NUM_CLASSES):
            level, stamp = state.level[p][c], state.stamp[p][c]
            if (level == 0) != (stamp == 0) or stamp > state.clock:
                problems.append(f"seat {p} class {c}: level {level} with arrival stamp {stamp} (clock {state.clock})")
            if stamp:
                stamps.append(stamp)
    if len(set(stamps)) != len(stamps):
        problems.append("two discs share an arrival stamp")
    # --- buildings
    rounds_done = state.round
    cards = sorted(state.bdeck + state.repl + state.used + state.row)
    if cards != sorted(state.building_set) or len(set(state.building_set)) != BUILDINGS_IN_GAME:
        problems.append("building cards are not the game's 30, each in one place")
    per_class = [0] * NUM_CLASSES
    for card in state.building_set:
        per_class[card // 10] += 1
    if per_class != [5] * NUM_CLASSES:
        problems.append(f"the building set has {per_class} cards per class, not 5 each")
    if state.phase == PHASE_OVER:
        expect_deck, expect_row, expect_used = 0, 0, game.rounds * k
    else:
        expect_deck, expect_row, expect_used = (game.rounds - 1 - rounds_done) * k, k, rounds_done * k
    if (len(state.bdeck), len(state.row), len(state.used)) != (expect_deck, expect_row, expect_used):
        problems.append(f"round {rounds_done}: building deck {len(state.bdeck)}, row {len(state.row)}, used "
                        f"{len(state.used)}; expected {expect_deck}, {expect_row}, {expect_used}")
    if state.row and len({card // 5 for card in state.row}) == 1:
        problems.append("the row shows one building only (R-A6)")
    # --- rats, records, knowledge
    for p in range(n):
        for kind in range(NUM_KINDS):
            outside = KIND_COPIES[kind] - state.nun_row.count(kind)
            if state.seen[p][kind] > outside:
                problems.append(f"seat {p} saw {state.seen[p][kind]} cards of kind {kind} outside the nun row, "
                                f"only {outside} are")
                break
        for q in range(NUN_ROW_SIZE):
            if state.peeked[p][q] != (state.peek_count[p][q] > 0):
                problems.append(f"seat {p} position {q}: peeked and the public look count disagree")
    # --- special cards per type: every card taken and not shown is held by somebody (hidden transfers
    # cancel out over all players; revealed cards are shown but still lie in front of their owner)
    for s_ in range(5):
        item = NUM_KINDS + s_
        held = sum(state.hands[p][item] + state.pending[p][item] + state.committed[p][item] for p in range(n))
        record = sum(state.taken[p][s_] - state.shown[p][6 + s_] + (state.committed[p][item] if state.revealed[p] else 0)
                     for p in range(n))
        if held != record:
            problems.append(f"special type {s_}: {held} held but the public record accounts for {record}")
    for p in range(n):
        if not any(state.revealed[p:p + 1]) and any(state.last_reveal[p]):
            problems.append(f"seat {p} has a reveal record without having revealed")
        for q in range(n):
            if q != p and not state.gift_flag[p][q]:
                holding = [state.hands[q][i] + state.pending[q][i] + state.committed[q][i] for i in range(NUM_ITEMS)]
                if any(state.gifts[p][q][i] > holding[i] for i in range(NUM_ITEMS)):
                    problems.append(f"seat {p}'s record of cards given to seat {q} exceeds what {q} holds")
            if state.gift_flag[p][q] and not state.hidden_out[q]:
                problems.append(f"seat {p} flags seat {q} as a giver, but {q} gave no hidden cards")
    problems += _building_set(game, state)
    # --- flow: the decision on turn
    problems += _flow(game, state)
    return problems


def _building_set(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    """The 30 cards fit the selection method (§2.3)."""
    counts = [0] * 12
    for card in state.building_set:
        counts[card // 5] += 1
    if game.building_selection == "agreed":
        expected = [game.agreed_counts.get(name, 0) for name in BUILDINGS]
        if counts != expected:
            return [f"the building set {counts} is not the agreed set {expected}"]
        return []
    if game.num_players == 2 and game.exclude_watchtower_2p and counts[7]:
        return ["a Watchtower in a 2-player game that excludes it"]
    if game.building_selection == "random_building_per_class" and any(
            counts[2 * c] and counts[2 * c + 1] for c in range(NUM_CLASSES)):
        return ["two buildings of one class under random_building_per_class"]
    return []


def _flow(game: RattusCartusGame, state: RattusCartusState) -> list[str]:
    n, k = game.num_players, game.k
    d, p, phase = state.decision, state.current_player, state.phase
    out: list[str] = []
    if phase == PHASE_OVER:
        if not state.is_terminal or d != NONE or p != -1 or state.round != game.rounds:
            out.append("a finished game has no decision, no player on turn and all rounds played")
        return out
    if state.is_terminal or d == NONE or not 0 <= p < n or state.round >= game.rounds:
        return ["a running game has a decision and a player on turn"]
    entered = [q for q in range(n) if state.entered[q] >= 0]
    # entrants consistent with entered / positions / orders
    for s in range(k):
        for position, q in enumerate(state.entrants[s]):
            if state.entered[q] != s or state.entry_pos[q] != position:
                out.append(f"slot {s} entrant {q} disagrees with entered/entry_pos")
    if sorted(q for s in range(k) for q in state.entrants[s]) != entered or state.num_entered != len(entered):
        out.append("entrants, entered and num_entered disagree")
    if sorted(state.entry_order[q] for q in entered) != list(range(len(entered))):
        out.append("entry orders are not 0..entered-1")
    for q in range(n):
        if state.entered[q] < 0 and (any(state.committed[q]) or state.announced[q] >= 0):
            out.append(f"seat {q} committed cards without entering")
    if phase != PHASE_D and (state.queue or state.cands or state.wt_victims or state.sword != [-1, -1]
                             or state.flute != -1 or state.rsp != -1 or any(state.revealed) or state.slot
                             or state.stage != ST_START or state.first_pos != -1 or state.qi
                             or any(any(state.pending[q]) for q in range(n))):
        out.append("resolution records outside phase D")
    if phase == PHASE_B:
        if d not in (D1, D2) or state.turn >= n or p != (state.start + state.turn) % n or entered:
            out.append(f"phase B: decision {d} of seat {p} at turn {state.turn}")
        chosen = [state.supply_slot[(state.start + t) % n] >= 0 for t in range(n)]
        if chosen != [t < state.turn or (t == state.turn and d == D2) for t in range(n)]:
            out.append("supply choices disagree with the turn")
        if d == D2 and not 1 <= state.left <= game.supply_action[state.row[state.supply_slot[p]]][2]:
            out.append("D2 with more or fewer looks due than the supply action gives")
        if d == D1 and state.left:
            out.append("D1 with looks due")
    elif phase == PHASE_C:
        if d == D3:
            if state.entered[p] >= 0:
                out.append(f"D3 for seat {p}, which already entered")
        elif d == D4:
            if state.entered[p] < 0 or state.announced[p] >= 0 or state.entry_order[p] != state.num_entered - 1:
                out.append(f"D4 for seat {p} that is not committing")
        else:
            out.append(f"phase C with decision {d}")
        if sum(a >= 0 for a in state.announced) == n:
            out.append("phase C with everybody's cards announced")
        for q in entered:
            if (state.announced[q] >= 0) == (d == D4 and q == p) or (
                    state.announced[q] >= 0 and state.announced[q] != sum(state.committed[q])):
                out.append(f"seat {q}'s announced count disagrees")
        if any(state.revealed):
            out.append("revealed cards in phase C")
    else:
        if len(entered) != n or any(a < 0 for a in state.announced) or not state.slot < k:
            out.append("phase D before everybody entered and announced, or past the last slot")
        entrants = state.entrants[state.slot] if state.slot < k else []
        if not entrants:
            out.append("phase D waits on an empty slot")
            return out
        if any(state.announced[q] != sum(state.committed[q]) for q in range(n) if state.entered[q] >= state.slot):
            out.append("committed cards disagree with the announced counts")
        for q in range(n):
            done = state.entered[q] < state.slot or (state.entered[q] == state.slot and state.stage != ST_START)
            if state.revealed[q] != done or (state.entered[q] < state.slot and any(state.committed[q])):
                out.append(f"seat {q}'s reveal disagrees with the slot being resolved")
        if n == 2:
            m = [sum(state.committed[q][:NUM_KINDS]) + state.committed[q][NUM_KINDS] for q in range(2)]
            if state.stage != ST_START or state.slot:
                pass  # cards of resolved slots are gone; the stored choice stands
            elif state.rsp != (0 if m[0] > m[1] else 1 if m[1] > m[0] else
                               0 if state.entry_order[0] < state.entry_order[1] else 1):
                out.append("the 2-player special-action player disagrees with the cards committed")
            if state.rsp < 0:
                out.append("2 players: no special-action player in phase D")
        elif state.rsp != -1:
            out.append("a round special-action player with more than 2 players")
        swords = [state.committed[q][NUM_KINDS + 1] for q in entrants]
        flutes = [state.committed[q][NUM_KINDS + 2] for q in entrants]
        if d in (D5, D6):
            winner = entrants[swords.index(max(swords))]
            low = [q for q, v in zip(entrants, swords) if v == min(swords)]
            if max(swords) == min(swords) or state.sword[0] != winner or (d == D5 and (p != winner or state.cands != low)):
                out.append("the Sword resolution disagrees with the Swords committed")
            if d == D6 and (state.sword[1] not in low or state.left > state.hand_size[p]):
                out.append("D6 by a seat that is no Sword loser")
        if d == D7:
            winner = entrants[flutes.index(max(flutes))]
            low = [q for q, v in zip(entrants, flutes) if v == min(flutes)]
            if max(flutes) == min(flutes) or p != winner or state.flute != p or state.cands != low or state.rats[p] < 1:
                out.append("the Flute resolution disagrees with the Flutes committed")
        if d in (D8, D9, D10):
            special = state.special_player(entrants)
            expected = [] if state.round == game.rounds - 1 else (
                ([[special, 1]] if special >= 0 else []) + [[q, 0] for q in entrants if q != special])
            if state.queue != expected or state.stage != ST_ACTIONS:
                out.append("the action queue disagrees with the slot")
            elif state.qi < len(state.queue):
                owner, special_flag = state.queue[state.qi]
                building = state.row[state.slot] // 5
                wanted = {D8: 4, D9: 2, D10: 3}[d]
                if building != {4: 8, 2: 5, 3: 7}[wanted] or (d == D10 and not special_flag):
                    out.append("the decision does not belong to the building resolving")
                if d == D8 and not (state.left <= (2 if special_flag else 1) and (state.first_pos < 0) == (
                        state.left == 2 or not special_flag)):
                    out.append("D8 looks disagree with the action")
                if d == D9 and state.left > (3 if special_flag else 2):
                    out.append("D9 discards beyond the Hospital's limit")
                if d == D10:
                    protected = {q for q in range(n) if state.row[state.entered[q]] // 5 == 7}
                    if (len(set(state.wt_victims)) != len(state.wt_victims) or owner in state.wt_victims
                            or any(q in protected for q in state.wt_victims) or state.left > 3 or state.wt_t < 0):
                        out.append("Watchtower victims disagree with the protection")
        if d in (D5, D7):
            if state.cands == [] or p not in entrants or any(c not in entrants or c == p for c in state.cands):
                out.append("D5/D7 candidates must be other entrants of the slot")
        if d == D6 and (state.sword[1] != p or state.left < 1 or state.hand_size[p] < state.left):
            out.append("D6 by the Sword loser with cards due")
        if d in (D8, D9, D10):
            if not state.qi < len(state.queue):
                out.append("an action decision outside the action queue")
            elif d in (D8, D9) and state.queue[state.qi][0] != p:
                out.append("D8/D9 by a seat not performing the action")
        if d in (D8, D9) and state.left < 1:
            out.append("D8/D9 with nothing due")
        if d == D9 and (state.rats[p] < 1 or state.hand_size[p] < 1):
            out.append("D9 without rats or cards")
        if d == D10 and (not state.wt_victims or state.wt_victims[0] != p or state.left < 1
                         or state.hand_size[p] < state.left):
            out.append("D10 by a seat not due to give")
        if d in (D1, D2, D3, D4):
            out.append(f"phase D with decision {d}")
        if not state.legal_mask().any():
            out.append("no legal action")
    if phase != PHASE_B and state.decision in (D1, D2):
        out.append("D1/D2 outside phase B")
    if phase in (PHASE_B, PHASE_C) and state.legal_mask().any() == 0:
        out.append("no legal action")
    return out


# ====================================================================== positions
def position(game: RattusCartusGame, base: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """See :meth:`RattusCartusGame.position`."""
    allowed = {"hands", "nun_row", "deck_top", "row", "building_deck_top", "round", "start_player", "rats",
               "influence", "point_tokens"}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise SnapshotError(f"rattus_cartus: unknown position keyword(s) {unknown}; keywords: {sorted(allowed)}")
    n, k = game.num_players, game.k
    data = {key: copy_lists(value) for key, value in base.items()}
    if data["phase"] != PHASE_B or data["turn"] != 0 or data["decision"] != D1:
        raise SnapshotError("rattus_cartus: position() starts from a fresh deal")
    # ---- population cards: hands, nun row, deck top; everything else goes to the deck
    pool = list(KIND_COPIES)

    def take(name: Any, where: str) -> int:
        try:
            item, exact = parse_item(name)
        except ValueError as error:
            raise SnapshotError(f"rattus_cartus: position {where}: {error}") from None
        if exact is None:
            for kind in sorted(range(item * 5, item * 5 + 5), key=lambda v: -pool[v]):
                if pool[kind]:
                    pool[kind] -= 1
                    return kind
            raise SnapshotError(f"rattus_cartus: position {where}: no {name} card left")
        if item < NUM_KINDS:
            if not pool[item]:
                raise SnapshotError(f"rattus_cartus: position {where}: no {name} card left (4 or 2 copies)")
            pool[item] -= 1
        return item

    hands = spec.get("hands")
    nun_row = spec.get("nun_row")
    if hands is not None:
        if not isinstance(hands, (list, tuple)) or len(hands) != n:
            raise SnapshotError(f"rattus_cartus: position hands must list {n} hands")
    keep_hands = hands is None
    new_hands = [[0] * NUM_ITEMS for _ in range(n)]
    if nun_row is not None:
        if not isinstance(nun_row, (list, tuple)) or len(nun_row) != NUN_ROW_SIZE:
            raise SnapshotError("rattus_cartus: position nun_row must name 5 population cards")
        row_kinds = []
        for i, name in enumerate(nun_row):
            kind = take(name, f"nun_row[{i}]")
            if kind >= NUM_KINDS:
                raise SnapshotError(f"rattus_cartus: position nun_row[{i}]: {name!r} is not a population card")
            row_kinds.append(kind)
    if keep_hands:
        for p in range(n):
            for kind in range(NUM_KINDS):
                for _ in range(base["hands"][p][kind]):
                    if not pool[kind]:
                        raise SnapshotError("rattus_cartus: position: the nun row takes a card of a dealt hand; "
                                            "give the hands too")
                    pool[kind] -= 1
                    new_hands[p][kind] += 1
    else:
        for p, hand in enumerate(hands):
            if not isinstance(hand, (list, tuple)):
                raise SnapshotError(f"rattus_cartus: position hands[{p}] must be a list of card names")
            for name in hand:
                new_hands[p][take(name, f"hands[{p}]")] += 1
    if nun_row is None:
        row_kinds = []
        for kind in base["nun_row"]:
            if pool[kind]:
                pool[kind] -= 1
                row_kinds.append(kind)
            else:
                row_kinds.append(None)
        for i, kind in enumerate(row_kinds):
            if kind is None:
                free = next(v for v in range(NUM_KINDS) if pool[v])
                pool[free] -= 1
                row_kinds[i] = free
    deck_top = []
    for i, name in enumerate(spec.get("deck_top", [])):
        kind = take(name, f"deck_top[{i}]")
        if kind >= NUM_KINDS:
            raise SnapshotError(f"rattus_cartus: position deck_top[{i}]: {name!r} is not a population card")
        deck_top.append(kind)
    rest = [kind for kind in base["deck"] + base["nun_row"] + [v for h in base["hands"] for v in range(NUM_KINDS)
                                                                for _ in range(h[v])]]
    deck = []
    for kind in rest:
        if pool[kind]:
            pool[kind] -= 1
            deck.append(kind)
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
    # ---- buildings
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
    building_set = list(data["building_set"])
    for card in named:
        if card not in building_set:
            cls = card // 10
            swap = next((c for c in building_set if c // 10 == cls and c not in named), None)
            if swap is None:
                raise SnapshotError(f"rattus_cartus: position: {BUILDINGS[card // 5]} does not fit the set")
            building_set[building_set.index(swap)] = card
    building_set.sort()
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
    # ---- seats
    if "start_player" in spec:
        start = spec["start_player"]
        if not is_int(start) or not 0 <= start < n:
            raise SnapshotError(f"rattus_cartus: position start_player={start!r} is not a seat 0..{n - 1}")
        data["start"] = start
        data["current_player"] = start
    if "rats" in spec:
        rats = spec["rats"]
        if not isinstance(rats, (list, tuple)) or len(rats) != n or not all(is_int(r) and r >= 0 for r in rats):
            raise SnapshotError(f"rattus_cartus: position rats must be {n} non-negative ints")
        data["rats"] = list(rats)
    if "point_tokens" in spec:
        counts = spec["point_tokens"]
        if not isinstance(counts, (list, tuple)) or len(counts) != n or not all(is_int(c) and c >= 0 for c in counts):
            raise SnapshotError(f"rattus_cartus: position point_tokens must be {n} non-negative ints")
        supply_tokens = sorted(game.point_token_values)
        if sum(counts) > len(supply_tokens) and game.finite:
            raise SnapshotError("rattus_cartus: position point_tokens: more than the 20 tokens")
        data["tokens"] = []
        for c in counts:
            data["tokens"].append(sorted(supply_tokens[:c]) if game.finite else [game.point_token_values[0]] * c)
            if game.finite:
                supply_tokens = supply_tokens[c:]
        data["token_supply"] = supply_tokens if game.finite else sorted(game.point_token_values)
    if "influence" in spec:
        influence = spec["influence"]
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
    return data


def _building(card: Any, where: str) -> int:
    try:
        return parse_building_card(card)
    except ValueError as error:
        raise SnapshotError(f"rattus_cartus: position {where}: {error}") from None


assert INITIAL_HAND == 5 and INITIAL_RATS == 10 and NUM_POINT_TOKENS == 20
