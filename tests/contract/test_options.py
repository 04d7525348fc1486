"""Core options (``envs/core/options.py``): one error type naming the option, the value and what is allowed;
non-finite numbers refused wherever a core kind takes floats (issue 22)."""

import math

import numpy as np
import pytest

from hiddenhand.agents import load
from hiddenhand.envs import make
from hiddenhand.envs.core.options import ConfigError, Float, Option, Options

OPTIONS = Options("demo", [Option("rate", 0.5, Float(0.0, 1.0)), Option("gain", 1.0, Float(0.0, above=True)),
                           Option("any", 0.0, Float())])


@pytest.mark.parametrize("name", ["rate", "gain", "any"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float32("nan"), np.float64("inf"), True,
                                   np.bool_(False), "0.5", None, [0.5]])
def test_a_float_option_refuses_non_finite_and_non_numbers_naming_the_option(name, value):
    with pytest.raises(ConfigError, match=f"demo: {name}=.* is not allowed; allowed: a finite number"):
        OPTIONS.resolve({name: value})


def test_a_float_option_takes_finite_numbers_within_its_bounds():
    assert OPTIONS.resolve({"rate": 1, "gain": np.float32(2.5), "any": -1e300}) == {"rate": 1.0, "gain": 2.5,
                                                                                      "any": -1e300}
    assert type(OPTIONS.resolve({"rate": np.int64(0)})["rate"]) is float
    for name, value in (("rate", -0.1), ("rate", 1.5), ("gain", 0.0), ("gain", -3)):
        with pytest.raises(ConfigError, match=f"{name}="):
            OPTIONS.resolve({name: value})


@pytest.mark.parametrize(("option", "value"), [("seconds", math.inf), ("seconds", math.nan), ("c", math.inf),
                                               ("c", math.nan)])
def test_search_agents_refuse_non_finite_budgets_and_constants(option, value):
    """The search agents' own float kind let ``seconds=inf`` through (an agent that never moves)."""
    game = make("david_goliath", num_players=3).unwrapped.game
    with pytest.raises(ConfigError, match=f"{option}={value!r} is not allowed"):
        load("ismcts", game, seed=0, **{option: value})


@pytest.mark.parametrize("value", ["slow", True, None, 1])
def test_the_observer_option_is_validated_like_the_others(value):
    with pytest.raises(ConfigError, match=f"observer={value!r} is not allowed; allowed: one of"):
        make("david_goliath", observer=value)
