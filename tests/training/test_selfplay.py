"""The self-play wrapper and its opponent pool."""

import numpy as np
import pytest

from hiddenhand.agents import RandomAgent
from hiddenhand.envs import make as make_env
from hiddenhand.envs.core.rewards import win_loss_rewards
from hiddenhand.envs.david_goliath.rules import DavidGoliathGame
from hiddenhand.training.selfplay import OpponentPool, SelfPlayEnv

META = {"name": "t", "game": "david_goliath", "num_players": 3, "env_options": {}, "activation": "tanh"}


def tiny_weights(obs_size, actions=90, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(8, obs_size)).astype(np.float32), np.zeros(8, np.float32)),
            (rng.normal(size=(actions, 8)).astype(np.float32), np.zeros(actions, np.float32))]


def baseline_pool(players=3, baselines=("random",)):
    return OpponentPool(DavidGoliathGame(players), META, baselines, window=3,
                        latest_prob=0.5, snapshot_prob=0.25, baseline_prob=0.25, seed=0)


@pytest.mark.parametrize("players", [3, 4])
def test_learner_gets_its_own_terminal_reward_in_every_seat(players):
    env = SelfPlayEnv("david_goliath", {"num_players": players, "rounds": 1}, baseline_pool(players))
    seen_seats, lost_after_opponent_moved_last = set(), 0
    picker = RandomAgent(seed=1)
    for episode in range(60):
        obs, info = env.reset(seed=episode)
        seen_seats.add(info["seat"])
        done = False
        while not done:
            assert obs.shape == env.observation_space.shape and env.action_masks().any()
            obs, reward, terminated, truncated, step_info = env.step(picker.act(obs, env.action_masks()))
            done = terminated or truncated
            if not done:
                assert reward == 0.0
        scores = [step_info["scores"][agent] for agent in env.aec.possible_agents]
        seat = env.aec.possible_agents.index(env.learner)
        assert reward == win_loss_rewards(scores)[seat]
        last_mover = (env.aec.possible_agents.index(env.aec.agent_selection) - 1) % players
        if last_mover != seat and reward == -1.0:
            lost_after_opponent_moved_last += 1
    assert seen_seats == set(env.aec.possible_agents)
    assert lost_after_opponent_moved_last > 0  # the case PettingZoo's SB3 tutorial wrapper drops


def test_search_opponents_are_bound_before_each_episode():
    pool = OpponentPool(DavidGoliathGame(3, rounds=1), META, ["pimc:determinizations=1"], window=3,
                        latest_prob=0.0, snapshot_prob=0.0, baseline_prob=1.0, seed=0)
    env = SelfPlayEnv("david_goliath", {"num_players": 3, "rounds": 1}, pool)
    for episode in range(2):  # an unbound search agent raises on its first move
        env.reset(seed=episode)
        done = False
        while not done:
            *_, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            done = terminated or truncated


def test_wrapper_is_seeded():
    def trace(seed):
        env = SelfPlayEnv("david_goliath", {"num_players": 3, "rounds": 1}, baseline_pool())
        obs, _ = env.reset(seed=seed)
        out = [obs.tobytes()]
        for _ in range(10):
            obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            out.append(obs.tobytes())
        return out
    assert trace(4) == trace(4) != trace(5)


def test_pool_sampling_follows_probabilities_and_skips_empty_groups():
    pool = baseline_pool(baselines=("random", "heuristic"))
    rng = np.random.default_rng(0)
    kinds = [type(pool.sample(rng)).__name__ for _ in range(400)]
    assert set(kinds) == {"RandomAgent", "DavidGoliathHeuristic"}  # only baselines exist yet
    size = 3 * 198 + 201
    pool.set_latest(tiny_weights(size))
    for i in range(5):
        pool.add_snapshot(tiny_weights(size, seed=i))
    assert len(pool.snapshots) == 3  # window
    draws = [pool.sample(rng) for _ in range(4000)]
    latest = sum(d is pool.latest for d in draws) / len(draws)
    snapshots = sum(any(d is s for s in pool.snapshots) for d in draws) / len(draws)
    assert latest == pytest.approx(0.5, abs=0.03) and snapshots == pytest.approx(0.25, abs=0.03)


def test_empty_pool_is_an_error():
    pool = OpponentPool(DavidGoliathGame(3), META, (), window=3, latest_prob=0.5, snapshot_prob=0.5,
                        baseline_prob=0.0)
    with pytest.raises(RuntimeError, match="empty"):
        pool.sample(np.random.default_rng(0))


@pytest.mark.parametrize("game, options, potential, episodes", [
    ("david_goliath", {"num_players": 4, "rounds": 2, "reward_mode": "win_loss"}, "score_margin", 10),
    ("david_goliath", {"num_players": 4, "rounds": 2, "reward_mode": "score_margin"}, "score_margin", 10),
    ("rattus_cartus", {"num_players": 3, "reward_mode": "win_loss"}, "evaluation", 3),
    ("david_goliath", {"num_players": 3, "rounds": 2, "reward_mode": "win_loss"}, "evaluation", 5),
])
def test_dense_reward_adds_up_to_the_terminal_reward(game, options, potential, episodes):
    rules = make_env(game, **options).unwrapped.game
    pool = OpponentPool(rules, META, ("random",), window=3, latest_prob=0.0, snapshot_prob=0.0, baseline_prob=1.0)
    dense = SelfPlayEnv(game, options, pool, dense_reward=True, potential=potential)
    sparse = SelfPlayEnv(game, options, pool)
    for episode in range(episodes):
        returns, intermediate = [], 0
        for env in (dense, sparse):
            env.reset(seed=episode)
            picker, total, done = RandomAgent(seed=episode), 0.0, False
            while not done:
                _, reward, terminated, truncated, _ = env.step(picker.act(None, env.action_masks()))
                done = terminated or truncated
                total += reward
                intermediate += (reward != 0 and not done and env is dense)
            returns.append(total)
        assert returns[0] == pytest.approx(returns[1])
        assert intermediate > 0


def test_current_scores_include_the_round_in_progress():
    env = SelfPlayEnv("david_goliath", {"num_players": 3}, baseline_pool())
    env.reset(seed=0)
    state = env.aec.state_
    for _ in range(12):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert state.scores() == (state.totals + state.colour_points.sum(axis=1)).tolist()
    assert sum(state.scores()) > 0
