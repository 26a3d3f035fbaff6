"""The API reference builds offline from the docstrings (pdoc, as docs/build_api.sh runs it), one page per
subpackage. Built once into a temporary folder (about ten seconds: pdoc imports every module)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PAGES = ("fairshare.html", "fairshare/games.html", "fairshare/learning.html", "fairshare/data.html")
PAGES += ("fairshare/papers.html", "fairshare/pipeline.html", "fairshare/learning/mmfl.html", "fairshare/seeding.html")


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> tuple[Path, str]:
    """(the built reference, what pdoc wrote to stderr)."""
    out = tmp_path_factory.mktemp("api")
    command = [sys.executable, "-m", "pdoc", "--docformat", "restructuredtext", "-o", str(out), "fairshare"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return out, done.stderr


@pytest.fixture(scope="module")
def api(build: tuple[Path, str]) -> Path:
    return build[0]


def test_the_build_warns_about_nothing(build: tuple[Path, str]):
    """e.g. an annotation pdoc cannot resolve (``ForwardRef('np.ndarray')`` of ``shapley.Estimate``, issue 39)."""
    warnings = [line for line in build[1].splitlines() if line.startswith("Warn")]
    assert not warnings, warnings
    page = (build[0] / "fairshare/games/shapley.html").read_text()
    assert "ForwardRef" not in page


def test_a_page_per_subpackage(api: Path):
    missing = [p for p in PAGES if not (api / p).is_file()]
    assert not missing, missing


def test_run_mmfl_is_documented_with_its_seed(api: Path):
    page = (api / "fairshare/learning/mmfl.html").read_text()
    assert "run_mmfl" in page and "seeded_generators" in page


def test_the_build_script_uses_the_same_command():
    script = (Path(__file__).resolve().parents[1] / "docs" / "build_api.sh").read_text()
    assert "pdoc --docformat restructuredtext" in script


def test_the_front_page_names_the_library_and_the_reproduction_apart(api: Path):
    page = (api / "fairshare.html").read_text()
    assert "The library" in page and "The reproduction" in page
    for name in ("games", "learning", "data", "metrics", "seeding", "papers", "pipeline", "commands", "cli"):
        assert f"fairshare.{name}" in page, name
