"""David & Goliath rules against docs/david_goliath_rules.md: worked examples (§3, §4) and DG-1..DG-5."""

import numpy as np
import pytest

from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.david_goliath.rules import (
    ACTIONS, COLOURS, HAND_SIZE, DavidGoliathGame, DavidGoliathState, card_id, colour_score, colour_scores,
    resolve_trick,
)

RED, YELLOW, GREEN, BLUE, PURPLE = range(5)


def test_worked_trick_example_five_players():
    """§3: A green 4, B green 12, C green 7, D red 2, E green 2 -> B highest, E's 2 lowest (played later)."""
    values = [4, 12, 7, 2, 2]
    assert resolve_trick(values) == (1, 4)


def test_worked_trick_example_taking_and_leading():
    """§3.4-3.6 on the engine: E takes green 12, B takes the other four and leads next (DG-2)."""
    game = DavidGoliathGame(num_players=5)
    state = DavidGoliathState(game, dealer=4, rng=np.random.default_rng(0))
    assert state.leader == 0  # DG-3: left of the dealer leads
    cards = [card_id(GREEN, 4), card_id(GREEN, 12), card_id(GREEN, 7), card_id(RED, 2), card_id(GREEN, 2)]
    _force_hands(state, {seat: [card] for seat, card in enumerate(cards)})
    for card in cards:
        state.apply(card, np.random.default_rng(0))
    assert np.flatnonzero(state.taken[4]).tolist() == [card_id(GREEN, 12)]
    assert sorted(np.flatnonzero(state.taken[1]).tolist()) == sorted(
        [card_id(GREEN, 4), card_id(GREEN, 7), card_id(RED, 2), card_id(GREEN, 2)])
    assert state.leader == state.current_player == 1
    assert state.voids[3, GREEN] == 1  # D did not follow green: a public void (§6)


def test_all_equal_values_last_is_highest_second_to_last_lowest():
    """§3.3: all N cards of the same value."""
    assert resolve_trick([5, 5, 5, 5]) == (3, 2)
    assert resolve_trick([7, 7]) == (1, 0)


def test_ties_go_to_the_card_played_last():
    assert resolve_trick([9, 3, 9, 3]) == (2, 3)
    assert resolve_trick([1, 8, 1]) == (1, 2)


def test_worked_scoring_example_52_points():
    """§4: red {4,10,11}=3, yellow {8}=8, green {5,9}=14, blue {2,3,6,10,12}=5, purple {10,12}=22."""
    taken = ([card_id(RED, v) for v in (4, 10, 11)] + [card_id(YELLOW, 8)] + [card_id(GREEN, v) for v in (5, 9)]
             + [card_id(BLUE, v) for v in (2, 3, 6, 10, 12)] + [card_id(PURPLE, v) for v in (10, 12)])
    assert colour_scores(taken) == [3, 8, 14, 5, 22]
    assert sum(colour_scores(taken)) == 52


@pytest.mark.parametrize("values, expected", [([], 0), ([7], 7), ([7, 18], 25), ([1, 2, 3], 3), ([18] * 4, 4)])
def test_colour_score_one_or_two_face_value_else_count(values, expected):
    assert colour_score(values) == expected


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_components_per_player_count(players):
    """§1 and DG-5: values 1..3N in five colours, 15 cards each; two players (dummy variant, the default)
    use the 3-player deck, 15 cards to each player and 15 to the dummy."""
    game = DavidGoliathGame(players)
    seats = 3 if players == 2 else players
    assert game.seats == seats and len(game.deck) == 15 * seats
    state = game.new_initial_state(np.random.default_rng(1))
    assert state.hands.sum(axis=1).tolist() == [HAND_SIZE] * seats
    values = {int(c) % 18 + 1 for c in np.flatnonzero(state.hands.sum(axis=0))}
    assert values == set(range(1, 3 * seats + 1))


@pytest.mark.parametrize("players", [0, 1, 7, 10])
def test_unsupported_player_counts_are_refused(players):
    """DG-5: 2..6 players only."""
    with pytest.raises(ConfigError, match=f"num_players={players} is not allowed; allowed: an int in 2..6"):
        DavidGoliathGame(players)


def test_first_dealer_is_random_and_seeded():
    """DG-1: the first dealer is drawn from the seeded RNG."""
    dealers = {DavidGoliathGame(4).new_initial_state(np.random.default_rng(s)).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    a = DavidGoliathGame(4).new_initial_state(np.random.default_rng(5))
    b = DavidGoliathGame(4).new_initial_state(np.random.default_rng(5))
    assert a.dealer == b.dealer and (a.hands == b.hands).all()


def test_rounds_default_to_player_count_and_are_configurable():
    """DG-4."""
    assert DavidGoliathGame(5).rounds == 5
    assert DavidGoliathGame(5, rounds=2).rounds == 2
    for bad in (0, -1, 101, 2.5, "3", True):
        with pytest.raises(ConfigError, match=f"rounds={bad!r} is not allowed"):
            DavidGoliathGame(4, rounds=bad)


def test_dealer_rotates_and_left_of_dealer_leads_each_round():
    """§2 and DG-3: each round's first trick is led by dealer+1; the dealer moves clockwise."""
    game = DavidGoliathGame(3, rounds=3)
    rng = np.random.default_rng(2)
    state = game.new_initial_state(rng)
    first_dealer = state.dealer
    for round_index in range(3):
        assert state.dealer == (first_dealer + round_index) % 3
        assert state.current_player == (state.dealer + 1) % 3
        for _ in range(HAND_SIZE * 3):
            mask = state.legal_mask()
            state.apply(int(np.flatnonzero(mask)[0]), rng)
    assert state.is_terminal


def test_must_follow_the_led_colour_if_able():
    """§3.2 / §7: following players are restricted to the led colour when they hold it."""
    game = DavidGoliathGame(3)
    state = DavidGoliathState(game, dealer=2, rng=np.random.default_rng(0))
    _force_hands(state, {0: [card_id(RED, 5), card_id(BLUE, 1)],
                         1: [card_id(RED, 2), card_id(GREEN, 9)],
                         2: [card_id(YELLOW, 3), card_id(BLUE, 4)]})
    mask = state.legal_mask()
    assert np.flatnonzero(mask).tolist() == sorted([card_id(RED, 5), card_id(BLUE, 1)])  # leader: any card
    state.apply(card_id(RED, 5), None)
    mask = state.legal_mask()
    assert np.flatnonzero(mask).tolist() == [card_id(RED, 2)]
    state.apply(card_id(RED, 2), None)
    mask = state.legal_mask()
    assert np.flatnonzero(mask).tolist() == sorted([card_id(YELLOW, 3), card_id(BLUE, 4)])  # void: any


def test_two_players_each_take_the_others_card_so_play_cannot_matter():
    """DG-5, the literal variant (an option): with two players the lowest takes the highest and the
    highest the other card, so each player always takes the opponent's card, ties included (§3.3). A
    round's score is the score of the opponent's dealt hand, whatever is played."""
    game = DavidGoliathGame(2, rounds=1, two_player_variant="literal")
    assert game.seats == 2 and len(game.deck) == 30
    for seed in range(20):
        results = set()
        for policy in (0, -1, "random"):
            rng = np.random.default_rng(seed)
            state = game.new_initial_state(rng)
            dealt = [np.flatnonzero(row).tolist() for row in state.hands]
            picker = np.random.default_rng(seed + 100)
            while not state.is_terminal:
                mask = state.legal_mask()
                legal = np.flatnonzero(mask)
                state.apply(int(picker.choice(legal) if policy == "random" else legal[policy]), rng)
            assert state.scores() == [sum(colour_scores(dealt[1])), sum(colour_scores(dealt[0]))]
            results.add(tuple(state.scores()))
        assert len(results) == 1


def test_colour_names():
    assert COLOURS == ("red", "yellow", "green", "blue", "purple")


def test_card_parsing():
    game = DavidGoliathGame(4)
    assert game.string_to_action("R12") == card_id(RED, 12)
    assert game.string_to_action("purple 3") == card_id(PURPLE, 3)
    assert game.string_to_action(" g1 ") == card_id(GREEN, 1)
    assert game.action_to_string(card_id(BLUE, 7)) == "B7"
    assert game.string_to_action("29") == 29 and game.string_to_action("Red12") == card_id(RED, 12)
    assert ACTIONS.names == [f"{letter}{value}" for letter in "RYGBP" for value in range(1, 19)]
    assert ACTIONS.decode(card_id(BLUE, 7)) == ("card", (BLUE, 6)) and ACTIONS.size == game.num_actions == 90
    for bad in ("X3", "red", "R19", "R0", ""):
        with pytest.raises(ValueError, match="not a card"):
            game.string_to_action(bad)


def _force_hands(state, hands):
    """Give each seat exactly these cards (helper for scripted tricks)."""
    state.hands.fill(0)
    for seat, cards in hands.items():
        state.hands[seat, cards] = 1
    n = state.game.num_players
    state.colour_counts = state.hands.reshape(n, 5, 18).sum(axis=2).tolist()


@pytest.mark.parametrize("players", [2, 4])
def test_clone_is_an_independent_copy(players):
    """``clone`` (used by the search agents) copies everything mutable: playing on the copy leaves the
    original as it was, and both play on under the invariants."""
    game = DavidGoliathGame(players, rounds=2)
    rng = np.random.default_rng(players)
    state = game.new_initial_state(rng)
    for step in range(40):
        copy = state.clone()
        assert copy.to_json() == state.to_json() and game.invariants(copy) == []
        before = state.to_json()
        for _ in range(25):
            if copy.is_terminal:
                break
            copy.apply(int(rng.choice(np.flatnonzero(copy.legal_mask()))), rng)
        assert state.to_json() == before and game.invariants(copy) == []
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))), rng)
