"""The fast observers and masks of Rattus and Rattus Cartus against their readable definitions
(``envs/<game>/reference.py``): every seat's observation and the mask at every step of random games,
seats read in and out of turn, after restores of earlier and later snapshots, and in re-dealt copies."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from hiddenhand.envs import make
from hiddenhand.envs.registry import entry

GAMES = ("rattus", "rattus_cartus")


def _cases():
    for game in GAMES:
        for options in ({},) + entry(game).option_sets:
            for n in entry(game).player_counts:
                yield pytest.param(game, n, options, id=f"{game}-{n}p-{len(options)}opts")


def _reference(game: str):
    return importlib.import_module(f"hiddenhand.envs.{game}.reference")


def _first_difference(layout, fast: np.ndarray, plain: np.ndarray) -> str:
    cell = int(np.flatnonzero(fast != plain)[0])
    name = next(name for name, cells in layout.slices.items() if cells.start <= cell < cells.stop)
    index = np.unravel_index(cell - layout.offset(name), layout.shapes[name])
    return f"{name}{list(map(int, index))}: fast {fast[cell]}, reference {plain[cell]}"


def _assert_matches(env, reference, agents) -> None:
    raw = env.unwrapped
    for agent in agents:
        fast = env.observe(agent)["observation"]
        plain = reference.observation(raw.state_, raw._seat_of[agent])
        assert fast.dtype == plain.dtype and fast.shape == plain.shape
        assert np.array_equal(fast, plain), f"{agent}'s observation at step {len(raw.history)} differs in " \
            + _first_difference(raw.observer.layout, fast, plain)
    if not raw._game_over:
        assert np.array_equal(raw.state_.legal_mask(), reference.legal_mask(raw.state_)), \
            f"the mask differs from the reference at step {len(raw.history)}"


def _random_step(env, rng) -> None:
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("game, n, options", list(_cases()))
def test_fast_observer_and_mask_equal_the_reference_at_every_step(game, n, options):
    """Every seat every step in the first game; a random subset in random order in the second, so the
    observer is read behind and out of turn."""
    reference = _reference(game)
    for number in range(2):
        env = make(game, num_players=n, **options)
        env.reset(seed=number)
        rng = np.random.default_rng(number)
        while not env.unwrapped._game_over:
            agents = env.possible_agents if number == 0 else \
                [a for a in rng.permutation(env.possible_agents) if rng.random() < 0.4]
            _assert_matches(env, reference, [env.agent_selection] + list(agents))
            _random_step(env, rng)
        _assert_matches(env, reference, env.possible_agents)


@pytest.mark.parametrize("game", GAMES)
def test_the_reference_holds_after_restores_and_in_redealt_copies(game):
    """Restores (the core calls ``invalidate``) and re-deals (a new observer, a state changed outside
    ``apply``) leave no stale value; play goes on from each and still matches."""
    reference = _reference(game)
    env = make(game, num_players=entry(game).default_players)
    env.reset(seed=5)
    raw, rng = env.unwrapped, np.random.default_rng(5)
    snapshots = []
    while not raw._game_over:
        if rng.random() < 0.05:
            snapshots.append(raw.snapshot())
        _random_step(env, rng)
    snapshots.append(raw.snapshot())  # the end: an empty board (the revealed faces must show)
    for snapshot in snapshots[::-1] + snapshots:
        raw.restore(snapshot)
        _assert_matches(env, reference, env.possible_agents)
        if raw._game_over:
            continue
        copy = raw.determinize(env.agent_selection, seed=len(snapshot["history"]))
        _assert_matches(copy, reference, copy.possible_agents)
        for twin in (env, copy):
            for _ in range(3):
                if twin.unwrapped._game_over:
                    break
                _random_step(twin, rng)
                _assert_matches(twin, reference, [twin.agent_selection])
