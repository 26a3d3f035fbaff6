"""DVC wraps the Snakemake run: both stages parse, and the DAG runs data -> reproduce."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_dvc_stages_and_dag():
    out = subprocess.run(
        [sys.executable, "-m", "dvc", "dag", "--dot"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert '"data" -> "reproduce"' in out.stdout
