"""Shipping an agent never silently replaces one already shipped under that name (issue 22)."""

import pytest

from hiddenhand.agents import TRAINED_DIR
from hiddenhand.cli import main
from hiddenhand.training.ship import ship


def test_an_agent_already_shipped_under_the_name_is_kept_unless_overwrite(tmp_path, capsys):
    (tmp_path / "mine.npz").write_bytes(b"shipped before")
    with pytest.raises(ValueError, match="mine.npz already exist: pass --overwrite"):
        ship(TRAINED_DIR / "david_goliath_3p.npz", "mine", games=2, out_dir=tmp_path)
    assert (tmp_path / "mine.npz").read_bytes() == b"shipped before"
    assert main(["ship", str(TRAINED_DIR / "david_goliath_3p.npz"), "--name", "david_goliath_3p", "--games", "2"]) == 2
    error = capsys.readouterr().err
    assert "david_goliath_3p.npz and" in error and "already exist: pass --overwrite" in error
