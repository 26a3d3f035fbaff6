"""fairshare: incentives and fairness in collaborative learning, reproduced."""

import os

# oneDNN (torch's CPU convolutions) keeps at most 1,024 compiled kernels by default, and one evicted and compiled
# again can round differently: a run's last bits would then depend on how many runs its process trained before it
# (measured with two intra-op threads: the 9th and 10th Exp 6 runs of one job). oneDNN reads this when torch loads,
# so it is set here, before any fairshare module imports torch; a value already in the environment is kept.
os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "65536")

__version__ = "0.1.0"

# the public submodules
__all__ = [
    "__version__",
    "cli",
    "commands",
    "config",
    "data",
    "games",
    "headline",
    "html_report",
    "report_items",
    "inventory",
    "io",
    "job_stats",
    "learning",
    "metrics",
    "papers",
    "plotting",
    "preflight",
    "report",
    "resources",
    "seeding",
    "sensitivity",
    "validate",
    "verdicts",
]
