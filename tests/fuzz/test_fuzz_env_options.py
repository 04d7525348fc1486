"""Any env options, in every registered game: the env builds (and then resets and plays), or the
constructor raises the one documented ``ConfigError``; never another exception, never a late failure."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hiddenhand.envs import make
from hiddenhand.envs.core.aec import ENV_OPTIONS
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.registry import REGISTRY

from fuzzing import ANY_VALUE, GAMES, play_on


def option_names(game: str) -> list[str]:
    defaults = make(game).unwrapped.game.config()
    return sorted({"num_players", *defaults, *ENV_OPTIONS.specs}) + ["colour_blind", ""]


def option_values(game: str):
    """Arbitrary values, plus each option's default and values near it (so that valid sets are drawn)."""
    defaults = list(make(game).unwrapped.game.config().values())
    near = st.sampled_from([d for d in defaults if isinstance(d, int) and not isinstance(d, bool)] or [1]).flatmap(
        lambda d: st.sampled_from([d, d - 1, d + 1, 2 * d, 0, -d, 10 * d]))
    players = st.sampled_from(REGISTRY[game].player_counts).flatmap(
        lambda n: st.sampled_from([n, np.int64(n), np.int8(n), float(n), str(n), True]))
    lists = st.sampled_from([d for d in defaults if isinstance(d, (list, tuple))] or [[1]]).flatmap(
        lambda d: st.sampled_from([list(d), tuple(d), list(d)[:-1], [*d, 1], [-1, *d[1:]], [True, *d[1:]]]))
    return st.one_of(ANY_VALUE, st.sampled_from(defaults), near, players, lists,
                     st.sampled_from(["ansi", "human", "raise", "terminate", "win_loss", "score_margin"]))


@pytest.mark.parametrize("game", GAMES)
@given(data=st.data())
def test_any_options_build_a_working_env_or_raise_config_error(game, data):
    options = data.draw(st.dictionaries(st.sampled_from(option_names(game)), option_values(game), max_size=4),
                        label="options")
    options.setdefault("max_cycles", 30)  # keep a valid env's game short
    if isinstance(options.get("render_mode"), str) and options["render_mode"] == "human":
        options["render_mode"] = "ansi"
    try:
        env = make(game, **options)
    except ConfigError as error:
        assert game in str(error) or "env" in str(error)
        return
    env.reset(seed=0)
    play_on(env, seed=0, steps=10)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [np.int64, np.int32, np.uint8, int])
def test_numpy_player_counts_work_in_every_game(game, players):
    """Issue 10: np.int64 player counts worked in one game and not the other."""
    n = REGISTRY[game].player_counts[0]
    env = make(game, num_players=players(n))
    assert env.unwrapped.game.num_players == n and type(env.unwrapped.game.num_players) is int
    env.reset(seed=0)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("option", "value"), [("max_cycles", True), ("max_cycles", 0), ("max_cycles", 2.0),
                                               ("num_players", True), ("num_players", 3.0), ("illegal_action", True),
                                               ("reward_mode", None), ("render_mode", "rgb")])
def test_bad_env_options_are_config_errors(game, option, value):
    with pytest.raises(ConfigError, match=f"{option}={value!r} is not allowed"):
        make(game, **{option: value})
