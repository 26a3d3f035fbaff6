"""Issue 40, row 10: after a good `dvc pull`, an object edited in `.dvc/cache` and its workspace file deleted. DVC's
`dvc checkout` copies the cache unhashed (exit 0, corrupted content); the commands docs/dvc.md gives for a corrupted
local cache find the object and bring back the file as it was pushed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

DVC = [sys.executable, "-m", "dvc"]
GOOD, BAD = "method,value\nfedfair,0.91\n", "method,value\nfedfair,0.19\n"


def _sh(cwd: Path, *cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=300)


def _ok(cwd: Path, *cmd: str) -> str:
    out = _sh(cwd, *cmd)
    assert out.returncode == 0, f"{cmd}: {out.stderr}"
    return out.stdout + out.stderr


def _readme_block(title: str, doc: str = "README.md") -> list[list[str]]:
    """The commands of the bash block under paragraph ``title`` of README (or of ``doc``; comments dropped)."""
    text = (REPO / doc).read_text()
    start = text.find(f"**{title}**")
    assert start >= 0, f"{doc} has no paragraph {title!r}"
    block = re.search(r"```bash\n(.*?)```", text[start:], flags=re.S)
    assert block, f"{doc}'s {title!r} has no bash block"
    lines = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line.split() for line in lines if line]


def _pulled_clone(tmp_path: Path) -> Path:
    """A clone after a good `dvc pull` of a folder output (as results/ is), from a remote with verify on."""
    repo, remote, clone = tmp_path / "repo", tmp_path / "remote", tmp_path / "clone"
    (repo / "results" / "aequa").mkdir(parents=True)
    (repo / "results" / "aequa" / "claims.csv").write_text(GOOD)
    (repo / "results" / "note.txt").write_text("other file\n")
    for cmd in (
        ["git", "init", "-q"],
        ["git", "config", "user.email", "test@example.org"],
        ["git", "config", "user.name", "test"],
        [*DVC, "init", "-q"],
        [*DVC, "add", "-q", "results"],
        [*DVC, "remote", "add", "-d", "store", str(remote)],
        [*DVC, "remote", "modify", "store", "verify", "true"],
        [*DVC, "push", "-q"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "results"],
    ):
        _ok(repo, *cmd)
    _ok(tmp_path, "git", "clone", "-q", str(repo), str(clone))
    _ok(clone, *DVC, "pull", "-q")
    return clone


def _corrupt_cached_claims(clone: Path) -> None:
    (obj,) = [p for p in (clone / ".dvc" / "cache").rglob("*") if p.is_file() and p.read_text() == GOOD]
    obj.chmod(0o644)
    obj.write_text(BAD)
    (clone / "results" / "aequa" / "claims.csv").unlink()


def test_checkout_copies_a_corrupted_cache_object_unhashed(tmp_path):
    """DVC's behaviour, the reason for README's paragraph: exit 0 and the edited bytes."""
    clone = _pulled_clone(tmp_path)
    _corrupt_cached_claims(clone)
    assert _sh(clone, *DVC, "checkout").returncode == 0
    assert (clone / "results" / "aequa" / "claims.csv").read_text() == BAD


def test_readme_commands_find_the_corrupted_object_and_restore_the_file(tmp_path):
    commands = _readme_block("A corrupted local cache.", "docs/dvc.md")
    assert [c[:2] for c in commands] == [["dvc", "status"], ["dvc", "pull"]]
    clone = _pulled_clone(tmp_path)
    _corrupt_cached_claims(clone)
    status = _ok(clone, *DVC, *commands[0][1:])
    assert "not in cache" in status and "results" in status
    assert _sh(clone, *DVC, "checkout").returncode != 0  # what was corrupted is gone from the cache
    assert not (clone / "results" / "aequa" / "claims.csv").exists()
    _ok(clone, *DVC, *commands[1][1:])
    assert (clone / "results" / "aequa" / "claims.csv").read_text() == GOOD
    assert "up to date" in _ok(clone, *DVC, "status")


def test_pull_alone_never_checks_out_a_corrupted_object(tmp_path):
    clone = _pulled_clone(tmp_path)
    _corrupt_cached_claims(clone)
    _ok(clone, *DVC, "pull")
    assert (clone / "results" / "aequa" / "claims.csv").read_text() == GOOD


def test_a_file_checked_out_corrupted_comes_back_when_its_output_is_deleted_and_pulled(tmp_path):
    """README: `dvc status` lists the output; delete it and pull again."""
    clone = _pulled_clone(tmp_path)
    _corrupt_cached_claims(clone)
    _ok(clone, *DVC, "checkout")
    assert "not in cache" in _ok(clone, *DVC, "status")
    subprocess.run(["rm", "-rf", str(clone / "results")], check=True)
    _ok(clone, *DVC, "pull")
    assert (clone / "results" / "aequa" / "claims.csv").read_text() == GOOD
