"""`runs_per_job` in the workflow: every value plans the same per-run result files of the multi-model FL runs and of
the auctions' Exp 6: one job per experiment (multi-model FL) or mechanism (Exp 6) holding all its runs (`all`), one per
run (1), or each experiment's runs dealt over ceil(runs / n) jobs."""

from __future__ import annotations

import math
import re
from pathlib import Path

import yaml

from fairshare.papers.mmfl.experiment import Settings
from fairshare.pipeline.config import load_config
from tests.conftest import REPO
from tests.pipeline.conftest import snakemake, workflow_copy


def rule_suffix(name: str) -> str:
    """A name as part of a rule name (``val_threshold_0.4`` -> ``val_threshold_0_4``)."""
    return re.sub(r"\W", "_", name)


TARGETS = ["results/mmfl/summary.csv", "results/auctions/exp6_summary.csv"]


def _plan(wd: Path, runs_per_job: int | str) -> tuple[dict[str, int], set[str]]:
    """Training jobs per rule and the training outputs of a dry run of the default profile."""
    (wd / "jobs.yaml").write_text(yaml.safe_dump({"runs_per_job": runs_per_job}))
    out = snakemake(["-n", "--cores", "1", *TARGETS, "--configfile", "config/config.yaml", "jobs.yaml"], wd)
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


def test_every_runs_per_job_plans_the_same_files(tmp_path):
    wd = workflow_copy(tmp_path)
    grouped_jobs, grouped = _plan(wd, "all")
    single_jobs, single = _plan(wd, 1)
    dealt_jobs, dealt = _plan(wd, {"default": 1, "mmfl": 4})
    assert grouped == single == dealt
    config = load_config(REPO / "config" / "config.yaml")
    runs = Settings.from_block(config["mmfl"]).runs()
    exp6 = config["auctions"]["exp6"]
    exp6_runs = len(exp6["mechanisms"]) * exp6["seeds"]
    assert single_jobs == {"mmfl_run": len(runs), "auctions_exp6": exp6_runs}
    # never two experiments (mechanisms) in one job: on 2 cores no single job is the run's critical path
    per_experiment = {
        e.name: sum(r.experiment == e.name for r in runs) for e in Settings.from_block(config["mmfl"]).experiments
    }
    assert grouped_jobs == {
        **{f"mmfl_run_{rule_suffix(e)}": 1 for e in per_experiment},
        **{f"auctions_exp6_{rule_suffix(m)}": 1 for m in exp6["mechanisms"]},
    }
    expected_dealt = {}
    for name, count in per_experiment.items():
        jobs = math.ceil(count / 4)
        expected_dealt.update({f"mmfl_run_{rule_suffix(name)}" + (f"_{k}" if jobs > 1 else ""): 1 for k in range(jobs)})
    assert dealt_jobs == {**expected_dealt, "auctions_exp6": exp6_runs}
    # per run: its rows, their check file and its allocation map; per Exp 6 run: its rows and their check file
    assert len(grouped) == 3 * len(runs) + 2 * exp6_runs
