"""Shared strategies and helpers of the fuzz tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import hiddenhand  # noqa: F401  (registers the envs)
from hiddenhand.envs import make
from hiddenhand.envs.registry import REGISTRY

GAMES = sorted(REGISTRY)
#: Small games (capped length) so that positions deep into a game are cheap to reach.
SMALL = {"david_goliath": {"num_players": 3, "rounds": 1}, "koehandel": {"num_players": 3, "max_turns": 60}}


def small_options(game: str) -> dict:
    entry = REGISTRY[game]
    return dict(SMALL.get(game, {"num_players": entry.default_players}))


def position(game: str, seed: int, steps: int, **options):
    """An env of ``game`` after ``steps`` seeded random legal actions (fewer if the game ends)."""
    env = make(game, **{**small_options(game), **options})
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.unwrapped._game_over:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return env


def play_on(env, seed: int, steps: int = 20) -> None:
    """A few random legal actions from here: the env must accept them (and always offer one while on)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.unwrapped._game_over:
            return
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.size, f"no legal action for {env.agent_selection} in a running game"
        env.step(int(rng.choice(legal)))


#: Every kind of value a caller might pass where a number, flag or name is expected.
NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
ANY_SCALAR = st.one_of(
    st.integers(-3, 120),
    st.integers(-(2**70), 2**70),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.binary(max_size=4),
    st.complex_numbers(max_magnitude=100, allow_nan=False),
    st.sampled_from(NUMPY_INTS).flatmap(
        lambda t: st.integers(int(np.iinfo(t).min), int(np.iinfo(t).max)).map(t)),
    st.booleans().map(np.bool_),
    st.floats(allow_nan=True, width=32).map(np.float32),
    st.floats(allow_nan=True).map(np.float64),
)
ANY_VALUE = st.one_of(
    ANY_SCALAR,
    st.integers(-3, 120).map(np.array),  # 0-d array
    st.lists(st.integers(-3, 120), min_size=0, max_size=3).map(np.array),
    st.lists(ANY_SCALAR, max_size=3),
    st.lists(ANY_SCALAR, max_size=3).map(tuple),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(object()),
)
