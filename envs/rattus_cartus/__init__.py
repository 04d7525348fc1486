"""Rattus Cartus (2-5 players): rules engine, observer, sampler and AEC env (docs/rattus_cartus_rules.md)."""
