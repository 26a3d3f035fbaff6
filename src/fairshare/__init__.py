"""fairshare: incentives and fairness in collaborative learning, reproduced."""

__version__ = "0.1.0"
