"""PettingZoo conformance of david_goliath_v0 and the shared core's contract."""

import json
import pickle
import random

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import hiddenhand  # noqa: F401  (registers the envs)
from hiddenhand.envs import david_goliath_v0
from hiddenhand.envs.david_goliath.rules import colour_scores
from random_play import play_random

PLAYER_COUNTS = [2, 3, 4, 5, 6]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_api(players):
    api_test(david_goliath_v0.env(num_players=players), num_cycles=1000)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_seed(players):
    seed_test(lambda: david_goliath_v0.env(num_players=players), num_cycles=500)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_render(players):
    render_test(lambda render_mode=None: david_goliath_v0.env(num_players=players, render_mode=render_mode))


def test_registered_in_pettingzoo_registry():
    env = pettingzoo.make("aec", "hiddenhand/david_goliath-v0", num_players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pickle_round_trip(players):
    env = david_goliath_v0.env(num_players=players)
    env.reset(seed=3)
    play_random(env, 0, steps=17)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.snapshot() == env.unwrapped.snapshot()
    play_random(clone, 1)


def test_spaces_are_cached_and_shaped():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=0)
    space = env.observation_space("player_1")
    assert space is env.observation_space("player_1")
    assert env.action_space("player_0") is env.action_space("player_0")
    assert space["observation"].shape == (198 * 4 + 201,)
    assert env.action_space("player_0").n == 90
    obs = env.observe("player_0")
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8


def test_mask_is_zero_for_agents_not_on_turn():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=0)
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


def test_only_the_env_rng_is_used():
    """Determinism while the global RNGs are consumed in between (RLCard's determinism test idea)."""
    def trace(disturb):
        env = david_goliath_v0.env(num_players=4)
        env.reset(seed=11)
        digest = []
        for agent in env.agent_iter():
            if disturb:
                np.random.random(), random.random()
            obs, reward, term, trunc, _ = env.last()
            digest.append((agent, obs["observation"].tobytes(), reward))
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
        return digest
    assert trace(False) == trace(True)


def test_reset_without_seed_continues_the_rng_and_seed_reproduces():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=5)
    first = env.unwrapped.snapshot()["state"]
    env.reset()
    assert env.unwrapped.snapshot()["state"] != first
    env.reset(seed=5)
    assert env.unwrapped.snapshot()["state"] == first


@pytest.mark.parametrize("players", [2, 4, 6])
def test_snapshot_restore_is_exact_and_json(players):
    env = david_goliath_v0.env(num_players=players)
    env.reset(seed=21)
    play_random(env, 2, steps=33)
    snap = json.loads(json.dumps(env.unwrapped.snapshot()))
    tail_a = _finish_trace(env, 7)
    other = david_goliath_v0.env(num_players=players)
    other.restore(snap)
    assert other.unwrapped.snapshot() == snap
    assert _finish_trace(other, 7) == tail_a  # same RNG, same future deals


def test_snapshot_restore_after_the_game_ends():
    env = david_goliath_v0.env(num_players=3, rounds=1)
    env.reset(seed=4)
    play_random(env, 0)
    env2 = david_goliath_v0.env(num_players=3, rounds=1)
    env2.reset(seed=99)
    env2.restore(env.unwrapped.snapshot())
    assert env2.unwrapped.snapshot() == env.unwrapped.snapshot()


def test_restore_refuses_a_snapshot_of_another_configuration():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=0)
    other = david_goliath_v0.env(num_players=5)
    with pytest.raises(ValueError, match="num_players"):
        other.restore(env.unwrapped.snapshot())


@pytest.mark.parametrize("players", [3, 5])
def test_history_replay_reproduces_the_state(players):
    env = david_goliath_v0.env(num_players=players)
    env.reset(seed=8)
    play_random(env, 3, steps=15 * players + 10)  # crosses a round boundary (a new deal from the RNG)
    replay = david_goliath_v0.env(num_players=players)
    replay.reset(seed=8)
    for action in env.unwrapped.history:
        replay.step(action)
    assert replay.unwrapped.snapshot() == env.unwrapped.snapshot()


def test_illegal_action_raises_and_leaves_state_untouched():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=1)
    before = env.unwrapped.snapshot()
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for bad in (illegal, -1, 90, None, "R1", 2.5):
        with pytest.raises(ValueError, match=rf"illegal action {bad!r} for {env.agent_selection}; legal actions: \["):
            env.step(bad)
        assert env.unwrapped.snapshot() == before


def test_illegal_action_terminate_mode_follows_pettingzoo():
    env = david_goliath_v0.env(num_players=4, illegal_action="terminate")
    env.reset(seed=1)
    mover = env.agent_selection
    mask = env.observe(mover)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards == {a: (-1.0 if a == mover else 0.0) for a in env.agents}
    assert env.infos[mover]["illegal_action"] == int(np.flatnonzero(mask == 0)[0])
    while env.agents:
        env.step(None)


def final_rewards(env, seed):
    """Play the first legal card to the end; returns each agent's terminal reward and the final info."""
    env.reset(seed=seed)
    rewards = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            rewards[agent], final = reward, info
            env.step(None)
        else:
            assert reward == 0
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    return rewards, final


def test_terminal_rewards_and_infos():
    rewards, final = final_rewards(david_goliath_v0.env(num_players=4), seed=2)
    scores = final["scores"]
    top = max(scores.values())
    winners = [a for a, s in scores.items() if s == top]
    assert final["winners"] == winners
    for agent, reward in rewards.items():
        assert reward == (2 / len(winners) - 1 if agent in winners else -1)
    totals = np.sum(final["score_breakdown"]["round_colour_scores"], axis=(0, 2))
    assert totals.tolist() == [scores[a] for a in sorted(scores)]


def test_shared_top_rewards():
    """k players sharing the top score get 2/k - 1 each (the core's convention)."""
    from hiddenhand.envs.core.rewards import win_loss_rewards

    assert win_loss_rewards([5, 9, 9, 1]) == [-1.0, 0.0, 0.0, -1.0]
    assert win_loss_rewards([7, 7, 7]) == pytest.approx([-1 / 3] * 3)
    assert win_loss_rewards([3, 1]) == [1.0, -1.0]


def test_score_margin_rewards():
    rewards, final = final_rewards(david_goliath_v0.env(num_players=3, reward_mode="score_margin"), seed=2)
    scores = final["scores"]
    for agent, reward in rewards.items():
        others = [s for a, s in scores.items() if a != agent]
        assert reward == pytest.approx((scores[agent] - sum(others) / 2) / 100)
    assert sum(rewards.values()) == pytest.approx(0)


def test_max_cycles_truncates():
    env = david_goliath_v0.env(num_players=4, max_cycles=5)
    env.reset(seed=0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 20


@pytest.mark.parametrize("kwargs, message", [
    ({"num_players": 7}, "num_players"),
    ({"num_players": "4"}, "num_players"),
    ({"rounds": 0}, "rounds"),
    ({"illegal_action": "ignore"}, "illegal_action"),
    ({"reward_mode": "dense"}, "reward_mode"),
    ({"render_mode": "rgb_array"}, "render_mode"),
    ({"max_cycles": 0}, "max_cycles"),
])
def test_bad_constructor_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        david_goliath_v0.env(**kwargs)


def test_unknown_option_is_named():
    with pytest.raises(TypeError, match="colours"):
        david_goliath_v0.env(colours=4)


def test_step_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="reset"):
        david_goliath_v0.env().step(0)


def test_ansi_render_shows_no_hand():
    env = david_goliath_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    play_random(env, 0, steps=6)
    text = env.render()
    assert "trick:" in text and "hand" in text and "your hand" not in text


def test_observation_views_are_named():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=0)
    views = env.unwrapped.observer.layout.views(env.observe("player_0")["observation"])
    assert list(views) == ["hand", "trick", "trick_leader", "led_colour", "dealer", "trick_number",
                           "round_progress", "seats", "unseen"]
    assert views["hand"].sum() == 15 and views["seats"].shape == (4, 106)
    assert views["unseen"].sum() == 45 and not (views["unseen"] * views["hand"]).any()


def _finish_trace(env, seed):
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), reward))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


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
        for seat, name in enumerate(raw.possible_agents):
            views = raw.observer.layout.views(raw.observe(name)["observation"])
            rotation = [(seat + k) % players for k in range(players)]
            assert (views["hand"] == state.hands[seat]).all()
            assert [int(np.argmax(row)) for row in views["trick"] if row.any()] == state.trick
            assert views["trick_leader"][(state.leader - seat) % players] == 1 == views["trick_leader"].sum()
            assert views["dealer"][(state.dealer - seat) % players] == 1 == views["dealer"].sum()
            assert views["led_colour"].sum() == (1 if state.trick else 0)
            assert views["trick_number"][state.tricks_played] == 1
            assert (views["seats"][:, :90] == state.taken[rotation]).all()
            assert (views["seats"][:, 90:95] == state.voids[rotation]).all()
            counts = state.taken.reshape(players, 5, 18).sum(axis=2)[rotation]
            assert np.allclose(views["seats"][:, 95:100] * 15, counts)
            colour_points = [colour_scores(np.flatnonzero(state.taken[s])) for s in rotation]
            assert np.allclose(views["seats"][:, 100:105] * 35, colour_points)
            assert np.allclose(views["seats"][:, 105] * 100, np.array(state.totals)[rotation])
            others = [s for s in range(players) if s != seat]
            assert (views["unseen"] == state.hands[others].sum(axis=0)).all()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_optional_card_features_spell_out_the_state():
    """card_features=True adds per-card channels derived from the observer's own view."""
    env = david_goliath_v0.env(num_players=4, rounds=1, card_features=True)
    env.reset(seed=5)
    raw = env.unwrapped
    assert env.observation_space("player_0")["observation"].shape == (198 * 4 + 201 + 4 * 90,)
    rng = np.random.default_rng(1)
    values = np.arange(90) % 18 + 1
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state, seat = raw.state_, raw.possible_agents.index(agent)
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
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
