"""What the reproduction needs beyond the library: the machinery between a config file and the scorecard.

Nothing here is a paper's method (those are in :mod:`fairshare.games`, :mod:`fairshare.learning`,
:mod:`fairshare.data`); nothing here knows one paper (that is :mod:`fairshare.papers`). The papers' reproductions and
the commands import these modules; these import only the library and the bottom layer.
"""

# the public submodules
__all__ = [
    "commands_shared",
    "config",
    "headline",
    "heap",
    "html_report",
    "inventory",
    "job_stats",
    "preflight",
    "readme_numbers",
    "report",
    "report_items",
    "resources",
    "scheduler_idle",
    "seed_plan",
    "sensitivity",
    "sensitivity_extensions",
    "verdicts",
    "yardstick",
]
