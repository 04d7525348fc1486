"""DG-5 (revised): two players play the dummy variant by default; the literal variant is an option."""

import numpy as np
import pytest

from hiddenhand.agents import AgentFileError, load
from hiddenhand.envs import david_goliath_v0
from hiddenhand.envs.david_goliath.rules import CARD_COLOUR, DavidGoliathGame, DavidGoliathState, card_id

RED, YELLOW = 0, 1
R, Y = (lambda v: card_id(RED, v)), (lambda v: card_id(YELLOW, v))


def _last_tricks_position(env):
    """Two tricks left: player 0 leads; the dummy holds the only high red, so it takes the trick (DG-5)."""
    game = env.unwrapped.game
    hands = [[R(1), Y(5)], [R(2), Y(6)], [R(9), Y(7)]]
    held = {card for hand in hands for card in hand}
    rest = [int(card) for card in game.deck if card not in held]
    env.unwrapped.set_position(seed=0, hands=hands, leader=0, taken=[[], [], rest])


def test_two_players_default_to_the_dummy_variant_with_the_three_player_deck():
    """DG-5: 45 cards (values 1..9), 15 to each player and 15 to the dummy; the dummy is no agent; rounds
    default to 2; the observation has a seat for the dummy."""
    env = david_goliath_v0.env(num_players=2)
    env.reset(seed=1)
    raw = env.unwrapped
    game = raw.game
    assert game.two_player_variant == "dummy" and game.seats == 3 and game.dummy == 2 and game.rounds == 2
    assert raw.possible_agents == ["player_0", "player_1"] and env.agents == ["player_0", "player_1"]
    assert len(game.deck) == 45 and max(card % 18 + 1 for card in game.deck) == 9
    assert raw.state_.hands.sum(axis=1).tolist() == [15, 15, 15]
    assert env.observation_space("player_0")["observation"].shape == (198 * 3 + 201,)
    views = raw.observer.layout.views(env.observe("player_0")["observation"])
    assert views["seats"].shape == (3, 106) and views["unseen"].sum() == 30  # the opponent's and dummy's cards
    assert "dummy" in raw.state_.render()
    assert game.max_game_length == 2 * 15 * 2  # the agents' actions only


def test_the_dummy_takes_a_trick_its_cards_score_for_nobody_and_it_leads_next():
    """DG-5: tricks resolve over all three cards (§3); the dummy's taken cards score for nobody; after
    taking a trick the dummy leads at once with a card of its hand."""
    env = david_goliath_v0.env(num_players=2)
    _last_tricks_position(env)
    raw = env.unwrapped
    env.step(R(1))  # player 0 leads red 1
    env.step(R(2))  # player 1 follows; the dummy must follow with its red 9, takes red 1 and red 2, and leads
    state = raw.state_
    assert state.taken[0, R(9)] == 1  # David (red 1) takes Goliath (red 9)
    assert state.taken[2, R(1)] == state.taken[2, R(2)] == 1  # the dummy's pile
    assert state.leader == 2 and state.trick == [Y(7)] and raw.agent_selection == "player_0"
    assert state.scores() == [9, 0]  # the dummy's pile counts for nobody
    env.step(Y(5))
    env.step(Y(6))  # the dummy's yellow 7 is highest: player 0 (yellow 5, lowest) takes it
    state = raw.state_
    assert state.round == 1 and state.round_colour_scores[0] == [[9, 7, 0, 0, 0], [0] * 5]
    assert state.totals.tolist() == [16, 0] and len(state.scores()) == 2
    assert raw.game.invariants(state) == []


def test_the_dummy_plays_uniformly_random_legal_cards_and_follows_suit(monkeypatch):
    """DG-5: the dummy plays a random legal card (following the led colour when it can), from the env's
    seeded RNG: every card it plays is legal, and its choices vary with the seed."""
    seen = []
    apply = DavidGoliathState.apply

    def spy(state, action, rng):
        if state.current_player == state.game.dummy:
            hand = np.flatnonzero(state.hands[2])
            if state.trick:
                led = CARD_COLOUR[state.trick[0]]
                same = [card for card in hand if CARD_COLOUR[card] == led]
                assert action in (same or hand), "the dummy did not follow suit though it could"
            else:
                assert action in hand
            seen.append(action)
        apply(state, action, rng)

    monkeypatch.setattr(DavidGoliathState, "apply", spy)
    env = david_goliath_v0.env(num_players=2)
    for seed in range(30):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(seen) == 30 * 2 * 15  # one card per trick, two rounds
    # from one position the dummy's card depends on the env's RNG only
    choices = set()
    for seed in range(40):
        env = david_goliath_v0.env(num_players=2)
        hands = [[R(1), Y(5), Y(1)], [R(2), Y(6), Y(2)], [R(9), R(8), R(7)]]
        held = {card for hand in hands for card in hand}
        env.unwrapped.set_position(seed=seed, hands=hands, leader=0,
                                   taken=[[], [], [int(c) for c in env.unwrapped.game.deck if c not in held]])
        env.step(R(1))
        env.step(R(2))  # the dummy's red is highest whatever it plays: David (red 1) takes it
        choices.add(int(np.flatnonzero(env.unwrapped.state_.taken[0])[0]))
    assert choices == {R(7), R(8), R(9)}


def test_the_dealer_alternates_between_the_players_and_the_non_dealer_leads():
    """DG-5: the dummy never deals; the first trick of a round is led by the non-dealer."""
    game = DavidGoliathGame(2, rounds=4)
    for seed in range(10):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(rng)
        dealers = []
        while not state.is_terminal:
            if state.tricks_played == 0 and not state.trick:
                dealers.append(state.dealer)
                assert state.leader == state.current_player == 1 - state.dealer
            legal = np.flatnonzero(state.legal_mask())
            state.apply(int(rng.choice(legal)), rng)
        assert dealers in ([0, 1, 0, 1], [1, 0, 1, 0])


def test_random_dummy_games_keep_the_invariants_and_score_two_players():
    env = david_goliath_v0.env(num_players=2, rounds=2)
    raw = env.unwrapped
    for seed in range(60):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert agent != "dummy" and raw.state_.current_player in (0, 1)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert raw.game.invariants(raw.state_) == []
        state = raw.state_
        assert state.is_terminal and len(info["scores"]) == 2
        assert np.shape(info["score_breakdown"]["round_colour_scores"]) == (2, 2, 5)


def test_determinize_redeals_the_dummy_with_the_opponent():
    """DG-5: the dummy's hand is hidden from both players; a re-deal mixes it with the opponent's hand."""
    env = david_goliath_v0.env(num_players=2)
    env.reset(seed=3)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    raw = env.unwrapped
    me = raw.agent_selection
    seat = raw.possible_agents.index(me)
    other = 1 - seat
    changed = 0
    for s in range(10):
        copy = raw.determinize(me, s).state_
        assert (copy.hands[seat] == raw.state_.hands[seat]).all()
        assert (copy.hands[[other, 2]].sum(axis=0) == raw.state_.hands[[other, 2]].sum(axis=0)).all()
        changed += not (copy.hands[2] == raw.state_.hands[2]).all()
    assert changed >= 9


def test_positions_refuse_the_dummy_on_turn_and_a_dummy_dealer():
    from hiddenhand.envs.core.game import SnapshotError
    from hiddenhand.envs.core.snapshots import as_position

    env = david_goliath_v0.env(num_players=2)
    env.reset(seed=0)
    data = as_position(env.unwrapped.snapshot())
    data["state"]["dealer"] = 2  # the origin's state too: the same data
    with pytest.raises(SnapshotError, match="dealer=2"):
        env.unwrapped.restore(data)
    with pytest.raises(SnapshotError, match="the dummy"):
        env.unwrapped.set_position(seed=0, leader=2)


def test_literal_variant_stays_available():
    env = david_goliath_v0.env(num_players=2, two_player_variant="literal")
    env.reset(seed=0)
    assert env.unwrapped.game.seats == 2 and len(env.unwrapped.game.deck) == 30
    assert env.observation_space("player_0")["observation"].shape == (198 * 2 + 201,)


def test_the_shipped_two_player_agent_plays_the_dummy_variant_it_was_trained_for():
    """DG-5 (revised): the shipped 2-player agent was retrained on the dummy variant, the default."""
    agent = load("david_goliath_2p")
    options = agent.metadata["env_options"]
    assert options.get("two_player_variant") == "dummy"
    load("david_goliath_2p", DavidGoliathGame(2, **{k: v for k, v in options.items() if k != "num_players"}))
    with pytest.raises(AgentFileError, match="observation"):
        load("david_goliath_2p", DavidGoliathGame(2, two_player_variant="literal"))
