"""Exact economics of the five papers: numpy/scipy only (never torch)."""

# the public submodules
__all__ = [
    "aequa_allocation",
    "auctions",
    "dp_coalitions",
    "model_sharing",
    "model_sharing_sim",
    "model_sharing_two_type",
    "payoff_flows",
    "shapley",
    "stability",
]
