"""Rattus Cartus on the web table: what one seat may see (§7), its decisions as questions and the table's
log in the game's words.

Public (§7.2): the building row with each card's supply and building actions, who chose which supply
action, the entrants of each building in entry order with the number of cards they committed (the cards
once revealed), looks at the nun row, passes, influence tracks in stacking order, hand, pending and
point-token counts, rats (with ``rats_public``), supplies, deck and discard. Private (§7.1): the seat's
own hand, pending and committed cards, the nun cards it looked at, its point-token values. The nun row
is shown to everyone at the end (§6.7). ``seat=None`` is the spectator of a finished game's replay.
"""

from __future__ import annotations

from typing import Any

from hiddenhand.envs.rattus_cartus import actions as A
from hiddenhand.envs.rattus_cartus.cards import (
    BUILDINGS, CLASS_NAMES, JOKER, KIND_CLASS, KIND_NUNS, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUN_ROW_SIZE,
    SPECIAL_NAMES, TYPE_NAMES,
)
from hiddenhand.envs.rattus_cartus.decisions import D1, D2, D3, D4, D5, D6, D7, D8, D9, D10, NONE, PHASE_B, PHASE_C, PHASE_D
from hiddenhand.envs.rattus_cartus.rules import RattusCartusState

TITLES = ("Farm", "Brewery", "Marketplace", "Office", "Monastery", "Hospital", "Castle", "Watchtower",
          "Fortune-teller's Tent", "Rat-catcher's Hut", "Palace", "Treasury")
ACTIONS = (  # (special, normal) per building (§4)
    ("draw 4 cards", "draw 2 cards"),
    ("draw as many cards as you committed", "draw half as many cards as you committed"),
    ("take 2 jokers", "take 1 joker"), ("take 2 Pass cards", "take 1 Pass card"),
    ("lose 2 rats", "lose 1 rat"),
    ("lose 1 rat, then discard up to 3 cards, 1 rat each", "discard up to 2 cards, 1 rat each"),
    ("take 2 Swords", "take 1 Sword"),
    ("players with at least as many cards as you give you up to 3 cards", "nothing, but protection from the Watchtower"),
    ("look at 2 nun cards", "look at 1 nun card"), ("take 2 Flutes", "take 1 Flute"),
    ("take 2 point tokens", "take 1 point token"), ("take 2 Gold", "take 1 Gold"),
)
PHASES = {PHASE_B: "supply actions", PHASE_C: "entering the buildings", PHASE_D: "the buildings act"}
QUESTIONS = {
    D1: "Which building's supply action do you use?", D2: "Which nun card do you look at?",
    D3: "Which building do you enter?", D4: "Add cards of which class?",
    D5: "Whom does your Sword hit? They give you half their hand.", D6: "Which card do you give to the Sword's winner?",
    D7: "Who gets one of your rats (Flute)?", D8: "Which nun card do you look at (Fortune-teller's Tent)?",
    D9: "Discard which card at the Hospital (each one buys off a rat)?",
    D10: "Which card do you give to the Watchtower's owner?",
}


def _title(card: int) -> str:
    return TITLES[card // 5]


def _cards(counts: list[int]) -> list[dict[str, Any]]:
    """A holding as named cards: population cards by class and nuns, then jokers and specials."""
    out = []
    for item in range(NUM_ITEMS):
        if counts[item]:
            if item < NUM_KINDS:
                out.append({"type": CLASS_NAMES[KIND_CLASS[item]], "nuns": KIND_NUNS[item], "count": counts[item]})
            else:
                out.append({"type": SPECIAL_NAMES[item - NUM_KINDS], "nuns": None, "count": counts[item]})
    return out


def _supply_text(draw: int, rats: int, look: int) -> str:
    parts = ([f"draw {draw} card{'s' if draw > 1 else ''}"] if draw else []) + \
        ([f"discard {rats} rat{'s' if rats > 1 else ''}"] if rats else []) + \
        ([f"look at {look} nun card{'s' if look > 1 else ''}"] if look else [])
    return ", then ".join(parts)


def seat_view(state: RattusCartusState, seat: int | None, memory: dict[str, Any]) -> dict[str, Any]:
    game, n = state.game, state.n
    everything = seat is None or state.is_terminal and state.result is not None
    row = []
    for s, card in enumerate(state.row):
        building = card // 5
        entrants = []
        for p in state.entrants[s]:
            shown = state.revealed[p] or seat is None
            entrants.append({"seat": p, "committed": sum(state.committed[p]) if not state.revealed[p]
                             else sum(state.last_reveal[p]),
                             "done": state.announced[p] >= 0,
                             "cards": _cards(state.last_reveal[p] if state.revealed[p] else state.committed[p])
                             if shown or p == seat else None})
        row.append({"slot": s, "building": BUILDINGS[building], "title": _title(card), "copy": card % 5,
                    "class": CLASS_NAMES[building // 2],
                    "supply": _supply_text(*game.supply_action[card]),
                    "special": ACTIONS[building][0], "normal": ACTIONS[building][1],
                    "supplied": [p for p in range(n) if state.supply_slot[p] == s],
                    "entrants": entrants, "resolving": state.phase == PHASE_D and state.slot == s})
    players = []
    for p in range(n):
        players.append({
            "seat": p, "rats": state.rats[p] if game.rats_public or p == seat or everything else None,
            "hand": state.hand_size[p], "pending": sum(state.pending[p]), "tokens": len(state.tokens[p]),
            "passes": state.passes[p], "entered": state.entered[p] if state.entered[p] >= 0 else None,
            "influence": list(state.level[p]), "looks": list(state.peek_count[p]),
        })
    influence = [{"class": CLASS_NAMES[c], "order": sorted(
        [p for p in range(n) if state.level[p][c]], key=lambda p: (-state.level[p][c], state.stamp[p][c]))}
        for c in range(NUM_CLASSES)]
    nuns = [{"position": q, "card": _nun(state.nun_row[q]) if everything or state.peeked[seat][q] else None,
             "looks": [state.peek_count[p][q] for p in range(n)]} for q in range(NUN_ROW_SIZE)]
    view: dict[str, Any] = {
        "kind": "rattus_cartus", "round": min(state.round + 1, game.rounds), "rounds": game.rounds,
        "phase": PHASES.get(state.phase, "game over"), "start": state.start, "row": row, "players": players,
        "influence": influence, "nun_row": nuns,
        "supplies": {"jokers": state.supply[0], "swords": state.supply[1], "flutes": state.supply[2],
                     "passes": state.supply[3], "gold": state.supply[4],
                     "point_tokens": len(state.token_supply)} if game.finite else None,
        "deck": len(state.deck), "discard": sum(state.discard), "building_deck": len(state.bdeck),
        "special_player": state.rsp if n == 2 and state.phase == PHASE_D and state.rsp >= 0 else None,
        "decision": _decision(state) if state.decision != NONE else None,
        "you": None if seat is None else {
            "hand": _cards(state.hands[seat]), "pending": _cards(state.pending[seat]),
            "committed": _cards(state.committed[seat]),
            "token_values": None if game.uniform_tokens else list(state.tokens[seat])},
        "result": _result(state) if state.is_terminal and state.result is not None else None,
    }
    if seat is None:
        view["hands"] = [_cards(state.hands[p]) for p in range(n)]
    return view


def _nun(kind: int) -> dict[str, Any]:
    return {"type": CLASS_NAMES[KIND_CLASS[kind]], "nuns": KIND_NUNS[kind]}


def _decision(state: RattusCartusState) -> dict[str, Any]:
    """The decision on the table: who answers which question, and its public context."""
    d, p = state.decision, state.current_player
    context = ""
    if d == D4:
        context = f"{sum(state.committed[p])} card(s) committed to the {_title(state.row[state.entered[p]])}"
    elif d in (D6, D10):
        to = state.sword[0] if d == D6 else state.queue[state.qi][0]
        context = f"{state.left} more card(s) to give to player_{to}"
    elif d == D9:
        context = f"up to {state.left} more"
    elif d in (D2, D8):
        context = f"{state.left} look(s) left"
    return {"seat": p, "question": QUESTIONS[d], "context": context}


def _result(state: RattusCartusState) -> dict[str, Any]:
    result = state.result
    return {"vp": list(result["vp"]), "rats": list(result["rats"]), "survived": list(result["survived"]),
            "nuns": result["nuns_in_row"], "outcome": list(result["outcome"])}


def action_move(state: RattusCartusState, action: int) -> dict[str, Any]:
    """A legal action as the page reads it: a building slot, a nun-row position, a card type, a seat."""
    game = state.game
    kind, arg = game.act_kind[action], game.act_arg[action]
    if kind == A.SLOT:
        return {"kind": "slot", "slot": arg}
    if kind == A.POS:
        return {"kind": "position", "position": arg}
    if kind == A.CARD:
        item = game.act_item[action]
        return {"kind": "card", "type": TYPE_NAMES[arg], "nuns": KIND_NUNS[item] if 0 <= item < NUM_KINDS else None}
    if kind == A.TARGET:
        return {"kind": "seat", "seat": (state.current_player + arg) % state.n}
    return {"kind": {A.PASS_ACTION: "pass", A.STOP: "stop"}[kind]}


def action_label(state: RattusCartusState, action: int) -> str:
    """What a legal action of the seat to move will do, in words."""
    game, d, p = state.game, state.decision, state.current_player
    kind, arg = game.act_kind[action], game.act_arg[action]
    if kind == A.SLOT:
        card = state.row[arg]
        if d == D1:
            return f"use the supply of building {arg + 1}, the {_title(card)}: {_supply_text(*game.supply_action[card])}"
        return (f"enter building {arg + 1}, the {_title(card)} ({CLASS_NAMES[card // 10]}; you would be number "
                f"{len(state.entrants[arg]) + 1} there)")
    if kind == A.POS:
        seen = f", seen before: {_nun_words(state.nun_row[arg])}" if state.peeked[p][arg] else ""
        return f"look at nun card {arg + 1}{seen}"
    if kind == A.PASS_ACTION:
        return "play a Pass card: enter after the others"
    if kind == A.STOP:
        return "done adding" if d == D4 else "stop discarding"
    if kind == A.TARGET:
        target = (p + arg) % state.n
        return f"player_{target}" + (" gives you half their hand" if d == D5 else " gets one of your rats")
    card = _card_words(game, action)
    if d == D4:
        building_class = state.row[state.entered[p]] // 10
        if arg == JOKER or arg == building_class:
            return f"add {card}: +1 {CLASS_NAMES[building_class]} influence"
        if arg < NUM_CLASSES:
            return f"add {card}: +1 influence, +1 rat (another class)"
        return f"add {card}: for the {TYPE_NAMES[arg].title()} contest, no influence"
    if d == D9:
        return f"discard {card}: one rat less"
    return f"give {card}"


def _card_words(game, action: int) -> str:
    arg, item = game.act_arg[action], game.act_item[action]
    if arg < NUM_CLASSES:
        nuns = f" with {KIND_NUNS[item]} nun(s)" if item >= 0 else ""
        return f"a {CLASS_NAMES[arg]} card{nuns}"
    return f"a {TYPE_NAMES[arg]}" if arg != JOKER else "a joker"


def _nun_words(kind: int) -> str:
    return f"{CLASS_NAMES[KIND_CLASS[kind]]} with {KIND_NUNS[kind]} nun(s)"


def announce(state: RattusCartusState, action: int) -> str:
    """The move as the table saw it: committed and given cards face down, looked-at cards unnamed (§7)."""
    game, d, p = state.game, state.decision, state.current_player
    kind, arg = game.act_kind[action], game.act_arg[action]
    if kind == A.SLOT:
        card = state.row[arg]
        return (f"uses the supply of building {arg + 1}, the {_title(card)}" if d == D1
                else f"enters building {arg + 1}, the {_title(card)}")
    if kind == A.POS:
        return f"looks at nun card {arg + 1}"
    if kind == A.PASS_ACTION:
        return "plays a Pass card"
    if kind == A.STOP:
        return f"is done adding ({sum(state.committed[p])} card(s) face down)" if d == D4 else "stops discarding"
    if kind == A.TARGET:
        target = (p + arg) % state.n
        return f"hits player_{target} with the Sword" if d == D5 else f"gives a rat to player_{target}"
    if d == D4:
        return "adds a card face down"
    if d == D6:
        return "gives a card face down to the Sword's winner"
    if d == D10:
        return "gives a card face down to the Watchtower's owner"
    return f"discards {_card_words(game, action)} at the Hospital"

