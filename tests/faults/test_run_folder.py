"""Issue 40, rows 5-7 and 12-13: `./run pipeline` holds one lock per folder whatever path reaches it, says so in one
line instead of Snakemake's advice to --unlock, says in one line that a folder it cannot write is unusable, repeats
the user's --configfile in the fixes it suggests, and reports a discarded checkpoint on the console."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from fairshare.validate import corrupt
from tests.faults.test_interrupts import SLOW_JOB
from tests.support.run_folder import run_folder


def _start(cwd: Path, env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        ["./run", "pipeline", "--cores", "1", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)


def _wait_for_job(wd: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while not (wd / "job.pid").is_file() or not (wd / "job.pid").read_text().strip():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)


def _busy(wd: Path) -> str:
    return f"fairshare: another ./run pipeline is working in {wd.resolve()}; wait for it to finish or stop it"


def test_a_second_run_through_a_symlink_is_refused_while_the_first_works(tmp_path):
    wd, env = run_folder(tmp_path, SLOW_JOB)
    first = _start(wd, env, "--forcerun", "all")
    try:
        _wait_for_job(wd, first)
        link = tmp_path / "link"
        link.symlink_to(wd)
        second = _start(link, env, "--forcerun", "all")
        try:
            _, err = second.communicate(timeout=60)
        finally:
            _stop(second)
        assert second.returncode == 1
        assert err.strip().splitlines()[-1].startswith(_busy(wd)), err
        assert "releasing the lock" not in err and first.poll() is None
    finally:
        _stop(first)


def test_two_runs_started_together_give_one_line_not_snakemakes_unlock_advice(tmp_path):
    wd, env = run_folder(tmp_path, SLOW_JOB)
    runs = [_start(wd, env, "--forcerun", "all") for _ in range(2)]
    try:
        deadline = time.monotonic() + 60
        while all(p.poll() is None for p in runs):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        (loser,) = [p for p in runs if p.poll() is not None]
        _, err = loser.communicate(timeout=30)
        assert loser.returncode == 1 and err.count("\n") == 1 and err.startswith(_busy(wd)), err
        assert "LockException" not in err and "--unlock " not in err
    finally:
        for proc in runs:
            _stop(proc)


def test_a_folder_where_snakemake_cannot_write_is_one_line(tmp_path):
    """Stands in for a read-only checkout (root writes through file modes): .snakemake cannot be made a folder."""
    wd, env = run_folder(tmp_path, SLOW_JOB)
    (wd / ".snakemake").write_text("")
    out = subprocess.run(
        ["./run", "pipeline", "--cores", "1"], cwd=wd, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith(f"fairshare: cannot write .snakemake in {wd.resolve()} (")
    assert "run the pipeline in a writable clone" in out.stderr


REPORTS = """
rule all:
    output: "done.txt"
    shell: "mkdir -p logs && echo \\"${{FAIRSHARE_RERUN_ARGS:-}}\\" > args.txt && echo 'fairshare: discarding checkpoint c.pt: its digest differs; starting from round 0' > logs/job.log && touch {output}"
"""


@pytest.fixture
def reporting_run(tmp_path) -> tuple[Path, subprocess.CompletedProcess]:
    """`./run pipeline --configfile config/test.yaml` on a job that logs a discarded checkpoint."""
    wd, env = run_folder(tmp_path, REPORTS)
    argv = ["./run", "pipeline", "--cores", "1", "--configfile", "config/test.yaml", "--forcerun", "all"]
    out = subprocess.run(argv, cwd=wd, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return wd, out


def test_the_jobs_know_the_runs_configfile(reporting_run):
    wd, _ = reporting_run
    assert (wd / "args.txt").read_text().strip() == "--configfile config/test.yaml"


def test_a_discarded_checkpoint_is_reported_on_the_console(reporting_run):
    _, out = reporting_run
    expected = "fairshare: discarding checkpoint c.pt: its digest differs; starting from round 0"
    assert out.stderr.strip().splitlines()[-1] == expected


def test_the_suggested_fix_names_the_runs_configfile(monkeypatch):
    monkeypatch.setenv("FAIRSHARE_RERUN_ARGS", " --configfile config/test.yaml")
    message = str(corrupt("results/mmfl/runs/exp1/fedfair/seed0.csv", "cut"))
    assert message.endswith(
        "rerun: ./run pipeline --configfile config/test.yaml --forcerun results/mmfl/runs/exp1/fedfair/seed0.csv"
    )
