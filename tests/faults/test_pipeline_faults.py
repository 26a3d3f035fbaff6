"""Issue 29, pipeline and DVC: an interrupted --forcerun loses nothing, and a corrupted remote object is never pulled."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.pipeline.conftest import snakemake, workflow_copy

TEST_PROFILE = ["--configfile", "config/test.yaml"]


def _training_rule_stems() -> set[str]:
    """The rule name of every training step (`training_rules(paper, "<stem>", ...)` in the rule files)."""
    text = "".join(path.read_text() for path in (REPO / "workflow" / "rules").glob("*.smk"))
    return set(re.findall(r'training_rules\(\s*"\w+",\s*"(\w+)"', text))


def _is_training(rule: str, stems: set[str]) -> bool:
    return any(rule == stem or rule.startswith(f"{stem}_") for stem in stems)


def test_plain_command_recreates_what_a_stopped_forcerun_deleted(tmp_path):
    """A stopped `--forcerun` leaves the training outputs deleted and their summaries in place: the plain command
    (here as a dry run) plans every training job again instead of saying "Nothing to be done"."""
    wd = workflow_copy(tmp_path / "wd")
    summary = snakemake(["--summary", *TEST_PROFILE], wd)
    assert summary.returncode == 0, summary.stderr[-3000:]
    files = [line.split("\t")[:3] for line in summary.stdout.splitlines()[1:] if line.count("\t") >= 4]
    stems = _training_rule_stems()
    training = {rule for _, _, rule in files if _is_training(rule, stems)}
    assert all(any(_is_training(rule, {stem}) for rule in training) for stem in ("mmfl_run", "auctions_exp6"))
    for path, _, rule in files:  # every output exists, as after a finished run, except the training outputs
        if not _is_training(rule, stems):
            (wd / path).parent.mkdir(parents=True, exist_ok=True)
            (wd / path).touch()
    plan = snakemake(["-n", "--quiet", "rules", *TEST_PROFILE], wd)
    assert plan.returncode == 0, plan.stderr[-3000:]
    planned = {line.split()[0] for line in (plan.stdout + plan.stderr).splitlines() if line.strip()}
    assert training <= planned


def _sh(*cmd: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=300)


def _readme_remote_setup(remote: Path) -> list[list[str]]:
    """The `dvc remote` commands of README's DVC section, with ``remote`` as the remote's address."""
    lines = re.findall(r"^(dvc remote [^#\n]*?)\s*(?:#.*)?$", (REPO / "README.md").read_text(), flags=re.M)
    return [line.replace("/path/or/s3://bucket/fairshare", str(remote)).split() for line in lines]


def test_pull_of_a_corrupted_remote_object_fails(tmp_path):
    """README's remote set-up verifies what it pulls: a byte changed on the remote fails the pull, loudly."""
    repo, remote, clone = tmp_path / "repo", tmp_path / "remote", tmp_path / "clone"
    dvc = [sys.executable, "-m", "dvc"]
    repo.mkdir()
    (repo / "result.csv").write_text("method,value\nfedfair,0.91\n")
    setup = [
        ["git", "init", "-q"],
        ["git", "config", "user.email", "test@example.org"],
        ["git", "config", "user.name", "test"],
        [*dvc, "init", "-q"],
        [*dvc, "add", "-q", "result.csv"],
        *[[*dvc, *cmd[1:]] for cmd in _readme_remote_setup(remote)],
        [*dvc, "push", "-q"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "results"],
    ]
    for cmd in setup:
        out = _sh(*cmd, cwd=repo)
        assert out.returncode == 0, f"{cmd}: {out.stderr}"
    assert "verify = true" in (repo / ".dvc" / "config").read_text()
    (stored,) = [p for p in remote.rglob("*") if p.is_file()]
    stored.chmod(0o644)
    stored.write_text("method,value\nfedfair,0.19\n")
    assert _sh("git", "clone", "-q", str(repo), str(clone), cwd=tmp_path).returncode == 0
    pull = _sh(*dvc, "pull", cwd=clone)
    assert pull.returncode != 0
    assert "failed to pull data from the cloud" in pull.stderr
    assert not (clone / "result.csv").exists()
