"""The HTML report is byte-identical for the same config and results: Snakemake's embedded job times are dropped
(issue 27). Two real reports of a tiny workflow, its job rerun in between, are compared. Each report item's rule is
the one that made its artifact, not the job that copied it into the report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from fairshare.cli import main
from fairshare.pipeline.html_report import TIMED_CHARTS, credited, stabilise, stable

SNAKEFILE = """
rule all:
    input: "out.txt"

rule make:
    output: report("out.txt", category="tiny")
    shell: "sleep 0.2; echo same > {output}"
"""

# A report item copied by another rule, as rule report_items copies the pipeline's figures; its label names the maker.
COPIED = """
rule all:
    input: "copy.txt"

rule make:
    output: "out.txt"
    shell: "echo made > {output}"

rule copy:
    input: "out.txt"
    output: report("copy.txt", category="tiny", labels={"made by": "rule MAKER"})
    params: spec="copy-spec.json"
    shell: "cp {input} {output}"
"""


def _rule_of(html: str, item: str) -> dict:
    results = json.loads(re.search(r"var results = (\{.*\});\n", html).group(1))
    return results[item]["job_properties"]


def _snakemake(wd: Path, *args: str) -> None:
    command = [sys.executable, "-m", "snakemake", "--cores", "1", "--quiet", "all", *args]
    out = subprocess.run(command, cwd=wd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]


def _run_and_report(wd: Path, name: str) -> Path:
    """Run (or rerun) the tiny workflow's job, then render its report as ``name``."""
    _snakemake(wd, "--forceall")
    _snakemake(wd, "--report", name)
    return wd / name


def test_two_runs_give_the_same_report_bytes(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    first, second = _run_and_report(tmp_path, "first.html"), _run_and_report(tmp_path, "second.html")
    raw = first.read_text(), second.read_text()
    differing = {a for a, b in zip(*(t.splitlines() for t in raw), strict=True) if a != b}
    assert differing and all(any(f"var {chart} = " in line for chart in TIMED_CHARTS) for line in differing)
    stabilise(first)
    stabilise(second)
    assert first.read_bytes() == second.read_bytes()
    assert stable(first.read_text()) == first.read_text()  # idempotent
    assert "not embedded, so that reruns give identical bytes" in first.read_text()


def test_a_report_without_the_charts_is_refused_in_one_line(tmp_path, capsys):
    page = tmp_path / "report.html"
    page.write_text("<html></html>")
    assert main(["report", "stable-html", str(page)]) != 0
    err = capsys.readouterr().err.strip()
    assert "runtimes_spec" in err and "\n" not in err and "Traceback" not in err


def _copied_report(wd: Path, maker: str) -> Path:
    """The report of the copy workflow, its item labelled as made by rule ``maker``."""
    (wd / "Snakefile").write_text(COPIED.replace("MAKER", maker))
    _snakemake(wd)
    _snakemake(wd, "--report", "report.html")
    return wd / "report.html"


def test_a_copied_item_is_credited_to_the_rule_that_made_it(tmp_path):
    html = _copied_report(tmp_path, "make").read_text()
    assert _rule_of(html, "copy.txt")["rule"] == "copy"  # Snakemake names the copy job
    assert _rule_of(credited(html), "copy.txt") == {"rule": "make", "wildcards": "", "params": ""}
    stabilise(tmp_path / "report.html")
    assert _rule_of((tmp_path / "report.html").read_text(), "copy.txt")["rule"] == "make"


def test_a_label_naming_a_rule_the_report_lacks_is_refused_in_one_line(tmp_path, capsys):
    assert main(["report", "stable-html", str(_copied_report(tmp_path, "vanished"))]) != 0
    err = capsys.readouterr().err.strip()
    assert "vanished" in err and "\n" not in err and "Traceback" not in err


def test_the_rules_are_listed_in_one_order_whatever_order_the_jobs_ran_in(tmp_path):
    """A killed run finished by a second one made a report listing the same rules in another order (CI, 2026-11-27)."""
    html = _copied_report(tmp_path, "make").read_text()
    found = re.search(r"(var rules = )(\{.*\});\n", html)
    rules = json.loads(found.group(2))
    assert len(rules) >= 2
    reordered = html[: found.start(2)] + json.dumps(dict(reversed(rules.items()))) + html[found.end(2) :]
    assert reordered != html
    assert stable(reordered) == stable(html)


def test_the_landing_page_leads_with_the_scorecard(tmp_path):
    """Snakemake opened the report on its rule graph (issue 39): given the scorecard, the landing page holds its counts,
    overall and per paper, and the rule graph moves to the menu."""
    html = _copied_report(tmp_path, "make").read_text()
    assert re.search(r"var metadata = \{\};\n", html)  # Snakemake's landing page: the rule graph
    card = tmp_path / "scorecard.csv"
    rows = [("mmfl", "match")] * 3 + [("mmfl", "differs"), ("aequa", "inconclusive"), ("aequa", "match")]
    card.write_text("paper,artifact,claim,status\n" + "".join(f"{p},a,c,{s}\n" for p, s in rows))
    assert main(["report", "stable-html", str(tmp_path / "report.html"), "--scorecard", str(card)]) == 0
    page = (tmp_path / "report.html").read_text()
    metadata = json.loads(re.search(r"var metadata = (\{.*\});\n", page).group(1))
    assert list(metadata) == ["Scorecard", "By paper", "Where to read on"]
    assert "6 rows" in metadata["Scorecard"] and "<b>4 match</b>, 1 differs, 1 inconclusive." in metadata["Scorecard"]
    table = metadata["By paper"]
    assert "not run" not in table and re.search(r"mmfl</td>(<td[^>]*>\d</td>){4}", table)
    assert [int(n) for n in re.findall(r">(\d+)</t[dh]>", table)] == [3, 1, 0, 4, 1, 0, 1, 2, 4, 1, 1, 6]
    assert _rule_of(page, "copy.txt")["rule"] == "make"  # still credited and stable
    assert stable(page) == page
