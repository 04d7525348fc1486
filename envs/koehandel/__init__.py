"""Koehandel Master: rules engine, observation encoder and AEC adapter (rules: docs/koehandel_rules.md)."""
