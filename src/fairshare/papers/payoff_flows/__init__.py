"""Reproduction of the payoff_flows paper (see docs/payoff_flows.md)."""

# the public submodules
__all__ = ["claims", "commands", "experiment", "figures"]
