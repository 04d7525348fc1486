"""Damaged snapshots of every game (issue 22): refused with ``SnapshotError`` and nothing changed, or
accepted and sound (see ``snapshot_sweep``). A few dozen per game run in the default suite; the long
sweep (``make test-slow``) tries every damage in every form many times."""

from __future__ import annotations

import numpy as np
import pytest

from fuzzing import GAMES, position
from snapshot_sweep import FORMS, KINDS, check, damaged, in_form


def sweep(game: str, count: int, first_seed: int, seconds: float) -> dict[str, int]:
    """``count`` damaged snapshots of positions of random games; how many of each damage were accepted.
    A failure names the seed, the form and the damage, enough to replay it."""
    accepted = dict.fromkeys(KINDS, 0)
    for seed in range(first_seed, first_seed + count):
        rng = np.random.default_rng(seed)
        form, kind = FORMS[seed % len(FORMS)], KINDS[(seed // len(FORMS)) % len(KINDS)]
        source = position(game, seed, int(rng.integers(0, 120)))
        what, snapshot = damaged(in_form(source.unwrapped.snapshot(), form), kind, rng)
        target = position(game, seed + 1, int(rng.integers(0, 20)))
        try:
            accepted[kind] += check(target, snapshot, seed, seconds)
        except Exception as error:  # any failure, named so that it can be replayed
            raise AssertionError(f"{game}, seed {seed}, {form} snapshot, {what}: "
                                 f"{type(error).__name__}: {error}") from error
    return accepted


@pytest.mark.parametrize("game", GAMES)
def test_damaged_snapshots_are_refused_or_sound(game):
    sweep(game, count=2 * len(FORMS) * len(KINDS) // 3, first_seed=0, seconds=30)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_damaged_snapshots_are_refused_or_sound_long_sweep(game):
    accepted = sweep(game, count=20 * len(FORMS) * len(KINDS), first_seed=10_000, seconds=60)
    print(game, "accepted per damage:", accepted)
