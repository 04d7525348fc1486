"""The ``serve`` command: its arguments and how it starts the server."""

from __future__ import annotations

import argparse
import sys

DEFAULT_DB = "runs/web/games.sqlite"


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``serve`` to the CLI's subparsers."""
    serve = subparsers.add_parser("serve", help="play against the agents in a web browser (local web server)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--agent-delay", type=float, default=0.6, help="seconds before each agent move")
    serve.add_argument("--max-games", type=int, default=100, help="games held at once")
    serve.add_argument("--idle-ttl", type=float, default=1800.0, help="drop a game nobody moved in for this long (s)")
    serve.add_argument("--finished-ttl", type=float, default=900.0, help="keep a finished game this long (s)")
    serve.add_argument("--records", default=None, metavar="DIR",
                       help="folder of tournament records (tournament --save-records) offered for replay")
    serve.add_argument("--db", default=DEFAULT_DB, metavar="PATH",
                       help="SQLite file that keeps every game across restarts (':memory:': none kept)")
    serve.add_argument("--export-records", default=None, metavar="DIR",
                       help="write the finished games of --db as records files (as tournament --save-records) "
                            "into DIR and exit")
    return serve


def run(args: argparse.Namespace) -> int:
    """Start the server for parsed ``serve`` arguments; returns a process exit code."""
    for name in ("agent_delay", "idle_ttl", "finished_ttl"):
        if getattr(args, name) < 0:
            print(f"error: --{name.replace('_', '-')} must not be negative", file=sys.stderr)
            return 2
    if args.max_games < 1:
        print("error: --max-games must be at least 1", file=sys.stderr)
        return 2
    try:
        import uvicorn

        from .app import create_app
        from .sessions import Settings
    except ImportError as error:
        print(f"error: the web server needs the web extra: pip install 'hiddenhand[web]' ({error})", file=sys.stderr)
        return 2
    if args.export_records:
        from .records import export_records

        try:
            written = export_records(args.db, args.export_records)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"hiddenhand: {sum(written.values())} finished games written to " +
              (", ".join(str(path) for path in written) or f"{args.export_records} (none yet)"))
        return 0
    settings = Settings(agent_delay=args.agent_delay, max_games=args.max_games, idle_ttl=args.idle_ttl,
                        finished_ttl=args.finished_ttl, records_dir=args.records, db=args.db)
    try:
        app = create_app(settings)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"hiddenhand: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops the server); "
          f"games kept in {args.db}", flush=True)
    # long polls and agent moves are cut short on SIGTERM / Ctrl-C: every move is already in the database
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=1)
    return 0

