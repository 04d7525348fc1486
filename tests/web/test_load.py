"""Bounded load test on the loopback interface (issue 15): at least 50 concurrent games played to the end
by scripted clients, against a server in its own process (about 6,750 moves; half a minute on 2 free
cores). ``python tests/web/web_load.py --games 50`` prints the same figures."""

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed")

from web_load import measure  # noqa: E402


def test_fifty_concurrent_games_to_the_end():
    figures = measure(50)
    print(figures)
    assert figures["games"] == 50 and figures["human_moves"] == 50 * 3 * 15  # 3 rounds of 15 tricks (DG-4)
    assert figures["move_latency_ms_p95"] < 30_000
