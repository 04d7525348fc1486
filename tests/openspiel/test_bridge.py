"""The OpenSpiel bridge (docs/openspiel.md): every registered game passes OpenSpiel's own consistency checks,
chance histories replay states exactly, and the views are the observers'."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from contract.contract_cases import CASES  # noqa: E402

from open_spiel.python.observation import make_observation  # noqa: E402

from hiddenhand.envs.core.options import ConfigError  # noqa: E402
from hiddenhand.envs.registry import REGISTRY  # noqa: E402
from hiddenhand.openspiel import load_game, load_tiny, resampler  # noqa: E402
from hiddenhand.openspiel.bridge import decode_options, encode_options  # noqa: E402

#: Koehandel's random games run to a thousand turns; its checks here stop earlier (truncated games).
SHORT = {"koehandel": {"max_turns": 25}}


def play(state, seed: int, stop=lambda state: False):
    """Play on with chance sampled and uniformly random actions until the end or ``stop``; returns it."""
    rng = np.random.default_rng(seed)
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("name, options", CASES)
def test_openspiel_random_simulation_and_serialization_pass(name, options):
    """OpenSpiel's RandomSimTest: legal actions, masks, chance outcomes, clones, serialization, observation
    tensors and strings, returns within the declared bounds and sums, game length within the maximum."""
    game = load_game(name, **{**options, **SHORT.get(name, {})})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_history_of_chance_outcomes_and_actions_replays_the_state(name):
    """Chance nodes are explicit: the history alone rebuilds the same engine position and views."""
    game = load_game(name, **SHORT.get(name, {}))
    state = play(game.new_initial_state(), seed=3, stop=lambda s: len(s.history()) > 150 and not s.is_chance_node())
    replay = game.new_initial_state()
    for action in state.history():
        replay.apply_action(action)
    assert replay.engine_state().to_json() == state.engine_state().to_json()
    for seat in range(game.num_players()):
        assert replay.information_state_string(seat) == state.information_state_string(seat)
        assert replay.observation_tensor(seat) == state.observation_tensor(seat)


def test_serialized_states_load_back_identical():
    game = load_tiny("david_goliath")
    state = play(game.new_initial_state(), seed=1, stop=lambda s: len(s.history()) > 3)
    text = pyspiel.serialize_game_and_state(game, state)
    loaded_game, loaded = pyspiel.deserialize_game_and_state(text)
    assert str(loaded_game) == str(game)
    assert loaded.history() == state.history()
    assert loaded.engine_state().to_json() == state.engine_state().to_json()
    assert loaded.information_state_string(0) == state.information_state_string(0)


def test_outcomes_mode_merges_the_deals_a_shuffle_reaches():
    """The tiny David & Goliath deal (DG-1: a random dealer; 6 cards in 3 hands of 2) is one chance node
    over the 2 x 90 distinct deals, each of probability 1/180, not 2 x 720 orders of the shuffle."""
    state = load_tiny("david_goliath").new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 180
    assert np.allclose([p for _, p in outcomes], 1 / 180)
    hands = set()
    for outcome, _ in outcomes:
        engine = state.child(outcome).engine_state()
        hands.add((engine.dealer, tuple(map(tuple, engine.to_json()["hands"]))))
    assert len(hands) == 180


def test_draws_mode_deals_each_card_in_turn_with_equal_chances():
    """"draws": a shuffle is one chance node per card, uniform over the cards left; the deal's law is the
    same as in "outcomes" mode."""
    game = load_tiny("david_goliath", chance="draws")
    state = game.new_initial_state()
    assert [p for _, p in state.chance_outcomes()] == [0.5, 0.5]  # the dealer
    state.apply_action(0)
    for left in (6, 5, 4, 3, 2):  # the last card is forced: no chance node
        outcomes = state.chance_outcomes()
        assert len(outcomes) == left and all(p == pytest.approx(1 / left) for _, p in outcomes)
        state.apply_action(outcomes[0][0])
    assert not state.is_chance_node()


def test_information_state_depends_only_on_what_the_seat_saw_and_did():
    """Two deals that differ only in the cards player 0 cannot see give player 0 the same information
    state and different ones to the others; own actions change the string (perfect recall)."""
    state = load_tiny("david_goliath").new_initial_state()
    by_view: dict[tuple, list] = {}
    for outcome, _ in state.chance_outcomes():
        child = state.child(outcome)
        engine = child.engine_state()
        by_view.setdefault((engine.dealer, tuple(engine.to_json()["hands"][0])), []).append(child)
    twins = next(group for group in by_view.values() if len(group) > 1)
    assert twins[0].information_state_string(0) == twins[1].information_state_string(0)
    assert twins[0].information_state_string(1) != twins[1].information_state_string(1)
    strings = {group[0].information_state_string(0) for group in by_view.values()}
    assert len(strings) == len(by_view)


def test_views_are_the_game_observers_and_its_named_blocks():
    game = load_game("david_goliath", num_players=3, rounds=1)
    state = play(game.new_initial_state(), seed=0, stop=lambda s: s.move_number() > 60)
    observer = REGISTRY["david_goliath"].module().raw_env.observer_class(state.engine_state().game)
    for seat in range(3):
        assert np.array_equal(state.observation_tensor(seat), observer.encode(state.engine_state(), seat))
    views = make_observation(game)  # OpenSpiel's observation with named views
    views.set_from(state, 1)
    assert list(views.dict) == list(observer.layout.shapes)
    hand = observer.layout.view(observer.encode(state.engine_state(), 1), "hand")
    assert views.dict["hand"].tolist() == hand.tolist()


def test_game_types_are_honest():
    tiny = load_tiny("david_goliath")
    kind = tiny.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM and tiny.num_players() == 2
    # Rattus Cartus may end with no winner (everyone -1): not zero-sum even with two players
    assert load_game("rattus_cartus", num_players=2).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert load_game("david_goliath", num_players=4).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_bad_settings_raise_errors_naming_them():
    with pytest.raises(ValueError, match="unknown game 'chess'; registered games"):
        load_game("chess")
    with pytest.raises(ConfigError, match="colours=9 is not allowed"):
        load_game("david_goliath", colours=9)
    with pytest.raises(ValueError, match="chance='sampled' is not allowed"):
        load_game("david_goliath", chance="sampled")
    with pytest.raises(ValueError, match="declares no score_range"):
        load_game("david_goliath", reward="score")
    with pytest.raises(ValueError, match="no tiny configuration for 'rattus'"):
        load_tiny("rattus")


def test_options_survive_openspiel_game_strings():
    options = {"point_token_values": list(range(1, 21)), "building_selection": "agreed", "x": "a,b(c)=d%"}
    assert decode_options(encode_options(options)) == options
    game = load_game("rattus_cartus", num_players=3, point_token_values=list(range(1, 21)))
    assert pyspiel.load_game(str(game)).new_initial_state().get_game().bridge.engine.config() == \
        game.bridge.engine.config()


def test_resampled_states_keep_the_players_view_for_openspiel_ismcts():
    """The resampler re-deals what the player cannot see: its information state and observation stay, and
    the others' hands are drawn from the unseen cards."""
    state = play(load_game("david_goliath", num_players=3, rounds=1).new_initial_state(), seed=2,
                 stop=lambda s: s.move_number() > 70 and s.current_player() == 1)
    resample = resampler(0)
    copies = [resample(state, 1) for _ in range(5)]
    for copy in copies:
        assert copy.information_state_string(1) == state.information_state_string(1)
        assert copy.observation_tensor(1) == state.observation_tensor(1)
        assert copy.legal_actions() == state.legal_actions()
    others = {tuple(map(tuple, copy.engine_state().to_json()["hands"])) for copy in copies}
    assert len(others) > 1
