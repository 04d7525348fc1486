"""The benchmark runs over every registered game (figures are printed, never asserted: see README)."""

from hiddenhand.benchmarks import throughput
from hiddenhand.envs.registry import REGISTRY


def test_bench_measures_every_registered_game_and_its_search_costs(capsys):
    assert throughput.main(seconds=0.05) == 0
    out = capsys.readouterr().out
    for name, entry in REGISTRY.items():
        for n in entry.bench_players:
            assert f"{name} {n}p" in out
    assert "rules engine" in out and "determinize" in out
