"""Every import path README, docs/ and examples/ show resolves: a module moved or renamed cannot leave them stale.

A dotted ``fairshare.x.y`` (a module, or an attribute of one) and every name of ``from fairshare.x import a, b`` are
looked up in this checkout's package.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*.py"))]
DOTTED = re.compile(r"(?<![\w/.-])fairshare(?:\.[A-Za-z_]\w*)+")
FROM_IMPORT = re.compile(r"from (fairshare(?:\.\w+)*) import ([\w, ]+)")


def shown_paths(text: str) -> set[str]:
    """The dotted names a text shows, ``from fairshare.x import a, b`` read as ``fairshare.x.a`` and ``fairshare.x.b``."""
    names = set(DOTTED.findall(text))
    for module, imported in FROM_IMPORT.findall(text):
        names |= {f"{module}.{name.split(' as ')[0].strip()}" for name in imported.split(",") if name.strip()}
    return names


def resolves(name: str) -> bool:
    """Whether ``name`` is a module, or a module's attribute (nested attributes too)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def test_the_reading_finds_paths():
    shown = set().union(*(shown_paths(path.read_text()) for path in FILES))
    assert {"fairshare.games.model_sharing.errors", "fairshare.pipeline.resources"} <= shown


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_shown_resolves(path: Path):
    stale = sorted(name for name in shown_paths(path.read_text()) if not resolves(name))
    assert not stale, f"{path.name} shows import paths that do not exist: {stale}"


def test_a_stale_path_is_caught():
    assert not resolves("fairshare.resources") and not resolves("fairshare.pipeline.verdicts.no_such_function")
    assert resolves("fairshare.pipeline.verdicts") and resolves("fairshare.errors.UserError")
