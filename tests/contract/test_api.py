"""Contract: PettingZoo conformance, spaces, masks, seeding, options, illegal actions and rewards."""

import copy
import pickle
import random

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from contract_cases import CASES, GAME_CASES, play_random, steps_before_end, trace
from hiddenhand.envs import make
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.registry import REGISTRY


@pytest.mark.parametrize("game,options", CASES)
def test_pettingzoo_api_test(game, options):
    api_test(make(game, **options), num_cycles=300)


@pytest.mark.parametrize("game,options", CASES)
def test_pettingzoo_seed_test(game, options):
    seed_test(lambda: make(game, **options), num_cycles=300)


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_pettingzoo_render_test(game, options):
    render_test(lambda render_mode=None: make(game, render_mode=render_mode, **options))


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_registered_in_pettingzoo_and_named_consistently(name):
    entry = REGISTRY[name]
    env = pettingzoo.make("aec", entry.env_id)
    module = entry.module()
    assert isinstance(env.unwrapped, module.raw_env)
    assert env.unwrapped.game.name == name
    assert env.unwrapped.metadata["name"] == f"{name}_v{entry.version}"
    assert module.__doc__ and "Version History" in module.__doc__  # the env card
    assert entry.default_players in entry.player_counts
    game_class = module.raw_env.game_class
    assert (game_class.min_players, game_class.max_players) == (min(entry.player_counts), max(entry.player_counts))


@pytest.mark.parametrize("game,options", CASES)
def test_spaces_are_cached_typed_and_hold_every_observation(game, options):
    env = make(game, **options)
    env.reset(seed=3)
    raw = env.unwrapped
    first = env.possible_agents[0]
    assert all(env.observation_space(a) is env.observation_space(first) for a in env.possible_agents)
    assert all(env.action_space(a) is env.action_space(first) for a in env.possible_agents)
    space = env.observation_space(first)
    assert space["action_mask"].shape == (env.action_space(first).n,) == (raw.game.num_actions,)
    assert raw.observer.layout.size == space["observation"].shape[0]

    def check(env, *_):
        for agent in env.possible_agents:
            observation = env.observe(agent)
            assert observation["observation"].dtype == space["observation"].dtype
            assert observation["action_mask"].dtype == np.int8
            assert space.contains(observation)
            on_turn = agent == env.agent_selection
            assert observation["action_mask"].any() == on_turn  # zero mask for agents not on turn
            if on_turn:
                assert np.flatnonzero(observation["action_mask"]).tolist() == raw.legal_actions()
    play_random(env, 3, steps=400, each_step=check)


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_observations_and_masks_are_fresh_arrays(game, options):
    env = make(game, **options)
    env.reset(seed=0)
    agent = env.agent_selection
    first = env.observe(agent)
    first["observation"][:] = 0
    first["action_mask"][:] = 0
    second = env.observe(agent)
    assert second["action_mask"].any() and second["observation"].any()


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_observation_views_cover_the_vector(game, options):
    env = make(game, **options)
    env.reset(seed=0)
    layout = env.unwrapped.observer.layout
    observation = env.observe(env.agent_selection)["observation"]
    views = layout.views(observation)
    assert sum(view.size for view in views.values()) == observation.size
    assert np.concatenate([view.ravel() for view in views.values()]).tobytes() == observation.tobytes()


@pytest.mark.parametrize("game,options", CASES)
def test_pickle_and_deepcopy_continue_identically(game, options):
    env = make(game, **options)
    env.reset(seed=5)
    play_random(env, 5, steps=25)
    expected = trace(copy.deepcopy(env), 9)
    assert trace(pickle.loads(pickle.dumps(env)), 9) == expected
    assert trace(env, 9) == expected


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_only_the_env_rng_is_used(game, options):
    """Same trajectory while the global RNGs are consumed in between (RLCard's determinism test)."""
    def run(disturb):
        env = make(game, **options)
        env.reset(seed=11)
        out = []
        for agent in env.agent_iter():
            if disturb:
                np.random.random(), random.random()
            observation, reward, termination, truncation, _ = env.last()
            out.append((agent, observation["observation"].tobytes(), reward))
            env.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[-1]))
        return out
    assert run(False) == run(True)


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_reset_without_seed_continues_the_rng_and_a_seed_reproduces(game, options):
    env = make(game, **options)
    env.reset(seed=5)
    first = env.unwrapped.snapshot()["state"]
    env.reset()
    assert env.unwrapped.snapshot()["state"] != first
    env.reset(seed=5)
    assert env.unwrapped.snapshot()["state"] == first


@pytest.mark.parametrize("name", sorted(REGISTRY))
@pytest.mark.parametrize("option,value", [
    ("num_players", 99), ("num_players", "4"), ("num_players", True), ("num_players", 1),
    ("illegal_action", "ignore"), ("reward_mode", "dense"), ("render_mode", "rgb_array"),
    ("max_cycles", 0), ("max_cycles", True), ("max_cycles", 2.5), ("no_such_option", 1),
])
def test_bad_options_are_a_config_error_naming_the_option(name, option, value):
    with pytest.raises(ConfigError, match=option):
        make(name, **{option: value})


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_numpy_player_counts_are_accepted(name):
    entry = REGISTRY[name]
    env = make(name, num_players=np.int64(entry.default_players))
    env.reset(seed=0)
    assert len(env.agents) == entry.default_players


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_using_the_env_before_reset_says_to_call_reset(name):
    env = make(name)
    for call in (lambda: env.step(0), lambda: env.observe(env.possible_agents[0]), lambda: env.last(),
                 lambda: env.agent_iter(), lambda: env.unwrapped.snapshot(), lambda: env.unwrapped.legal_actions()):
        with pytest.raises(RuntimeError, match="reset"):
            call()


@pytest.mark.parametrize("game,options", CASES)
def test_illegal_actions_raise_naming_the_legal_ones_and_leave_the_state_untouched(game, options):
    env = make(game, **options)
    env.reset(seed=1)
    play_random(env, 1, steps=steps_before_end(game, options, 1, 7))
    raw = env.unwrapped
    before = raw.snapshot()
    mask = env.observe(env.agent_selection)["action_mask"]
    legal = np.flatnonzero(mask)
    bad = [-1, raw.game.num_actions, None, "0", 2.5, True, np.bool_(True), np.array([legal[0]])]
    bad += [int(a) for a in np.flatnonzero(mask == 0)[:3]]
    for action in bad:
        with pytest.raises(ValueError, match=rf"illegal action .* for {env.agent_selection}; legal actions: \["):
            env.step(action)
        assert raw.snapshot() == before
    env.step(int(legal[0]))  # still playable


@pytest.mark.parametrize("game,options", GAME_CASES)
@pytest.mark.parametrize("kind", ["unmasked", "bool", "array"])
def test_illegal_action_terminate_mode_follows_pettingzoo(game, options, kind):
    env = make(game, illegal_action="terminate", **options)
    env.reset(seed=1)
    mover = env.agent_selection
    mask = env.observe(mover)["action_mask"]
    action = {"unmasked": int(np.flatnonzero(mask == 0)[0]) if (mask == 0).any() else -1,
              "bool": True, "array": np.array([0])}[kind]
    env.step(action)
    assert all(env.terminations.values())
    assert env.rewards == {a: (-1.0 if a == mover else 0.0) for a in env.agents}
    assert env.infos[mover]["winners"] == []
    while env.agents:
        env.step(None)


def _play_out(env, seed):
    """Terminal reward and final info of every agent after seeded random play."""
    rng = np.random.default_rng(seed)
    ends = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            ends[agent] = (reward, termination, truncation, info)
            env.step(None)
        else:
            assert reward == 0
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return ends


@pytest.mark.parametrize("game,options", CASES)
def test_terminal_rewards_follow_the_reward_convention(game, options):
    env = make(game, **options)
    env.reset(seed=2)
    ends = _play_out(env, 2)
    assert set(ends) == set(env.possible_agents)
    info = ends[env.possible_agents[0]][3]
    scores = info["scores"]
    assert set(info) >= {"scores", "score_breakdown", "winners"}
    if any(end[2] for end in ends.values()):  # truncated: nobody won
        assert info["winners"] == [] and all(end[2] and not end[1] for end in ends.values())
        return
    top = max(scores.values())
    winners = info["winners"]  # by default the top scorers; a game may leave nobody winning (State.winners)
    assert all(scores[a] == top for a in winners)
    if winners != [a for a, s in scores.items() if s == top]:
        assert winners == []
    for agent, (reward, *_) in ends.items():
        assert reward == pytest.approx(2 / len(winners) - 1 if agent in winners else -1)


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_score_margin_rewards_are_own_score_minus_the_others_mean(game, options):
    env = make(game, reward_mode="score_margin", **options)
    env.reset(seed=2)
    ends = _play_out(env, 2)
    scores = ends[env.possible_agents[0]][3]["scores"]
    if any(end[2] for end in ends.values()):
        return
    n, scale = len(scores), env.unwrapped.game.score_scale
    for agent, (reward, *_) in ends.items():
        others = [s for a, s in scores.items() if a != agent]
        assert reward == pytest.approx((scores[agent] - sum(others) / (n - 1)) / scale)


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_max_cycles_truncates_with_zero_rewards(game, options):
    n = options["num_players"]
    cycles = min(3, steps_before_end(game, options, 0, 3 * n) // n)  # a cycle fewer than the game lasts
    env = make(game, max_cycles=cycles, **options)
    env.reset(seed=0)
    ends = _play_out(env, 0)
    assert len(env.unwrapped.history) == cycles * n
    assert all(truncation and not termination and reward == 0 for reward, termination, truncation, _ in ends.values())


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_ansi_render_is_public(game, options):
    """The env's render is what the table sees: the same for every position its players can't tell apart."""
    env = make(game, render_mode="ansi", **options)
    env.reset(seed=0)
    play_random(env, 0, steps=30)
    text = env.render()
    assert isinstance(text, str) and text
    for agent in env.possible_agents:
        assert env.unwrapped.determinize(agent, seed=1).render() == text


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_action_names_parse_back(name):
    env = make(name)
    game = env.unwrapped.game
    for action in range(game.num_actions):
        assert game.string_to_action(game.action_to_string(action)) == action
    with pytest.raises(ValueError):
        game.string_to_action("certainly not an action")
