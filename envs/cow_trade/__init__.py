"""Cow trade: Koehandel Master's sealed-bid cow trade as a standalone two-player game."""
