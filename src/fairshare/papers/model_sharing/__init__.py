"""Reproduction of the model_sharing paper (see docs/model_sharing.md)."""

# the public submodules
__all__ = [
    "claims",
    "claims_printed",
    "claims_uniform",
    "claims_weighted",
    "commands",
    "evidence",
    "experiment",
    "figures",
]
