"""Reproduction of the dp_coalitions paper (see docs/dp_coalitions.md)."""

# the public submodules
__all__ = ["claims", "commands", "experiment", "figures"]
