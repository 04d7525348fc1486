"""A seeded sweep of damaged snapshots (issue 22), shared by the quick and the slow tests.

:func:`damaged` makes one damaged copy of a snapshot: a key popped, renamed, duplicated under another
name or added; a value of the wrong type, NaN or an infinity, negative or huge; a list emptied, shortened,
reordered or grown to a huge length; the history rewritten; the RNG damaged. The target is a random
place anywhere in the snapshot, so event logs, records and memories inside a state are hit as often as
their size says. :func:`check` restores it: a refusal must be a ``SnapshotError`` that changes nothing;
an accepted snapshot must hold a state under the invariants, give every agent an observation inside the
declared space and, in a re-dealt copy for any agent, that agent's true observation, and play on to the
end with random legal moves within a time limit.

Snapshots are damaged in three forms: as played (the history is replayed, so a damaged state or RNG is
refused by the comparison), as a position (``as_position``: the state is the origin, checked by the
game's ``state_from_json`` and ``invariants`` alone) and in format 1.
"""

from __future__ import annotations

import copy
import json
import math
import time
from typing import Any

import numpy as np

from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.core.snapshots import FORMAT_1, as_position

HUGE = 200_000
KINDS = ("pop", "rename", "duplicate", "add", "type", "nan", "inf", "negative", "huge number", "empty list",
         "shorter list", "reordered list", "huge list", "history", "rng")
FORMS = ("played", "position", "format 1")


def paths(data: Any, path: tuple = ()) -> list[tuple]:
    """Every path into the JSON tree, containers included."""
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += paths(value, (*path, index))
    return found


def _at(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def damaged(snapshot: dict, kind: str, rng: np.random.Generator) -> tuple[str, dict]:
    """A damaged deep copy of ``snapshot`` and a description of the damage."""
    data = copy.deepcopy(snapshot)
    if kind == "history":
        history = data["history"]
        if history:
            at = int(rng.integers(len(history)))
            history[at] = int(rng.integers(max(history) + 2))
        else:
            history.append(0)
        return f"history rewritten: {history[-5:]}", data
    if kind == "rng":
        places = [p for p in paths(data) if p[:1] == ("rng",) or p[:2] == ("origin", "rng")]
        return _damage_value(data, places[int(rng.integers(len(places)))], rng, [])
    everywhere = [p for p in paths(data) if p and p != ("format",)]
    if kind in ("pop", "rename", "duplicate", "add"):
        containers = [p for p in everywhere if isinstance(_at(data, p), dict)] + [()]
        path = containers[int(rng.integers(len(containers)))]
        parent = _at(data, path)
        keys = list(parent)
        key = keys[int(rng.integers(len(keys)))] if keys else None
        if kind == "pop" and key is not None:
            del parent[key]
        elif kind == "rename" and key is not None:
            parent[f"{key}_"] = parent.pop(key)
        elif kind == "duplicate" and key is not None:
            parent[f"{key}2"] = copy.deepcopy(parent[key])
        else:
            parent["unknown"] = 1
        return f"{kind} {key!r} at {_name(path)}", data
    if kind.endswith("list"):
        lists = [p for p in everywhere if isinstance(_at(data, p), list)]
        path = lists[int(rng.integers(len(lists)))]
        items = _at(data, path)
        if kind == "empty list":
            items.clear()
        elif kind == "shorter list" and items:
            items.pop(int(rng.integers(len(items))))
        elif kind == "reordered list":
            items.reverse()
        else:
            items.extend([items[-1] if items else 0] * HUGE)
        return f"{kind} at {_name(path)}", data
    leaves = [p for p in everywhere if not isinstance(_at(data, p), (dict, list))]
    return _damage_value(data, leaves[int(rng.integers(len(leaves)))], rng, [kind])


def _damage_value(data: dict, path: tuple, rng: np.random.Generator, kinds: list[str]) -> tuple[str, dict]:
    kind = kinds[0] if kinds else ("type", "nan", "negative", "huge number")[int(rng.integers(4))]
    old = _at(data, path)
    retyped = [str(old), [old], {"value": old}, None, float(old) if isinstance(old, int) else 1]
    new = {"type": retyped[int(rng.integers(len(retyped)))],
           "nan": math.nan, "inf": [math.inf, -math.inf][int(rng.integers(2))],
           "negative": -1 if not isinstance(old, (int, float)) or isinstance(old, bool) or old == 0 else -old,
           "huge number": [2**64, 10**30, 2**31, -(2**63)][int(rng.integers(4))]}[kind]
    if path:
        _at(data, path[:-1])[path[-1]] = new
    return f"{kind} at {_name(path)}: {old!r:.40} -> {new!r:.40}", data


def _name(path: tuple) -> str:
    return ".".join(map(str, path)) or "(top)"


def in_form(snapshot: dict, form: str) -> dict:
    """The snapshot as played, as a position (its state the origin) or in format 1."""
    if form == "played":
        return snapshot
    if form == "position":
        return as_position(snapshot)
    old = {key: value for key, value in snapshot.items() if key != "origin"}
    old["aec"] = {key: value for key, value in snapshot["aec"].items() if key != "illegal_action"}
    return {**old, "format": FORMAT_1}


def check(target, snapshot: dict, seed: int, seconds: float) -> bool:
    """Restore ``snapshot`` into ``target`` and check what the module docstring says; True if accepted."""
    raw = target.unwrapped
    before = raw.snapshot()
    try:
        raw.restore(snapshot)
    except SnapshotError:
        assert raw.snapshot() == before, "a refused snapshot changed the env"
        return False
    assert raw.game.invariants(raw.state_) == [], raw.game.invariants(raw.state_)
    assert json.loads(json.dumps(raw.snapshot())) == raw.snapshot()
    space = target.observation_space(target.possible_agents[0])
    views = {agent: target.observe(agent) for agent in target.possible_agents}
    for agent, view in views.items():
        assert space.contains(view), f"{agent}'s observation of the accepted snapshot is outside the space"
    if not raw._game_over:
        for k, agent in enumerate(target.possible_agents):
            copy_ = raw.determinize(agent, seed=seed + k)
            mine = copy_.observe(agent)
            assert np.array_equal(mine["observation"], views[agent]["observation"]), \
                f"{agent}'s re-dealt copy of the accepted snapshot changed its observation"
            assert all(space.contains(copy_.observe(other)) for other in target.possible_agents)
    _play_to_the_end(target, seed, seconds, space)
    return True


def _play_to_the_end(env, seed: int, seconds: float, space) -> None:
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + seconds
    while env.agents:
        assert time.monotonic() < deadline, f"the game did not end within {seconds} s of random play"
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        assert space.contains(observation), "an observation left the declared space in play"
        legal = np.flatnonzero(observation["action_mask"])
        assert legal.size, f"no legal action for {env.agent_selection} in a running game"
        env.step(int(rng.choice(legal)))
