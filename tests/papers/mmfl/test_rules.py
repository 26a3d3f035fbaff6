"""mmfl.job_granularity in the workflow: `all` and `seed` plan the same per-run result files of the multi-model FL runs
and of the auctions' Exp 6, in one job for each of the two or in one job per run and seed."""

from __future__ import annotations

from pathlib import Path

import yaml

from fairshare.config import load_config
from fairshare.papers.mmfl.experiment import Settings
from tests.conftest import REPO
from tests.pipeline.conftest import snakemake, workflow_copy

TARGETS = ["results/mmfl/summary.csv", "results/auctions/exp6_summary.csv"]


def _plan(wd: Path, granularity: str) -> tuple[dict[str, int], set[str]]:
    """Training jobs per rule and the training outputs of a dry run of the default profile."""
    (wd / "granularity.yaml").write_text(yaml.safe_dump({"mmfl": {"job_granularity": granularity}}))
    out = snakemake(["-n", "--cores", "1", *TARGETS, "--configfile", "config/config.yaml", "granularity.yaml"], wd)
    assert out.returncode == 0, out.stderr[-3000:]
    jobs: dict[str, int] = {}
    outputs: set[str] = set()
    for line in out.stdout.splitlines():
        line = line.strip()
        if line.startswith(("rule mmfl_run", "localrule mmfl_run", "rule auctions_exp6", "localrule auctions_exp6")):
            name = line.split()[-1].rstrip(":")
            jobs[name] = jobs.get(name, 0) + 1
        if line.startswith("output: results/mmfl/runs/") or line.startswith("output: results/auctions/exp6/"):
            outputs.update(p.strip() for p in line.removeprefix("output: ").split(","))
    return jobs, outputs


def test_all_and_seed_granularity_plan_the_same_files(tmp_path):
    wd = workflow_copy(tmp_path)
    grouped_jobs, grouped = _plan(wd, "all")
    single_jobs, single = _plan(wd, "seed")
    assert grouped == single
    config = load_config(REPO / "config" / "config.yaml")
    settings = Settings.from_block(config["mmfl"])
    exp6 = config["auctions"]["exp6"]
    runs = settings.runs()
    assert single_jobs == {"mmfl_run": len(runs), "auctions_exp6": len(exp6["mechanisms"]) * exp6["seeds"]}
    assert grouped_jobs == {"mmfl_run": 1, "auctions_exp6": 1}
    assert len(grouped) == 2 * len(runs) + len(exp6["mechanisms"]) * exp6["seeds"]  # rows + allocation map per run
