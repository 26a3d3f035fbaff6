"""Reproduction of the auctions paper (see docs/auctions.md)."""

# the public submodules
__all__ = [
    "claims",
    "claims_properties",
    "claims_theorem11",
    "commands",
    "experiment",
    "figures",
    "misreports",
]
