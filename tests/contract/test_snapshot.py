"""Contract: snapshot/restore (RNG included) as JSON, a checked restore, history replay, and determinism
across processes."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from contract_cases import CASES, GAME_CASES, play_random, played, steps_before_end, trace
from hiddenhand.envs import make
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.registry import REGISTRY


@pytest.mark.parametrize("game,options", CASES)
def test_snapshot_restore_is_exact_json_and_keeps_the_rng(game, options):
    env = make(game, **options)
    env.reset(seed=21)
    play_random(env, 2, steps=33)
    snapshot = json.loads(json.dumps(env.unwrapped.snapshot()))
    other = make(game, **options)
    other.reset(seed=999)
    play_random(other, 4, steps=5)  # a used env: restore replaces everything
    other.unwrapped.restore(snapshot)
    assert other.unwrapped.snapshot() == snapshot
    assert trace(other, 7) == trace(env, 7)  # same RNG: the same future deals


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_snapshot_restore_after_the_game_ends(game, options):
    env = make(game, **options)
    env.reset(seed=4)
    play_random(env, 0)
    other = make(game, **options)
    other.reset(seed=99)
    other.unwrapped.restore(env.unwrapped.snapshot())
    assert other.unwrapped.snapshot() == env.unwrapped.snapshot()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_restore_refuses_a_snapshot_of_another_configuration(name):
    entry = REGISTRY[name]
    counts = entry.player_counts
    env = make(name, num_players=counts[0])
    env.reset(seed=0)
    if len(counts) > 1:
        other, differs = make(name, num_players=counts[1]), "num_players"
    else:  # a game for one player count (the cow trade): another option set
        other, differs = make(name, num_players=counts[0], **entry.option_sets[0]), "config"
    with pytest.raises(SnapshotError, match=differs):
        other.unwrapped.restore(env.unwrapped.snapshot())


def _tamper(snapshot, edit):
    broken = json.loads(json.dumps(snapshot))
    edit(broken)
    return broken


def _other_agent(snapshot):
    return next(a for a in snapshot["aec"]["agents"] if a != snapshot["aec"]["agent_selection"])


TAMPERING = {
    "not a dict": lambda s: s.clear(),
    "missing state": lambda s: s.pop("state"),
    "missing rng": lambda s: s.pop("rng"),
    "bad rng": lambda s: s.update(rng={"bit_generator": "PCG64", "state": "nonsense"}),
    "state is a list": lambda s: s.update(state=[]),
    "state lacks a key": lambda s: s["state"].pop(sorted(s["state"])[0]),
    "wrong format": lambda s: s.update(format="other/9"),
    "history of strings": lambda s: s.update(history=["x"]),
    "history out of range": lambda s: s.update(history=[10**9]),
    "agent_selection out of step": lambda s: s["aec"].update(agent_selection=_other_agent(s)),
    "unknown agent": lambda s: s["aec"].update(agent_selection="player_77"),
    "game over while running": lambda s: s["aec"].update(game_over=True),
    "aec key missing": lambda s: s["aec"].pop("rewards"),
    "reward of a string": lambda s: s["aec"]["rewards"].update({s["aec"]["agents"][0]: "1"}),
    "current player 7": lambda s: s["state"].update(current_player=7),
}


@pytest.mark.parametrize("game,options", GAME_CASES)
@pytest.mark.parametrize("tampering", sorted(TAMPERING))
def test_restore_refuses_a_tampered_snapshot_and_changes_nothing(game, options, tampering):
    env = played(game, options, 6, steps=steps_before_end(game, options, 6, 12))
    target = played(game, options, 8, steps=steps_before_end(game, options, 8, 3))
    before = target.unwrapped.snapshot()
    broken = _tamper(env.unwrapped.snapshot(), TAMPERING[tampering])
    if tampering == "current player 7" and "current_player" not in env.unwrapped.snapshot()["state"]:
        pytest.skip("the game's state names its current player otherwise")
    with pytest.raises(SnapshotError):
        target.unwrapped.restore({} if tampering == "not a dict" else broken)
    assert target.unwrapped.snapshot() == before
    play_random(target, 8, steps=5)  # still playable


@pytest.mark.parametrize("game,options", CASES)
def test_replaying_the_history_reproduces_the_state(game, options):
    env = make(game, **options)
    env.reset(seed=8)
    play_random(env, 3, steps=150)
    replay = make(game, **options)
    replay.reset(seed=8)
    for action in env.unwrapped.history:
        replay.step(action)
    play_random(replay, 0, steps=0)  # a finished game: the dead agents' steps
    assert replay.unwrapped.snapshot() == env.unwrapped.snapshot()


def trajectory_digest(game: str, options: dict, seed: int) -> str:
    """Hash of a seeded random game's observations, masks and rewards, with the global RNGs consumed."""
    import random

    import numpy as np

    digest = hashlib.sha256()
    for row in trace(_disturbed(make(game, **options), seed), seed):
        random.random(), np.random.random()
        digest.update(repr(row).encode())
    return digest.hexdigest()


def _disturbed(env, seed):
    env.reset(seed=seed)
    return env


def test_a_seeded_game_is_identical_in_another_process():
    cases = [(p.values[0], p.values[1]) for p in GAME_CASES]
    here = [trajectory_digest(game, options, 12) for game, options in cases]
    code = ("import json, sys; sys.path[:0] = [sys.argv[1], sys.argv[1] + '/..']; "
            "from test_snapshot import trajectory_digest; "
            "print(json.dumps([trajectory_digest(g, o, 12) for g, o in json.loads(sys.argv[2])]))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), json.dumps(cases)],
                         check=True, capture_output=True, text=True, env={"PYTHONHASHSEED": "12345", "PATH": ""})
    assert json.loads(out.stdout) == here
