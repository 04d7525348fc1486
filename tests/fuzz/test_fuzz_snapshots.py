"""Tampered snapshots, in every registered game: ``restore`` either accepts one (and the env then holds
a state that breaks no rule and plays on) or raises ``SnapshotError`` and leaves the env as it was."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from hiddenhand.envs.core.game import SnapshotError

from fuzzing import ANY_SCALAR, GAMES, play_on, position


def leaves(data, path=()):
    """Every path into the JSON tree (containers included)."""
    yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from leaves(value, (*path, index))


def at(data, path):
    for key in path:
        data = data[key]
    return data


def tamper(snapshot, path, kind, value, draw_int):
    """A copy of ``snapshot`` with one change at ``path``."""
    data = copy.deepcopy(snapshot)
    if not path:
        return value
    parent, key = at(data, path[:-1]), path[-1]
    old = parent[key]
    if kind == "replace":
        parent[key] = value
    elif kind == "delete":
        del parent[key]
    elif kind == "nudge" and isinstance(old, (int, float)) and not isinstance(old, bool):
        parent[key] = old + draw_int
    elif kind == "grow" and isinstance(old, list):
        old.append(old[-1] if old else value)
    elif kind == "shrink" and isinstance(old, list) and old:
        old.pop(draw_int % len(old))
    elif kind == "swap" and isinstance(old, list) and len(old) > 1:
        i, j = draw_int % len(old), (draw_int + 1) % len(old)
        old[i], old[j] = old[j], old[i]
    elif kind == "flip" and isinstance(old, bool):
        parent[key] = not old
    else:
        parent[key] = value
    return data


@pytest.mark.parametrize("game", GAMES)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 80), victim_steps=st.integers(0, 30))
def test_a_tampered_snapshot_restores_soundly_or_is_refused(game, data, seed, steps, victim_steps):
    snapshot = position(game, seed, steps).unwrapped.snapshot()
    json.dumps(snapshot)  # JSON data, as documented
    paths = [p for p in leaves(snapshot) if p[:1] != ("format",)]
    path = data.draw(st.sampled_from(paths), label="path")
    kind = data.draw(st.sampled_from(["replace", "delete", "nudge", "grow", "shrink", "swap", "flip"]), label="kind")
    value = data.draw(st.one_of(ANY_SCALAR, st.lists(st.integers(-2, 100), max_size=4)), label="value")
    tampered = tamper(snapshot, path, kind, value, data.draw(st.integers(-100, 100), label="int"))
    env = position(game, seed + 1, victim_steps)
    before = env.unwrapped.snapshot()
    try:
        env.unwrapped.restore(tampered)
    except SnapshotError:
        assert env.unwrapped.snapshot() == before
        return
    unwrapped = env.unwrapped
    assert unwrapped.game.invariants(unwrapped.state_) == []
    if not unwrapped._game_over:
        assert env.agent_selection == unwrapped.possible_agents[unwrapped.state_.current_player]
    play_on(env, seed=seed, steps=30)


@pytest.mark.parametrize("game", GAMES)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 80))
def test_an_untouched_snapshot_restores_exactly(game, seed, steps):
    env = position(game, seed, steps)
    snapshot = env.unwrapped.snapshot()
    other = position(game, seed + 1, 3)
    other.unwrapped.restore(json.loads(json.dumps(snapshot)))
    assert other.unwrapped.snapshot() == snapshot
    if not env.unwrapped._game_over:
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        assert legal.tolist() == np.flatnonzero(other.observe(other.agent_selection)["action_mask"]).tolist()


RNG_CASES = [(("state",), np.int8(0)), (("state",), np.array(0)), (("state", "state"), np.int8(0)),
             (("state", "inc"), np.array(0)), (("state",), {"state": np.int8(0), "inc": 1})]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("path", "value"), RNG_CASES, ids=[f"rng-{'.'.join(p)}-{type(v).__name__}" for p, v in RNG_CASES])
def test_a_tampered_rng_is_a_snapshot_error(game, path, value):
    env = position(game, 0, 5)
    snapshot = env.unwrapped.snapshot()
    tampered = tamper(snapshot, ("rng", *path), "replace", value, 0)
    with pytest.raises(SnapshotError):
        env.unwrapped.restore(tampered)
    assert env.unwrapped.snapshot() == snapshot


# Found by this fuzz test (HYPOTHESIS_PROFILE=deep): Koehandel ints of 2**31 and more in a snapshot
# (int32 record tables, the digest and the observation) once escaped restore's checks.
KOEHANDEL_BIG_INTS = [(("state", "memory", "tables", "auctions", 2, 0, 0), 11),
                      (("state", "memory", "digest", 0, 0, 0), 0), (("state", "high"), 62)]


@pytest.mark.parametrize(("path", "steps"), KOEHANDEL_BIG_INTS, ids=["auction-table", "digest", "high"])
def test_koehandel_snapshot_with_an_int_beyond_int32_is_refused(path, steps):
    env = position("koehandel", 0, steps)
    snapshot = env.unwrapped.snapshot()
    try:
        at(snapshot, path)
    except (KeyError, IndexError, TypeError):
        pytest.skip(f"the Koehandel snapshot has no {path} any more")
    with pytest.raises(SnapshotError):
        env.unwrapped.restore(tamper(snapshot, path, "replace", 2**31, 0))
    assert env.unwrapped.snapshot() == snapshot
