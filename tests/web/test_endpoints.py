"""Every endpoint of the web API, its answers and its refusals (issue 15: bad input and limits)."""

import json
import time
from pathlib import Path

import pytest
from conftest import wait_turn

from hiddenhand.agents.tournament import run_tournament, save_records
from hiddenhand.envs import REGISTRY
from hiddenhand.web.app import create_app


def new_game(client, game="david_goliath", seats=("human", "random", "random"), seed=3, **extra):
    response = client.post("/api/games", json={"game": game, "players": len(seats), "seats": list(seats),
                                               "seed": seed, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def play_out(client, token, pick=lambda frame: frame["legal"][0]["id"]):
    while True:
        frame = wait_turn(client, token)
        if frame["status"] == "finished":
            return frame
        response = client.post(f"/api/seat/{token}/move", json={"action": pick(frame)})
        assert response.status_code == 200, response.text


def test_pages_and_static_files(client):
    for path in ("/", "/play/anything", "/replay"):
        response = client.get(path)
        assert response.status_code == 200 and "app.js" in response.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200


def test_catalog_lists_every_registered_game_with_its_agents(client):
    catalog = client.get("/api/catalog").json()
    assert [g["name"] for g in catalog["games"]] == list(REGISTRY)
    for game in catalog["games"]:
        assert game["player_counts"] == list(REGISTRY[game["name"]].player_counts)
        for agents in game["agents"].values():
            assert {"random", "heuristic", "ismcts", "pimc"} <= set(agents)
    dg = next(g for g in catalog["games"] if g["name"] == "david_goliath")
    assert "david_goliath_4p" in dg["agents"]["4"] and "david_goliath_4p" not in dg["agents"]["3"]


def test_create_gives_a_secret_token_to_humans_only(client):
    created = new_game(client, seats=("human", "heuristic", "human"))
    tokens = [seat["token"] for seat in created["seats"]]
    assert tokens[1] is None and tokens[0] and tokens[2] and tokens[0] != tokens[2]
    assert all(len(token) >= 24 for token in (tokens[0], tokens[2]))
    assert created["seats"][0]["url"] == f"/play/{tokens[0]}"
    frame = client.get(f"/api/seat/{tokens[2]}").json()
    assert frame["seat"] == 2 and frame["seats"][2]["you"] and frame["seats"][1]["player"] == "heuristic"


@pytest.mark.parametrize("game", list(REGISTRY))
def test_every_registered_game_plays_to_the_end_against_agents(client, game):
    players = REGISTRY[game].player_counts[0]
    created = new_game(client, game, seats=("human", *["random"] * (players - 1)), seed=5)
    frame = play_out(client, created["seats"][0]["token"])
    assert frame["result"]["scores"] and frame["legal"] == [] and frame["to_move"] is None
    assert frame["view"]["kind"] == (game if game in ("david_goliath", "koehandel", "rattus", "rattus_cartus")
                                     else "text")


def test_move_by_name_and_by_id(client):
    token = new_game(client)["seats"][0]["token"]
    frame = wait_turn(client, token)
    first, second = frame["legal"][0], frame["legal"][-1]
    moved = client.post(f"/api/seat/{token}/move", json={"action": first["label"]})
    assert moved.status_code == 200 and moved.json()["step"] > frame["step"]
    frame = wait_turn(client, token)
    assert client.post(f"/api/seat/{token}/move", json={"action": frame["legal"][-1]["id"]}).status_code == 200
    assert second  # both forms were accepted


def test_bad_moves_are_refused_and_leave_the_game_untouched(client):
    token = new_game(client, seats=("human", "random", "human"))["seats"][0]["token"]
    other = client.get(f"/api/seat/{token}").json()
    frame = wait_turn(client, token)
    legal = {a["id"] for a in frame["legal"]}
    illegal = next(a for a in range(90) if a not in legal)
    cases = [
        ({"action": illegal}, 422, "not legal"),
        ({"action": 90}, 422, "out of range"),
        ({"action": -1}, 422, "out of range"),
        ({"action": "Z99"}, 422, "not an action"),
        ({"action": True}, 400, "malformed"),
        ({"action": [1]}, 400, "malformed"),
        ({}, 400, "malformed"),
        ({"action": 1, "extra": 2}, 400, "malformed"),
    ]
    for body, status, words in cases:
        response = client.post(f"/api/seat/{token}/move", json=body)
        assert response.status_code == status, (body, response.text)
        assert words in response.json()["error"], (body, response.json())
    response = client.post(f"/api/seat/{token}/move", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and "malformed" in response.json()["error"]
    after = client.get(f"/api/seat/{token}").json()
    assert after["step"] == frame["step"] and after["view"] == frame["view"]
    assert other["seat"] == 0


def test_move_out_of_turn(client):
    created = new_game(client, seats=("human", "human", "human"))
    frame = client.get(f"/api/seat/{created['seats'][0]['token']}").json()
    waiting = next(s for s in created["seats"] if s["seat"] != frame["to_move"])
    response = client.post(f"/api/seat/{waiting['token']}/move", json={"action": 0})
    assert response.status_code == 409 and "not your turn" in response.json()["error"]
    assert client.get(f"/api/seat/{waiting['token']}").json()["step"] == frame["step"]


def test_move_after_the_end_and_unknown_tokens(client):
    token = new_game(client)["seats"][0]["token"]
    play_out(client, token)
    response = client.post(f"/api/seat/{token}/move", json={"action": 0})
    assert response.status_code == 409 and "over" in response.json()["error"]
    for path in ("/api/seat/nope", "/api/seat/nope/replay"):
        response = client.get(path)
        assert response.status_code == 404 and "unknown seat token" in response.json()["error"]
    assert client.post("/api/seat/nope/move", json={"action": 0}).status_code == 404


@pytest.mark.parametrize("body, words", [
    ({"game": "chess", "players": 2, "seats": ["human", "random"]}, "unknown game"),
    ({"game": "david_goliath", "players": 7, "seats": ["human"] * 7}, "not 7"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "random"]}, "2 seats for 3"),
    ({"game": "david_goliath", "players": 3, "seats": ["random"] * 3}, "human"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "/etc/passwd", "random"]}, "unknown agent"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "../agents/trained/david_goliath_4p", "random"]},
     "unknown agent"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "david_goliath_4p", "random"]}, "unknown agent"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "ismcts:iterations=100000", "random"]}, "1..2000"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "ismcts:rollout=/tmp/x.npz", "random"]}, "rollout"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "ismcts:seconds=100", "random"]}, "cannot be set"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "ismcts:oops", "random"]}, "key=value"),
    ({"game": "david_goliath", "players": "3", "seats": ["human"] * 3, "seed": -1}, "seed"),
    ({"game": "david_goliath"}, "malformed"),
])
def test_bad_new_games_are_refused(client, body, words):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.text
    assert words in response.json()["error"]


def test_search_agent_specs_within_the_limits(client):
    created = new_game(client, seats=("human", "ismcts:iterations=5", "pimc:determinizations=1:rollout=heuristic"))
    frame = play_out(client, created["seats"][0]["token"])
    assert [s["player"] for s in frame["seats"]][1:] == ["ismcts:iterations=5", "pimc:determinizations=1:rollout=heuristic"]


def test_cap_on_concurrent_games(make_client):
    client = make_client(max_games=2)
    new_game(client)
    new_game(client)
    response = client.post("/api/games", json={"game": "david_goliath", "players": 3,
                                               "seats": ["human", "random", "random"]})
    assert response.status_code == 503 and "full" in response.json()["error"] and "limit 2" in response.json()["error"]


def test_finished_and_idle_games_are_cleaned_up(make_client):
    client = make_client(finished_ttl=0.05, idle_ttl=1.0, max_games=2)  # idle: a second's margin under load
    finished = new_game(client)["seats"][0]["token"]
    play_out(client, finished)
    idle = new_game(client, seats=("human", "human", "human"))["seats"][0]["token"]
    store = client.app.state.store
    time.sleep(0.1)
    assert store.sweep() == 1
    response = client.get(f"/api/seat/{finished}")
    assert response.status_code == 410 and "expired" in response.json()["error"]
    assert client.get(f"/api/seat/{idle}").status_code == 200
    time.sleep(1.0)
    new_game(client)  # creating sweeps: the idle game makes room
    assert client.get(f"/api/seat/{idle}").status_code == 410
    assert client.post(f"/api/seat/{idle}/move", json={"action": 0}).status_code == 410


def test_long_poll_returns_when_the_game_moves(make_client):
    client = make_client(agent_delay=0.3)
    created = new_game(client, seats=("human", "random", "random"), seed=1)
    token = created["seats"][0]["token"]
    frame = client.get(f"/api/seat/{token}").json()
    if frame["your_turn"]:
        frame = client.post(f"/api/seat/{token}/move", json={"action": frame["legal"][0]["id"]}).json()
    start = time.monotonic()
    later = client.get(f"/api/seat/{token}", params={"after": frame["version"], "wait": 10}).json()
    assert later["version"] > frame["version"] and time.monotonic() - start < 5


def test_replay_of_a_finished_game(client):
    created = new_game(client, seats=("human", "heuristic", "random"))
    token = created["seats"][0]["token"]
    early = client.get(f"/api/seat/{token}/replay")
    assert early.status_code == 409 and "finished" in early.json()["error"]
    final = play_out(client, token)
    steps = final["step"]
    start = client.get(f"/api/seat/{token}/replay", params={"step": 0}).json()
    assert start["replay"] == {"step": 0, "steps": steps, "spectator": False}
    assert len(start["view"]["hand"]) == 15 and "hand" not in start["view"]["seats"][1]
    spectator = client.get(f"/api/seat/{token}/replay", params={"step": 0, "spectator": True}).json()
    assert spectator["view"]["hand"] is None and all(len(s["hand"]) == 15 for s in spectator["view"]["seats"])
    end = client.get(f"/api/seat/{token}/replay", params={"step": steps}).json()
    assert end["status"] == "finished" and end["result"] == final["result"]
    assert client.get(f"/api/seat/{token}/replay", params={"step": steps + 1}).status_code == 400
    assert client.get(f"/api/seat/{token}/replay", params={"step": "x"}).status_code == 400


def test_replay_of_saved_tournament_records(make_client, tmp_path):
    result = run_tournament("david_goliath", ["random", "heuristic", "random"], 2, seed=1, env_options={"rounds": 1})
    save_records(tmp_path / "dg.json", result, {"rounds": 1})
    (tmp_path / "junk.json").write_text(json.dumps({"format": "something else"}))
    (tmp_path / "secret.txt").write_text("not offered")
    client = make_client(records_dir=str(tmp_path))
    listing = client.get("/api/records").json()
    assert listing == {"files": [{"file": "dg.json", "game": "david_goliath", "num_players": 3, "games": 2}]}
    record = result.records[1]
    end = client.get("/api/records/dg.json/1", params={"step": len(record.history)}).json()
    assert end["status"] == "finished" and [s["player"] for s in end["seats"]] == record.lineup
    assert list(end["result"]["scores"].values()) == record.scores
    seat = client.get("/api/records/dg.json/1", params={"step": 3, "seat": 2}).json()
    assert seat["seat"] == 2 and len(seat["view"]["hand"]) >= 14
    for path, status in (("/api/records/secret.txt/0", 404), ("/api/records/..%2Fdg.json/0", 404),
                         ("/api/records/dg.json/2", 404), ("/api/records/junk.json/0", 404)):
        assert client.get(path).status_code == status, path
    assert client.get("/api/records/dg.json/0", params={"seat": 3}).status_code == 400


def test_records_list_the_games_finished_here(make_client, tmp_path):
    """Finished games stay as records (issue 26 item 7): listed without a records folder, replayed the
    same way, in the tournament's records format."""
    client = make_client(db=str(tmp_path / "games.sqlite"))
    assert client.get("/api/records").json() == {"files": []}
    token = new_game(client, seats=("human", "heuristic", "random"))["seats"][0]["token"]
    final = play_out(client, token)
    listing = client.get("/api/records").json()["files"]
    assert listing == [{"file": "played_david_goliath_3p.json", "game": "david_goliath", "num_players": 3,
                        "games": 1}]
    end = client.get("/api/records/played_david_goliath_3p.json/0", params={"step": final["step"]}).json()
    assert end["result"]["scores"] == final["result"]["scores"]
    assert [s["player"] for s in end["seats"]] == ["human", "heuristic", "random"]


@pytest.mark.parametrize("body, field", [
    ({"game": "david_goliath", "players": "3", "seats": ["human", "random", "random"]}, "players"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", "random", "random"], "seed": "1"}, "seed"),
    ({"game": "david_goliath", "players": 3.0, "seats": ["human", "random", "random"]}, "players"),
    ({"game": "david_goliath", "players": True, "seats": ["human", "random", "random"]}, "players"),
    ({"game": 7, "players": 3, "seats": ["human", "random", "random"]}, "game"),
    ({"game": "david_goliath", "players": 3, "seats": ["human", 1, "random"]}, "seats.1"),
])
def test_types_are_strict(client, body, field):
    """Issue 22: a string (or float, bool) where an int is expected is refused, naming the field."""
    response = client.post("/api/games", json=body)
    assert response.status_code == 400 and f"body.{field}:" in response.json()["error"], response.text


@pytest.mark.parametrize("method, path, status, words", [
    ("GET", "/no/such/page", 404, "no such page"),
    ("GET", "/api/nothing", 404, "/api/nothing"),
    ("DELETE", "/api/catalog", 405, "DELETE is not allowed"),
    ("PUT", "/api/games", 405, "PUT is not allowed"),
    ("GET", "/api/seat/x/move", 405, "GET is not allowed"),
    ("GET", "/static/missing.js", 404, "no such page"),
])
def test_every_error_is_an_error_object(client, method, path, status, words):
    """Issue 22: unknown paths and methods answer ``{"error": ...}`` like every other refusal."""
    response = client.request(method, path)
    assert response.status_code == status and set(response.json()) == {"error"}, response.text
    assert words in response.json()["error"]


@pytest.mark.parametrize("content, headers", [
    (b"{not json", {"Content-Type": "application/json"}),
    (b"garbage", {}),
    (b"[1, 2]", {"Content-Type": "application/json"}),
    (b"", {"Content-Type": "application/json"}),
])
def test_body_parse_errors_are_error_objects(client, content, headers):
    response = client.post("/api/games", content=content, headers=headers)
    assert response.status_code == 400 and set(response.json()) == {"error"}, response.text
    assert "malformed request" in response.json()["error"]


def test_favicon_is_served(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    assert 'rel="icon"' in client.get("/").text


def test_two_player_agent_is_offered_with_the_options_it_needs(client):
    """Issue 26 item 5: ``david_goliath_2p`` needs ``card_features=True`` (since issue 24 also
    ``trick_outlook``); it is offered for two players and the game it joins is built with those options."""
    dg = next(g for g in client.get("/api/catalog").json()["games"] if g["name"] == "david_goliath")
    assert "david_goliath_2p" in dg["agents"]["2"]
    created = new_game(client, seats=("human", "david_goliath_2p"))
    session = client.app.state.store.sessions[created["game_id"]]
    assert session.table.options["card_features"] is True and session.table.options["trick_outlook"] is True
    frame = play_out(client, created["seats"][0]["token"])
    assert frame["error"] is None and frame["status"] == "finished"


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@pytest.mark.skipif(not DEJAVU.is_file(), reason="Debian's fonts-dejavu-core is not installed")
def test_every_character_of_the_page_renders_on_a_bare_debian_chromium():
    """Issue 26 item 5: the replay's buttons rendered as empty boxes (U+23EE, U+23ED are in no Debian font
    that Chromium has by default): every character of the page's files is in DejaVu Sans."""
    fonttools = pytest.importorskip("fontTools.ttLib")
    covered = fonttools.TTFont(str(DEJAVU)).getBestCmap()
    static = Path(create_app.__code__.co_filename).parent / "static"
    for path in static.rglob("*"):
        if path.suffix in (".js", ".html", ".css"):
            missing = {char for char in path.read_text(encoding="utf-8") if ord(char) > 127 and ord(char) not in covered}
            assert not missing, (path.name, missing)
