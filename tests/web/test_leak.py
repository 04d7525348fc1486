"""No answer to a seat shows what that seat may not know (issues 15, 26): over random games played through
the API with every seat human, each seat's view, and the mover's legal moves with their labels and
decoded moves, equal those of a twin position in which everything hidden from that seat was re-dealt
(``env.determinize``), so they depend on that seat's information alone; what the log says of a move is
the same in every other seat's twin (the Rattus map, the Rattus Cartus table, Koehandel's words); and in
David & Goliath no card of another hand, in Koehandel no face-down offer's money, is anywhere in the
answer (besides the log and the last trick, which may name cards played in an earlier round).
"""

import json
import re

import numpy as np
import pytest

from hiddenhand.envs import REGISTRY
from hiddenhand.envs.david_goliath.cards import card_name

CASES = [("david_goliath", 2), ("david_goliath", 4), ("koehandel", 2), ("koehandel", 3), ("koehandel", 5),
         ("rattus", 2), ("rattus", 4), ("rattus_cartus", 2), ("rattus_cartus", 5),
         *[(game, REGISTRY[game].default_players) for game in REGISTRY
           if game not in ("david_goliath", "koehandel", "rattus", "rattus_cartus")]]
STEPS = 200
EVERY = 7  # seats' answers checked against their twins every EVERY steps; the other checks every step


def _choice(module, state, action):
    labeller = getattr(module, "action_label", None)
    out = {"id": action, "label": labeller(state, action) if labeller else state.game.action_to_string(action)}
    if hasattr(module, "action_move"):
        out["move"] = module.action_move(state, action)
    return out


def _hidden_dg_cards(state, seat):
    return {card_name(card) for other in range(state.game.seats) if other != seat
            for card in np.flatnonzero(state.hands[other])}


@pytest.mark.parametrize("game, players", CASES)
def test_no_answer_shows_another_seats_hidden_information(client, game, players):
    created = client.post("/api/games", json={"game": game, "players": players, "seats": ["human"] * players,
                                              "seed": players}).json()
    tokens = [seat["token"] for seat in created["seats"]]
    session = client.app.state.store.sessions[created["game_id"]]
    table, rng = session.table, np.random.default_rng(players)
    offers_seen = 0
    for step in range(STEPS):
        state = table.raw.state_
        for seat, token in enumerate(tokens):
            response = client.get(f"/api/seat/{token}")
            frame = response.json()
            assert not any("hand" in row for row in frame["view"].get("seats", []) if isinstance(row, dict))
            if game == "david_goliath":  # the log and the last trick may name cards of an earlier round
                current = json.dumps([{k: v for k, v in frame["view"].items() if k != "last_trick"}, frame["legal"]])
                words = set(re.findall(r"\b[RYGBP]\d{1,2}\b", current))
                assert not words & _hidden_dg_cards(state, seat), (step, seat)
            if game == "koehandel":
                trade = frame["view"]["trade"]
                if trade and trade["offer_face_down"] and seat != trade["challenger"]:
                    assert set(trade["offer_face_down"]) == {"cards"}  # the count only (K-A22)
                    offers_seen += 1
                assert not any(entry["text"].startswith(("ADD(", "CARD(")) for entry in frame["log"])
            if step % EVERY == 0:
                twin = table.raw.determinize(f"player_{seat}", seed=step)
                if table.module is not None:
                    expected = table.module.seat_view(twin.state_, seat, table.memory)
                else:
                    expected = {"kind": "text", "text": twin.state_.render(viewer=seat)}
                assert frame["view"] == expected, (game, step, seat)
                if frame["legal"]:  # the mover's choices, labelled and decoded from what it knows
                    assert frame["legal"] == [_choice(table.module, twin.state_, a["id"]) for a in frame["legal"]]
        if frame["status"] == "finished":
            break
        mover = frame["to_move"]
        legal = client.get(f"/api/seat/{tokens[mover]}").json()["legal"]
        action = legal[int(rng.integers(len(legal)))]["id"]
        announce = getattr(table.module, "announce", None)
        if announce and step % EVERY == 0:  # what the others hear of the move holds in each of their twins
            said = announce(state, action)
            for seat in range(players):
                twin = table.raw.determinize(f"player_{seat}", seed=step + 1).state_
                if seat != mover and twin.legal_mask()[action]:
                    assert announce(twin, action) == said, (game, step, seat, said)
        assert client.post(f"/api/seat/{tokens[mover]}/move", json={"action": action}).status_code == 200
    if game == "koehandel":
        assert offers_seen, "no face-down offer was checked: play more steps"
