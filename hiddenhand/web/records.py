"""Finished games of the games database as tournament records (``hiddenhand-records/1``, the format
``tournament --save-records`` writes): one file per game, player count and env options, each record
with the seed, line-up (``human`` or the agent), scores, rewards, winners and action history, plus
the game id, when it ended and, for games that keep one (Koehandel), the settled event log."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hiddenhand.agents.tournament import RECORDS_FORMAT

from .storage import FINISHED, GameDB, StoredGame
from .table import Table


def group_name(game: str, players: int, options: dict[str, Any]) -> str:
    """The records file name of a group, e.g. ``played_koehandel_3p.json``."""
    tag = "_" + hashlib.sha1(json.dumps(options, sort_keys=True).encode()).hexdigest()[:8] if options else ""
    return f"played_{game}_{players}p{tag}.json"


def _record(stored: StoredGame) -> dict[str, Any]:
    result = stored.result or {}
    names = [f"player_{i}" for i in range(stored.players)]
    record = {"seed": stored.seed, "lineup": stored.lineup,
              "scores": [result.get("scores", {}).get(name, 0.0) for name in names],
              "rewards": [result.get("rewards", {}).get(name, 0.0) for name in names],
              "winners": [names.index(name) for name in result.get("winners", []) if name in names],
              "truncated": bool(result.get("truncated")), "history": stored.history,
              "game_id": stored.id, "finished_at": stored.finished}
    events = getattr(Table.resumed(stored.game, stored.players, stored.seed, stored.options, stored.snapshot,
                                   stored.history, stored.memory, stored.log).raw.state_, "events", None)
    if events is not None:
        record["events"] = json.loads(json.dumps(events))
    return record


def played_records(db: GameDB, cache: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """The database's finished games as records data by file name (what ``load_records`` returns);
    ``cache`` keeps each game's record by id between calls."""
    groups: dict[str, dict[str, Any]] = {}
    cache = {} if cache is None else cache
    for stored in db.games(FINISHED):
        name = group_name(stored.game, stored.players, stored.options)
        group = groups.setdefault(name, {"format": RECORDS_FORMAT, "game": stored.game,
                                         "num_players": stored.players, "env_options": stored.options,
                                         "records": []})
        if stored.id not in cache:
            cache[stored.id] = _record(stored)
        group["records"].append(cache[stored.id])
    return groups


def export_records(db_path: str, out_dir: str | Path) -> dict[Path, int]:
    """Write :func:`played_records` of the database at ``db_path`` into ``out_dir``; files and game counts."""
    if not Path(db_path).is_file():
        raise ValueError(f"no games database at {db_path!r}")
    db = GameDB(db_path)
    try:
        groups = played_records(db)
    finally:
        db.close()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, data in groups.items():
        (out / name).write_text(json.dumps(data))
        written[out / name] = len(data["records"])
    return written
