"""Web server tests: skipped as a whole without the ``web`` extra (FastAPI, uvicorn, httpx)."""

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install 'hiddenhand[web]'")
pytest.importorskip("httpx", reason="the framework test client needs httpx")

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
