"""The evaluation engine: statistics, ratings, determinism across workers, report files, bad input."""

import csv
import json

import pytest

from hiddenhand.agents.tournament import GameRecord, load_records, TournamentResult, run_tournament, wilson_interval
from hiddenhand.training.evaluate import EvaluationResult, evaluate, rate

Z = 1.959964
LINEUP = ["heuristic", "random", "random"]


def record(lineup, scores, truncated=False):
    top = max(scores)
    winners = [] if truncated else [seat for seat, score in enumerate(scores) if score == top]
    return GameRecord(0, lineup, scores, [0.0] * len(lineup), winners, truncated)


def result_of(records, agents):
    ratings, truncated = rate(records, list(dict.fromkeys(agents)))
    return EvaluationResult(TournamentResult("david_goliath", len(agents), records), agents, 0, {}, ratings, truncated)


@pytest.fixture(scope="module")
def played():
    return evaluate("david_goliath", LINEUP, 12, seed=3, workers=1, progress=False)


def test_a_winner_that_always_wins():
    # A wins every game from every seat; B always beats C.
    records = []
    for g in range(10):
        lineup = [["A", "B", "C"][(seat + g) % 3] for seat in range(3)]
        records.append(record(lineup, [{"A": 30.0, "B": 20.0, "C": 10.0}[name] for name in lineup]))
    result = result_of(records, ["A", "B", "C"])
    rows = {row.label: row for row in result.tournament.standings()}
    assert rows["A"].win_rate == 1.0 and rows["B"].win_rate == 0.0
    low, high = rows["A"].interval
    assert low == pytest.approx(10 / (10 + Z * Z)) == pytest.approx(0.7225, abs=1e-4)
    assert high == pytest.approx(1.0)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 1 - 10 / (10 + Z * Z)))
    r = result.ratings
    assert r["A"].mu > r["B"].mu > r["C"].mu
    assert r["A"].ordinal == pytest.approx(r["A"].mu - 3 * r["A"].sigma)
    assert result.truncated == 0
    table = result.table()
    assert "fair share of wins 33.3%" in table and "100.0%" in table


def test_ties_split_wins_and_share_a_rank():
    result = result_of([record(["A", "B", "C"], [5.0, 5.0, 1.0])], ["A", "B", "C"])
    rows = {row.label: row for row in result.tournament.standings()}
    assert rows["A"].wins == rows["B"].wins == 0.5 and rows["C"].wins == 0.0
    r = result.ratings
    assert r["A"].mu == pytest.approx(r["B"].mu)
    assert r["B"].mu > r["C"].mu


def test_pooled_label_and_truncated_games():
    agents = ["A", "A", "B"]
    result = result_of([record(agents, [9.0, 8.0, 1.0]), record(agents, [1.0, 1.0, 1.0], truncated=True)], agents)
    assert set(result.ratings) == {"A", "B"} and result.truncated == 1
    assert result.ratings["A"].mu > 25.0 > result.ratings["B"].mu
    assert {row.label: row.seat_games for row in result.tournament.standings()} == {"A": 4, "B": 2}
    prior, truncated = rate([record(agents, [1.0, 2.0, 3.0], truncated=True)], ["A", "B"])
    assert truncated == 1 and prior["A"].mu == prior["B"].mu == 25.0


def test_same_records_whatever_the_workers(played):
    again = evaluate("david_goliath", LINEUP, 12, seed=3, workers=1, progress=False)
    parallel = evaluate("david_goliath", LINEUP, 12, seed=3, workers=2, progress=False)
    reference = run_tournament("david_goliath", LINEUP, 12, seed=3).records
    assert played.tournament.records == again.tournament.records == parallel.tournament.records == reference
    assert played.ratings == parallel.ratings
    assert [r.lineup for r in played.tournament.records[:3]] == [
        LINEUP, ["random", "random", "heuristic"], ["random", "heuristic", "random"]]
    other = evaluate("david_goliath", LINEUP, 12, seed=4, workers=1, progress=False)
    assert [r.seed for r in other.tournament.records] != [r.seed for r in played.tournament.records]


def test_report_files(played, tmp_path):
    paths = played.write(tmp_path / "report")
    assert set(paths) == {"games", "summary", "plot", "records"}
    assert [record["seed"] for record in load_records(paths["records"])["records"]] == \
        [record.seed for record in played.tournament.records]
    with paths["games"].open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 12
    first = played.tournament.records[0]
    assert rows[0]["index"] == "0" and int(rows[0]["seed"]) == first.seed
    assert [rows[0][f"agent_{s}"] for s in range(3)] == first.lineup
    assert rows[0]["winners"] == " ".join(map(str, first.winners))
    summary = json.loads(paths["summary"].read_text())
    assert summary["config"] == {"game": "david_goliath", "players": 3, "games": 12, "seed": 3,
                                 "env_options": {}, "agents": LINEUP}
    assert {row["agent"] for row in summary["standings"]} == set(summary["ratings"]) == {"heuristic", "random"}
    assert sum(row["wins"] for row in summary["standings"]) == pytest.approx(12)
    assert paths["plot"].read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("game, agents, games, message", [
    ("no_such_game", ["random"] * 3, 4, "unknown game"),
    ("david_goliath", ["random"] * 7, 4, "num_players=7"),
    ("david_goliath", ["random"] * 3, 0, "games must be at least 1"),
    ("david_goliath", ["random", "nobody"], 4, "unknown agent"),
])
def test_bad_input(game, agents, games, message):
    with pytest.raises(ValueError, match=message):
        evaluate(game, agents, games, workers=1, progress=False)


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


@pytest.mark.parametrize("wins, verdict", [(80, "stronger than the heuristic"), (5, "weaker than the heuristic"),
                                           (25, "not distinguishable from the heuristic")])
def test_quickstart_summary_compares_with_the_heuristic(wins, verdict):
    from hiddenhand.training.quickstart import compared_with_heuristic

    lineup = ["agent.npz", "heuristic", "heuristic", "heuristic"]
    records = [record(lineup, [2, 1, 1, 1] if game < wins else [0, 1, 2, 1]) for game in range(100)]
    line = compared_with_heuristic(result_of(records, lineup), "agent.npz")
    assert f"wins {wins / 100:.1%}" in line and "fair share 25.0%" in line and verdict in line
