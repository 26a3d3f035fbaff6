"""README's counts, rendered from the committed metrics so that README cannot state numbers the run did not give.

README holds each generated part between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``:

- ``scorecard-summary``: the default profile's rows per paper and status, and per kind, counted from
  ``metrics/default/scorecard.csv`` (the run's ``results/scorecard.csv``, committed) after checking that the DVC
  metrics the same run wrote (``metrics/summary.json``, ``metrics/papers/<paper>.json``) give the same counts; then,
  when that scorecard has the ``yardstick`` column, its training comparisons per paper and kind of match or non-match
  (differs, smaller than the paper's effect, underpowered, inconclusive for another reason, not run);
- ``verdict-table``: every training statement's verdict per profile, from ``metrics/verdicts/<profile>.csv``
  (:func:`fairshare.pipeline.report.verdict_table`).

``fairshare report readme-numbers`` rewrites the blocks in place (``--check``: only says which are stale);
tests/test_readme_numbers.py fails when README and metrics/ disagree.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from fairshare.pipeline import report

__all__ = [
    "BLOCKS",
    "VERDICT_PROFILES",
    "render_blocks",
    "replace_blocks",
    "scorecard_summary",
    "stale_blocks",
    "verdict_table_block",
]

BLOCKS = ("scorecard-summary", "verdict-table")
#: The CPU profiles' columns of the verdict table, in the order of workflow/rules/common.smk's VERDICT_PROFILES; the
#: paper profile's column reads "not run here".
VERDICT_PROFILES = ("test", "default", "decisive", "cpu_scale", "cpu_scale_faithful")
PAPER_SCALE = "paper-scale"
#: Statuses every scorecard summary shows; the others (report.STATUSES) only where some row has them.
MAIN_STATUSES = ("match", "differs", "inconclusive", "not run in this profile")


def _read_csv(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise ValueError(f"{path} is missing: restore it from git or rerun the default profile")
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} is unreadable ({exc}): restore it from git or rerun the default profile") from None


def _check_metrics(card: pd.DataFrame, summary: dict, metrics: Path) -> None:
    """Raise ValueError unless ``metrics/summary.json`` and ``metrics/papers/*.json`` give ``summary``'s counts and
    ``metrics/verdicts/default.csv`` the training verdicts of ``card``: all of them written by the same run."""
    fix = "the scorecard and the DVC metrics come from different runs: copy that run's results/scorecard.csv"
    totals = _read_json(metrics / "summary.json")
    expected = {"rows": summary["rows"], **summary["by_status"]}
    if totals != expected:
        raise ValueError(
            f"{metrics / 'summary.json'} gives {totals}, {metrics / 'default/scorecard.csv'} {expected}: {fix}"
        )
    zero = dict.fromkeys(report.STATUSES, 0)
    for path in sorted((metrics / "papers").glob("*.json")):
        counts = summary["papers"].get(path.stem, zero)
        if _read_json(path) != counts:
            raise ValueError(f"{path} does not give the scorecard's counts of {path.stem} ({counts}): {fix}")
    verdicts = metrics / "verdicts" / "default.csv"
    statuses = [*report.ROW_KEY, "status"]  # the same run; whether its row definitions are current shows in the table
    if not report.training_verdicts(card)[statuses].equals(_read_csv(verdicts)[statuses]):
        raise ValueError(f"{verdicts} is not the scorecard's training verdicts: {fix}")


def scorecard_summary(metrics: Path) -> str:
    """The ``scorecard-summary`` block: one row per paper (and the total) with its rows per status and per kind,
    counted from ``metrics/default/scorecard.csv``, then the training comparisons per kind of non-match
    (:func:`fairshare.pipeline.report.yardstick_markdown`) when that scorecard has the yardstick columns."""
    metrics = Path(metrics)
    card = _read_csv(metrics / "default" / "scorecard.csv")
    summary = report.summarize(card)
    _check_metrics(card, summary, metrics)
    statuses = [s for s in report.STATUSES if s in MAIN_STATUSES or summary["by_status"][s]]
    kinds = " / ".join(report.KINDS)
    lines = [
        "| paper | rows | " + " | ".join(statuses) + f" | {kinds} |",
        "|---|" + "---|" * (len(statuses) + 2),
    ]
    for paper, counts in summary["papers"].items():
        rows = card[card["paper"] == paper]
        by_kind = " / ".join(str(int((rows["kind"] == k).sum())) for k in report.KINDS)
        cells = [paper, str(len(rows)), *(str(counts[s]) for s in statuses), by_kind]
        lines.append("| " + " | ".join(cells) + " |")
    by_kind = " / ".join(str(sum(summary["by_kind"][k].values())) for k in report.KINDS)
    total = ["**total**", str(summary["rows"]), *(str(summary["by_status"][s]) for s in statuses), by_kind]
    lines.append("| " + " | ".join(total) + " |")
    if summary["yardstick"]:
        lines += [
            "",
            "Training comparisons against the effect the paper reports (docs/verdicts.md, the yardstick):",
            "",
        ]
        return "\n".join(lines) + "\n" + report.yardstick_markdown(summary["yardstick"])
    return "\n".join(lines) + "\n"


def verdict_table_block(metrics: Path) -> str:
    """The ``verdict-table`` block: counts per status and profile, then every training statement in a collapsed
    section, from the committed ``metrics/verdicts/<profile>.csv`` (a profile without one: "not run here")."""
    columns: dict[str, pd.DataFrame | None] = {}
    for profile in VERDICT_PROFILES:
        path = Path(metrics) / "verdicts" / f"{profile}.csv"
        columns[profile] = pd.read_csv(path, dtype=str, keep_default_na=False) if path.is_file() else None
    columns[PAPER_SCALE] = None
    counts, rows = report.verdict_table_markdown(report.verdict_table(columns)).split("\n\n", 1)
    return f"{counts}\n\n<details><summary>every training statement, one row each</summary>\n\n{rows}\n</details>\n"


def render_blocks(metrics: Path) -> dict[str, str]:
    """Every generated block of README, by name, from the committed ``metrics`` folder."""
    return {"scorecard-summary": scorecard_summary(metrics), "verdict-table": verdict_table_block(metrics)}


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {re.escape(name)}:start -->\n)(.*?)(<!-- {re.escape(name)}:end -->)", re.S)


def _current(text: str, name: str) -> re.Match[str]:
    found = _pattern(name).search(text)
    if found is None:
        raise ValueError(f"README has no <!-- {name}:start --> ... <!-- {name}:end --> block")
    return found


def stale_blocks(text: str, blocks: dict[str, str]) -> list[str]:
    """The names of the ``blocks`` whose content in README ``text`` differs from the rendered one."""
    return [name for name, body in blocks.items() if _current(text, name).group(2) != body]


def replace_blocks(text: str, blocks: dict[str, str]) -> str:
    """README ``text`` with each block's content replaced by its rendered ``blocks`` entry."""
    for name, body in blocks.items():
        found = _current(text, name)
        text = text[: found.start(2)] + body + text[found.end(2) :]
    return text
