"""Reproduction of the aequa_extensions paper (see docs/aequa_extensions.md)."""

# the public submodules
__all__ = ["claims", "commands", "experiment", "figures"]
