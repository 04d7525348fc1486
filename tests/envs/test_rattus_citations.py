"""Every section and spec id cited in Rattus code, data and tests resolves in docs/rattus_rules.md: a
``§4.3`` is a heading there, an ``RA-13``, ``AM-2``, ``E10`` or ``G1`` is defined there in bold."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rattus_rules.md"
SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
IDS = re.compile(r"\b(?:RA-\d+|AM-\d+|E(?:1[0-6]|[1-9])|G[1-3])\b")


def rattus_files() -> list[Path]:
    """The tracked files of the Rattus game (not Rattus Cartus), the rules page included; binaries and
    golden records aside."""
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / name for name in names if "rattus" in name and "cartus" not in name
            and not name.endswith(".npz") and not name.startswith("tests/golden/")]


def test_every_citation_resolves():
    doc = DOC.read_text()
    headings = {m.group(1) for line in doc.splitlines() if line.startswith("#")
                for m in SECTION.finditer(line.split(" ", 2)[1] if " " in line else "")}
    defined = set(re.findall(r"\*\*(RA-\d+|AM-\d+|E\d+|G\d)\*\*", doc))
    missing = []
    for path in rattus_files():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            missing += [f"{where}: §{m}" for m in SECTION.findall(line) if m not in headings]
            missing += [f"{where}: {m}" for m in IDS.findall(line) if m not in defined]
    assert not missing, "citations without a section or definition in docs/rattus_rules.md:\n" + "\n".join(missing)
