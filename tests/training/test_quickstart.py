"""The main job (``make run``): its preset trains from scratch (no shipped weights) and is a short run."""

from hiddenhand.training.config import load_config
from hiddenhand.training.quickstart import PRESET


def test_the_main_job_trains_from_scratch_in_a_short_run():
    config = load_config(PRESET)
    assert config.game == "rattus" and config.env["num_players"] == 2
    assert config.imitation.teacher == "heuristic"  # a warm start from the heuristic's moves, not from weights
    assert config.total_timesteps <= 200_000
