"""The per-game views on their own: the David & Goliath last trick kept by ``track`` (also when the dummy of
the two-player variant plays last inside a step, DG-5), the Koehandel action labels, the ``serve`` command's argument checks."""

import re
from pathlib import Path

import numpy as np
import pytest

from hiddenhand.envs.david_goliath.cards import CARD_VALUE, card_name
from hiddenhand.cli import main as cli_main
from hiddenhand.web.table import Table, view_module


@pytest.mark.parametrize("players", [2, 3, 5])
def test_last_trick_is_the_trick_just_finished(players):
    table = Table("david_goliath", players, seed=players)
    rng = np.random.default_rng(players)
    seats, checked = table.raw.game.seats, 0
    value = {card_name(card): CARD_VALUE[card] for card in range(90)}
    while not table.over:
        before = table.raw.state_.clone()
        previous = table.memory.get("last_trick")
        legal = table.legal()
        table.apply(int(legal[rng.integers(len(legal))]))
        last, after = table.memory.get("last_trick"), table.raw.state_
        if last is previous:
            continue
        checked += 1
        cards = [entry["card"] for entry in last["cards"]]
        order = [entry["seat"] for entry in last["cards"]]
        assert len(set(cards)) == seats  # every table seat's card, the dummy's too (DG-5)
        assert order == [(before.leader + k) % seats for k in range(seats)]
        assert value[cards[order.index(last["winner"])]] == max(value[card] for card in cards)
        assert value[cards[order.index(last["goliath_taker"])]] == min(value[card] for card in cards)
        if after.round == before.round and not after.is_terminal:  # the piles grew by exactly these cards
            grown = np.flatnonzero(after.taken.sum(axis=0) - before.taken.sum(axis=0))
            assert {card_name(card) for card in grown} == set(cards)
    assert checked == 15 * table.raw.game.rounds  # every trick of every round (§1, DG-4)


def test_generic_view_for_games_without_a_view_module(monkeypatch):
    for game in ("david_goliath", "koehandel", "rattus", "rattus_cartus"):
        assert view_module(game) is not None
    table = Table("rattus_cartus", 2, seed=0)
    monkeypatch.setattr(table, "module", None)
    assert table.view(0)["kind"] == "text" and table.view(0)["text"] == table.raw.state_.render(viewer=0)


ENGINE_WORDS = re.compile(r"\b(SLOT|POS|CARD|STOP|TARGET|PASS|PLACE|PEASANT|MERCHANT|MONK|PEEK|SWAP|KEEP|KING|MOVE|"
                          r"SPREAD|END|TAKE|LAY|DONE|BID|ADD|SLAP|NEVER|phase|decision)\b|[A-Z]{2,}\(|>|:\d")


@pytest.mark.parametrize("game, players", [("rattus", 2), ("rattus", 4), ("rattus_cartus", 2), ("rattus_cartus", 4),
                                           ("koehandel", 3)])
def test_moves_and_log_in_the_games_words(game, players):
    """Issue 26: every button and every log line of a random game is in words, none in the engine's names
    ("SLOT 0", "MERCHANT Germania>Gallia x1", "LAY (one card, face down)"); one decision's choices are told
    apart; every Rattus move decodes to what a click on the map names."""
    table = Table(game, players, seed=players)
    rng = np.random.default_rng(players)
    while not table.over:
        choices = [table.choice(action) for action in table.legal()]
        labels = [c["label"] for c in choices]
        assert len(set(labels)) == len(labels), labels
        for label in labels:
            assert not ENGINE_WORDS.search(label), label
        if game == "rattus":
            for c in choices:
                kind = c["move"]["kind"]
                assert kind in ("end", "take", "place", "place_peasant", "merchant", "monk", "witch_peek", "witch_swap",
                                "witch_keep", "king", "move_plague", "knight_stop", "spread"), c
        table.apply(int(table.legal()[rng.integers(len(labels))]))
    texts = [entry["text"] for entry in table.log]
    assert texts and not [text for text in texts if ENGINE_WORDS.search(text)]


def test_rattus_map_draws_a_users_own_board():
    """Issue 26 item 1: the map comes from the game's data; a board with other region names is laid out from
    its adjacency (every region in the drawing box, no two on one spot)."""
    import yaml

    from hiddenhand.configs import __file__ as configs_init

    shipped = yaml.safe_load((Path(configs_init).parent / "games" / "rattus.yaml").read_text())
    rename = {name: f"Land{i}" for i, name in enumerate(shipped["regions"])}
    board = {"regions": [rename[r] for r in shipped["regions"]],
             "adjacency": {rename[r]: [rename[o] for o in others] for r, others in shipped["adjacency"].items()},
             "player_counts": {n: {**entry, "regions": [rename[r] for r in entry["regions"]]}
                               for n, entry in shipped["player_counts"].items()}}
    view = Table("rattus", 4, seed=1, options={"config": board}).view(0)
    spots = {(r["x"], r["y"]) for r in view["regions"]}
    assert [r["name"] for r in view["regions"]] == board["regions"] and len(spots) == 12
    assert all(0 <= x <= 100 and 0 <= y <= 70 for x, y in spots)
    default = Table("rattus", 4, seed=1).view(0)
    assert {r["name"]: (r["x"], r["y"]) for r in default["regions"]}["Hispania"] == (9.0, 60.0)


def test_koehandel_trade_targets_name_the_seat_and_species():
    table = Table("koehandel", 3, seed=0)
    module = table.module
    from hiddenhand.envs.koehandel import actions as A

    state = table.raw.state_
    label = module.action_label(state, A.target_action(2, 8))
    assert label == f"trade with player_{(state.current_player + 2) % 3} for cow"
    assert module.action_label(state, A.AUCTION) == "auction the top card"


@pytest.mark.parametrize("players", [2, 3])
def test_koehandel_labels_every_legal_action_in_words(players):
    table = Table("koehandel", players, seed=players)
    rng = np.random.default_rng(players)
    while not table.over:
        legal = table.legal()
        labels = [table.label(action) for action in legal]
        assert len(set(labels)) == len(labels)  # one decision's choices are told apart
        assert not any(label.isupper() or "(" in label and label.split("(")[0].isupper() for label in labels), labels
        table.apply(int(legal[rng.integers(len(legal))]))


@pytest.mark.parametrize("argv, words", [
    (["serve", "--agent-delay", "-1"], "--agent-delay must not be negative"),
    (["serve", "--max-games", "0"], "--max-games must be at least 1"),
    (["serve", "--idle-ttl", "-5"], "--idle-ttl must not be negative"),
])
def test_serve_refuses_bad_arguments(argv, words, capsys):
    assert cli_main(argv) == 2
    assert words in capsys.readouterr().err
