"""Live games: seats (humans with a secret token each, agents), the agents' moves, limits and clean-up.

Every game is kept in the games database (:mod:`.storage`): a move is committed there before its answer
goes out, and a new :class:`Store` on the same database resumes the live games where they stood.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from hiddenhand.agents import Agent, bind_agents, make
from hiddenhand.envs import entry

from . import agents as allowlist
from .storage import FINISHED, LIVE, GameDB, StoredGame
from .table import Table

#: Expired tokens remembered (to answer 410 instead of 404), oldest forgotten first.
EXPIRED_MEMORY = 10_000


class WebError(Exception):
    """A request the server refuses: an HTTP status and a message for the client."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class Settings:
    agent_delay: float = 0.6      # seconds before each agent move, so that people can follow
    max_games: int = 100          # games held at once
    idle_ttl: float = 1800.0      # a running game nobody moved in for this long is dropped
    finished_ttl: float = 900.0   # a finished game is kept this long (replays, last look)
    sweep_interval: float = 30.0
    records_dir: str | None = None  # tournament records offered for replay
    db: str = ":memory:"          # the games database (a file keeps games across restarts)


@dataclass
class Seat:
    player: str                   # "human" or the agent's name
    token: str | None = None      # humans only
    agent: Agent | None = None


@dataclass
class Session:
    id: str
    table: Table
    seats: list[Seat]
    db: GameDB
    touched: float = field(default_factory=time.time)
    finished_at: float | None = None
    error: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    driver: asyncio.Task | None = None

    def public_seats(self, me: int | None) -> list[dict[str, Any]]:
        return [{"seat": i, "name": f"player_{i}", "player": seat.player, "you": i == me}
                for i, seat in enumerate(self.seats)]

    def frame(self, seat: int | None) -> dict[str, Any]:
        out = self.table.frame(seat, self.public_seats(seat))
        out["version"] = self.table.steps
        out["error"] = self.error
        return out

    def play(self, seat: int, action: int) -> None:
        """Apply a checked legal ``action`` of ``seat`` and commit it to the database before anyone hears."""
        table = self.table
        table.apply(action)
        seen = table.log[-1]["text"] if table.log and table.log[-1]["step"] == table.steps else None
        self.db.record_move(self.id, table.steps - 1, seat, action, seen, table.raw.snapshot(), table.memory,
                            table.result(), self.error)
        self.notify()

    def fail(self, message: str) -> None:
        self.error = message
        self.db.set_error(self.id, message)
        self.notify()

    def notify(self) -> None:
        self.touched = time.time()
        if self.table.over and self.finished_at is None:
            self.finished_at = self.touched
        self.changed.set()
        self.changed = asyncio.Event()

    def move(self, seat: int, action: Any) -> None:
        """A human's move, checked: the game untouched and a :class:`WebError` if it is refused."""
        table = self.table
        if table.over:
            raise WebError(409, "the game is over")
        if self.error:
            raise WebError(409, f"the game stopped: {self.error}")
        if table.to_move != seat:
            raise WebError(409, f"not your turn: player_{table.to_move} is to move")
        action = self._parse(action)
        legal = table.legal()
        if action not in legal:
            raise WebError(422, f"{table.raw.game.action_to_string(action)} (id {action}) is not legal now; legal: "
                                + ", ".join(f"{a} {table.label(a)}" for a in legal))
        self.play(seat, action)

    def _parse(self, action: Any) -> int:
        game = self.table.raw.game
        if isinstance(action, bool) or not isinstance(action, (int, str)):
            raise WebError(400, f"'action' must be an action id or name, got {action!r}")
        if isinstance(action, str):
            try:
                return game.string_to_action(action)
            except ValueError as error:
                raise WebError(422, f"not an action: {error}") from None
        if not 0 <= action < game.num_actions:
            raise WebError(422, f"action id {action} is out of range 0..{game.num_actions - 1}")
        return action


class Store:
    """Every open game, by id and by seat token; capped, swept of idle and finished games, kept in the
    database of ``settings.db`` (live games there are resumed when the store opens)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.db = GameDB(settings.db)
        self.sessions: dict[str, Session] = {}
        self.tokens: dict[str, tuple[str, int]] = {}
        self.expired: OrderedDict[str, None] = OrderedDict.fromkeys(self.db.expired_tokens()[-EXPIRED_MEMORY:])
        for stored in [*self.db.games(LIVE), *self.db.games(FINISHED)]:
            if stored.status == FINISHED and time.time() - (stored.finished or 0) > settings.finished_ttl:
                self.expired.update(dict.fromkeys(token for token in stored.tokens if token))
                continue
            self._add(self._resume(stored))

    def create(self, game: str, players: int, lineup: list[str], seed: int | None) -> Session:
        """A new game; ``lineup`` has ``"human"`` or an allowed agent name per seat."""
        try:
            known = entry(game)
        except ValueError as error:
            raise WebError(400, str(error)) from None
        if players not in known.player_counts:
            raise WebError(400, f"{game} is played by {list(known.player_counts)} players, not {players}")
        if len(lineup) != players:
            raise WebError(400, f"'seats' lists {len(lineup)} seats for {players} players")
        if allowlist.HUMAN not in lineup:
            raise WebError(400, "at least one seat must be 'human'")
        try:
            for spec in lineup:
                if spec != allowlist.HUMAN:
                    allowlist.check(spec, game, players)
            options = allowlist.env_options(lineup)
        except ValueError as error:
            raise WebError(400, str(error)) from None
        self.sweep()
        if len(self.sessions) >= self.settings.max_games:
            raise WebError(503, f"the server is full: {len(self.sessions)} games are open (limit "
                                f"{self.settings.max_games}); try again when one has finished")
        seed = secrets.randbits(31) if seed is None else seed
        table = Table(game, players, seed, options)
        tokens = [secrets.token_urlsafe(18) if spec == allowlist.HUMAN else None for spec in lineup]
        session = Session(secrets.token_urlsafe(9), table, self._seats(table, lineup, tokens), self.db)
        self.db.create(session.id, game, players, seed, options, lineup, tokens, table.raw.snapshot())
        self._add(session)
        return session

    def _seats(self, table: Table, lineup: list[str], tokens: list[str | None]) -> list[Seat]:
        seats = []
        for index, (spec, token) in enumerate(zip(lineup, tokens)):
            if token:
                seats.append(Seat(spec, token=token))
                continue
            try:
                seats.append(Seat(spec, agent=make(spec, table.raw.game, table.seed + 1 + index)))
            except ValueError as error:
                raise WebError(400, f"agent {spec!r}: {error}") from None
        bind_agents(table.env, [seat.agent for seat in seats])
        return seats

    def _resume(self, stored: StoredGame) -> Session:
        """A stored game back on the table where it stood (its agents made again from their seeds)."""
        table = Table.resumed(stored.game, stored.players, stored.seed, stored.options, stored.snapshot,
                              stored.history, stored.memory, stored.log)
        session = Session(stored.id, table, self._seats(table, stored.lineup, stored.tokens), self.db,
                          touched=stored.touched, finished_at=stored.finished, error=stored.error)
        return session

    def _add(self, session: Session) -> None:
        self.sessions[session.id] = session
        for index, seat in enumerate(session.seats):
            if seat.token:
                self.tokens[seat.token] = (session.id, index)

    def seat(self, token: str) -> tuple[Session, int]:
        found = self.tokens.get(token)
        if found is None:
            if token in self.expired:
                raise WebError(410, "this game has expired and was removed from the server")
            raise WebError(404, "unknown seat token")
        session = self.sessions[found[0]]
        return session, found[1]

    def sweep(self, now: float | None = None) -> int:
        """Drop finished games older than ``finished_ttl`` and games idle for ``idle_ttl``; how many. The
        database keeps finished games as records; dropped live games are marked expired there."""
        now = time.time() if now is None else now
        gone = [sid for sid, s in self.sessions.items()
                if (s.finished_at is not None and now - s.finished_at > self.settings.finished_ttl)
                or now - s.touched > self.settings.idle_ttl]
        self.db.expire(gone)
        for sid in gone:
            session = self.sessions.pop(sid)
            if session.driver is not None:
                session.driver.cancel()
            for seat in session.seats:
                if seat.token:
                    self.tokens.pop(seat.token, None)
                    self.expired[seat.token] = None
        while len(self.expired) > EXPIRED_MEMORY:
            self.expired.popitem(last=False)
        return len(gone)


async def drive_agents(session: Session, delay: float) -> None:
    """Play the agents' moves until a human is to move or the game ends (one driver per game)."""
    table = session.table
    while True:
        seat = table.to_move
        if seat is None or session.error or session.seats[seat].agent is None:
            return
        if delay:
            await asyncio.sleep(delay)
        async with session.lock:
            agent = session.seats[seat].agent
            try:
                observation = table.env.observe(f"player_{seat}")
                action = await asyncio.to_thread(agent.act, observation["observation"], observation["action_mask"])
                if action not in table.legal():
                    raise ValueError(f"chose illegal action {action}")
            except Exception as error:  # an agent's failure stops this game, not the server
                session.fail(f"agent {session.seats[seat].player} (player_{seat}) failed: {error!r}")
                continue
            session.play(seat, int(action))


def start_agents(session: Session, delay: float) -> None:
    """Start the agents' driver unless it is already running."""
    if session.driver is None or session.driver.done():
        session.driver = asyncio.get_running_loop().create_task(drive_agents(session, delay))
