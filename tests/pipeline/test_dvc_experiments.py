"""DVC as its users expect: an experiment of the test profile with `dvc exp run -S`, listed by `dvc exp show` with its
params and metrics, the change shown by `dvc params diff`; and a run versioned with `dvc commit`, `dvc push`, then
pulled into another clone through a local remote."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.pipeline.conftest import workflow_copy

DVC = [sys.executable, "-m", "dvc"]
# dvc.lock as a clone has it: the default profile's outputs recorded, not in this repository's (empty) local cache
REPO_PARTS = ("src", ".dvc", ".dvcignore", ".gitignore", "dvc.yaml", "dvc.lock", "experiments")


def _git_repo(dest: Path) -> Path:
    """A git repository holding the workflow, the code and the DVC files, as a clone of this one holds them."""
    workflow_copy(dest)
    for name in REPO_PARTS:
        src = REPO / name
        if src.is_dir():
            ignore = shutil.ignore_patterns("cache", "tmp", "__pycache__", "metrics")
            shutil.copytree(src, dest / name, ignore=ignore)
        elif src.exists():
            shutil.copyfile(src, dest / name)
    _sh(dest, "git", "init", "-q")
    _sh(dest, "git", "config", "user.email", "test@example.org")
    _sh(dest, "git", "config", "user.name", "test")
    _sh(dest, "git", "add", "-A")
    _sh(dest, "git", "commit", "-qm", "clone")
    return dest


def _sh(cwd: Path, *cmd: str, timeout: int = 1200) -> str:
    # The stages call `snakemake` and the rules `fairshare`, as a user's activated environment provides them.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(cmd)}: {(out.stdout + out.stderr)[-4000:]}"
    return out.stdout + out.stderr


@pytest.mark.long
def test_dvc_exp_run_of_the_test_profile_is_listed_with_its_params_and_metrics(tmp_path):
    repo = _git_repo(tmp_path / "repo")
    exp = repo / "experiments"
    _sh(exp, *DVC, "exp", "run", "-S", "mmfl.seeds=2", "-n", "seeds2")
    diff = json.loads(_sh(repo, *DVC, "params", "diff", "--json"))
    assert diff["experiments/params.yaml"]["mmfl.seeds"]["new"] == 2, diff
    shown = json.loads(_sh(exp, *DVC, "exp", "show", "--json"))
    runs = [e for commit in shown for e in commit.get("experiments") or [] if e.get("name") == "seeds2"]
    assert len(runs) == 1, shown
    data = runs[0]["revs"][0]["data"]
    assert data["params"]["experiments/params.yaml"]["data"]["mmfl"]["seeds"] == 2
    summary = data["metrics"]["experiments/metrics/summary.json"]["data"]
    assert summary["rows"] > 0
    headline = data["metrics"]["experiments/metrics/headline/mmfl.json"]["data"]["final_min_accuracy"]
    assert set(headline) == {"exp1", "exp2_s6", "exp4"}


def test_a_run_is_versioned_with_dvc_commit_and_push_then_pulled_into_a_clone(tmp_path):
    """README "Versioning a run of yours": outputs made, `dvc commit`, `git commit dvc.lock`, `dvc push`; a second clone
    gets them back with `dvc pull` (here the data stage's outputs, small stand-in files)."""
    repo = _git_repo(tmp_path / "repo")
    (repo / "data" / "raw").mkdir(parents=True)
    (repo / "data" / "processed").mkdir(parents=True)
    (repo / "data" / "raw" / "inventory.json").write_text('{"digits": 1}\n')
    (repo / "data" / "processed" / "digits.npz").write_bytes(b"stand-in cache " * 100)
    _sh(repo, *DVC, "commit", "--force", "data")  # README: `dvc commit data reproduce` after a full run
    assert "data/processed" in (repo / "dvc.lock").read_text()
    remote = tmp_path / "remote"
    _sh(repo, *DVC, "remote", "add", "-d", "store", str(remote))
    _sh(repo, *DVC, "push", "data")
    _sh(repo, "git", "add", "dvc.lock", ".dvc/config")
    _sh(repo, "git", "commit", "-qm", "my run")
    clone = tmp_path / "clone"
    _sh(tmp_path, "git", "clone", "-q", str(repo), str(clone))
    _sh(clone, *DVC, "pull", "data")
    assert (clone / "data" / "processed" / "digits.npz").read_bytes() == b"stand-in cache " * 100
    assert "up to date" in _sh(clone, *DVC, "status", "data")
