"""Golden playthroughs: every recorded seeded game replays to the same text (tests/golden/)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "golden"))
from playthrough import cases, path_of, record  # noqa: E402

REGENERATE = "python tests/golden/playthrough.py"


@pytest.mark.parametrize("game,index,options,seed", cases(), ids=lambda v: str(v) if isinstance(v, (str, int)) else None)
def test_golden_playthrough(game, index, options, seed):
    path = path_of(game, index)
    assert path.exists(), f"{path.name} missing: record it with `{REGENERATE} {game}`"
    expected = path.read_text().splitlines()
    actual = record(game, options, seed).splitlines()
    for number, (want, got) in enumerate(zip(expected, actual), start=1):
        assert got == want, (f"{path.name}:{number} differs (after an intended change, regenerate with "
                             f"`{REGENERATE} {game}` and review the diff)\n  recorded: {want}\n  now:      {got}")
    assert len(actual) == len(expected), f"{path.name}: {len(actual)} lines now, {len(expected)} recorded"
