"""A real two-node Ray cluster on the loopback interface (issue 14): a head and a worker node started as
separate processes with one CPU each, a short training run joining it with ``address``, env runners on
both nodes, and the cluster's processes ended whatever happens. Skipped without the rllib extra."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra is not installed: pip install 'hiddenhand[rllib]'")

import ray

from hiddenhand.training.rllib.cluster import apply_auth_settings
from hiddenhand.training.rllib.config import load_config, with_overrides
from hiddenhand.training.rllib.trainer import train

from test_rllib import TINY

RAY = Path(sys.executable).with_name("ray")
NODE = ["--node-ip-address=127.0.0.1", "--num-cpus=1", "--object-store-memory=100000000", "--block",
        "--disable-usage-stats"]
START_TIMEOUT_S = 90


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def spawn(args: list[str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:  # its own session: the node's processes are ended as one group
        return subprocess.Popen([str(RAY), "start", *args, *NODE], stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, env=os.environ.copy())


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to `ray start --block` (it ends the node's processes), then SIGKILL to what is left."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:
            try:  # the node's processes that outlived the launcher
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return


def wait_for_nodes(address: str, count: int, deadline: float) -> None:
    apply_auth_settings()
    while True:
        try:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False)
            try:
                while sum(node["Alive"] for node in ray.nodes()) < count:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"fewer than {count} Ray nodes joined within {START_TIMEOUT_S}s")
                    time.sleep(1)
                return
            finally:
                ray.shutdown()
        except ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(2)


def test_two_node_cluster_places_env_runners_on_both_nodes(tmp_path, monkeypatch):
    # token authentication, as `ray start` sets up by default, with this test's own token
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", secrets.token_hex(16))
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH", raising=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    port = free_port()
    address = f"127.0.0.1:{port}"
    nodes = []
    try:
        nodes.append(spawn(["--head", f"--port={port}", "--include-dashboard=false"], tmp_path / "head.log"))
        deadline = time.monotonic() + START_TIMEOUT_S
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert nodes[0].poll() is None, (tmp_path / "head.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "the Ray head did not open its port"
            time.sleep(1)
        nodes.append(spawn([f"--address={address}"], tmp_path / "worker.log"))
        wait_for_nodes(address, 2, deadline)
        # two env runners of one CPU each on two one-CPU nodes: one per node
        config = with_overrides(load_config("david_goliath_quick"),
                                {**TINY, "ray.num_cpus": 0, "ray.num_env_runners": 2, "total_timesteps": 300})
        result = train(config, tmp_path / "run", progress=False, address=address)
        assert len(result.metadata["env_runner_nodes"]) == 2
        assert result.metadata["timesteps"] >= 300
    finally:
        for process in reversed(nodes):
            stop(process)
    assert all(process.poll() is not None for process in nodes)
