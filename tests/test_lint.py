"""Format and lint gates that `./run tests` enforces: ruff (check + format), snakefmt, and `snakemake --lint`."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

BIN = Path(sys.executable).parent
PYTHON_TREES = ["src", "tests", "bench", "workflow"]
# The lint accepted on purpose (see the Snakefile's header): the software environment is the locked uv environment
# (uv.lock), not a per-rule conda env or container.
ACCEPTED_LINTS = ("Specify a conda environment or container for each rule.",)


def _run(args: list[str], cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_ruff_check():
    out = _run([str(BIN / "ruff"), "check", *PYTHON_TREES])
    assert out.returncode == 0, out.stdout[-4000:]


def test_ruff_format():
    out = _run([str(BIN / "ruff"), "format", "--check", *PYTHON_TREES])
    assert out.returncode == 0, out.stdout[-4000:]


def test_snakefmt():
    out = _run([str(BIN / "snakefmt"), "--check", "Snakefile", "workflow/rules"])
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]


def test_snakemake_lint_reports_only_accepted_lints(tmp_path):
    for name in ("Snakefile", "workflow", "config", "profiles"):
        src = REPO / name
        (shutil.copytree if src.is_dir() else shutil.copyfile)(src, tmp_path / name)
    out = _run([sys.executable, "-m", "snakemake", "--lint", "--configfile", "config/test.yaml"], cwd=tmp_path)
    text = out.stdout + out.stderr
    found = set(re.findall(r"^\s+\* (.+?):?$", text, flags=re.MULTILINE))
    unexpected = sorted(lint for lint in found if lint.rstrip(":") not in ACCEPTED_LINTS)
    assert not unexpected, "\n".join(unexpected) + "\n" + text[-3000:]


def test_no_source_file_over_600_lines():
    """ARCHITECTURE: small modules with one job each; a file past 600 lines is split by concern."""
    sources = [*(REPO / "src").rglob("*.py"), *(REPO / "workflow").rglob("*.smk"), *(REPO / "workflow").rglob("*.py")]
    long = {str(p.relative_to(REPO)): n for p in sources if (n := len(p.read_text().splitlines())) > 600}
    assert not long, long
