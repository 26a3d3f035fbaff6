"""README's counts come from the committed metrics/: its generated blocks equal what fairshare.pipeline.readme_numbers
renders from them, a changed scorecard makes README stale, and no count of match / differs / inconclusive / not run
is typed outside the blocks."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from fairshare.pipeline import readme_numbers
from fairshare.pipeline.report import TRAINING_PAPERS, summarize, training_verdicts

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
METRICS = ROOT / "metrics"


def test_readme_blocks_are_rendered_from_the_committed_metrics():
    blocks = readme_numbers.render_blocks(METRICS)
    stale = readme_numbers.stale_blocks(README.read_text(), blocks)
    assert not stale, f"README's {stale} differ from metrics/: run `fairshare report readme-numbers`"


def test_the_summary_counts_every_row_of_the_committed_scorecard():
    """The rendered total row is the scorecard's own count per status (an independent count, not the renderer's)."""
    card = pd.read_csv(METRICS / "default" / "scorecard.csv", dtype=str, keep_default_na=False)
    total = next(ln for ln in readme_numbers.scorecard_summary(METRICS).splitlines() if ln.startswith("| **total** |"))
    status = card["status"].value_counts()
    expected = [str(len(card)), *(str(status.get(s, 0)) for s in readme_numbers.MAIN_STATUSES)]
    assert total.split(" | ")[1 : 1 + len(expected)] == expected


def _copy_metrics(tmp_path: Path) -> Path:
    metrics = tmp_path / "metrics"
    shutil.copytree(METRICS, metrics)
    return metrics


def _rewrite_metrics(metrics: Path, card: pd.DataFrame) -> None:
    """The DVC metrics the scorecard step writes for ``card`` (fairshare.commands.report.scorecard)."""
    summary = summarize(card)
    (metrics / "summary.json").write_text(json.dumps({"rows": summary["rows"], **summary["by_status"]}))
    for path in (metrics / "papers").glob("*.json"):
        path.write_text(json.dumps(summary["papers"].get(path.stem, {})))
    training_verdicts(card).to_csv(metrics / "verdicts" / "default.csv", index=False)


def _flip_one_match(metrics: Path) -> None:
    """A new run in which one multi-model FL statement that matched is inconclusive."""
    path = metrics / "default" / "scorecard.csv"
    card = pd.read_csv(path, dtype=str, keep_default_na=False)
    row = card.index[(card["paper"] == "mmfl") & (card["kind"] == "claim") & (card["status"] == "match")][0]
    card.loc[row, "status"] = "inconclusive"
    card.to_csv(path, index=False)
    _rewrite_metrics(metrics, card)


def test_a_changed_scorecard_makes_readme_stale_until_rewritten(tmp_path):
    metrics = _copy_metrics(tmp_path)
    _flip_one_match(metrics)
    text = README.read_text()
    blocks = readme_numbers.render_blocks(metrics)
    assert readme_numbers.stale_blocks(text, blocks) == ["scorecard-summary", "verdict-table"]
    rewritten = readme_numbers.replace_blocks(text, blocks)
    assert readme_numbers.stale_blocks(rewritten, blocks) == []
    before = readme_numbers.render_blocks(METRICS)
    mmfl_row = next(line for line in before["scorecard-summary"].splitlines() if line.startswith("| mmfl |"))
    cells = mmfl_row.split(" | ")
    cells[2], cells[4] = str(int(cells[2]) - 1), str(int(cells[4]) + 1)  # match - 1, inconclusive + 1
    assert " | ".join(cells) in rewritten
    assert readme_numbers.replace_blocks(rewritten, before) == text  # nothing outside the blocks changes


def test_a_changed_verdict_snapshot_makes_readme_stale(tmp_path):
    metrics = _copy_metrics(tmp_path)
    path = metrics / "verdicts" / "test.csv"  # a column of the current row definitions
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[frame["status"] == "match", "status"] = "differs"
    frame.to_csv(path, index=False)
    assert readme_numbers.stale_blocks(README.read_text(), readme_numbers.render_blocks(metrics)) == ["verdict-table"]


def test_a_scorecard_from_another_run_than_the_dvc_metrics_is_refused(tmp_path):
    """The committed scorecard is copied by hand: one that the run's summary.json does not count is an error."""
    metrics = _copy_metrics(tmp_path)
    path = metrics / "default" / "scorecard.csv"
    card = pd.read_csv(path, dtype=str, keep_default_na=False)
    shorter = card.drop(index=card.index[card["paper"].isin(TRAINING_PAPERS) & (card["kind"] == "claim")][-1])
    shorter.to_csv(path, index=False)
    with pytest.raises(ValueError, match="summary.json"):
        readme_numbers.scorecard_summary(metrics)
    _rewrite_metrics(metrics, shorter)
    readme_numbers.scorecard_summary(metrics)  # the same run's metrics: accepted
    (metrics / "papers" / "aequa.json").write_text(json.dumps({"match": 99}))
    with pytest.raises(ValueError, match="aequa.json"):
        readme_numbers.scorecard_summary(metrics)
    _rewrite_metrics(metrics, shorter)
    training_verdicts(card).to_csv(metrics / "verdicts" / "default.csv", index=False)
    with pytest.raises(ValueError, match="default.csv is not the scorecard's training verdicts"):
        readme_numbers.scorecard_summary(metrics)


def test_readme_without_the_block_is_refused():
    with pytest.raises(ValueError, match="scorecard-summary:start"):
        readme_numbers.stale_blocks("# no blocks\n", {"scorecard-summary": ""})


# A count of rows by status typed in prose: "13 match", "2 differ", "29 rows are inconclusive", "33 of 53 rows".
TYPED_COUNT = re.compile(
    r"\b\d+ (?:rows? )?(?:are |is )?(?:match(?:es)?|differs?|inconclusive|not run)\b|\b\d+ of \d+ (?:rows|statements)\b"
)


def _outside_blocks(text: str) -> str:
    for name in readme_numbers.BLOCKS:
        text = re.sub(rf"<!-- {name}:start -->.*?<!-- {name}:end -->", "", text, flags=re.S)
    return text


def test_no_status_count_is_typed_outside_the_generated_blocks():
    typed = TYPED_COUNT.findall(_outside_blocks(README.read_text()))
    assert not typed, f"README types counts that metrics/ gives (put them in a generated block): {typed}"


def test_the_typed_count_check_catches_the_old_readme_wording():
    old = (
        "FedFairMMFL converges faster than q-FFL; 13 of 57 rows match | 29 rows are inconclusive; 2 differ, 13 not run"
    )
    assert TYPED_COUNT.findall(old) == ["13 of 57 rows", "29 rows are inconclusive", "2 differ", "13 not run"]


def test_the_command_rewrites_a_stale_readme_and_checks_it(tmp_path):
    metrics = _copy_metrics(tmp_path)
    _flip_one_match(metrics)
    readme = tmp_path / "README.md"
    readme.write_text(README.read_text())
    command = [sys.executable, "-m", "fairshare", "report", "readme-numbers", "--readme", str(readme)]
    command += ["--metrics", str(metrics)]
    check = subprocess.run([*command, "--check"], capture_output=True, text=True)
    assert check.returncode != 0 and "stale blocks scorecard-summary, verdict-table" in check.stderr
    assert "Traceback" not in check.stderr and readme.read_text() == README.read_text()
    assert subprocess.run(command, capture_output=True, text=True).returncode == 0
    assert subprocess.run([*command, "--check"], capture_output=True, text=True).returncode == 0
    assert readme.read_text() != README.read_text()
