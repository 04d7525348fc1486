"""Packaging: everything installs under the single package name ``hiddenhand``; every registered game's
folder is found by discovery, with its data; building prints no setuptools warnings."""

import subprocess
import sys
import zipfile
from pathlib import Path

from hiddenhand.agents import shipped
from hiddenhand.envs.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_holds_the_hiddenhand_package_with_every_game_and_its_data(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation",
                            "-w", str(tmp_path), str(ROOT)], check=True, cwd=tmp_path, capture_output=True,
                           text=True)
    complaints = [line for line in build.stdout.splitlines() + build.stderr.splitlines()
                  if ("warn" in line.lower() or "!!" in line) and "byte-compiling is disabled" not in line
                  and "Location 'file:" not in line]
    assert complaints == []
    names = zipfile.ZipFile(next(tmp_path.glob("hiddenhand-*.whl"))).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"hiddenhand"}
    expected = ["hiddenhand/envs/core/aec.py", "hiddenhand/envs/registry.py", "hiddenhand/agents/tournament.py",
                "hiddenhand/training/__init__.py", "hiddenhand/configs/games/koehandel.yaml",
                "hiddenhand/configs/train/rllib/david_goliath_quick.yaml", "hiddenhand/web/static/index.html",
                "hiddenhand/web/static/app.js", "hiddenhand/web/static/style.css"]
    expected += [f"hiddenhand/envs/{name}_v0.py" for name in REGISTRY]
    expected += [f"hiddenhand/envs/{name}/rules.py" for name in REGISTRY]
    expected += [f"hiddenhand/configs/train/{preset}.yaml" for e in REGISTRY.values() for preset in e.train_presets]
    expected += [f"hiddenhand/agents/trained/{agent}.{ext}" for agent in shipped() for ext in ("npz", "md")]
    assert sorted(set(expected) - set(names)) == []
    assert not [name for name in names if name.endswith((".so", ".c", ".pyc"))]


def test_installed_package_imports_outside_the_repository(tmp_path):
    code = ("import pettingzoo, hiddenhand; from hiddenhand.envs.registry import REGISTRY; "
            "import hiddenhand.agents, hiddenhand.training; "
            "[pettingzoo.make('aec', e.env_id).reset(seed=0) for e in REGISTRY.values()]; "
            "import importlib.util; assert importlib.util.find_spec('envs') is None")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
    help_text = subprocess.run([sys.executable, "-m", "hiddenhand", "--help"], check=True, cwd=tmp_path,
                               capture_output=True, text=True).stdout
    assert "tournament" in help_text and "play" in help_text
