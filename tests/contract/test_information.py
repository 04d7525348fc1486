"""Contract: hidden information. ``determinize`` re-deals what a player cannot see, keeps its
observation, depends on nothing but that player's information and the seed, and never gives up; the
game's invariants hold in random play and in every re-dealt copy."""

import numpy as np
import pytest

from contract_cases import CASES, GAME_CASES, play_random, positions
from hiddenhand.envs import make


def _observations(env):
    return {agent: env.observe(agent)["observation"].tobytes() for agent in env.possible_agents}


def _strip(snapshot):
    """A snapshot without the RNG and history (which a re-dealt copy owns afresh)."""
    return {key: value for key, value in snapshot.items() if key not in ("rng", "history")}


@pytest.mark.parametrize("game,options", CASES)
def test_a_redeal_keeps_the_observation_and_depends_only_on_the_information_set(game, options):
    """The leak twin test: E2, a re-deal of E for agent a, is a position a cannot tell from E; so the
    re-deals of E and of E2 with the same seed must be identical in every accessor (state, event logs,
    other seats' records, renders). Nothing of E's true hidden state can survive in a re-dealt copy."""
    for env in positions(game, options, seed=31, count=3):
        raw = env.unwrapped
        invariants = raw.game.invariants
        for seat, agent in enumerate(env.possible_agents):
            twin = raw.determinize(agent, seed=100 + seat)
            assert invariants(twin.state_) == []
            assert twin.observe(agent)["observation"].tobytes() == env.observe(agent)["observation"].tobytes()
            assert twin.state_.render(seat) == raw.state_.render(seat)
            for seed in (7,):
                copy_a, copy_b = raw.determinize(agent, seed=seed), twin.determinize(agent, seed=seed)
                assert copy_a.snapshot() == copy_b.snapshot()
                assert _observations(copy_a) == _observations(copy_b)
                assert [copy_a.state_.render(v) for v in range(len(env.possible_agents))] == \
                       [copy_b.state_.render(v) for v in range(len(env.possible_agents))]


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_a_redeal_changes_the_hidden_state(game, options):
    """At the default player count there is something hidden to re-deal (at two players in David &
    Goliath, say, the opponent's hand is exactly the unseen cards, so a re-deal may be forced)."""
    varied = 0
    for env in positions(game, options, seed=31):
        for seat, agent in enumerate(env.possible_agents):
            twin = env.unwrapped.determinize(agent, seed=100 + seat)
            varied += _strip(twin.snapshot()) != _strip(env.unwrapped.snapshot())
    assert varied, "no re-deal ever changed the hidden state"


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_a_redealt_copy_plays_on_to_the_end_under_the_invariants(game, options):
    for env in positions(game, options, seed=5, count=3):
        for agent in env.possible_agents:
            copy = env.unwrapped.determinize(agent, seed=3)
            play_random(copy, 3, each_step=lambda e, *_: _assert_invariants(e))
            assert not copy.agents


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_determinize_never_gives_up(game, options):
    calls = 0
    for seed in range(3):
        for env in positions(game, options, seed=200 + seed, count=6):
            for k, agent in enumerate(env.possible_agents):
                env.unwrapped.determinize(agent, seed=k)
                calls += 1
    assert calls >= 12


def _assert_invariants(env):
    assert env.unwrapped.game.invariants(env.unwrapped.state_) == []


@pytest.mark.parametrize("game,options", CASES)
def test_random_play_keeps_the_invariants_and_always_offers_a_move(game, options):
    for seed in range(2):
        env = make(game, **options)
        env.reset(seed=seed)
        _assert_invariants(env)

        def check(env, *_):
            _assert_invariants(env)
            assert env.observe(env.agent_selection)["action_mask"].any()
        play_random(env, seed, each_step=check)
        _assert_invariants(env)
        assert not env.agents


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_determinize_rejects_an_unknown_agent(game, options):
    env = make(game, **options)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="player_99"):
        env.unwrapped.determinize("player_99", seed=0)
    assert np.all(env.observe(env.agent_selection)["action_mask"] >= 0)
