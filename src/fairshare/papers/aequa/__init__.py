"""Reproduction of the aequa paper (see docs/aequa.md)."""

# the public submodules
__all__ = [
    "claims",
    "claims_measure",
    "claims_participants",
    "claims_seeds",
    "claims_text",
    "commands",
    "experiment",
    "federation",
    "figures",
    "methods",
    "settings",
    "tables",
]
