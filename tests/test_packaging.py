"""Packaging: everything installs under the single package name ``hiddenhand``."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_holds_only_the_hiddenhand_package(tmp_path):
    pure = {**os.environ, "HIDDENHAND_PURE_PYTHON": "1"}  # the layout, not the compiled modules (test_compiled)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path), str(ROOT)], check=True, cwd=tmp_path, env=pure)
    wheel = next(tmp_path.glob("hiddenhand-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"hiddenhand"}
    for expected in ("hiddenhand/envs/david_goliath_v0.py", "hiddenhand/envs/core/aec.py",
                     "hiddenhand/agents/tournament.py", "hiddenhand/training/__init__.py",
                     "hiddenhand/configs/train/david_goliath.yaml", "hiddenhand/envs/koehandel/rules.py",
                     "hiddenhand/configs/games/koehandel.yaml", "hiddenhand/configs/train/koehandel.yaml"):
        assert expected in names


def test_installed_package_imports_outside_the_repository(tmp_path):
    code = ("import pettingzoo, hiddenhand; from hiddenhand.envs import david_goliath_v0; "
            "import hiddenhand.agents, hiddenhand.training; "
            "pettingzoo.make('aec', 'hiddenhand/david_goliath-v0', num_players=4).reset(seed=0); "
            "pettingzoo.make('aec', 'hiddenhand/koehandel-v0', num_players=3).reset(seed=0); "
            "import importlib.util; assert importlib.util.find_spec('envs') is None")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
    help_text = subprocess.run([sys.executable, "-m", "hiddenhand", "--help"], check=True, cwd=tmp_path,
                               capture_output=True, text=True).stdout
    assert "tournament" in help_text and "play" in help_text
