"""The web server (FastAPI): a lobby, seat pages and replays over a small JSON API.

API (every error is ``{"error": message}`` with a 4xx status, or 503 when the server is full):

* ``GET /api/catalog``: the registered games, their player counts and the agents each may seat.
* ``POST /api/games`` ``{"game", "players", "seats": ["human" | agent, ...], "seed"?}``: a new game; the
  answer lists each human seat's secret token and page (``/play/<token>``).
* ``GET /api/seat/<token>?after=<version>&wait=<s>``: that seat's view; with ``after``, waits up to
  ``wait`` seconds (at most 30) for a newer version.
* ``POST /api/seat/<token>/move`` ``{"action": id | name}``: that seat's move; the new view.
* ``GET /api/seat/<token>/replay?step=<k>&spectator=<bool>``: a finished game after ``k`` actions, as the
  seat saw it or with every hand.
* ``GET /api/records`` and ``GET /api/records/<file>/<index>?step=&seat=``: the games finished on this
  server (``played_<game>_<n>p.json``) and those saved by ``tournament`` in the records folder
  (``--records``), replayed the same way; ``seat`` omitted: every hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from starlette.exceptions import HTTPException

from hiddenhand.agents.tournament import load_records
from hiddenhand.envs import REGISTRY

from . import agents as allowlist
from .records import played_records
from .sessions import Settings, Store, WebError, start_agents
from .table import replayed

STATIC = Path(__file__).parent / "static"
DOCS = Path(__file__).resolve().parents[2] / "docs"
MAX_WAIT = 30.0


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # "4" is not 4: a type error names the field
    game: StrictStr = Field(max_length=64)
    players: StrictInt
    seats: list[StrictStr] = Field(max_length=8)
    seed: StrictInt | None = Field(default=None, ge=0, lt=2**32)


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: StrictInt | StrictStr


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    store = Store(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        async def sweeper():
            while True:
                await asyncio.sleep(settings.sweep_interval)
                store.sweep()

        task = asyncio.create_task(sweeper())
        for session in store.sessions.values():  # resumed games whose agent is to move go on by themselves
            start_agents(session, settings.agent_delay)
        yield
        task.cancel()
        for session in store.sessions.values():
            if session.driver is not None:
                session.driver.cancel()
            session.changed.set()  # long polls answer at once
        store.db.close()

    app = FastAPI(title="hiddenhand", lifespan=lifespan, docs_url=None, redoc_url=None)  # both load from CDNs
    app.state.store = store

    @app.exception_handler(WebError)
    async def refused(request: Request, error: WebError):
        return JSONResponse({"error": error.message}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, error: RequestValidationError):
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        return JSONResponse({"error": f"malformed request: {problems}"}, status_code=400)

    @app.exception_handler(HTTPException)
    async def unrouted(request: Request, error: HTTPException):
        message = {404: f"no such page or endpoint: {request.url.path}",
                   405: f"{request.method} is not allowed on {request.url.path}"}.get(error.status_code, error.detail)
        return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)

    for path in ("/", "/play/{token}", "/replay"):  # one page; its script reads the path
        app.add_api_route(path, lambda: FileResponse(STATIC / "index.html"), include_in_schema=False)
    app.add_api_route("/favicon.ico", lambda: FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml"),
                      include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/docs/{name}", include_in_schema=False)
    def rules(name: str) -> PlainTextResponse:
        """A registered game's rules page (``docs/<game>_rules.md`` of the source tree), as text."""
        games = {f"{game}_rules.md" for game in REGISTRY}
        if name not in games or not (DOCS / name).is_file():
            raise WebError(404, f"no rules page {name!r} here (the rules are docs/<game>_rules.md in the "
                                f"project's source)")
        return PlainTextResponse((DOCS / name).read_text(encoding="utf-8"), media_type="text/markdown; charset=utf-8")

    @app.get("/api/catalog")
    def catalog() -> dict[str, Any]:
        return {"games": [{"name": e.name, "title": e.title, "player_counts": list(e.player_counts),
                           "default_players": e.default_players,
                           "agents": {str(n): list(allowlist.choices(e.name, n)) for n in e.player_counts}}
                          for e in REGISTRY.values()],
                "search_example": "ismcts:iterations=50"}

    @app.post("/api/games", status_code=201)
    async def new_game(body: NewGame) -> dict[str, Any]:
        session = store.create(body.game, body.players, body.seats, body.seed)
        start_agents(session, settings.agent_delay)
        return {"game_id": session.id, "seed": session.table.seed,
                "seats": [{"seat": i, "player": seat.player, "token": seat.token,
                           "url": f"/play/{seat.token}" if seat.token else None}
                          for i, seat in enumerate(session.seats)]}

    @app.get("/api/seat/{token}")
    async def seat_view(token: str, after: int | None = None, wait: float = 0.0) -> dict[str, Any]:
        session, seat = store.seat(token)
        if after is not None and after == session.table.steps and not session.table.over and wait > 0:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(session.changed.wait(), min(wait, MAX_WAIT))
        return session.frame(seat)

    @app.post("/api/seat/{token}/move")
    async def move(token: str, body: Move) -> dict[str, Any]:
        session, seat = store.seat(token)
        async with session.lock:
            session.move(seat, body.action)
        start_agents(session, settings.agent_delay)
        return session.frame(seat)

    @app.get("/api/seat/{token}/replay")
    async def seat_replay(token: str, step: int = 0, spectator: bool = False) -> dict[str, Any]:
        session, seat = store.seat(token)
        table = session.table
        if not table.over:
            raise WebError(409, "a game can be replayed once it is finished")
        history = list(table.raw.history)
        frame = _replay(table.game, table.players, table.seed, history, step, None if spectator else seat)
        frame["seats"] = session.public_seats(None if spectator else seat)
        return frame

    @app.get("/api/records")
    def records() -> dict[str, Any]:
        return {"files": [{"file": name, "game": data["game"], "num_players": data["num_players"],
                           "games": len(data["records"])} for name, data in _record_files().items()]}

    @app.get("/api/records/{name}/{index}")
    def record_replay(name: str, index: int, step: int = 0, seat: int | None = None) -> dict[str, Any]:
        files = _record_files()
        if name not in files:  # only a listed file, never a path from the client
            raise WebError(404, f"no records file {name!r}; files: {sorted(files)}")
        data = files[name]
        if not 0 <= index < len(data["records"]):
            raise WebError(404, f"{name} holds games 0..{len(data['records']) - 1}, not {index}")
        if seat is not None and not 0 <= seat < data["num_players"]:
            raise WebError(400, f"seat must be in 0..{data['num_players'] - 1}")
        record = data["records"][index]
        frame = _replay(data["game"], data["num_players"], record["seed"], record["history"], step, seat,
                        data.get("env_options"))
        frame["seats"] = [{"seat": i, "name": f"player_{i}", "player": label, "you": i == seat}
                          for i, label in enumerate(record["lineup"])]
        return frame

    def _record_files() -> dict[str, dict[str, Any]]:
        found = played_records(store.db, played)
        for path in sorted(Path(settings.records_dir).glob("*.json")) if settings.records_dir else ():
            try:
                stamp = path.stat().st_mtime_ns
                if parsed.get(path, (None,))[0] != stamp:
                    parsed[path] = (stamp, load_records(path))
                found[path.name] = parsed[path][1]
            except (OSError, ValueError, json.JSONDecodeError):
                continue  # not a records file
        return found

    parsed: dict[Path, tuple[int, dict[str, Any]]] = {}  # records files read, by modification time
    played: dict[str, dict[str, Any]] = {}  # finished games' records, by game id

    return app


def _replay(game: str, players: int, seed: int, history: list[int], step: int, seat: int | None,
            options: dict[str, Any] | None = None) -> dict[str, Any]:
    try:
        table = replayed(game, players, seed, history, step, options)
    except ValueError as error:
        raise WebError(400, str(error)) from None
    frame = table.frame(seat, [])
    frame.update(replay={"step": step, "steps": len(history), "spectator": seat is None}, legal=[], your_turn=False)
    return frame
