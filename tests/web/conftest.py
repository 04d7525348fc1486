"""Web server tests: skipped as a whole without the ``web`` extra (FastAPI, uvicorn, httpx)."""

import contextlib
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install 'hiddenhand[web]'")
pytest.importorskip("httpx", reason="the framework test client needs httpx")

import httpx  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from hiddenhand.web.app import create_app  # noqa: E402
from hiddenhand.web.sessions import Settings  # noqa: E402


@pytest.fixture
def make_client(tmp_path):
    """A test client factory: ``make_client(**settings)`` (agents move at once unless told otherwise)."""
    clients = []

    def make(**settings):
        settings.setdefault("agent_delay", 0.0)
        client = TestClient(create_app(Settings(**settings)))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client):
    return make_client()


def wait_turn(client, token, limit=30):
    """The seat's frame once it is its turn or the game is over (agents move in the background)."""
    frame = client.get(f"/api/seat/{token}").json()
    for _ in range(limit):
        if frame["your_turn"] or frame["status"] == "finished" or frame["error"]:
            return frame
        frame = client.get(f"/api/seat/{token}", params={"after": frame["version"], "wait": 2}).json()
    raise AssertionError(f"seat never got the move: {frame}")


@pytest.fixture
def live_server():
    """``live_server(**settings)``: the app served by uvicorn on a free loopback port, in a thread;
    returns its base URL. Stopped after the test."""
    import socket
    import threading
    import time

    import uvicorn

    servers = []

    def start(**settings):
        settings.setdefault("agent_delay", 0.0)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(create_app(Settings(**settings)), host="127.0.0.1", port=port,
                                               log_level="warning", backlog=512, timeout_graceful_shutdown=1))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        servers.append((server, thread))
        return f"http://127.0.0.1:{port}"

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def serve_process(db, *extra, port=None):
    """``python -m hiddenhand serve`` on a loopback port (a free one unless given) with the games database
    ``db``, in its own process: yields (base URL, process); the process is killed afterwards if it still runs."""
    if port is None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "hiddenhand", "serve", "--port", str(port), "--db", str(db),
                                "--agent-delay", "0", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(base + "/api/catalog", timeout=5)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"serve did not start: {process.stderr.read().decode()[-2000:]}") from None
                time.sleep(0.1)
        yield base, process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
