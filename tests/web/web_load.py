"""Load test of the web server on the loopback interface: scripted clients play many games at once.

``python tests/web/web_load.py --games 50`` starts ``python -m hiddenhand serve`` (agents without delay)
in a subprocess, plays ``--games`` David & Goliath games concurrently to the end (one human seat each, the
client choosing random legal cards, long-polling while the agents move), and prints the moves per second
(human moves through the API, and all moves), the median and 95th-percentile latency of a move request
and the server's CPU time per move (Linux).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

import httpx

GAME = {"game": "david_goliath", "players": 3, "seats": ["human", "random", "random"]}


async def play(client: httpx.AsyncClient, seed: int, latencies: list[float]) -> int:
    """One game to the end; returns the number of actions played in it."""
    created = (await client.post("/api/games", json={**GAME, "seed": seed})).raise_for_status().json()
    token = created["seats"][0]["token"]
    rng = random.Random(seed)
    frame = (await client.get(f"/api/seat/{token}")).json()
    while frame["status"] != "finished":
        if frame["error"]:
            raise RuntimeError(frame["error"])
        if not frame["your_turn"]:
            frame = (await client.get(f"/api/seat/{token}", params={"after": frame["version"], "wait": 10})).json()
            continue
        start = time.perf_counter()
        response = await client.post(f"/api/seat/{token}/move", json={"action": rng.choice(frame["legal"])["id"]})
        latencies.append(time.perf_counter() - start)
        frame = response.raise_for_status().json()
    return frame["step"]


async def run_load(base: str, games: int) -> dict:
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=2 * games, max_keepalive_connections=2 * games)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        start = time.perf_counter()
        steps = await asyncio.gather(*(play(client, seed, latencies) for seed in range(games)))
        elapsed = time.perf_counter() - start
    latencies.sort()
    return {"games": games, "seconds": round(elapsed, 2), "human_moves": len(latencies),
            "human_moves_per_s": round(len(latencies) / elapsed, 1), "all_moves": sum(steps),
            "all_moves_per_s": round(sum(steps) / elapsed, 1),
            "move_latency_ms_p50": round(1000 * latencies[len(latencies) // 2], 1),
            "move_latency_ms_p95": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1)}


def serve(port: int, max_games: int, db: str) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "hiddenhand", "serve", "--port", str(port),
                               "--agent-delay", "0", "--max-games", str(max_games), "--db", db],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"the server exited: {server.stderr.read().decode()}")
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not start within 30 s")


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a running process (Linux ``/proc``; None elsewhere)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(games: int, db: str | None = None) -> dict:
    """Play ``games`` games against a fresh server whose games database is ``db`` (default: a new file in
    a temporary folder, so every move is committed to disk as in production)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        return _measure(games, port, db or os.path.join(folder, "games.sqlite"))


def _measure(games: int, port: int, db: str) -> dict:
    server = serve(port, games, db)
    try:
        before = cpu_seconds(server.pid)
        figures = asyncio.run(run_load(f"http://127.0.0.1:{port}", games))
        after = cpu_seconds(server.pid)
    finally:
        server.terminate()
        server.wait(10)
    if before is not None and after is not None:  # what the server itself spent, whatever the machine's load
        figures["server_cpu_ms_per_move"] = round(1000 * (after - before) / figures["all_moves"], 2)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--db", default=None, help="the server's games database (default: a temporary file; "
                                                   "':memory:' keeps nothing on disk)")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.games, args.db), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
