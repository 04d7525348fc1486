"""The main job (``make run``): its preset trains from scratch (no shipped weights) and is a short run."""

from hiddenhand.training.config import load_config
from hiddenhand.training.quickstart import PRESET


def test_the_main_job_trains_from_scratch_in_a_short_run():
    config = load_config(PRESET)
    assert config.game == "rattus" and config.env["num_players"] == 2
    assert config.imitation.teacher == "heuristic"  # a warm start from the heuristic's moves, not from weights
    assert config.total_timesteps <= 200_000


def test_the_main_job_runs_end_to_end_and_resumes(tmp_path, monkeypatch, capsys):
    """``make run``'s path on a shortened preset: train from scratch past a checkpoint, evaluate against
    both line-ups, write the reports, give the verdict; run again, it resumes the finished run."""
    from hiddenhand.training import quickstart as job
    from hiddenhand.training.config import with_overrides

    short = with_overrides(load_config(PRESET), {
        "total_timesteps": 512, "n_envs": 1, "vec_env": "dummy", "checkpoint_every": 256, "ppo.n_steps": 256,
        "ppo.batch_size": 128, "imitation.games": 2, "imitation.epochs": 1, "eval.every": 10**9})
    monkeypatch.setattr(job, "load_config", lambda name: short)
    assert job.quickstart(tmp_path, games=4) == 0
    out = capsys.readouterr().out
    assert "summary: against heuristic opponents the trained agent wins" in out
    for opponent in ("random", "heuristic"):
        written = {path.name for path in (tmp_path / f"eval_vs_{opponent}").iterdir()}
        assert {"games.csv", "summary.json", "winrates.png"} <= written
    assert (tmp_path / "agent.npz").is_file() and (tmp_path / "agent.md").is_file()
    assert len(list((tmp_path / "checkpoints").glob("step_*"))) >= 1
    assert job.quickstart(tmp_path, games=4) == 0  # a finished run is evaluated again, not retrained
    assert "summary:" in capsys.readouterr().out
