"""Make Snakemake's HTML report byte-identical for the same config and results.

Snakemake's report embeds every job's start and end time (the "runtimes" and "timeline" charts of its statistics
page), so two runs of the same config gave two different ``results/report.html`` although every table, figure and
caption in it was the same (issue 27). :func:`stable` empties the data of those two charts and says in their axis
titles where the times are instead; nothing else in the report changes. Each job's times stay in Snakemake's own
log (``.snakemake/log/``) and in ``.snakemake/metadata``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["TIMED_CHARTS", "stable", "stabilise"]

# The charts whose data are job times: their variable in the report's script, and the axis title they get instead.
TIMED_CHARTS = {
    "runtimes_spec": "runtime [s]: not embedded, so that reruns give identical bytes (see .snakemake/log/)",
    "timeline_spec": "end time: not embedded, so that reruns give identical bytes (see .snakemake/log/)",
}


def _without_times(spec: dict, title: str) -> dict:
    """The chart ``spec`` (Vega-Lite) with no data points and ``title`` on its time axis."""
    spec = {**spec, "data": {"values": []}}
    spec["encoding"]["x"]["axis"]["title"] = title
    return spec


def stable(html: str) -> str:
    """``html`` (a Snakemake report) without the job times; ``ValueError`` when a timed chart is not found, i.e. the
    report's layout changed with a Snakemake version and the reruns would differ again."""
    for name, title in TIMED_CHARTS.items():
        pattern = re.compile(rf"(var {name} = )(\{{.*\}});\n")
        found = pattern.search(html)
        if found is None:
            raise ValueError(f"the report has no '{name}' chart (another Snakemake version?); cannot drop its times")
        spec = json.dumps(_without_times(json.loads(found.group(2)), title))
        html = html[: found.start(2)] + spec + html[found.end(2) :]
    return html


def stabilise(path: str | Path) -> None:
    """Rewrite the report at ``path`` without its job times (atomically: a killed rewrite leaves the old file)."""
    from fairshare.io import atomic_path

    text = stable(Path(path).read_text(encoding="utf-8"))
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
