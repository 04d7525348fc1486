"""The environments' hot modules compiled with Cython (hiddenhand/compiled.py): never stale, and the same
game, step for step, as their pure-Python sources."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from hiddenhand import compiled
from hiddenhand.envs import make

ROOT = Path(__file__).resolve().parents[1]
GAMES = [("koehandel", 4, 3), ("koehandel", 2, 4), ("david_goliath", 4, 5)]


def trace_digest(game, players, seed, steps=600):
    """Hash of every observation, mask and action of a seeded random game."""
    env = make(game, num_players=players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for _ in env.agent_iter(steps):
        obs, reward, term, trunc, _ = env.last()
        digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes() + repr(reward).encode())
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        digest.update(repr(action).encode())
        env.step(action)
    return digest.hexdigest()


def test_no_compiled_module_is_older_than_its_source():
    assert compiled.stale(ROOT) == [], "rebuild the compiled modules: make install (or pip install -e .)"


def test_pure_python_sources_play_the_same_games():
    """HIDDENHAND_PURE_PYTHON=1 loads every listed module from source; the games are identical."""
    code = ("import json, sys; sys.path.insert(0, {tests!r}); from test_compiled import GAMES, trace_digest; "
            "from hiddenhand import compiled; "
            "print(json.dumps([[trace_digest(*g) for g in GAMES], compiled.compiled_in_use()]))")
    env = {**os.environ, compiled.PURE_PYTHON: "1"}
    out = subprocess.run([sys.executable, "-c", code.format(tests=str(Path(__file__).parent))], check=True,
                         capture_output=True, text=True, env=env).stdout
    digests, in_use = json.loads(out.strip().splitlines()[-1])
    assert in_use == []
    assert digests == [trace_digest(*game) for game in GAMES]


def test_a_compiled_module_older_than_its_source_is_reported(tmp_path):
    import importlib.machinery

    source = tmp_path / "envs" / "core" / "aec.py"
    source.parent.mkdir(parents=True)
    built = source.with_name("aec" + importlib.machinery.EXTENSION_SUFFIXES[0])
    built.write_bytes(b"")
    source.write_text("")
    os.utime(built, (1_000_000, 1_000_000))
    assert compiled.stale(tmp_path) == ["envs/core/aec.py"]
    os.utime(built, None)
    assert compiled.stale(tmp_path) == []
