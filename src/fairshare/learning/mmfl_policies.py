"""The client-allocation policies of multi-model FL (FedFairMMFL Eq. 5 and the baselines of Sec. VI; docs/mmfl.md), by name, without importing torch: the
summary and claim jobs read them too."""

__all__ = ["POLICIES", "ALPHA_POLICIES"]

POLICIES = ("fedfair", "random", "round_robin", "qffl")
ALPHA_POLICIES = ("fedfair", "qffl")  # the policies alpha acts on (allocation exponent, q = alpha - 1)
