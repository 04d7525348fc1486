"""The scripted stand-in for an engine's numpy generator (hiddenhand.openspiel.chance)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from hiddenhand.openspiel.chance import ChanceError, NeedDraw, ScriptedDraws, enumerate_outcomes, run_call


def outcomes_of(call) -> dict:
    """Every script of ``call`` (with its probability) mapped to its result."""
    results: Counter = Counter()
    for probability, script in enumerate_outcomes(call, key=repr, limit=10_000):
        results[repr(run_call(call, script)[0])] += probability
    return results


def test_integers_is_one_choice_among_the_values():
    law = outcomes_of(lambda rng: int(rng.integers(3, 6)))
    assert law == pytest.approx({"3": 1 / 3, "4": 1 / 3, "5": 1 / 3})
    assert run_call(lambda rng: rng.integers(4), [2])[0] == 2
    with pytest.raises(NeedDraw) as need:
        ScriptedDraws([]).integers(4)
    assert need.value.outcomes == [(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)]


def test_a_permutation_places_its_items_one_at_a_time_and_is_uniform():
    law = outcomes_of(lambda rng: rng.permutation(np.array([10, 20, 30])).tolist())
    assert len(law) == math.factorial(3) and all(p == pytest.approx(1 / 6) for p in law.values())
    assert run_call(lambda rng: rng.permutation(3).tolist(), [2, 0])[0] == [2, 0, 1]  # the last is forced
    items = ["a", "b", "c"]
    run_call(lambda rng: rng.shuffle(items), [1, 2])
    assert items == ["b", "c", "a"]


def test_choice_without_replacement_never_repeats_and_honours_weights():
    law = outcomes_of(lambda rng: sorted(rng.choice(4, 2, replace=False).tolist()))
    assert len(law) == 6 and all(p == pytest.approx(1 / 6) for p in law.values())
    weighted = outcomes_of(lambda rng: int(rng.choice(3, p=[0.5, 0.0, 0.5])))
    assert weighted == pytest.approx({"0": 0.5, "2": 0.5})


def test_random_scaled_by_a_whole_number_is_a_uniform_cell():
    """The engines read random() * n through floor and comparisons with whole numbers (R-A31): the cell's
    middle k + 0.5 behaves like any u * n of that cell."""
    law = outcomes_of(lambda rng: int(rng.random() * 4))
    assert law == pytest.approx({str(k): 0.25 for k in range(4)})
    with pytest.raises(TypeError):
        run_call(lambda rng: rng.random() < 0.5, [])


def test_draws_the_bridge_cannot_enumerate_are_refused_by_name():
    with pytest.raises(ChanceError, match="rng.normal"):
        ScriptedDraws([]).normal()
    with pytest.raises(ChanceError, match="size"):
        ScriptedDraws([]).integers(3, size=2)
    with pytest.raises(ChanceError, match="not one of the draw's outcomes"):
        run_call(lambda rng: rng.integers(3), [7])
    with pytest.raises(ChanceError, match="more than 10 chance scripts"):
        enumerate_outcomes(lambda rng: rng.permutation(4), key=repr, limit=10)


def test_a_draw_with_one_outcome_is_no_chance_node():
    assert run_call(lambda rng: (rng.integers(1), rng.permutation(1).tolist()), [])[0] == (0, [0])
