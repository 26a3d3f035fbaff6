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
import math
import re
import textwrap
from fnmatch import fnmatch
from pathlib import Path

__all__ = [
    "DIGITS",
    "LONG",
    "STATUS_LABELS",
    "caption_rst",
    "producer_command",
    "scorecard_rows",
    "status_counts",
    "number_text",
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
# A number written with at least LONG significant digits is a computed float (``0.5247999999999999``): a table cell
# shows it with DIGITS significant digits (the CSV keeps every digit; the cell's tooltip shows them). A shorter number
# (a value the paper prints, ``1.107322``; a setting) is shown as written.
LONG, DIGITS = 8, 4
_STYLE = (
    "body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse;margin-bottom:1.5em;font-size:12px}"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}th{background:#f0f0f0}"
    "td{max-width:36em}td.n{text-align:right;white-space:nowrap}details{margin-bottom:1.5em}"
    "details>table{font-size:11px}summary{cursor:pointer;color:#335}"
)


def _read_csv(path: str | Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


_NUMBER = re.compile(r"[+-]?(?P<mantissa>\d*\.\d+|\d+\.?\d*)(?:[eE][+-]?\d+)?")


def number_text(value: str) -> str:
    """A table cell's text, a number of :data:`LONG` or more significant digits shown with :data:`DIGITS`
    (``0.5247999999999999`` -> ``0.5248``, ``13295.123456`` -> ``13295``, ``1.2345678e-05`` -> ``1.235e-05``, trailing
    zeros dropped); anything else (``1.107322``, ``3.0``, a word, ``0.956 ± 0.005``) as it is."""
    found = _NUMBER.fullmatch(value.strip())
    if not found or found["mantissa"].isdigit() or len(found["mantissa"].replace(".", "").lstrip("0")) < LONG:
        return value  # not a number, an integer, or a short one
    x = float(value)
    if not 1e-3 <= abs(x) < 1e15:
        return f"{x:.{DIGITS - 1}e}"
    decimals = max(DIGITS - 1 - math.floor(math.log10(abs(x))), 0)
    return f"{x:.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{x:.0f}"


def _cell(column: str, value: str) -> str:
    colour = _COLOURS.get(value) if column == "status" else None
    shown = number_text(value)
    attributes = f" style='background:{colour}'" if colour else ""
    if shown != value:  # the number as the CSV holds it, on hover
        attributes += f" class='n' title='{html.escape(value)}'"
    return f"<td{attributes}>{html.escape(shown)}</td>"


def _html_table(columns: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(c, v) for c, v in zip(columns, row)) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _csv_table(path: str | Path, folded: bool = False) -> str:
    """The CSV as a table; ``folded``: under a closed "every column" summary (beside the paper's layout)."""
    rows = _read_csv(path)
    columns = list(rows[0]) if rows else []
    table = _html_table(columns, [[row[c] or "" for c in columns] for row in rows])
    if folded:
        summary = f"every column: {html.escape(str(path))} ({len(rows)} rows, {len(columns)} columns)"
        return f"<details><summary>{summary}</summary>{table}</details>"
    return f"<h3>{html.escape(str(path))}</h3><p>{len(rows)} rows</p>{table}"


def _pipe_cells(line: str) -> list[str]:
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def _markdown_table(path: str | Path) -> str:
    """A Markdown file of pipe tables (the paper's layout of a table) as HTML: each table as a table, other lines as
    paragraphs."""
    lines, parts, k = Path(path).read_text().splitlines(), [f"<h3>{html.escape(str(path))}</h3>"], 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("|") and k + 1 < len(lines) and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+\s*", lines[k + 1]):
            end = k + 2
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            parts.append(_html_table(_pipe_cells(line), [_pipe_cells(row) for row in lines[k + 2 : end]]))
            k = end
            continue
        if line.strip():
            parts.append(f"<p>{html.escape(line.strip())}</p>")
        k += 1
    return "".join(parts)


def _text_block(path: str | Path) -> str:
    return f"<h3>{html.escape(str(path))}</h3><pre>{html.escape(Path(path).read_text())}</pre>"


def table_html(paths: list[str], title: str) -> str:
    """One self-contained HTML page (no script, no external file) showing every CSV of ``paths`` as a table and
    every JSON file as text. A Markdown file beside a CSV of the same stem is the paper's layout of that table: it is
    shown first, as a table, and the CSV (every column, often too wide to read) folded under it. Non-integer numbers
    show :data:`DIGITS` significant digits (:func:`number_text`)."""
    stems = {Path(p).with_suffix("") for p in paths if p.endswith(".csv")}
    laid_out = {Path(p).with_suffix("") for p in paths if p.endswith(".md")} & stems
    parts = []
    for path in paths:
        stem = Path(path).with_suffix("")
        if path.endswith(".csv") and stem in laid_out:
            parts += [_markdown_table(f"{stem}.md"), _csv_table(path, folded=True)]
        elif path.endswith(".csv"):
            parts.append(_csv_table(path))
        elif path.endswith(".json") or (path.endswith(".md") and stem not in laid_out):
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
