"""Rattus scripted agents (agents/heuristics/rattus.py): legal play in every style, the heuristic beats
random play, and the AM-1 calibration command runs (spec §10.8, RA-2)."""

from __future__ import annotations

import numpy as np
import pytest

from hiddenhand.agents import load
from hiddenhand.agents.base import RandomAgent
from hiddenhand.agents.heuristics.rattus import STYLES, RattusBot, calibrate, play_bots
from hiddenhand.envs.rattus.observation import RattusObserver
from hiddenhand.envs.rattus.rules import RattusGame


@pytest.mark.parametrize("style", STYLES)
def test_every_style_plays_legal_games(style):
    """§10.8 baselines and AM-1 specialists: every action legal, every game finished."""
    for n in (2, 3, 4):
        game = RattusGame(n)
        winners, reason, scores = play_bots(game, [style] + ["placer"] * (n - 1), n)
        assert winners and reason >= 0 and len(scores) == n


def test_the_registered_heuristic_beats_random_play():
    game = RattusGame(2)
    agent = load("heuristic", game, seed=0)
    assert isinstance(agent, RattusBot) and agent.style == "heuristic"
    observer = RattusObserver(game)
    won = 0.0
    games = 30
    for i in range(games):
        rng = np.random.default_rng(i)
        seat = i % 2
        agents = [agent if p == seat else RandomAgent(i) for p in range(2)]
        state = game.new_initial_state(rng)
        while not state.is_terminal:
            p = state.current_player
            state.apply(agents[p].act(observer.encode(state, p), state.legal_mask()), rng)
        won += (seat in state.winners()) / len(state.winners())
    assert won / games > 0.8


def test_calibration_reports_the_gates(capsys):
    """AM-1: G1-G3 figures and the ending frequencies of placer self-play."""
    report = calibrate(games=2, players=(2,))
    row = report[2]
    assert set(row["endings"]) == {"rat_supply_empty", "all_cubes_placed", "no_progress", "turn_cap"}
    assert {"G1", "G2", "G3", "vs_placer", "vs_peasant-rush", "mean_placer_score"} <= set(row)
    assert "2 players" in capsys.readouterr().out
