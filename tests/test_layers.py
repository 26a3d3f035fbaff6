"""The package's layers import only downwards (docs/architecture.md, "Layers", lists them once; this test reads it).

Every ``import`` and ``from ... import`` in ``src/fairshare`` is read from the source (function-level imports too,
relative ones resolved), mapped to the top-level module or folder it names, and compared by layer.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "fairshare"
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def layers(text: str) -> dict[str, int]:
    """Unit (top-level module or folder of the package) -> its layer's height, from the block between the
    ``<!-- layers -->`` markers: one layer a line, ``name: unit, unit``, the highest first."""
    block = re.search(r"<!-- layers -->(.*?)<!-- /layers -->", text, re.S)
    assert block, "docs/architecture.md has no <!-- layers --> block"
    lines = [line for line in block.group(1).splitlines() if ":" in line and not line.startswith("```")]
    height = {}
    for level, line in enumerate(reversed(lines)):
        for unit in line.split(":", 1)[1].split(","):
            height[unit.strip()] = level
    return height


def unit_of(module: str) -> str:
    """``fairshare.pipeline.config`` -> ``pipeline``; the package itself -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, package: Path) -> list[str]:
    """The fairshare modules ``path`` imports (``from fairshare import x`` counts as ``fairshare.x``)."""
    module = module_name(path, package)
    here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[: len(here) - node.level + 1] + [node.module or ""]) if node.level else node.module
            base = base.rstrip(".")
            found += [f"{base}.{alias.name}" for alias in node.names] if base == "fairshare" else [base]
    return [name for name in found if name == "fairshare" or name.startswith("fairshare.")]


def upward_imports(package: Path, height: dict[str, int]) -> list[str]:
    """Every import from a lower layer into a higher one, as ``module -> imported module``."""
    wrong = []
    for path in sorted(package.rglob("*.py")):
        source = module_name(path, package)
        for target in imported(path, package):
            target_unit = unit_of(target)
            if target_unit == "__version__":
                target_unit = "__init__"
            if height[target_unit] > height[unit_of(source)]:
                wrong.append(f"{source} -> {target}")
    return wrong


HEIGHT = layers(ARCHITECTURE.read_text())


def test_every_module_and_folder_has_a_layer():
    units = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert units <= set(HEIGHT), f"add these to docs/architecture.md's layers: {sorted(units - set(HEIGHT))}"
    assert set(HEIGHT) <= units, f"docs/architecture.md's layers name what is not there: {sorted(set(HEIGHT) - units)}"


def test_no_module_imports_from_a_higher_layer():
    wrong = upward_imports(PACKAGE, HEIGHT)
    assert not wrong, "imports from a higher layer:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("lower", "statement"),
    [
        ("seeding.py", "from fairshare.learning.device import set_deterministic"),
        ("games/helper.py", "from fairshare.pipeline import verdicts as v"),
        ("pipeline/helper.py", "from fairshare.papers.mmfl import claims"),
        ("papers/helper.py", "from ..commands import report"),
        ("validate.py", "import fairshare.cli"),
    ],
)
def test_an_upward_import_is_found(tmp_path: Path, lower: str, statement: str):
    package = tmp_path / "fairshare"
    for folder in ("games", "pipeline", "papers"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / lower).write_text(f"def late():\n    {statement}\n")
    assert len(upward_imports(package, HEIGHT)) == 1
