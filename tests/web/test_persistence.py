"""Games survive the server (issue 26 item 7): every move is in the SQLite database before its answer, a new
server on the same database resumes every live game where it stood (tokens still valid), finished games
stay as records in the tournament's format, and ``serve`` stops promptly on SIGTERM."""

import json
import signal
import sqlite3
import threading
import time

import pytest
from conftest import serve_process, wait_turn

from hiddenhand.agents.tournament import load_records
from hiddenhand.web.records import export_records
from hiddenhand.web.storage import GameDB


def _play(client, tokens, moves):
    """Play up to ``moves`` human moves (the last legal action) for whichever of ``tokens`` (one token, or
    one per seat with None for agents) is to move; the first seat's frame after them."""
    tokens = tokens if isinstance(tokens, list) else [tokens]
    for _ in range(moves):
        frame = wait_turn(client, tokens[0]) if len(tokens) == 1 else client.get(f"/api/seat/{tokens[0]}").json()
        if frame["status"] == "finished" or frame["error"]:
            return frame
        mover = tokens[frame["to_move"]] if len(tokens) > 1 else tokens[0]
        if mover is None:
            client.get(f"/api/seat/{tokens[0]}", params={"after": frame["version"], "wait": 2})
            continue
        legal = client.get(f"/api/seat/{mover}").json()["legal"]
        assert client.post(f"/api/seat/{mover}/move", json={"action": legal[-1]["id"]}).status_code == 200
    return _settled(client, tokens)


def _settled(client, tokens):
    """The first seat's frame once a human seat is to move or the game is over: agents move in the
    background, and a frame taken while they still do would miss their moves."""
    if len(tokens) == 1:
        return wait_turn(client, tokens[0])
    frame = client.get(f"/api/seat/{tokens[0]}").json()
    for _ in range(30):
        if frame["status"] == "finished" or frame["error"] or tokens[frame["to_move"]] is not None:
            return frame
        frame = client.get(f"/api/seat/{tokens[0]}", params={"after": frame["version"], "wait": 2}).json()
    raise AssertionError(f"the agents never stopped: {frame}")


@pytest.mark.parametrize("game, lineup", [("david_goliath", ["human", "heuristic", "human"]),
                                          ("koehandel", ["human", "random", "heuristic"]),
                                          ("rattus", ["human", "heuristic"]),
                                          ("rattus_cartus", ["human", "random", "human"])])
def test_a_new_server_resumes_every_live_game(make_client, tmp_path, game, lineup):
    db = str(tmp_path / "games.sqlite")
    first = make_client(db=db)
    created = first.post("/api/games", json={"game": game, "players": len(lineup), "seats": lineup, "seed": 2}).json()
    token, tokens = created["seats"][0]["token"], [seat["token"] for seat in created["seats"]]
    before = _play(first, tokens, 12)
    first.__exit__(None, None, None)
    second = make_client(db=db)
    after = second.get(f"/api/seat/{token}").json()
    assert {k: after[k] for k in ("step", "view", "legal", "log", "to_move")} == \
           {k: before[k] for k in ("step", "view", "legal", "log", "to_move")}
    for other in filter(None, tokens):  # every human seat's token still opens its seat
        assert second.get(f"/api/seat/{other}").status_code == 200
    final = _play(second, tokens, 10_000)
    assert final["status"] == "finished" and final["error"] is None


def test_an_agent_to_move_moves_after_the_restart(make_client, tmp_path):
    """A game resumed while an agent was to move does not wait for a human (who cannot move)."""
    db = str(tmp_path / "games.sqlite")
    first = make_client(db=db, agent_delay=60)
    for seed in range(40):
        created = first.post("/api/games", json={"game": "koehandel", "players": 3,
                                                 "seats": ["heuristic", "human", "human"], "seed": seed}).json()
        if first.get(f"/api/seat/{created['seats'][1]['token']}").json()["to_move"] == 0:
            break
    first.__exit__(None, None, None)
    frame = wait_turn(make_client(db=db), created["seats"][1]["token"])
    assert frame["step"] > 0 and frame["log"][0]["seat"] == 0


def test_a_snapshot_that_no_longer_restores_is_replayed_from_the_moves(make_client, tmp_path):
    """The snapshot format may change between versions: the seed and the moves rebuild the game."""
    db = str(tmp_path / "games.sqlite")
    first = make_client(db=db)
    token = first.post("/api/games", json={"game": "koehandel", "players": 3, "seats": ["human", "random", "random"],
                                           "seed": 4}).json()["seats"][0]["token"]
    before = _play(first, token, 8)
    first.__exit__(None, None, None)
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE games SET snapshot = ?", (json.dumps({"format": "from another version"}),))
    after = make_client(db=db).get(f"/api/seat/{token}").json()
    assert (after["step"], after["view"], after["log"]) == (before["step"], before["view"], before["log"])


def test_every_move_is_committed_before_the_answer(make_client, tmp_path):
    db = str(tmp_path / "games.sqlite")
    client = make_client(db=db)
    created = client.post("/api/games", json={"game": "david_goliath", "players": 3,
                                              "seats": ["human", "human", "human"], "seed": 1}).json()
    frame = client.get(f"/api/seat/{created['seats'][0]['token']}").json()
    mover = created["seats"][frame["to_move"]]["token"]
    legal = client.get(f"/api/seat/{mover}").json()["legal"]
    assert client.post(f"/api/seat/{mover}/move", json={"action": legal[0]["id"]}).status_code == 200
    with sqlite3.connect(db) as other:  # another connection, as after a crash
        assert other.execute("SELECT count(*) FROM moves").fetchone()[0] == 1
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_finished_games_export_as_tournament_records(make_client, tmp_path):
    """Koehandel's event log is part of each record (data for bluffing research)."""
    db = str(tmp_path / "games.sqlite")
    client = make_client(db=db)
    for seed in (1, 2):
        token = client.post("/api/games", json={"game": "koehandel", "players": 3,
                                                "seats": ["human", "heuristic", "random"], "seed": seed}).json()
        final = _play(client, token["seats"][0]["token"], 10_000)
    written = export_records(db, tmp_path / "out")
    assert list(written.values()) == [2]
    data = load_records(next(iter(written)))
    assert data["game"] == "koehandel" and data["num_players"] == 3
    record = data["records"][1]
    assert record["lineup"] == ["human", "heuristic", "random"] and record["seed"] == 2
    assert [record["scores"][i] for i in range(3)] == [final["result"]["scores"][f"player_{i}"] for i in range(3)]
    assert record["events"] and {"auction", "trade"} & {event["kind"] for event in record["events"]}


def test_expired_games_stay_expired_after_a_restart(make_client, tmp_path):
    db = str(tmp_path / "games.sqlite")
    client = make_client(db=db, idle_ttl=0.05)
    token = client.post("/api/games", json={"game": "david_goliath", "players": 3, "seats": ["human"] * 3}).json()
    time.sleep(0.1)
    assert client.app.state.store.sweep() == 1
    client.__exit__(None, None, None)
    assert make_client(db=db).get(f"/api/seat/{token['seats'][0]['token']}").status_code == 410


def test_a_bad_database_path_is_refused(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ValueError, match="cannot open the games database"):
        GameDB(tmp_path / "file" / "games.sqlite")


def test_serve_survives_sigkill_and_stops_promptly_on_sigterm(tmp_path):
    """SIGKILL mid-game, a new ``serve`` on the same database: the same token finishes the game. SIGTERM with
    a long poll open: the process exits within a few seconds (it took 8-10 s)."""
    import httpx

    db = str(tmp_path / "games.sqlite")
    with serve_process(db) as (base, process):
        api = httpx.Client(base_url=base, timeout=30)
        token = api.post("/api/games", json={"game": "david_goliath", "players": 3,
                                             "seats": ["human", "heuristic", "random"], "seed": 5}).json()["seats"][0]["token"]
        _play(api, token, 7)
        before = wait_turn(api, token)  # the agents have moved: the human is to move
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    with serve_process(db) as (base, process):
        api = httpx.Client(base_url=base, timeout=30)
        assert api.get(f"/api/seat/{token}").json()["view"] == before["view"]
        final = _play(api, token, 10_000)
        assert final["status"] == "finished"
        waiting = api.post("/api/games", json={"game": "david_goliath", "players": 3, "seats": ["human"] * 3}).json()
        idle = next(seat["token"] for seat in waiting["seats"]
                    if not api.get(f"/api/seat/{seat['token']}").json()["your_turn"])
        def long_poll():
            try:
                httpx.get(f"{base}/api/seat/{idle}", params={"after": 0, "wait": 30}, timeout=40)
            except httpx.HTTPError:
                pass  # the server stopping under an open poll may close it without an answer

        poll = threading.Thread(target=long_poll, daemon=True)
        poll.start()
        time.sleep(0.5)
        start = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(20)
        assert time.monotonic() - start < 4
