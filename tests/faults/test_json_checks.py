"""Issue 40: a JSON intermediate's check file (``<file>.check.json``, written by ``fairshare.io.write_json``) is an
output of the job that writes the JSON and an input of every job that reads it, as the CSVs' are, so Snakemake
removes, recreates and orders them together; DVC metrics (final outputs) have none."""

from __future__ import annotations

import re

import pytest

from fairshare.validate import CHECK_SUFFIX
from tests.pipeline.conftest import snakemake, workflow_copy

METRICS = ("metrics/", "results/metrics/")
# Rules that read no JSON: the default target (lists files) and the report's items (copies tables into the HTML
# report as text; computes nothing from them).
NOT_READERS = {"all", "report_items"}


def _jobs(plan: str) -> list[tuple[str, list[str], list[str]]]:
    """(rule, inputs, outputs) of every job of a dry run's listing."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", plan):
        head = re.match(r"(?:local)?rule (\w+):\n", block)
        if not head:
            continue
        fields = dict(re.findall(r"^    (input|output): (.*)$", block, flags=re.M))
        split = {k: [p.strip() for p in fields.get(k, "").split(",") if p.strip()] for k in ("input", "output")}
        jobs.append((head.group(1), split["input"], split["output"]))
    return jobs


@pytest.mark.parametrize("profile", [["--configfile", "config/test.yaml"], []], ids=["test", "default"])
def test_every_json_intermediate_has_its_check_file_declared(tmp_path, profile):
    wd = workflow_copy(tmp_path / "wd")
    plan = snakemake(["-n", *profile], wd)
    assert plan.returncode == 0, plan.stderr[-3000:]
    jobs = _jobs(plan.stdout + plan.stderr)
    assert len(jobs) > 20
    written = {path: rule for rule, _, outputs in jobs for path in outputs}
    checked_json, missing = 0, []
    for rule, inputs, outputs in jobs:
        for path in outputs:
            if path.endswith(CHECK_SUFFIX):
                assert not path.startswith(METRICS), f"{rule}: a check file beside a DVC metric: {path}"
                assert path.removesuffix(CHECK_SUFFIX) in outputs, f"{rule}: {path} without its file"
            elif path.endswith(".json") and not path.startswith(METRICS):
                assert path + CHECK_SUFFIX in outputs, f"{rule} writes {path} but does not declare its check file"
                checked_json += 1
            elif path.startswith(METRICS):
                assert path + CHECK_SUFFIX not in written
        for path in inputs:
            if rule in NOT_READERS or path.startswith(METRICS) or path.endswith(CHECK_SUFFIX):
                continue
            if path.endswith(".json") and path in written:
                if path + CHECK_SUFFIX not in inputs:
                    missing.append(f"{rule} reads {path} without its check file")
    assert not missing, "\n".join(sorted(set(missing))[:20])
    assert checked_json >= 10  # run records, recruitment files, valuations, the value table, partitions, ...
