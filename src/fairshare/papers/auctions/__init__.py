"""Reproduction of the auctions paper (see docs/auctions.md)."""

# the public submodules
__all__ = ["claims", "commands", "experiment", "figures"]
