"""Reproduction of the aequa paper (see docs/aequa.md)."""

# the public submodules
__all__ = [
    "claims",
    "claims_seeds",
    "commands",
    "experiment",
    "federation",
    "figures",
    "methods",
    "settings",
    "tables",
]
