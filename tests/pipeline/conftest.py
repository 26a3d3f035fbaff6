"""One end-to-end run of config/test.yaml, shared by the pipeline tests that inspect its outputs."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

SNAKEMAKE = [sys.executable, "-m", "snakemake"]
WORKFLOW_PARTS = ("Snakefile", "workflow", "config", "profiles")


def workflow_copy(dest: Path) -> Path:
    """The workflow's files in ``dest`` (the installed package provides the code)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in WORKFLOW_PARTS:
        src = REPO / name
        (shutil.copytree if src.is_dir() else shutil.copyfile)(src, dest / name)
    return dest


def snakemake(args: list[str], cwd: Path, timeout: int = 1200) -> subprocess.CompletedProcess:
    return subprocess.run(SNAKEMAKE + args, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def output_files(wd: Path) -> dict[str, bytes]:
    """Every file under results/ and figures/ (relative path -> bytes)."""
    files = {}
    for top in ("results", "figures"):
        for path in sorted((wd / top).rglob("*")):
            if path.is_file():
                files[str(path.relative_to(wd))] = path.read_bytes()
    return files


@pytest.fixture(scope="session")
def test_profile_run(tmp_path_factory, worker_id) -> Path:
    """The working folder of a complete, uninterrupted run of the test profile (every rule), made once per test
    session: the first pytest-xdist worker to ask runs it while any other waits on a file lock, then every worker
    reads the same folder. Tests only read it (a test that runs Snakemake in it works on a copy)."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":  # each worker's base temp is a subfolder of the session's
        shared = shared.parent
    wd, outcome = shared / "test_profile_run", shared / "test_profile_run.json"
    with open(shared / "test_profile_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not outcome.exists():
            shutil.rmtree(wd, ignore_errors=True)
            out = snakemake(["--cores", "2", "--configfile", "config/test.yaml"], workflow_copy(wd))
            outcome.write_text(json.dumps({"returncode": out.returncode, "log": (out.stdout + out.stderr)[-6000:]}))
        result = json.loads(outcome.read_text())
    assert result["returncode"] == 0, result["log"]
    return wd


def working_copy(run: Path, dest: Path) -> Path:
    """A copy of a finished run's folder (outputs, Snakemake's records) to run Snakemake in."""
    shutil.copytree(run, dest, symlinks=True)
    return dest
