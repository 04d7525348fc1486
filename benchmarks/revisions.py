"""Two revisions of hiddenhand in one process, for the comparator and the CPU-time A/B.

:func:`source_tree` extracts a git revision of this repository (``git archive``) into a cache folder;
:func:`load` imports a tree's packages under an alias of its own (``hiddenhand_base.envs.rattus_v0``,
``hiddenhand_head.envs.rattus_v0``), so that two revisions run side by side and are measured under the same
load. The tree's ``setup.py`` says which folder is which subpackage (its ``ROOTS``). Imports inside a
tree are relative, so they stay in that tree; an absolute ``hiddenhand.`` import reaches the
installed package instead (no env module makes one). Needs a git checkout of the repository.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType

#: The repository this module belongs to (its working tree).
REPOSITORY = Path(__file__).resolve().parent.parent
#: Revision name for the working tree as it is, uncommitted edits included.
WORKTREE = "worktree"


def source_tree(revision: str) -> Path:
    """The repository's files at ``revision`` (a commit, branch or tag; :data:`WORKTREE`: the working
    tree itself), extracted once into the temporary folder and reused."""
    if revision == WORKTREE:
        return REPOSITORY
    commit = _git("rev-parse", "--verify", f"{revision}^{{commit}}").strip()
    target = Path(tempfile.gettempdir()) / f"hiddenhand-rev-{commit}"
    if not target.is_dir():
        partial = Path(tempfile.mkdtemp(prefix=f"hiddenhand-rev-{commit[:12]}-", dir=target.parent))
        archive = subprocess.run(["git", "-C", str(REPOSITORY), "archive", "--format=tar", commit],
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(partial, filter="data")
        partial.rename(target)  # whole or not at all: a killed extraction leaves no half tree behind
    return target


def describe(revision: str) -> str:
    """``revision`` with its short commit and subject, for reports."""
    if revision == WORKTREE:
        dirty = _git("status", "--porcelain", "--untracked-files=no").strip()
        return f"worktree ({'with' if dirty else 'no'} uncommitted edits on {_git('rev-parse', '--short', 'HEAD').strip()})"
    return f"{revision} ({_git('log', '-1', '--format=%h %s', revision).strip()[:70]})"


def load(tree: Path, alias: str) -> ModuleType:
    """The hiddenhand package of ``tree`` imported as ``alias`` (its subpackages as ``alias.envs`` ...)."""
    if alias in sys.modules:
        raise ValueError(f"a package named {alias!r} is already imported")
    roots = {alias + package.removeprefix("hiddenhand"): tree / folder for package, folder in package_folders(tree).items()}
    sys.meta_path.insert(0, _TreeFinder(roots))
    return importlib.import_module(alias)


def package_folders(tree: Path) -> dict[str, str]:
    """The ``ROOTS`` literal of the tree's setup.py: subpackage name -> folder."""
    module = ast.parse((tree / "setup.py").read_text())
    for node in module.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ROOTS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{tree / 'setup.py'} has no ROOTS mapping of packages to folders")


class _TreeFinder(importlib.abc.MetaPathFinder):
    """Finds the top packages of one tree by their alias names; their submodules follow their paths."""

    def __init__(self, roots: dict[str, Path]):
        self.roots = roots

    def find_spec(self, name, path=None, target=None):
        folder = self.roots.get(name)
        if folder is None:
            return None
        init = folder / "__init__.py"
        if init.is_file():
            return importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)  # a namespace package
        spec.submodule_search_locations = [str(folder)]
        return spec


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", "-C", str(REPOSITORY), *args], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", "") or error
        raise SystemExit(f"git {' '.join(args)} failed in {REPOSITORY} (a git checkout is needed): {detail}")
