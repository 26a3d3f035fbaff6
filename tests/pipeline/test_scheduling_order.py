"""The order Snakemake starts ready jobs in: preparation (data, partitions, closed-form papers, sensitivity reruns,
summaries, report) first, then training jobs longest first by their runtime estimate, so that on 2 cores the last job
to start is a short one (workflow/rules/common.smk: `longest_first`, `PREPARE_FIRST`)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.pipeline.conftest import snakemake, workflow_copy

PREPARE_FIRST = 1_000_000


def _planned_jobs(wd: Path, profile: str) -> list[tuple[str, int | None, int | None]]:
    """(rule, priority, runtime estimate) of every job a dry run of ``profile`` plans."""
    out = snakemake(["-n", "--cores", "1", "--configfile", profile], wd)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", out.stdout):
        rule = re.match(r"(?:local)?rule (\w+):", block)
        if not rule or rule.group(1) == "all":
            continue
        priority = re.search(r"^\s+priority: (\d+)$", block, flags=re.MULTILINE)
        runtime = re.search(r"\bruntime=(\d+)", block)
        jobs.append((rule.group(1), priority and int(priority.group(1)), runtime and int(runtime.group(1))))
    return jobs


def test_training_jobs_start_longest_first_after_preparation(tmp_path):
    jobs = _planned_jobs(workflow_copy(tmp_path), "config/config.yaml")
    training = [(rule, priority, runtime) for rule, priority, runtime in jobs if runtime is not None]
    others = [(rule, priority) for rule, priority, runtime in jobs if runtime is None]
    assert {rule.split("_run")[0] for rule, _, _ in training} >= {"mmfl", "aequa"}, training
    assert any(rule.startswith("auctions_exp6") for rule, _, _ in training), training
    mismatched = [(rule, priority, runtime) for rule, priority, runtime in training if priority != runtime]
    assert not mismatched, f"a training job's priority is not its runtime estimate: {mismatched}"
    assert len({runtime for _, _, runtime in training}) > 1, "the estimates do not tell the jobs apart"
    assert {"dataset", "partitions", "model_sharing", "scorecard", "html_report"} <= {rule for rule, _ in others}
    late = [(rule, priority) for rule, priority in others if priority != PREPARE_FIRST]
    assert not late, f"a preparation or summary job could wait behind training: {late}"
