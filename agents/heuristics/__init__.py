"""hiddenhand agents.heuristics."""
