"""Issue 40, row 11: README's "Versioning a run of yours" in a folder holding the test profile's results. `dvc commit
data reproduce` failed on the missing data/raw and a `dvc push` after it said "Everything is up to date" (exit 0,
nothing pushed); README's command now stops in one line and records, commits and pushes nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.faults.test_dvc_cache import _readme_block
from tests.pipeline.conftest import workflow_copy


def _sh(cwd: Path, *cmd: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


def test_readme_versioning_stops_in_a_test_profile_folder(tmp_path):
    commands = _readme_block("Versioning a run of yours.")
    repo, remote = workflow_copy(tmp_path / "repo"), tmp_path / "remote"
    for name in ("dvc.yaml", "dvc.lock", ".dvcignore"):
        shutil.copyfile(REPO / name, repo / name)
    shutil.copytree(REPO / "src", repo / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "metrics", repo / "metrics")
    (repo / "results" / "aequa").mkdir(parents=True)  # what a test-profile run leaves (no data/raw)
    (repo / "results" / ".profile").write_text("test\n")
    (repo / "results" / "aequa" / "claims.csv").write_text("paper,status\naequa,match\n")
    (repo / "figures").mkdir()
    (repo / "data" / "processed").mkdir(parents=True)
    (repo / "data" / "processed" / "digits.npz").write_bytes(b"test-profile cache")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for cmd in (
        ["git", "init", "-q"],
        ["git", "config", "user.email", "test@example.org"],
        ["git", "config", "user.name", "test"],
        ["dvc", "init", "-q"],
        ["dvc", "remote", "add", "-d", "store", str(remote)],
        ["dvc", "remote", "modify", "store", "verify", "true"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "clone with the DVC remote"],
    ):
        out = _sh(repo, *cmd, env=env)
        assert out.returncode == 0, f"{cmd}: {out.stderr}"
    script = "\n".join(" ".join(c) for c in commands)
    run = _sh(repo, "bash", "-c", script, env=env)
    assert run.returncode != 0, (
        f"README's commands ended with exit 0 in a test-profile folder:\n{run.stdout}{run.stderr}"
    )
    assert "this folder holds the 'test' profile's results" in run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert not remote.exists() or not any(p.is_file() for p in remote.rglob("*"))  # nothing pushed
    log = _sh(repo, "git", "log", "--format=%s").stdout
    assert log.strip() == "clone with the DVC remote"  # nothing committed
    assert _sh(repo, "git", "diff", "--quiet", "dvc.lock").returncode == 0  # the default profile's lock untouched
