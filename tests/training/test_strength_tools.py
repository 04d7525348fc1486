"""The measuring tools of docs/agents.md: a search agent's strength with its CPU per move, and the CPU
time a training preset needs until its agent beats the heuristic."""

from __future__ import annotations

import json

from hiddenhand.training import search_strength, time_to_strength


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
    settings = {"env.num_players": 3, "env.rounds": 1, "n_envs": 1, "ppo.n_steps": 64, "ppo.batch_size": 32,
                "ppo.net_arch": [8], "checkpoint_every": 64}
    rows = time_to_strength.measure("david_goliath", "sb3", "david_goliath_quick", settings, chunk=64, run_dir=run,
                                    games=4, max_cpu_minutes=1e-9)
    assert len(rows) == 1 and rows[0]["progress"] == 64 and rows[0]["cpu_minutes"] > 0
    logged = [json.loads(line) for line in (run / "time_to_strength.jsonl").read_text().splitlines()]
    assert logged == rows
    more = time_to_strength.measure("david_goliath", "sb3", "david_goliath_quick", settings, chunk=64, run_dir=run,
                                    games=4, max_cpu_minutes=1e-9)
    assert more == rows  # the budget was spent: the measurement stands, nothing is trained again


def test_a_reached_run_is_confirmed_by_further_games_with_another_seed(tmp_path, capsys):
    run = tmp_path / "run"
    settings = {"env.num_players": 3, "env.rounds": 1, "n_envs": 1, "ppo.n_steps": 64, "ppo.batch_size": 32,
                "ppo.net_arch": [8], "checkpoint_every": 64}
    time_to_strength.measure("david_goliath", "sb3", "david_goliath_quick", settings, chunk=64, run_dir=run,
                             games=4, max_cpu_minutes=1e-9)
    log = run / "time_to_strength.jsonl"
    row = json.loads(log.read_text())
    log.write_text(json.dumps({**row, "ci95": [0.9, 1.0]}) + "\n")  # as if its check had been above
    args = ["david_goliath", "--config", "david_goliath_quick", "--chunk", "64", "--games", "4", "--run-dir", str(run),
            "--confirm", "6"] + [f"--set={key}={json.dumps(value)}" for key, value in settings.items()]
    assert time_to_strength.main(args) == 0
    out = capsys.readouterr().out
    assert "reached: " in out and "6 further games: " in out
    result = json.loads((run / "confirmation.json").read_text())
    assert result["games"] == 6 and result["seed"] == time_to_strength.CONFIRM_SEED != time_to_strength.CHECK_SEED
    assert result["held"] == (result["ci95"][0] > result["fair_share"] == 1 / 3)
    assert json.loads(log.read_text()) == {**row, "ci95": [0.9, 1.0]}  # nothing trained again
