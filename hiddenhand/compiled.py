"""The environment modules that ``setup.py`` compiles with Cython, when a C compiler is at hand.

They are plain Python modules: compiled, they run about 1.5x faster with the same results; without a
compiler they run as they are. ``HIDDENHAND_PURE_PYTHON=1`` in the environment makes Python load them
from source (for debuggers and profilers) and makes ``setup.py`` skip compiling them. A compiled module
older than its source is reported by :func:`stale` (``make test`` rebuilds first). This file is read
by ``setup.py`` and the Makefile before the package is installed, so it imports nothing of it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

#: Source files, relative to the repository root, and their module names.
SOURCES = {
    "envs/core/aec.py": "hiddenhand.envs.core.aec",
    "envs/david_goliath/observation.py": "hiddenhand.envs.david_goliath.observation",
    "envs/david_goliath/rules.py": "hiddenhand.envs.david_goliath.rules",
    "envs/koehandel/actions.py": "hiddenhand.envs.koehandel.actions",
    "envs/koehandel/money.py": "hiddenhand.envs.koehandel.money",
    "envs/koehandel/observation.py": "hiddenhand.envs.koehandel.observation",
    "envs/koehandel/records.py": "hiddenhand.envs.koehandel.records",
    "envs/koehandel/rules.py": "hiddenhand.envs.koehandel.rules",
}
PURE_PYTHON = "HIDDENHAND_PURE_PYTHON"


def pure_python_requested() -> bool:
    return os.environ.get(PURE_PYTHON, "") not in ("", "0")


def _extensions(source: Path) -> list[Path]:
    stem = source.with_suffix("")
    return [stem.with_name(stem.name + suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if stem.with_name(stem.name + suffix).exists()]


def stale(root: Path) -> list[str]:
    """Sources under ``root`` that changed since they were compiled (their compiled module shadows them)."""
    return [path for path in SOURCES if (root / path).exists() and any(
        built.stat().st_mtime < (root / path).stat().st_mtime for built in _extensions(root / path))]


def compiled_in_use() -> list[str]:
    """The listed modules imported so far that run compiled."""
    return [name for name in SOURCES.values()
            if name in sys.modules and Path(getattr(sys.modules[name], "__file__", "")).suffix != ".py"]


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the listed modules as ``.py`` files even where a compiled module lies beside them."""

    names = frozenset(SOURCES.values())

    def find_spec(self, name, path, target=None):
        if name not in self.names or not path:
            return None
        for folder in path:
            source = Path(folder) / (name.rpartition(".")[2] + ".py")
            if source.exists():
                return importlib.util.spec_from_file_location(name, source)
        return None


def use_sources() -> None:
    """Load the listed modules from source from now on (call before importing them)."""
    if not any(isinstance(finder, _SourceFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())


if __name__ == "__main__":  # the Makefile's list of sources
    print(" ".join(SOURCES))
