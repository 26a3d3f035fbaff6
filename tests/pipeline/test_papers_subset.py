"""Config `papers`: a run that reproduces some papers plans their jobs, their sensitivity reruns and the scorecard,
and nothing of the other papers (config/cpu_scale_faithful.yaml runs multi-model FL and the auctions only)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.pipeline.conftest import snakemake, workflow_copy

PAPER_RULES = {
    "aequa": re.compile(r"aequa_|sensitivity_aequa"),
    "mmfl": re.compile(r"mmfl_|sensitivity_mmfl"),
    "auctions": re.compile(r"auctions|sensitivity_auctions"),
    "model_sharing": re.compile(r"model_sharing|ms_"),
    "dp_coalitions": re.compile(r"dp_"),
    "payoff_flows": re.compile(r"payoff_flows"),
}


def _dry_run(wd: Path, *config: str, profile: str = "config/test.yaml") -> str:
    out = snakemake(["-n", "--cores", "1", "--configfile", profile, "--config", *config], wd)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    return out.stdout


def _planned_rules(wd: Path, *config: str) -> set[str]:
    """The rules of a dry run of the test profile with ``config`` values."""
    return set(re.findall(r"^(?:local)?rule (\w+):$", _dry_run(wd, *config), flags=re.MULTILINE))


def _papers_of(rules: set[str]) -> set[str]:
    return {paper for paper, pattern in PAPER_RULES.items() if any(pattern.match(rule) for rule in rules)}


@pytest.mark.parametrize("papers", [["mmfl", "auctions"], ["aequa"]])
def test_a_run_of_some_papers_plans_only_theirs(tmp_path, papers):
    wd = workflow_copy(tmp_path)
    rules = _planned_rules(wd, f"papers={papers}")
    assert _papers_of(rules) == set(papers), sorted(rules)
    assert {"scorecard", "verdict_table", "html_report"} <= rules


def test_the_faithful_profile_reproduces_multi_model_fl_and_the_auctions():
    """The profile that changes only multi-model FL's CNN (which Exp 6 trains too) does not retrain the others."""
    profile = yaml.safe_load((REPO / "config" / "cpu_scale_faithful.yaml").read_text())
    assert sorted(profile["papers"]) == ["auctions", "mmfl"]


def test_a_default_run_of_some_papers_leaves_the_tracked_metrics_alone(tmp_path):
    """metrics/ holds the whole default run's scorecard (git and DVC track it): a partial run writes under results/."""
    wd = workflow_copy(tmp_path)
    whole = _dry_run(wd, "seed=2026", profile="config/config.yaml")
    partial = _dry_run(wd, "papers=[dp_coalitions]", profile="config/config.yaml")
    assert "metrics/verdicts/default.csv" in whole and "results/metrics/default/verdicts.csv" not in whole
    assert "results/metrics/default/verdicts.csv" in partial
    outputs = [p.strip() for line in re.findall(r"^\s*output: (.*)$", partial, re.MULTILINE) for p in line.split(",")]
    assert outputs and not [p for p in outputs if p.startswith("metrics/")]
