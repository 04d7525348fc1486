"""The per-game views on their own: the David & Goliath last trick kept by ``track`` (also when the dummy of
the two-player variant plays last inside a step, DG-5), the Koehandel action labels, the ``serve`` command's argument checks."""

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


def test_generic_view_for_games_without_a_view_module():
    assert view_module("david_goliath") is not None and view_module("koehandel") is not None
    table = Table("rattus_cartus", 2, seed=0)
    assert table.view(0)["kind"] == "text" and table.view(0)["text"] == table.raw.state_.render(viewer=0)


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
