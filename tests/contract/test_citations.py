"""Contract (issue 23): every citation in a game's code and tests resolves in its rules document.

A game's files are ``envs/<game>/``, ``envs/<game>_v<k>.py``, ``agents/**/<game>*.py``,
``configs/**/<game>*.yaml`` and the tests whose file name holds the game's name (the longest registered
name wins: ``test_rattus_cartus_rules.py`` is Rattus Cartus's). Its document is
``docs/<game>_rules.md``. A citation is a section (``§3.2``, ``§3.4-3.6``, ``§4-§6``, ``Appendix B``),
resolved by a heading or a bold numbered paragraph of the document, or an id (``DG-5``, ``K-A23``,
``RA-1``, ``AM-1``) of a kind the document uses, resolved by the id appearing in it. The failure names
every unresolved citation as ``file:line``.
"""

import re
from functools import cache
from pathlib import Path

import pytest

from hiddenhand.envs.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
NUMBER = r"\d+(?:\.\d+)*"
SECTION = re.compile(rf"§\s?({NUMBER})(?:\s?[-–]\s?§?({NUMBER}))?|Appendix ([A-Z])\b")
ID = re.compile(r"\b([A-Z]{1,3}-[A-Z]{0,2})(\d+)\b")
HEADING = re.compile(rf"^#+\s+(?:§\s?)?({NUMBER})\b|^\*\*(?:§\s?)?(\d+(?:\.\d+)+)[\s.*]|^#+\s+Appendix ([A-Z])\b",
                     re.MULTILINE)


def owner(path: Path) -> str | None:
    """The game a file belongs to, or None (shared code)."""
    relative = path.relative_to(ROOT).as_posix()
    for game in sorted(REGISTRY, key=len, reverse=True):
        if relative.startswith((f"envs/{game}/", f"envs/{game}_v")) or (
                relative.startswith(("agents/", "configs/")) and path.name.startswith(game)) or (
                relative.startswith("tests/") and game in path.name):
            return game
    return None


@cache
def files_by_game() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {game: [] for game in REGISTRY}
    for folder in ("envs", "agents", "configs", "tests"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".yaml") and "__pycache__" not in path.parts:
                game = owner(path)
                if game:
                    found[game].append(path)
    return found


def targets(game: str) -> tuple[set[str], set[str], set[str]]:
    """The sections, the ids and the id kinds (``DG-``, ``K-A``) the game's document holds."""
    text = (ROOT / "docs" / f"{game}_rules.md").read_text(encoding="utf-8")
    sections = {number or bold or f"Appendix {letter}" for number, bold, letter in HEADING.findall(text)}
    ids = {kind + number for kind, number in ID.findall(text)}
    return sections, ids, {kind for kind, _ in ID.findall(text)}


def unresolved(game: str) -> list[str]:
    sections, ids, kinds = targets(game)
    missing = []
    for path in files_by_game()[game]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            cited = [f"§{s}" for first, last, _ in SECTION.findall(line) for s in (first, last) if s and s not in sections]
            cited += [f"Appendix {letter}" for _, _, letter in SECTION.findall(line)
                      if letter and f"Appendix {letter}" not in sections]
            cited += [kind + digits for kind, digits in ID.findall(line) if kind in kinds and kind + digits not in ids]
            missing += [f"{path.relative_to(ROOT)}:{number} {citation}" for citation in cited]
    return missing


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_every_citation_in_a_games_code_and_tests_resolves_in_its_rules(game):
    assert (ROOT / "docs" / f"{game}_rules.md").is_file(), f"docs/{game}_rules.md is missing"
    assert files_by_game()[game], f"no files found for {game}"
    missing = unresolved(game)
    assert not missing, f"{len(missing)} citation(s) of {game} resolve to nothing in docs/{game}_rules.md:\n" + \
        "\n".join(missing)


def test_the_citation_patterns_find_what_they_should():
    """The patterns themselves: a heading, a bold paragraph and an appendix define sections; ranges cite both
    ends; an id of an unknown kind (``UTF-8``) is no citation."""
    assert {m.group(1) or m.group(2) or m.group(3) for m in HEADING.finditer(
        "## 3. A trick\n**3.2 Following.**\n### §3.4.7 Spread\n## Appendix B. Positions\n- **40 cards")} == \
        {"3", "3.2", "3.4.7", "B"}
    assert SECTION.findall("see §3.4-3.6, §4–§6 and Appendix C") == [("3.4", "3.6", ""), ("4", "6", ""), ("", "", "C")]
    assert ID.findall("DG-5, K-A23 and UTF-8") == [("DG-", "5"), ("K-A", "23"), ("UTF-", "8")]
    assert owner(ROOT / "tests/envs/test_rattus_cartus_rules.py") == "rattus_cartus"
    assert owner(ROOT / "tests/envs/test_rattus_rules.py") == "rattus"
    assert owner(ROOT / "envs/core/aec.py") is None
