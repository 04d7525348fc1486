"""Play the games against agents in a web browser: ``python -m hiddenhand serve`` (see docs/web.md).

The server needs the ``web`` extra (FastAPI, uvicorn); importing this package does not.
"""

from __future__ import annotations

from .cli import add_parser, run

__all__ = ["add_parser", "run"]
