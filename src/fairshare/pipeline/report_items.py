"""The items of the Snakemake HTML report: tables as HTML pages, and each item's caption (what the paper shows, what
to look for, the verdict of its scorecard rows, the rule and command that made it).

A manifest entry (workflow/manifest.yaml) names its scorecard rows by ``rows``: patterns matched (``fnmatch``)
against each comma-separated part of a row's ``artifact`` (e.g. ``Table 3`` matches the artifact "Table 3, Fig. 2",
``Lemma *`` every lemma), within the entry's paper.
"""

from __future__ import annotations

import base64
import csv
import html
import json
import textwrap
from fnmatch import fnmatch
from pathlib import Path

__all__ = [
    "STATUS_LABELS",
    "caption_rst",
    "producer_command",
    "scorecard_rows",
    "status_counts",
    "table_html",
]

# The scorecard's statuses, in the order the captions count them, with the caption's short name.
STATUS_LABELS = {
    "match": "match",
    "differs": "differs",
    "inconclusive": "inconclusive",
    "not run in this profile": "not run",
}
# Caption lines are cut at about this many characters (docutils refuses a line over 10,000).
_WIDTH = 110
_COLOURS = {"match": "#d9f2d9", "differs": "#f8d7d7", "inconclusive": "#fff3cd"}
_STYLE = (
    "body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse;margin-bottom:1.5em}"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}th{background:#f0f0f0}"
)


def _read_csv(path: str | Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _cell(column: str, value: str) -> str:
    colour = _COLOURS.get(value) if column == "status" else None
    style = f" style='background:{colour}'" if colour else ""
    return f"<td{style}>{html.escape(value)}</td>"


def _csv_table(path: str | Path) -> str:
    rows = _read_csv(path)
    columns = list(rows[0]) if rows else []
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(c, row[c] or "") for c in columns) + "</tr>" for row in rows)
    return f"<h3>{html.escape(str(path))}</h3><p>{len(rows)} rows</p><table><tr>{head}</tr>{body}</table>"


def _text_block(path: str | Path) -> str:
    return f"<h3>{html.escape(str(path))}</h3><pre>{html.escape(Path(path).read_text())}</pre>"


def table_html(paths: list[str], title: str) -> str:
    """One self-contained HTML page (no script, no external file) showing every CSV of ``paths`` as a table and
    every JSON file as text; a Markdown file is skipped when a CSV of the same stem is shown."""
    stems = {Path(p).with_suffix("") for p in paths if p.endswith(".csv")}
    parts = []
    for path in paths:
        if path.endswith(".csv"):
            parts.append(_csv_table(path))
        elif path.endswith(".json") or (path.endswith(".md") and Path(path).with_suffix("") not in stems):
            parts.append(_text_block(path))
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body><h2>{html.escape(title)}</h2>{''.join(parts)}</body></html>\n"
    )


def _matches(artifact: str, patterns: list[str]) -> bool:
    parts = [p.strip() for p in artifact.replace("\n", ",").split(",")]
    return any(fnmatch(part, pattern) for part in parts for pattern in patterns)


def scorecard_rows(scorecard: list[dict[str, str]], paper: str, patterns: list[str]) -> list[dict[str, str]]:
    """The scorecard rows of ``paper`` whose artifact matches one of ``patterns``."""
    return [r for r in scorecard if r["paper"] == paper and _matches(r["artifact"], patterns)]


def status_counts(rows: list[dict[str, str]]) -> dict[str, int]:
    """Rows per status, every status of STATUS_LABELS listed (zero included)."""
    return {label: sum(r["status"] == status for r in rows) for status, label in STATUS_LABELS.items()}


def producer_command(path: str, metadata_dir: str | Path = ".snakemake/metadata") -> str | None:
    """The shell command Snakemake ran to make ``path``, from its job record (None when it has none)."""
    record = Path(metadata_dir, base64.urlsafe_b64encode(path.encode()).decode())
    if not record.is_file():
        return None
    try:
        return json.loads(record.read_text()).get("shellcmd") or None
    except (OSError, ValueError):
        return None


def _rst_text(text: str) -> str:
    """Plain text for reStructuredText: one line, every markup character escaped."""
    text = " ".join(str(text).split()).replace("\\", "\\\\")
    for ch in "*`_|[]<>":
        text = text.replace(ch, "\\" + ch)
    return text


def _rst_literal(text: str) -> str:
    return "``" + " ".join(text.split()).replace("`", "'") + "``"


def _verdict(entry: dict, rows: list[dict[str, str]]) -> list[str]:
    if not rows:
        return ["**Scorecard:** no scorecard row checks this item (it supports the others)."]
    counts = ", ".join(f"{n} {label}" for label, n in status_counts(rows).items())
    lines = [
        f"**Scorecard verdict:** {len(rows)} rows: {counts}. The rows (also in the *0 scorecard* category, "
        f"``results/scorecard.csv``, paper ``{entry['paper']}``, artifact {_rst_text(', '.join(entry['rows']))}):",
        "",
    ]
    for r in rows:
        tuned = f" (sensitivity: {_rst_text(r['sensitivity'])})" if r.get("sensitivity") else ""
        lines.append(f"- **{r['status']}**: {_rst_text(r['artifact'])}: {_rst_text(r['claim'])}{tuned}")
    return lines


def _made_by(entry: dict) -> list[str]:
    """The rule and its command, the command as a literal block wrapped at word boundaries with shell line
    continuations: a training rule's command lists every run it trains (over 10,000 characters in the default
    profile), past docutils' limit on one line."""
    command = " ".join((entry.get("command") or entry.get("template", "")).split())
    lines = textwrap.wrap(command, width=_WIDTH - 8, break_long_words=False, break_on_hyphens=False) or [""]
    block = [f"    {line} \\" for line in lines[:-1]] + [f"    {lines[-1]}"]
    return [f"**Made by** rule ``{entry['rule']}`` ({entry.get('snakefile', 'workflow')}), command::", "", *block]


def _wrapped(line: str) -> list[str]:
    """A paragraph or list item of the caption cut into lines of at most about ``_WIDTH`` characters (reStructuredText
    joins them again); a list item's further lines are indented under its text."""
    indent = "  " if line.startswith("- ") else ""
    return textwrap.wrap(line, width=_WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def caption_rst(entry: dict, scorecard: list[dict[str, str]]) -> str:
    """The caption of one report item as reStructuredText, wrapped so that Snakemake's Jinja pass shows it as it
    is. ``entry``: the manifest entry plus ``title``, ``rule``, ``command`` or ``template``, ``profile``,
    ``seed``, ``settings``."""
    rows = scorecard_rows(scorecard, entry["paper"], entry.get("rows", []))
    paragraphs = [
        f"**{_rst_text(entry['ref'])}** of *{_rst_text(entry['title'])}*.",
        "",
        f"**What the paper shows:** {_rst_text(entry['shows'])}",
        "",
        f"**What to look for:** {_rst_text(entry['look_for'])}",
        "",
        *_verdict(entry, rows),
        "",
        f"Profile ``{entry['profile']}``, root seed {entry['seed']}; settings of this paper's config block: "
        f"{entry['settings']}. Files: ``{', '.join(entry['files'])}`` (manifest id ``{entry['id']}``).",
        "",
    ]
    lines = [wrapped for paragraph in paragraphs for wrapped in (_wrapped(paragraph) or [""])]
    lines += _made_by(entry)
    return "{% raw %}" + "\n".join(lines) + "\n{% endraw %}"
