"""The measuring tools of docs/agents.md: a search agent's strength with its CPU per move, and the CPU
time a training preset needs until its agent beats the heuristic."""

from __future__ import annotations

import json

from hiddenhand.training import search_strength, time_to_strength

QUICK = {"env.num_players": 3, "env.rounds": 1, "n_envs": 1, "ppo.n_steps": 64, "ppo.batch_size": 32,
         "ppo.net_arch": [8], "checkpoint_every": 64}


def test_search_strength_reports_win_rate_and_move_times(capsys):
    row = search_strength.measure("david_goliath", "pimc:determinizations=1:horizon=3", 3, games=3,
                                  env_options={"rounds": 1})
    assert row["games"] == 3 and 0 <= row["win_rate"] <= 1 and row["ci95"][0] <= row["win_rate"] <= row["ci95"][1]
    assert 0 < row["move_cpu_ms_p50"] <= row["move_cpu_ms_p95"]
    again = search_strength.measure("david_goliath", "pimc:determinizations=1:horizon=3", 3, games=3,
                                    env_options={"rounds": 1})
    assert again["win_rate"] == row["win_rate"]  # seeded games


def test_time_to_strength_trains_in_chunks_and_resumes(tmp_path):
    run = tmp_path / "run"
    rows = time_to_strength.measure("david_goliath", "sb3", "david_goliath_quick", QUICK, chunk=64, run_dir=run,
                                    games=4, max_cpu_minutes=1e-9)
    assert len(rows) == 1 and rows[0]["progress"] == 64 and rows[0]["cpu_minutes"] > 0
    card = (run / "agent.md").read_text()  # the checks are the evaluation: the run plays no games of its own
    assert "## Evaluation during training" not in card and "## Training configuration" in card
    logged = [json.loads(line) for line in (run / "time_to_strength.jsonl").read_text().splitlines()]
    assert logged == rows
    more = time_to_strength.measure("david_goliath", "sb3", "david_goliath_quick", QUICK, chunk=64, run_dir=run,
                                    games=4, max_cpu_minutes=1e-9)
    assert more == rows  # the budget was spent: the measurement stands, nothing is trained again


def quick_run_reached_at_first_check(run) -> dict:
    """A run of one quick chunk whose check is rewritten as if it had been above the fair share."""
    time_to_strength.measure("david_goliath", "sb3", "david_goliath_quick", QUICK, chunk=64, run_dir=run,
                             games=4, max_cpu_minutes=1e-9)
    log = run / "time_to_strength.jsonl"
    row = {**json.loads(log.read_text()), "ci95": [0.9, 1.0]}
    log.write_text(json.dumps(row) + "\n")
    return row


def test_a_reached_run_is_confirmed_by_further_games_with_another_seed(tmp_path, capsys):
    run = tmp_path / "run"
    row = quick_run_reached_at_first_check(run)
    args = ["david_goliath", "--config", "david_goliath_quick", "--chunk", "64", "--games", "4", "--run-dir", str(run),
            "--confirm", "6", "--max-cpu-minutes", "1e-9"] + [f"--set={k}={json.dumps(v)}" for k, v in QUICK.items()]
    assert time_to_strength.main(args) == 0
    out = capsys.readouterr().out
    assert "reached: " in out and "total_timesteps 64: 6 further games: " in out
    result = json.loads((run / "confirmation.json").read_text())
    assert result["games"] == 6 and result["seed"] == time_to_strength.CONFIRM_SEED != time_to_strength.CHECK_SEED
    assert result["held"] == (result["ci95"][0] > result["fair_share"] == 1 / 3)
    log = run / "time_to_strength.jsonl"
    assert [json.loads(line) for line in log.read_text().splitlines()] == [{**row, "confirmation": result}]


def test_a_check_the_further_games_do_not_hold_is_trained_past(tmp_path, monkeypatch):
    run = tmp_path / "run"
    row = quick_run_reached_at_first_check(run)
    not_held = {"games": 6, "win_rate": 0.2, "ci95": [0.1, 0.3], "fair_share": 1 / 3, "held": False}
    confirmed = []
    monkeypatch.setattr(time_to_strength, "confirm", lambda game, run_dir, games: confirmed.append(games) or not_held)
    rows = time_to_strength.measure("david_goliath", "sb3", "david_goliath_quick", QUICK, chunk=64, run_dir=run,
                                    games=4, max_cpu_minutes=row["cpu_minutes"] + 1e-9, confirm_games=6)
    assert rows[0] == {**row, "confirmation": not_held}
    assert [r["progress"] for r in rows] == [64, 128]  # trained on to the next check, then the budget was spent
    assert confirmed == [6] * (1 + time_to_strength.reached(rows[1]))
    again = time_to_strength.measure("david_goliath", "sb3", "david_goliath_quick", QUICK, chunk=64, run_dir=run,
                                     games=4, max_cpu_minutes=row["cpu_minutes"] + 1e-9, confirm_games=6)
    assert again == rows  # the confirmations are in the log: resuming neither confirms nor trains again
