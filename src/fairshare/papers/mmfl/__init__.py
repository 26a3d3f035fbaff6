"""Reproduction of the mmfl paper (see docs/mmfl.md)."""

# the public submodules
__all__ = ["claims", "claims_exp2", "claims_exp4", "claims_theory", "commands", "experiment", "figures"]
