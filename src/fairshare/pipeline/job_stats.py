"""What one `fairshare` command cost: its CPU time and the modules it imported (issue 21's start-up measurement).

When the environment names a folder in ``FAIRSHARE_JOB_STATS``, every command writes one JSON file there as it exits:
its arguments, its CPU seconds (user + system, this process and the children it waited for) and, in import order,
every module it had loaded. ``bench/startup_share.py`` sets the variable for a whole pipeline run, then re-imports
each job's modules in a fresh interpreter: that CPU is the job's start-up, the price of one more process.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ENV", "cpu_seconds", "record"]

ENV = "FAIRSHARE_JOB_STATS"


def cpu_seconds(who: int) -> float:
    """User + system CPU seconds of ``resource.RUSAGE_SELF`` or ``resource.RUSAGE_CHILDREN``."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def record(argv: Sequence[str]) -> None:
    """Write this process's CPU time and imported modules to the folder ``FAIRSHARE_JOB_STATS`` names, if any."""
    folder = os.environ.get(ENV)
    if not folder:
        return
    stats = {
        "argv": list(argv),
        "cpu_s": cpu_seconds(resource.RUSAGE_SELF) + cpu_seconds(resource.RUSAGE_CHILDREN),
        "modules": [name for name in sys.modules if name != "__main__"],
    }
    path = Path(folder, f"{uuid.uuid4().hex}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(stats))
    tmp.replace(path)
