"""Koehandel Master AEC adapter: the rules engine and observer wired into the shared core, plus the
research record (``events``) and each player's complete private record."""

from __future__ import annotations

import json
import os
from typing import Any

from ..core.aec import HiddenInfoAECEnv
from .observation import KoehandelObserver
from .rules import KoehandelGame


class KoehandelEnv(HiddenInfoAECEnv):
    metadata = {**HiddenInfoAECEnv.metadata, "name": "koehandel_v0"}
    game_class = KoehandelGame
    observer_class = KoehandelObserver

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every settled auction, pedigree auction, rat auction, cow trade and 2-player distribution,
        with full information (never part of an observation). Read-only by convention."""
        return self.state_.events

    def export_events(self, path: str | os.PathLike, append: bool = False, **extra: Any) -> int:
        """Write ``events`` as JSON Lines (one event per line, ``extra`` keys added to each, e.g. a game
        id or the agents' names); returns the number of lines written."""
        with open(path, "a" if append else "w") as handle:
            for event in self.events:
                handle.write(json.dumps({**extra, **event}) + "\n")
        return len(self.events)

    @property
    def redeal_is_approximate(self) -> bool:
        """Whether this env is a ``determinize`` copy drawn past the re-deal's work budget: it keeps every
        public fact and the agent's observation, but the other seats' records of hidden payments were
        drawn from the public record alone (docs/koehandel_rules.md Appendix C). The flag is part of the state
        (and of its snapshot)."""
        return self.state_.approximate

    def private_record(self, agent: str) -> dict[str, list[list[int]]]:
        """``agent``'s complete event record: the rows of every block-3 table (§12.5), in both
        observation modes, as plain lists (seats relative to ``agent``, −1 for unknown values)."""
        if agent not in self._seat_of:
            raise ValueError(f"koehandel_v0: unknown agent {agent!r}; agents: {self.possible_agents}")
        return self.state_.memory.record(self._seat_of[agent])
