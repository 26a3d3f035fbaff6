"""fairshare.pipeline.scheduler_idle: Snakemake's job selection skipped while no core is free, unchanged otherwise."""

from __future__ import annotations

import inspect
import subprocess
import sys
from types import SimpleNamespace

from snakemake.scheduling.job_scheduler import JobScheduler

from fairshare.pipeline import scheduler_idle
from tests.conftest import REPO


def test_the_shipped_selector_stats_inputs_before_it_looks_at_the_cores():
    """The premise: Snakemake's own selector sizes every ready job's inputs first and returns nothing without a
    free core. If an upgrade changes either, this fails and the wrapper should be reconsidered."""
    scheduler_idle.install()
    shipped = inspect.getsource(JobScheduler.job_selector.__wrapped__)
    assert shipped.index("update_input_sizes") < shipped.index('self.resources["_cores"] == 0')


def test_no_free_core_selects_nothing_without_calling_snakemake():
    calls = []
    select = scheduler_idle._skipping(lambda scheduler, jobs: calls.append(jobs) or list(jobs))
    assert select(SimpleNamespace(resources={"_cores": 0}), ["a", "b"]) == []
    assert calls == []
    assert select(SimpleNamespace(resources={"_cores": 1}), ["a", "b"]) == ["a", "b"]
    assert calls == [["a", "b"]]


def test_install_wraps_once():
    assert scheduler_idle.install() and scheduler_idle.install()
    assert scheduler_idle.installed()
    wrapped = JobScheduler.job_selector
    assert not getattr(wrapped.__wrapped__, scheduler_idle._MARK, False)


def test_the_workflow_installs_it_and_still_runs_every_job(tmp_path):
    """Real Snakemake runs of a generated workflow (4 jobs of 50 inputs each on 2 cores, bench/snakemake_idle.py),
    as shipped and with the wrapper: every job runs in both (the bench fails otherwise)."""
    out = subprocess.run(
        [sys.executable, str(REPO / "bench" / "snakemake_idle.py"), *"--jobs 4 --inputs 50 --seconds 0.2".split()],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "with scheduler_idle" in out.stdout
    assert "scheduler_idle.install()" in (REPO / "workflow" / "rules" / "common.smk").read_text()
