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


def _bare_env(**extra: str) -> dict[str, str]:
    """A shell with no environment activated: neither snakemake nor fairshare on PATH."""
    return {"HOME": os.environ.get("HOME", "/tmp"), "PATH": "/usr/bin:/bin", **extra}


def test_the_experiment_runs_snakemake_without_an_activated_environment(tmp_path):
    """`dvc exp run` from experiments/ failed with `snakemake: command not found` unless the environment was activated
    (issue 39). Here with `--temp` (a copy of the commit under .dvc/tmp/exps/) and Snakemake told by a profile to plan
    only: the stage finds the clone's .venv and Snakemake plans the test profile's jobs (then the copy of the metrics
    fails: a plan writes none)."""
    repo = _git_repo(tmp_path / "repo")
    (repo / ".venv").symlink_to(Path(sys.executable).parent.parent)  # what `./run` or `uv sync` makes in a clone
    (repo / ".git" / "info" / "exclude").write_text(".venv\n")
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "config.yaml").write_text("dryrun: true\n")
    env = _bare_env(SNAKEMAKE_PROFILE=str(tmp_path / "plan"))
    dvc = [str(repo / ".venv" / "bin" / "dvc"), "exp", "run", "--temp"]
    out = subprocess.run(dvc, cwd=repo / "experiments", env=env, capture_output=True, text=True, timeout=600)
    text = out.stdout + out.stderr
    assert "bash experiments/snakemake.sh --cores all" in text and "not found" not in text, text[-3000:]
    assert "This was a dry-run" in text and "html_report" in text, text[-3000:]


def test_the_experiments_snakemake_is_the_nearest_venv_or_one_line(tmp_path):
    script = REPO / "experiments" / "snakemake.sh"
    nested = tmp_path / "clone" / ".dvc" / "tmp" / "exps" / "tmpabc"
    nested.mkdir(parents=True)
    (tmp_path / "clone" / ".venv").symlink_to(Path(sys.executable).parent.parent)
    found = subprocess.run(
        ["bash", str(script), "--version"], cwd=nested, env=_bare_env(), capture_output=True, text=True
    )
    assert found.returncode == 0 and found.stdout.strip()[:1].isdigit(), found.stderr
    lost = subprocess.run(
        ["bash", str(script), "--version"], cwd=tmp_path, env=_bare_env(), capture_output=True, text=True
    )
    assert lost.returncode == 127 and lost.stdout == "", lost
    assert lost.stderr.count("\n") == 1 and "no .venv" in lost.stderr and "uv sync --frozen" in lost.stderr


def test_a_fresh_clone_loads_every_metric(tmp_path):
    """`dvc metrics show` warned "failed to load some metrics" in a fresh clone: experiments/metrics, a declared metric
    of the experiment, did not exist before an experiment was applied (issue 39)."""
    repo = _git_repo(tmp_path / "repo")
    shutil.copytree(REPO / "metrics", repo / "metrics")  # the default profile's, committed
    if (REPO / "experiments" / "metrics").is_dir():  # what git holds there at a commit without an applied experiment
        tracked = _sh(REPO, "git", "ls-files", "experiments/metrics").split()
        for name in tracked:
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / name, repo / name)
    _sh(repo, "git", "add", "-A")
    _sh(repo, "git", "commit", "-qm", "metrics")
    clone = tmp_path / "clone"
    _sh(tmp_path, "git", "clone", "-q", str(repo), str(clone))
    shown = _sh(clone, *DVC, "metrics", "show")
    assert "failed to load" not in shown and "summary.json" in shown, shown[-2000:]


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
