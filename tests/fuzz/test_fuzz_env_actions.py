"""Any action value, in every registered game: a legal action id (int or numpy integer) plays; anything
else is the documented illegal-action ValueError with the env unchanged, or, in ``"terminate"`` mode,
ends the game with -1 for the mover."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hiddenhand.envs import make

from fuzzing import ANY_VALUE, GAMES, position, small_options


def is_legal(action, mask) -> bool:
    is_int = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
    return is_int and 0 <= action < len(mask) and bool(mask[action])


def actions(env):
    """Arbitrary values, and ids near and at the legal ones (so that legal plays are drawn too)."""
    mask = env.observe(env.agent_selection)["action_mask"]
    legal = np.flatnonzero(mask).tolist() or [0]
    near = st.sampled_from(legal).flatmap(lambda a: st.sampled_from([a, a - 1, a + 1, -a, len(mask), len(mask) - 1]))
    typed = near.flatmap(lambda a: st.sampled_from([int, np.int64, np.int32, np.uint16, bool, float, str,
                                                    lambda x: np.array([x]), lambda x: np.array(x)]).map(
        lambda convert: _convert(convert, a)))
    return st.one_of(ANY_VALUE, near, typed)


def _convert(convert, action):
    try:
        return convert(action)
    except (OverflowError, ValueError):
        return action


@pytest.mark.parametrize("game", GAMES)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60))
def test_any_action_plays_or_is_refused_without_a_trace(game, data, seed, steps):
    env = position(game, seed, steps)
    if env.unwrapped._game_over:
        return
    action = data.draw(actions(env), label="action")
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    before = env.unwrapped.snapshot()
    if is_legal(action, mask):
        env.step(action)
        assert env.unwrapped.history[-1] == int(action) and type(env.unwrapped.history[-1]) is int
    else:
        with pytest.raises(ValueError, match="illegal action"):
            env.step(action)
        assert env.unwrapped.snapshot() == before
        assert env.agent_selection == agent


@pytest.mark.parametrize("game", GAMES)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 40))
def test_terminate_mode_ends_the_game_on_any_illegal_value(game, data, seed, steps):
    env = position(game, seed, steps, illegal_action="terminate")
    if env.unwrapped._game_over:
        return
    action = data.draw(actions(env), label="action")
    agent = env.agent_selection
    if is_legal(action, env.observe(agent)["action_mask"]):
        return
    env.step(action)  # no exception
    assert all(env.terminations.values()) and env.rewards[agent] == -1.0
    assert all(reward == 0.0 for other, reward in env.rewards.items() if other != agent)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("action", [True, False, np.bool_(True), np.array([1]), np.array(1), [1], 1.0, "1", None])
def test_booleans_and_non_scalars_are_illegal_actions(game, action):
    """The defects of issue 10: step(True) gave an unrelated numpy error, and raised in terminate mode."""
    env = make(game, **small_options(game))
    env.reset(seed=0)
    before = env.unwrapped.snapshot()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(action)
    assert env.unwrapped.snapshot() == before
    env = make(game, illegal_action="terminate", **small_options(game))
    env.reset(seed=0)
    mover = env.agent_selection
    env.step(action)
    assert env.rewards[mover] == -1.0 and all(env.terminations.values())


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("call", ["last", "observe", "step", "legal_actions", "agent_iter", "snapshot", "state_"])
def test_calls_before_reset_say_to_call_reset(game, call):
    env = make(game, **small_options(game))
    actions_ = {"last": lambda: env.last(), "observe": lambda: env.observe("player_0"), "step": lambda: env.step(0),
                "legal_actions": lambda: env.unwrapped.legal_actions(), "agent_iter": lambda: env.agent_iter(),
                "snapshot": lambda: env.unwrapped.snapshot(), "state_": lambda: env.unwrapped.state_}
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        actions_[call]()
