"""One end-to-end run of config/test.yaml, shared by the pipeline tests that inspect its outputs."""

from __future__ import annotations

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
def test_profile_run(tmp_path_factory) -> Path:
    """The working folder of a complete, uninterrupted run of the test profile (every rule)."""
    wd = workflow_copy(tmp_path_factory.mktemp("test_profile_run"))
    out = snakemake(["--cores", "2", "--configfile", "config/test.yaml"], wd)
    assert out.returncode == 0, (out.stdout + out.stderr)[-6000:]
    return wd
