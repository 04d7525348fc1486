"""The server's games in SQLite (standard library, WAL mode): every accepted move is committed before the
answer, live games are resumed after a restart, finished games stay as records.

One row per game (its options, line-up, seat tokens, status, the env's ``snapshot()``, the view memory)
and one row per move (its seat, action id and what the table saw of it), written in one transaction
per move. A restarted
server restores each live game from its snapshot; a snapshot that no longer restores (another version's
format) is replayed from the seed and the moves instead.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL, seed INTEGER NOT NULL,
    options TEXT NOT NULL, lineup TEXT NOT NULL, tokens TEXT NOT NULL, status TEXT NOT NULL,
    created REAL NOT NULL, touched REAL NOT NULL, finished REAL,
    snapshot TEXT NOT NULL, memory TEXT NOT NULL, result TEXT, error TEXT);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id), step INTEGER NOT NULL, seat INTEGER NOT NULL,
    action INTEGER NOT NULL, seen TEXT, PRIMARY KEY (game_id, step));
CREATE INDEX IF NOT EXISTS games_status ON games(status);
"""
LIVE, FINISHED, EXPIRED = "playing", "finished", "expired"


@dataclass
class StoredGame:
    """A game as the database holds it (JSON columns parsed)."""

    id: str
    game: str
    players: int
    seed: int
    options: dict[str, Any]
    lineup: list[str]
    tokens: list[str | None]
    status: str
    touched: float
    finished: float | None
    snapshot: dict[str, Any]
    memory: dict[str, Any]
    log: list[dict[str, Any]]
    result: dict[str, Any] | None
    error: str | None
    history: list[int]


class GameDB:
    """The games database at ``path`` (``":memory:"`` for a throw-away one)."""

    def __init__(self, path: str | Path = ":memory:"):
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives a crash of the process
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise ValueError(f"cannot open the games database {self.path!r}: {error}") from None
        self.lock = threading.Lock()

    def close(self) -> None:
        with self.lock:
            self.db.close()

    def _write(self, statements: list[tuple[str, tuple]]) -> None:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    self.db.execute(sql, args)
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def create(self, game_id: str, game: str, players: int, seed: int, options: dict[str, Any],
               lineup: list[str], tokens: list[str | None], snapshot: dict[str, Any]) -> None:
        now = time.time()
        self._write([("INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?,NULL,?,'{}',NULL,NULL)",
                      (game_id, game, players, seed, json.dumps(options), json.dumps(lineup), json.dumps(tokens),
                       LIVE, now, now, json.dumps(snapshot)))])

    def record_move(self, game_id: str, step: int, seat: int, action: int, seen: str | None,
                    snapshot: dict[str, Any], memory: dict[str, Any], result: dict[str, Any] | None,
                    error: str | None) -> None:
        """One move (``seen``: what the table saw of it) and the position after it, in one transaction
        (``result``: the game just ended)."""
        now = time.time()
        status = LIVE if result is None else FINISHED
        self._write([
            ("INSERT INTO moves VALUES (?,?,?,?,?)", (game_id, step, seat, action, seen)),
            ("UPDATE games SET snapshot=?, memory=?, result=?, error=?, status=?, touched=?, "
             "finished=CASE WHEN ? THEN ? ELSE finished END WHERE id=?",
             (json.dumps(snapshot), json.dumps(memory), json.dumps(result) if result else None,
              error, status, now, result is not None, now, game_id)),
        ])

    def set_error(self, game_id: str, error: str) -> None:
        self._write([("UPDATE games SET error=? WHERE id=?", (error, game_id))])

    def expire(self, game_ids: list[str]) -> None:
        """Mark games the server dropped as idle: their tokens answer 410 from now on (finished games keep
        their status: they stay records)."""
        self._write([("UPDATE games SET status=? WHERE id=? AND status=?", (EXPIRED, gid, LIVE)) for gid in game_ids])

    def games(self, status: str) -> Iterator[StoredGame]:
        """Every game with ``status``, oldest first, with its moves."""
        with self.lock:
            rows = self.db.execute("SELECT id, game, players, seed, options, lineup, tokens, status, touched, finished, "
                                   "snapshot, memory, result, error FROM games WHERE status=? ORDER BY created",
                                   (status,)).fetchall()
            moves = {row[0]: self.db.execute("SELECT step, seat, action, seen FROM moves WHERE game_id=? ORDER BY step",
                                             (row[0],)).fetchall() for row in rows}
        for row in rows:
            played = moves[row[0]]
            log = [{"step": step + 1, "seat": seat, "text": seen} for step, seat, _, seen in played if seen is not None]
            yield StoredGame(row[0], row[1], row[2], row[3], json.loads(row[4]), json.loads(row[5]),
                             json.loads(row[6]), row[7], row[8], row[9], json.loads(row[10]), json.loads(row[11]),
                             log, json.loads(row[12]) if row[12] else None, row[13], [move[2] for move in played])

    def expired_tokens(self) -> list[str]:
        with self.lock:
            rows = self.db.execute("SELECT tokens FROM games WHERE status!=?", (LIVE,)).fetchall()
        return [token for (tokens,) in rows for token in json.loads(tokens) if token]
