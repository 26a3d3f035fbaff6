"""Reproductions: one folder per paper, each with experiment, claims, figures and commands modules."""

# the public submodules
__all__ = [
    "aequa",
    "aequa_extensions",
    "auctions",
    "dp_coalitions",
    "mmfl",
    "model_sharing",
    "payoff_flows",
]
