"""Reproduction of the aequa paper (see docs/aequa.md)."""
