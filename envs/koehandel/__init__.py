"""Koehandel Master: rules engine, observation encoder and AEC adapter (spec: koehandel.md)."""
