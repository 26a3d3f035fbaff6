"""A folder in which `./run pipeline` runs a given Snakefile, with uv standing in (as in tests/pipeline)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.pipeline.test_user_paths import UV_STAND_IN


def run_folder(tmp_path: Path, snakefile: str) -> tuple[Path, dict]:
    """A folder with ./run, the configs and ``snakefile``; the environment that runs ./run there (uv standing in)."""
    wd = tmp_path / "wd"
    shutil.copytree(REPO / "config", wd / "config")
    shutil.copyfile(REPO / "run", wd / "run")
    (wd / "run").chmod(0o755)
    (wd / "Snakefile").write_text(snakefile)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text(UV_STAND_IN.format(python=sys.executable))
    (bin_dir / "uv").chmod(0o755)
    return wd, {**os.environ, "HOME": str(tmp_path), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
