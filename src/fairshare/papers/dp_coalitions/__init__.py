"""Reproduction of the dp_coalitions paper (see docs/dp_coalitions.md)."""
