"""Reproduction of the dp_coalitions paper (see docs/dp_coalitions.md)."""

# the public submodules
__all__ = [
    "claims",
    "claims_sentences",
    "commands",
    "experiment",
    "figures",
    "sentences",
]
