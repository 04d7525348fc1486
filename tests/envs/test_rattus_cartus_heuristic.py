"""The Rattus Cartus heuristic (agents/heuristics/rattus_cartus.py): legal moves only, and it beats
random play by a wide margin."""

from __future__ import annotations

import pytest

from hiddenhand.agents.base import RandomAgent
from hiddenhand.agents.heuristics.rattus_cartus import RattusCartusHeuristic
from hiddenhand.envs import rattus_cartus_v0


def play(n, seed, heuristic_seats, **options):
    env = rattus_cartus_v0.env(num_players=n, **options)  # illegal actions raise
    game = env.unwrapped.game
    agents = [RattusCartusHeuristic(game, seed=i) if i in heuristic_seats else RandomAgent(seed=seed * 10 + i)
              for i in range(n)]
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            assert term and not trunc
            env.step(None)
            continue
        action = agents[env.possible_agents.index(agent)].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)
    return env.unwrapped.state_.result


@pytest.mark.parametrize("n,options", [(2, {}), (3, {"population_choice": "full"}), (5, {"building_selection": "agreed"})])
def test_heuristic_plays_legal_moves_to_the_end(n, options):
    result = play(n, 1, set(range(n)), **options)
    assert len(result["vp"]) == n


def test_heuristic_beats_random_players():
    wins = 0.0
    games = 24
    for seed in range(games):
        result = play(4, seed, {0})
        if 0 in result["winners"]:
            wins += 1 / len(result["winners"])
    assert wins / games > 0.5  # the fair share is 0.25; measured about 0.88
