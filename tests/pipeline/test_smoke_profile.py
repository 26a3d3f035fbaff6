"""The smoke profile of config/paper.yaml: every rule of the paper profile's DAG, run end to end on CPU."""

from __future__ import annotations

import csv

import pytest

from tests.pipeline.conftest import snakemake, workflow_copy

SMOKE = ["--configfile", "config/paper.yaml", "config/paper_smoke.yaml"]
# None: the FEMNIST build (LEAF's folder at paper scale) runs on a stand-in LEAF folder in the smoke profile.
PAPER_ONLY_RULES: set[str] = set()


def _planned_rules(wd, configfiles: list[str]) -> set[str]:
    out = snakemake(["-n", "--cores", "1", *configfiles, "--quiet", "rules"], wd)
    assert out.returncode == 0, out.stderr[-3000:]
    rules = set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("total", "job"):
            rules.add(parts[0])
    return rules


def test_smoke_profile_plans_every_rule_of_the_paper_profile(tmp_path):
    wd = workflow_copy(tmp_path)
    paper = _planned_rules(wd, ["--configfile", "config/paper.yaml"])
    # the smoke profile groups a paper's runs (runs_per_job): one job per experiment / mechanism of the same rule,
    # e.g. mmfl_run_exp1 for the paper profile's per-run mmfl_run; the longest prefix wins (auctions_exp6_greedy is
    # auctions_exp6's job, not that of a shorter rule name such as auctions_exp6's own prefix)
    smoke = {
        max((p for p in paper if rule.startswith(f"{p}_") and rule not in paper), key=len, default=rule)
        for rule in _planned_rules(wd, SMOKE)
    }
    assert paper - PAPER_ONLY_RULES <= smoke, sorted(paper - PAPER_ONLY_RULES - smoke)


@pytest.mark.long  # 8 of CI's 12 minutes; CI keeps the plan test above and the paper-path unit tests
def test_smoke_profile_runs_end_to_end_and_marks_every_row(tmp_path):
    wd = workflow_copy(tmp_path)
    out = snakemake(["--cores", "2", *SMOKE], wd, timeout=1800)
    assert out.returncode == 0, (out.stdout + out.stderr)[-6000:]
    with open(wd / "results" / "scorecard.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and {row["status"] for row in rows} == {"smoke: plumbing only"}
    assert not (wd / "metrics").exists()  # a smoke run never writes the tracked DVC metrics


def _round_counts(node, path=()):
    """(path, value) of every rounds/epochs count in a config tree."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("rounds", "epochs", "local_epochs", "standalone_epochs") and isinstance(value, int):
                yield (*path, key), value
            elif key in ("rounds", "epochs") and isinstance(value, dict):
                yield from (((*path, key, k), v) for k, v in value.items())
            else:
                yield from _round_counts(value, (*path, key))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _round_counts(item, (*path, i))


def test_smoke_profile_trains_every_job_for_at_most_two_rounds():
    """Mappings merge over config/paper.yaml: a per-dataset round count the smoke file forgets stays at paper scale."""
    from fairshare.pipeline.config import load_config
    from tests.conftest import REPO

    cfg = load_config(
        REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml", REPO / "config" / "paper_smoke.yaml"
    )
    at_scale = {".".join(map(str, p)): v for p, v in _round_counts(cfg) if v > 2 and p[-1] != "local_epochs"}
    assert at_scale == {}
