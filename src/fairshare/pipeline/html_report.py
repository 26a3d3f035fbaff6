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

Snakemake opens its report on the rule graph, the workflow's description squeezed beside it, unless the report has
"metadata", which it then shows on the landing page instead. :func:`front_page` fills that with the scorecard's
counts, overall and per paper, so the report leads with the verdicts; the rule graph is one click away ("Workflow").
"""

from __future__ import annotations

import csv
import html as markup
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["MADE_BY", "TIMED_CHARTS", "credited", "front_page", "stable", "stabilise"]

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


_CELL = "border:1px solid #ccc;padding:2px 8px;text-align:right"
_COLOURS = {"match": "#d9f2d9", "differs": "#f8d7d7", "inconclusive": "#fff3cd"}


def _summary_table(rows: Sequence[Mapping[str, str]], statuses: Sequence[str]) -> str:
    """Rows per paper (in order of first appearance) and status, with a total row; empty statuses left out."""
    papers = list(dict.fromkeys(r["paper"] for r in rows))
    shown = [s for s in statuses if any(r["status"] == s for r in rows)]

    def line(name: str, mine: list, tag: str = "td") -> str:
        cells = "".join(f"<{tag} style='{_CELL}'>{sum(r['status'] == s for r in mine)}</{tag}>" for s in shown)
        first = f"<{tag} style='{_CELL};text-align:left'>{markup.escape(name)}</{tag}>"
        return f"<tr>{first}{cells}<{tag} style='{_CELL}'>{len(mine)}</{tag}></tr>"

    head = "".join(
        f"<th style='{_CELL};background:{_COLOURS.get(s, '#f0f0f0')}'>{markup.escape(s)}</th>" for s in shown
    )
    body = "".join(line(p, [r for r in rows if r["paper"] == p]) for p in papers)
    return (
        f"<table style='border-collapse:collapse;font-size:13px'><tr><th style='{_CELL};text-align:left'>paper</th>"
        f"{head}<th style='{_CELL}'>rows</th></tr>{body}{line('all papers', list(rows), 'th')}</table>"
    )


def front_page(html: str, scorecard: Sequence[Mapping[str, str]], statuses: Sequence[str]) -> str:
    """``html`` whose landing page leads with the scorecard (``scorecard``: its rows, each with ``paper`` and
    ``status``; ``statuses`` in the order to count them): the counts overall and per paper, and where to read on."""
    counts = [(s, sum(r["status"] == s for r in scorecard)) for s in statuses]
    told = ", ".join(
        f"<b>{n} {markup.escape(s)}</b>" if s == "match" else f"{n} {markup.escape(s)}" for s, n in counts if n
    )
    metadata = {
        "Scorecard": f"<p>{len(scorecard)} rows, each a number or statement of a paper checked against this run's "
        f"results: {told}.</p>",
        "By paper": _summary_table(scorecard, statuses),
        "Where to read on": "<p>The <i>0 scorecard</i> category lists every row with its reason "
        "(<code>results/scorecard.csv</code>) and the training verdicts by profile; each paper's category holds its "
        "tables and figures, each caption with the verdict of its rows. The rule graph is under <i>Workflow</i> in "
        "the menu.</p>",
    }
    # the report's own variable, in its script element (a bundled library has a "var metadata" of its own)
    found = re.compile(r'(<script id="metadata">\s*var metadata = )(\{.*\});\n').search(html)
    if found is None:
        raise ValueError("the report has no 'metadata' script (another Snakemake version?); cannot finish it")
    return html[: found.start(2)] + json.dumps(metadata) + html[found.end(2) :]


def stabilise(path: str | Path, scorecard: str | Path | None = None) -> None:
    """Rewrite the report at ``path`` without its job times, with each item credited to the rule that made it and,
    given the ``scorecard`` CSV, leading with its counts (atomically: a killed rewrite leaves the old file)."""
    from fairshare.io import atomic_path

    text = credited(stable(Path(path).read_text(encoding="utf-8")))
    if scorecard is not None:
        from fairshare.pipeline.report import STATUSES

        with open(scorecard, newline="") as f:
            text = front_page(text, list(csv.DictReader(f)), STATUSES)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
