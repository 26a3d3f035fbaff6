"""Reproduction of the mmfl paper (see docs/mmfl.md)."""
