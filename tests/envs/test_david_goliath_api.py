"""david_goliath_v0 specifics: the observation blocks against the state, card_features, the score
breakdown and the game's own options (the generic API, seeding, snapshot, replay, illegal-action and
option tests are the contract suite's, tests/contract/)."""

import numpy as np
import pytest
from playing import play_random

from hiddenhand.envs import david_goliath_v0
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.david_goliath.rules import OPTIONS, DavidGoliathGame, colour_scores


def test_terminal_infos_break_the_scores_down_by_round_seat_and_colour():
    """§4/§5: the final scores are the sums of every round's colour scores; the top scores win."""
    env = david_goliath_v0.env(num_players=4, rounds=2)
    env.reset(seed=2)
    final = None
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final = info
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    scores = final["scores"]
    breakdown = final["score_breakdown"]
    assert breakdown["colours"] == ["red", "yellow", "green", "blue", "purple"]
    assert np.shape(breakdown["round_colour_scores"]) == (2, 4, 5)
    totals = np.sum(breakdown["round_colour_scores"], axis=(0, 2))
    assert totals.tolist() == [scores[a] for a in sorted(scores)]
    assert final["winners"] == [a for a, s in scores.items() if s == max(scores.values())]


@pytest.mark.parametrize("kwargs, message", [
    ({"rounds": 0}, "rounds=0 is not allowed; allowed: None or an int in 1..100"),
    ({"rounds": 101}, "rounds=101"),
    ({"rounds": 2.5}, "rounds=2.5"),
    ({"rounds": "3"}, "rounds='3'"),
    ({"rounds": True}, "rounds=True"),
    ({"card_features": 1}, "card_features=1 is not allowed; allowed: True or False"),
    ({"card_features": "yes"}, "card_features='yes'"),
    ({"suits": 4}, r"unknown option\(s\) \['suits'\]; options: \['card_features', 'colours', 'hand_size', 'max_value', "
     r"'rounds', 'trick_outlook', 'two_player_variant'\]"),
    ({"trick_outlook": "on"}, "trick_outlook='on' is not allowed; allowed: True or False"),
    ({"two_player_variant": "solo"}, "two_player_variant='solo' is not allowed; allowed: None or one of"),
    ({"two_player_variant": "dummy"}, r"two_player_variant='dummy' is not allowed; allowed: None unless num_players=2"),
])
def test_bad_game_options_are_a_config_error_naming_option_value_and_allowed(kwargs, message):
    """DG-4: rounds is an int 1..100 (None: one per player); card_features a bool; DG-5:
    two_player_variant only with two players."""
    with pytest.raises(ConfigError, match=message):
        david_goliath_v0.env(**kwargs)
    with pytest.raises(ConfigError, match=message):
        DavidGoliathGame(4, **kwargs)


def test_options_keep_their_defaults_and_accept_numpy_ints():
    """DG-4: rounds default to the number of players."""
    assert OPTIONS.resolve({}) == {"rounds": None, "card_features": False, "trick_outlook": False,
                                   "two_player_variant": None, "colours": 5, "max_value": None, "hand_size": 15}
    assert DavidGoliathGame(2).config() == {"num_players": 2, "rounds": 2, "card_features": False,
                                            "two_player_variant": "dummy"}  # DG-5: the default for two
    assert DavidGoliathGame(2, two_player_variant="literal").config()["two_player_variant"] == "literal"
    game = DavidGoliathGame(5)
    assert game.config() == {"num_players": 5, "rounds": 5, "card_features": False}
    game = DavidGoliathGame(3, rounds=np.int64(2), card_features=np.bool_(True))
    assert game.config() == {"num_players": 3, "rounds": 2, "card_features": True}
    assert type(game.rounds) is int and type(game.card_features) is bool
    assert DavidGoliathGame(3, trick_outlook=True).config()["trick_outlook"] is True  # listed only when on


def test_observation_views_are_named():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=0)
    views = env.unwrapped.observer.layout.views(env.observe("player_0")["observation"])
    assert list(views) == ["hand", "trick", "trick_leader", "led_colour", "dealer", "trick_number",
                           "round_progress", "seats", "unseen"]
    assert views["hand"].sum() == 15 and views["seats"].shape == (4, 106)
    assert views["unseen"].sum() == 45 and not (views["unseen"] * views["hand"]).any()


@pytest.mark.parametrize("players", [2, 4, 6])
def test_observation_blocks_match_the_state(players):
    """Every block, for every seat, at every step of a game, against the rules state (catches a stale
    cache in the encoder)."""
    env = david_goliath_v0.env(num_players=players, rounds=2)
    env.reset(seed=players)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = raw.state_
        seats = raw.game.seats  # DG-5: two players sit with the dummy
        totals = np.append(state.totals, [0] * (seats - players))  # the dummy scores for nobody
        for seat, name in enumerate(raw.possible_agents):
            views = raw.observer.layout.views(raw.observe(name)["observation"])
            rotation = [(seat + k) % seats for k in range(seats)]
            assert (views["hand"] == state.hands[seat]).all()
            assert [int(np.argmax(row)) for row in views["trick"] if row.any()] == state.trick
            assert views["trick_leader"][(state.leader - seat) % seats] == 1 == views["trick_leader"].sum()
            assert views["dealer"][(state.dealer - seat) % seats] == 1 == views["dealer"].sum()
            assert views["led_colour"].sum() == (1 if state.trick else 0)
            assert views["trick_number"][state.tricks_played] == 1
            assert (views["seats"][:, :90] == state.taken[rotation]).all()
            assert (views["seats"][:, 90:95] == state.voids[rotation]).all()
            counts = state.taken.reshape(seats, 5, 18).sum(axis=2)[rotation]
            assert np.allclose(views["seats"][:, 95:100] * 15, counts)
            colour_points = [colour_scores(np.flatnonzero(state.taken[s])) for s in rotation]
            assert np.allclose(views["seats"][:, 100:105] * 35, colour_points)
            assert np.allclose(views["seats"][:, 105] * 100, totals[rotation])
            others = [s for s in range(seats) if s != seat]
            assert (views["unseen"] == state.hands[others].sum(axis=0)).all()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_optional_card_features_spell_out_the_state():
    """card_features=True adds per-card channels derived from the observer's own view."""
    env = david_goliath_v0.env(num_players=4, rounds=1, card_features=True)
    env.reset(seed=5)
    raw = env.unwrapped
    assert env.observation_space("player_0")["observation"].shape == (198 * 4 + 201 + 4 * 90,)
    values = np.arange(90) % 18 + 1

    def check(env, obs, _):
        state, seat = raw.state_, raw.possible_agents.index(env.agent_selection)
        block = raw.observer.layout.view(obs["observation"], "card_features")
        hand = state.hands[seat].astype(bool)
        trick_values = [v % 18 + 1 for v in state.trick] or [0, 99]
        assert (block[0].astype(bool) == (hand & (values >= max(trick_values)) if state.trick else hand)).all()
        assert (block[1].astype(bool) == (hand & (values <= min(trick_values)) if state.trick else hand)).all()
        for card in np.flatnonzero(state.hands.sum(axis=0)):  # in play
            colour = card // 18
            before = state.colour_points[seat, colour]
            count = state.taken_count[seat, colour] + 1
            after = before + values[card] if count <= 2 else count
            assert block[2, card] * 35 - block[3, card] * 35 == pytest.approx(after - before)

    assert play_random(env, 1, each_step=check) == 60


@pytest.mark.parametrize("players", [2, 3, 4])
def test_trick_outlook_is_exact_for_the_last_card_and_fills_only_the_legal_cards(players):
    """trick_outlook=True: per legal card, each seat's expected round-score gain and loss (§4) and the chances
    that the card is the trick's highest and lowest (§3.3). Playing last, it is what the rules then do: checked
    by playing each legal card on a copy of the state. Zeros for a seat not to move and off the legal cards."""
    env = david_goliath_v0.env(num_players=players, rounds=1, trick_outlook=True)
    env.reset(seed=players)
    raw = env.unwrapped
    seats = raw.game.seats
    assert env.observation_space("player_0")["observation"].shape[0] == (
        david_goliath_v0.env(num_players=players, rounds=1).observation_space("player_0")["observation"].shape[0]
        + (2 * seats + 2) * 90)
    last_cards_checked = 0

    def check(env, obs, _):
        nonlocal last_cards_checked
        agent = env.agent_selection
        state, seat = raw.state_, raw.possible_agents.index(agent)
        for other in raw.agents:
            if other != agent:
                assert not raw.observer.layout.view(raw.observe(other)["observation"], "trick_outlook").any()
        block = raw.observer.layout.view(obs["observation"], "trick_outlook")
        legal = obs["action_mask"].astype(bool)
        assert not block[:, ~legal].any()
        chances = block[-2:, legal]
        assert ((chances >= 0) & (chances <= 1)).all() and (chances.sum(axis=0) <= 1 + 1e-6).all()
        if len(state.trick) == seats - 1 and state.tricks_played < 14:  # the observer completes the trick
            for card in np.flatnonzero(legal):
                after = state.clone()
                after.apply(int(card), np.random.default_rng(0))
                for k in range(seats):
                    other = (seat + k) % seats
                    change = after.colour_points[other].sum() - state.colour_points[other].sum()
                    assert (block[2 * k, card] - block[2 * k + 1, card]) * 70 == pytest.approx(change)
                assert block[-2, card] == (after.leader == seat)  # DG-2: the highest card leads next
                last_cards_checked += 1

    play_random(env, players, each_step=check)
    assert last_cards_checked > 10
