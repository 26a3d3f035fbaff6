"""Every paper has the same shape: the checklist "Adding a paper" of docs/architecture.md, item by item."""

from __future__ import annotations

import importlib
import inspect

import pytest
import yaml

from tests.conftest import REPO

PAPERS = sorted(p.name for p in (REPO / "src" / "fairshare" / "papers").iterdir() if (p / "__init__.py").is_file())
# A paper folder whose config block, manifest entries and docs page are another paper's: the Aequa extensions read
# the `aequa` block, list their artifacts as manifest paper `aequa` and are documented in docs/aequa.md.
HOME = {"aequa_extensions": "aequa"}
MANIFEST = yaml.safe_load((REPO / "workflow" / "manifest.yaml").read_text())


def home(paper: str) -> str:
    """The config block, manifest paper and docs page of ``paper``."""
    return HOME.get(paper, paper)


def rule_file(paper: str) -> str:
    return f"workflow/rules/{paper}.smk"


def test_the_papers_are_found():
    assert {"model_sharing", "dp_coalitions", "payoff_flows", "mmfl", "auctions", "aequa", "aequa_extensions"} <= set(
        PAPERS
    )
    assert set(HOME) <= set(PAPERS)


@pytest.mark.parametrize("paper", PAPERS)
def test_1_a_rule_file_the_snakefile_includes(paper):
    assert (REPO / rule_file(paper)).is_file()
    assert f'include: "{rule_file(paper)}"' in (REPO / "Snakefile").read_text()


@pytest.mark.parametrize("paper", PAPERS)
def test_2_a_schema_for_its_config_block(paper):
    block = home(paper)
    assert (REPO / "workflow" / "schemas" / f"{block}.schema.yaml").is_file()
    config_schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert config_schema["properties"][block] == {"$ref": f"{block}.schema.yaml"}
    assert block in config_schema["properties"]["papers"]["items"]["enum"], "name it in the `papers` key's list"


@pytest.mark.parametrize("paper", PAPERS)
def test_3_the_four_modules_and_a_command_group(paper):
    folder = REPO / "src" / "fairshare" / "papers" / paper
    for name in ("__init__", "experiment", "claims", "figures", "commands"):
        assert (folder / f"{name}.py").is_file(), f"{paper}: {name}.py missing"
    commands = importlib.import_module(f"fairshare.papers.{paper}.commands")
    assert all(hasattr(commands, name) for name in ("GROUP", "HELP", "register")), paper


@pytest.mark.parametrize("paper", PAPERS)
def test_3_one_claims_entry_point_with_the_shared_signature(paper):
    """Every claims.py exposes ``claims(results, settings) -> list[Claim]`` and no other public function."""
    module = importlib.import_module(f"fairshare.papers.{paper}.claims")
    public = [
        name
        for name, value in vars(module).items()
        if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_")
    ]
    assert public == ["claims"], f"{paper}: public functions {public}"
    assert list(inspect.signature(module.claims).parameters) == ["results", "settings"]


@pytest.mark.parametrize("paper", PAPERS)
def test_5_manifest_entries_with_a_claims_file_its_rule_file_writes(paper):
    entries = [e for e in MANIFEST if e["paper"] == home(paper)]
    assert entries and {e["kind"] for e in entries} <= {"table", "figure"}
    outputs = [p for e in entries for p in (e["output"] if isinstance(e["output"], list) else [e["output"]])]
    rules = (REPO / rule_file(paper)).read_text()
    claims = [p for p in outputs if p.endswith("claims.csv") and p.rsplit("/", 1)[-1] in rules]
    assert claims, f"{paper}: no manifest claims file named in {rule_file(paper)}"


@pytest.mark.parametrize("paper", PAPERS)
def test_6_a_docs_page_naming_its_rule_file_and_a_readme_link(paper):
    page = REPO / "docs" / f"{home(paper)}.md"
    assert page.is_file() and rule_file(paper) in page.read_text()
    assert f"(docs/{home(paper)}.md)" in (REPO / "README.md").read_text()


@pytest.mark.parametrize("paper", PAPERS)
def test_7_its_own_tests(paper):
    assert any((REPO / "tests" / "papers" / paper).glob("test_*.py"))
