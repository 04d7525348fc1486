"""The evaluation engine: statistics on known outcomes, ratings, parallel determinism, reports."""

import csv
import json

import pytest

from hiddenhand.agents.tournament import GameRecord, TournamentResult
from hiddenhand.training.evaluate import EvaluationResult, evaluate, rate


def known_result(games=10):
    """A always wins; B and C split second place; the last game is a three-way tie."""
    records = [GameRecord(g, ["A", "B", "C"], [10.0, 5.0, 5.0], [1.0, -1.0, -1.0], [0]) for g in range(games - 1)]
    records.append(GameRecord(games, ["B", "C", "A"], [7.0, 7.0, 7.0], [1 / 3] * 3, [0, 1, 2]))
    tournament = TournamentResult("david_goliath", 3, records)
    ratings, truncated = rate(records, ["A", "B", "C"])
    return EvaluationResult(tournament, ["A", "B", "C"], 0, {}, ratings, truncated)


def test_statistics_on_a_known_outcome():
    result = known_result()
    rows = {row.label: row for row in result.tournament.standings()}
    assert rows["A"].wins == pytest.approx(9 + 1 / 3) and rows["A"].seat_games == 10
    assert rows["B"].wins == pytest.approx(1 / 3)
    assert rows["A"].interval[0] > 0.6 and rows["B"].interval[1] < 0.4
    assert result.ratings["A"].mu > result.ratings["B"].mu
    assert result.ratings["B"].mu == pytest.approx(result.ratings["C"].mu)
    assert result.truncated == 0
    table = result.table()
    assert "fair share of wins 33.3%" in table and "ordinal" in table


def test_truncated_games_are_skipped_by_the_ratings():
    records = [GameRecord(0, ["A", "B"], [1.0, 0.0], [0.0, 0.0], [], truncated=True)]
    ratings, truncated = rate(records, ["A", "B"])
    assert truncated == 1 and ratings["A"].mu == ratings["B"].mu


def test_reports_are_written(tmp_path):
    paths = known_result().write(tmp_path)
    rows = list(csv.DictReader(paths["games"].open()))
    assert len(rows) == 10 and rows[-1]["winners"] == "0 1 2"
    summary = json.loads(paths["summary"].read_text())
    assert summary["standings"][0]["agent"] == "A" and summary["fair_share"] == pytest.approx(1 / 3)
    assert paths["plot"].read_bytes().startswith(b"\x89PNG")


def test_parallel_evaluation_matches_in_process_and_is_seeded():
    agents = ["heuristic", "random", "random"]
    one = evaluate("david_goliath", agents, 12, seed=4, env_options={"rounds": 1}, workers=1, progress=False)
    two = evaluate("david_goliath", agents, 12, seed=4, env_options={"rounds": 1}, workers=2, progress=False)
    assert [r.scores for r in one.tournament.records] == [r.scores for r in two.tournament.records]
    assert [r.lineup for r in one.tournament.records] == [r.lineup for r in two.tournament.records]
    assert one.ratings == two.ratings


@pytest.mark.parametrize("kwargs, message", [
    ({"game": "chess"}, "unknown game"),
    ({"agents": ["random"] * 7}, "num_players"),
    ({"games": 0}, "games"),
    ({"agents": ["random", "nobody", "random"]}, "unknown agent"),
])
def test_bad_input(kwargs, message):
    args = {"game": "david_goliath", "agents": ["random"] * 3, "games": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        evaluate(args["game"], args["agents"], args["games"], workers=1, progress=False)


def test_trained_agents_bring_their_env_options(tmp_path):
    """An agent trained with extra observation features is evaluated on the env that has them."""
    import numpy as np

    from hiddenhand.agents import env_options_for, save_policy
    from hiddenhand.envs import make

    size = make("david_goliath", num_players=3, card_features=True).observation_space("player_0")["observation"].shape[0]
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(8, size)).astype(np.float32), np.zeros(8, np.float32)),
               (rng.normal(size=(90, 8)).astype(np.float32), np.zeros(90, np.float32))]
    meta = {"name": "f", "game": "david_goliath", "num_players": 3, "activation": "tanh",
            "env_options": {"num_players": 3, "card_features": True, "reward_mode": "score_margin"}}
    path = str(save_policy(tmp_path / "f.npz", weights, meta))
    assert env_options_for([path, "random"]) == {"card_features": True}
    result = evaluate("david_goliath", [path, "random", "random"], 3, workers=1, progress=False)
    assert len(result.tournament.records) == 3 and result.env_options == {"card_features": True}
