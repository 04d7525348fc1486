"""Rattus Cartus random play on the rules engine: 2,000 games over 2-5 players and a rotation of option
sets, every step with a non-empty mask, rats never negative and influence never falling; the full
invariants (84 population cards in one place each, supplies plus holdings constant, building cards,
records, whose turn it is) after every step of the first games and at the end of every game.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from hiddenhand.envs import rattus_cartus_v0
from hiddenhand.envs.rattus_cartus.checks import invariants
from hiddenhand.envs.rattus_cartus.reference import observation as reference_observation
from hiddenhand.envs.rattus_cartus.rules import RattusCartusGame

GAMES_PER_COUNT = 500
CHECKED_GAMES = 20
OPTION_SETS = [
    {},
    {"population_choice": "full", "mask_known_peeks": True},
    {"population_choice": "lowest_nun", "auto_resolve_forced": True},
    {"point_token_values": list(range(1, 21))},
    {"finite_supplies": False, "all_dead_variant": True},
    {"building_selection": "agreed"},
    {"building_selection": "random_building_per_class", "building_set_public": False, "rats_public": False},
    {"exclude_watchtower_2p": False},
]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_keep_the_invariants(n):
    games = [RattusCartusGame(n, **options) for options in OPTION_SETS]
    rng = np.random.default_rng(n)
    pick = random.Random(n).random
    for number in range(GAMES_PER_COUNT):
        game = games[number % len(games)]
        state = game.new_initial_state(rng)
        full = number < CHECKED_GAMES
        levels = [row[:] for row in state.level]
        while not state.is_terminal:
            legal = np.flatnonzero(state.legal_mask())
            assert len(legal), f"game {number}: empty mask at decision {state.decision}"
            state.apply(int(legal[int(pick() * len(legal))]), rng)
            assert min(state.rats) >= 0
            if full:
                assert invariants(game, state) == []
                new = [row[:] for row in state.level]
                assert all(a >= b for r1, r2 in zip(new, levels) for a, b in zip(r1, r2))
                levels = new
        assert invariants(game, state) == [], f"game {number}"
        assert all(a >= b for r1, r2 in zip(state.level, levels) for a, b in zip(r1, r2))
        result = state.result
        assert len(result["vp"]) == n and set(result["outcome"]) <= {"win", "shared_win", "loss"}


@pytest.mark.parametrize("options", [{}, {"rats_public": False, "building_set_public": False},
                                     {"population_choice": "full", "point_token_values": list(range(20))},
                                     {"auto_resolve_forced": True, "finite_supplies": False}])
def test_the_observer_matches_the_reference_encoder(options):
    """The incremental observer gives exactly the vectors of ``reference.observation`` (every value written
    from scratch), for every seat at every step, whatever order the seats are observed in."""
    for n in (2, 4, 5):
        env = rattus_cartus_v0.env(num_players=n, **options)
        env.reset(seed=n)
        raw = env.unwrapped
        rng = np.random.default_rng(n)
        while not raw._game_over:
            for agent in env.possible_agents:
                if agent == env.agent_selection or rng.random() < 0.4:
                    seat = raw._seat_of[agent]
                    assert (env.observe(agent)["observation"] == reference_observation(raw.state_, seat)).all()
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))


def test_the_observer_matches_the_reference_after_restore():
    """Restoring an earlier or later snapshot (the core then calls ``invalidate``) leaves no stale value."""
    env = rattus_cartus_v0.env(num_players=4)
    env.reset(seed=3)
    raw = env.unwrapped
    rng = np.random.default_rng(3)
    snapshots = []
    while not raw._game_over:
        if rng.random() < 0.05:
            snapshots.append(raw.snapshot())
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    for snapshot in snapshots[::-1] + snapshots:
        raw.restore(snapshot)
        for seat, agent in enumerate(env.possible_agents):
            assert (env.observe(agent)["observation"] == reference_observation(raw.state_, seat)).all()
        for _ in range(3):
            if raw._game_over:
                break
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
            seat = raw._seat_of[env.agent_selection]
            assert (env.observe(env.agent_selection)["observation"]
                    == reference_observation(raw.state_, seat)).all()
