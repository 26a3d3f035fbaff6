"""Reproduction of the aequa_extensions paper (see docs/aequa.md, Extensions)."""

# the public submodules
__all__ = ["claims", "commands", "experiment", "figures"]
