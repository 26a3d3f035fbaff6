"""Finish Snakemake's HTML report: byte-identical for the same config and results, each item credited to its rule.

Snakemake's report embeds every job's start and end time (the "runtimes" and "timeline" charts of its statistics
page), so two runs of the same config gave two different ``results/report.html`` although every table, figure and
caption in it was the same (issue 27). :func:`stable` empties the data of those two charts and says in their axis
titles where the times are instead, and lists the rules by name (Snakemake lists them in the order it met their jobs,
which a killed and resumed run changes). Each job's times stay in Snakemake's own log (``.snakemake/log/``) and in
``.snakemake/metadata``.

Every report item is a copy (a figure's PNG) or a rendering (a table's files as one HTML page) made by rule
``report_items``, so Snakemake's info panel named that copy job as the item's rule. :func:`credited` points each
item's "Snakemake rule" entry at the rule that made the artifact (the item's "made by" label, set from the workflow),
so the panel shows that rule's code and command instead.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["MADE_BY", "TIMED_CHARTS", "credited", "stable", "stabilise"]

# The charts whose data are job times: their variable in the report's script, and the axis title they get instead.
TIMED_CHARTS = {
    "runtimes_spec": "runtime [s]: not embedded, so that reruns give identical bytes (see .snakemake/log/)",
    "timeline_spec": "end time: not embedded, so that reruns give identical bytes (see .snakemake/log/)",
}


# The label every report item carries: "rule <name>", the rule that made the artifact it shows.
MADE_BY = "made by"


def _variable(html: str, name: str) -> re.Match:
    found = re.compile(rf"(var {name} = )(\{{.*\}});\n").search(html)
    if found is None:
        raise ValueError(f"the report has no '{name}' data (another Snakemake version?); cannot finish it")
    return found


def _without_times(spec: dict, title: str) -> dict:
    """The chart ``spec`` (Vega-Lite) with no data points and ``title`` on its time axis."""
    spec = {**spec, "data": {"values": []}}
    spec["encoding"]["x"]["axis"]["title"] = title
    return spec


def stable(html: str) -> str:
    """``html`` (a Snakemake report) without the job times; ``ValueError`` when a timed chart is not found, i.e. the
    report's layout changed with a Snakemake version and the reruns would differ again."""
    for name, title in TIMED_CHARTS.items():
        found = _variable(html, name)
        spec = json.dumps(_without_times(json.loads(found.group(2)), title))
        html = html[: found.start(2)] + spec + html[found.end(2) :]
    # Snakemake lists the rules in the order it met their jobs' records, which differs between a run done in one go
    # and one killed and finished by a second run (the same rules, the same content): listed by name instead.
    found = _variable(html, "rules")
    rules = json.loads(found.group(2))
    return html[: found.start(2)] + json.dumps(dict(sorted(rules.items()))) + html[found.end(2) :]


def credited(html: str) -> str:
    """``html`` with each item's rule (Snakemake's info panel) the one its "made by" label names, and the copy job's
    wildcards and parameters emptied (the panel then hides them); ``ValueError`` when a named rule is not in the report (a stale label)."""
    found = _variable(html, "results")
    results = json.loads(found.group(2))
    rules = json.loads(_variable(html, "rules").group(2))
    for path, item in results.items():
        label = (item.get("labels") or {}).get(MADE_BY)
        if label is None:
            continue
        rule = label.removeprefix("rule ")
        if rule not in rules:
            raise ValueError(f"{path} is labelled as made by rule '{rule}', which the report does not hold")
        item["job_properties"] = {"rule": rule, "wildcards": "", "params": ""}  # text, as Snakemake writes them
    return html[: found.start(2)] + json.dumps(results) + html[found.end(2) :]


def stabilise(path: str | Path) -> None:
    """Rewrite the report at ``path`` without its job times and with each item credited to the rule that made it
    (atomically: a killed rewrite leaves the old file)."""
    from fairshare.io import atomic_path

    text = credited(stable(Path(path).read_text(encoding="utf-8")))
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
