"""The README's commands stay true: every ``python -m hiddenhand`` line parses with the CLI as printed, names
presets and shipped agents that exist, and every ``make`` target it mentions is in the Makefile; its
tournament command runs (with fewer games)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from hiddenhand.agents import load
from hiddenhand.cli import build_parser, main
from hiddenhand.envs import make
from hiddenhand.training.config import load_config

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def readme_commands() -> list[list[str]]:
    """The ``python -m hiddenhand ...`` commands of the README's bash blocks, continuations joined and
    comments dropped, as argument lists after ``hiddenhand``."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words[1:3] == ["-m", "hiddenhand"]:
                commands.append(words[3:])
    return commands


COMMANDS = readme_commands()


def test_the_readme_shows_the_main_commands():
    assert {words[0] for words in COMMANDS} >= {"tournament", "play", "train", "evaluate", "serve"}


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(words[:2]) for words in COMMANDS])
def test_a_readme_command_parses_and_names_what_exists(words):
    args = build_parser().parse_args(words)
    if getattr(args, "config", None):
        assert load_config(args.config).game == args.game
    game = getattr(args, "game", None)
    for name in getattr(args, "agents", None) or []:
        if "/" not in name:  # a run's own agent file is made by the command before it
            players = getattr(args, "players", None) or len(args.agents)
            load(name, make(game, num_players=players).unwrapped.game)


def test_every_make_target_the_readme_names_exists():
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))
    named = set(re.findall(r"\bmake ([a-z][\w-]*)", README))
    assert named and named <= targets, named - targets


def test_the_readme_tournament_runs(capsys):
    words = next(words for words in COMMANDS if words[0] == "tournament")
    games = words.index("--games") + 1
    assert main(words[:games] + ["2"] + words[games + 1:]) == 0
    assert "win rate" in capsys.readouterr().out
