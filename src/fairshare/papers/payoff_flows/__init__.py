"""Reproduction of the payoff_flows paper (see docs/payoff_flows.md)."""
