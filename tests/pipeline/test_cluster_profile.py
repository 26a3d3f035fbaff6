"""The resources a run gets from the profiles Snakemake loads: GPU jobs one at a time on a local machine, side by
side on the cluster.

Snakemake loads profiles/default as the workflow profile beside any ``--profile``, after it: a ``resources`` entry
there replaced the SLURM profile's ``gpu=100`` and the paper profile's GPU jobs ran one after another. The workflow
below uses this checkout's profiles and its GPU-slot rule file (workflow/rules/gpu_slots.smk) with three GPU jobs that
record when they run, under Snakemake's real scheduler (the local executor stands in for SLURM's submission).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.pipeline.conftest import snakemake

GPU_JOBS = f"""
include: "workflow/rules/gpu_slots.smk"


rule all:
    input:
        expand("out/{{i}}.txt", i=range(3)),


rule gpu_job:
    output:
        "out/{{i}}.txt",
    resources:
        gpu=1,
    shell:
        "{sys.executable} -c 'import time; a = time.time(); time.sleep(1.5); print(a, time.time())' > {{output}}"
"""


@pytest.fixture
def workflow(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "profiles", tmp_path / "profiles")
    (tmp_path / "workflow" / "rules").mkdir(parents=True)
    shutil.copyfile(REPO / "workflow" / "rules" / "gpu_slots.smk", tmp_path / "workflow" / "rules" / "gpu_slots.smk")
    (tmp_path / "Snakefile").write_text(GPU_JOBS)
    return tmp_path


def _overlapping(wd: Path, args: list[str]) -> int:
    """Run the three GPU jobs; the most that ran at one moment."""
    done = snakemake([*args, "--cores", "3"], wd, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    spans = [tuple(map(float, (wd / "out" / f"{i}.txt").read_text().split())) for i in range(3)]
    return max(sum(start <= t < end for start, end in spans) for t, _ in spans)


def test_a_local_run_trains_one_gpu_job_at_a_time(workflow: Path):
    assert _overlapping(workflow, []) == 1


def test_a_local_run_with_more_gpus_runs_that_many(workflow: Path):
    assert _overlapping(workflow, ["--resources", "gpu=2"]) == 2


def test_the_slurm_profile_runs_gpu_jobs_side_by_side(workflow: Path):
    """``--profile profiles/slurm`` with profiles/default loaded as the workflow profile, as on the cluster."""
    assert _overlapping(workflow, ["--profile", "profiles/slurm", "--executor", "local"]) == 3
