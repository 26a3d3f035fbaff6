"""Reproduction of the mmfl paper (see docs/mmfl.md)."""

# the public submodules
__all__ = ["claims", "commands", "experiment", "figures"]
