"""Rattus (2-4 players): rules engine, observer and AEC adapter; rules in docs/rattus_rules.md."""
