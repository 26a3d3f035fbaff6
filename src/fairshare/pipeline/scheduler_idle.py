"""Keep Snakemake's scheduler idle while every core is taken.

Snakemake (9.x) re-enters its scheduling loop once a second while jobs run (the timer of its default job-rate
limit, ``--max-jobs-per-timespan 100/1s``). Each pass calls ``JobScheduler.job_selector``, which stats every input
file of every ready job (``update_input_sizes``) before it finds that no core is free and selects nothing
(snakemake/snakemake#200, #3955). In the default profile, with 2 cores and a queue of ready jobs whose inputs are the
runs of whole experiments, the Snakemake process itself spent 42 of the first 103 minutes on one core doing that:
a fifth of the machine, taken from the training jobs. The wrapper here returns the empty selection at once when no
core is free, which is what the original returns then, so the schedule is unchanged; a longer timespan is no remedy,
as Snakemake waits for its last timer before it exits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["install", "installed"]

_MARK = "_fairshare_skips_selection_without_cores"


def _skipping(select: Callable[[Any, Any], Sequence[Any]]) -> Callable[[Any, Any], Sequence[Any]]:
    @functools.wraps(select)
    def job_selector(scheduler: Any, jobs: Any) -> Sequence[Any]:
        if scheduler.resources.get("_cores", 1) == 0:
            return []
        return select(scheduler, jobs)

    setattr(job_selector, _MARK, True)
    return job_selector


def install() -> bool:
    """Wrap Snakemake's ``JobScheduler.job_selector`` (once per process). Returns False, changing nothing, where this
    Snakemake has no such method (another major version): its scheduler then runs as it ships."""
    try:
        from snakemake.scheduling.job_scheduler import JobScheduler
    except ImportError:
        return False
    select = getattr(JobScheduler, "job_selector", None)
    if select is None:
        return False
    if not getattr(select, _MARK, False):
        JobScheduler.job_selector = _skipping(select)
    return True


def installed() -> bool:
    """Whether this process's Snakemake scheduler skips selection without free cores."""
    from snakemake.scheduling.job_scheduler import JobScheduler

    return bool(getattr(JobScheduler.job_selector, _MARK, False))
