"""End to end: the real Snakemake scheduler runs every rule on config/test.yaml in a scratch copy of the workflow."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.pipeline.conftest import snakemake, workflow_copy, working_copy
from tests.pipeline.test_inventory import (
    check_every_paper_artifact_of_the_manifest_has_rows,
    check_every_statement_and_every_row_is_in_the_inventory,
)


def _workflow_copy(dest: Path) -> Path:
    return workflow_copy(dest)


def _manifest_outputs() -> list[str]:
    entries = yaml.safe_load((REPO / "workflow" / "manifest.yaml").read_text())
    return [p for e in entries for p in (e["output"] if isinstance(e["output"], list) else [e["output"]])]


def _run(args: list[str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    return snakemake(args, cwd, timeout)


def test_manifest_entries_are_well_formed():
    entries = yaml.safe_load((REPO / "workflow" / "manifest.yaml").read_text())
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids)), "duplicate manifest ids"
    papers = {"model_sharing", "dp_coalitions", "aequa", "mmfl", "auctions", "payoff_flows", "partitions", "report"}
    for e in entries:
        caption = {"rows", "shows", "look_for"} if e["paper"] != "report" else set()
        assert set(e) == {"id", "paper", "kind", "output", "ref"} | caption, e
        assert all(isinstance(e[k], str) and e[k].strip() for k in caption - {"rows"}), e
        assert e["paper"] in papers and e["kind"] in ("table", "figure")
        for path in e["output"] if isinstance(e["output"], list) else [e["output"]]:
            allowed = (
                ("results/scorecard", "results/verdict_table", "metrics/")
                if e["paper"] == "report"
                else (f"results/{e['paper']}/", f"figures/{e['paper']}/")
            )
            assert path.startswith(allowed), path


def test_dry_run_lists_every_manifest_target(tmp_path):
    wd = _workflow_copy(tmp_path)
    out = _run(["-n", "--cores", "1", "--configfile", "config/test.yaml", "--quiet", "rules"], wd)
    assert out.returncode == 0, out.stderr[-3000:]
    listing = _run(["--cores", "1", "--configfile", "config/test.yaml", "--list-target-rules"], wd)
    assert "all" in listing.stdout.split()
    summary = _run(["--cores", "1", "--configfile", "config/test.yaml", "--detailed-summary"], wd)
    assert summary.returncode == 0, summary.stderr[-3000:]
    for target in _manifest_outputs():
        target = "results/metrics/test/summary.json" if target == "metrics/summary.json" else target
        assert target in summary.stdout, f"{target} is not produced by any rule"


@pytest.mark.parametrize(
    "override, key",
    [
        ("sedd: 1\n", "'sedd'"),
        ("seed: oops\n", "'seed'"),
        ("seed: -1\n", "'seed'"),
    ],
)
def test_invalid_config_stops_with_the_key(tmp_path, override, key):
    wd = _workflow_copy(tmp_path)
    (wd / "bad.yaml").write_text(override)
    out = _run(["-n", "--cores", "1", "--configfile", "bad.yaml"], wd)
    assert out.returncode != 0
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.startswith("invalid config:")]
    assert len(lines) == 1 and key in lines[0], out.stderr[-2000:]


@pytest.mark.slow
def test_test_profile_runs_every_rule_end_to_end(test_profile_run, tmp_path):
    wd = test_profile_run
    metrics = "results/metrics/test/summary.json"  # profiles other than the default never write tracked files
    missing = [p for p in _manifest_outputs() if not (wd / (metrics if p == "metrics/summary.json" else p)).is_file()]
    assert not missing, missing
    assert not (wd / "metrics").exists()
    report = (wd / "results" / "report.html").read_text()
    assert len(report) > 10_000  # the Snakemake HTML report, with figures
    messages = re.findall(r"System Message: [A-Z]+/\d[^<]{0,120}", report)
    assert not messages, messages  # docutils renders a caption it cannot read as an error message instead
    # Every statement of the papers has a row, a unit test or a reason; every paper artifact has rows (issue 28).
    check_every_statement_and_every_row_is_in_the_inventory(wd)
    check_every_paper_artifact_of_the_manifest_has_rows(wd)
    wd = working_copy(wd, tmp_path / "run")  # the shared run stays as it is for the other tests
    rerun = _run(["-n", "--cores", "2", "--configfile", "config/test.yaml"], wd)
    assert "Nothing to be done" in rerun.stdout + rerun.stderr  # finished work is never redone
    # Editing one Aequa partition reruns that partition's training jobs only (each job's --cfg carries its own entry).
    test_cfg = yaml.safe_load((wd / "config" / "test.yaml").read_text())["aequa"]
    edited = [dict(p, share=0.5) if p["scheme"] == "quantity_skew" else p for p in test_cfg["partitions"]]
    (wd / "edit.yaml").write_text(yaml.safe_dump({"aequa": {"partitions": edited}}))
    plan = _run(["-n", "--cores", "2", "--configfile", "config/test.yaml", "edit.yaml"], wd)
    runs = {
        line.split()[-1]
        for line in (plan.stdout + plan.stderr).splitlines()
        if line.strip().startswith("output: results/aequa/runs/")
    }
    edited_name = next(p["name"] for p in edited if p["scheme"] == "quantity_skew")
    assert runs and all(f"/{edited_name}/" in r for r in runs), sorted(runs)
    # Editing one multi-model FL experiment's rounds retrains that experiment only (no other experiment, no Exp 6, no
    # Aequa): under the default `runs_per_job` (`all`) its one job, which trains every run of that experiment.
    experiments = yaml.safe_load((wd / "config" / "test.yaml").read_text())["mmfl"]["experiments"]
    changed = [dict(e, rounds=e["rounds"] + 1) if i == 0 else e for i, e in enumerate(experiments)]
    (wd / "edit.yaml").write_text(yaml.safe_dump({"mmfl": {"experiments": changed}}))
    plan = _run(["-n", "--cores", "2", "--configfile", "config/test.yaml", "edit.yaml", "--quiet", "rules"], wd)
    counts = {
        parts[0]: int(parts[1])
        for parts in (line.split() for line in plan.stdout.splitlines())
        if len(parts) == 2 and parts[1].isdigit()
    }
    trained = {rule for rule in counts if rule.startswith(("mmfl_run", "auctions_exp6", "aequa_", "payoff_flows_val"))}
    assert trained == {f"mmfl_run_{experiments[0]['name']}"}, counts


def test_paper_profile_builds_its_whole_dag(tmp_path):
    """The GPU-cluster profile plans every paper's jobs (dry run: nothing is downloaded or trained), FEMNIST included."""
    wd = _workflow_copy(tmp_path)
    out = _run(["-n", "--cores", "1", "--configfile", "config/paper.yaml", "--quiet", "rules"], wd)
    assert out.returncode == 0, out.stderr[-3000:]
    counts = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    assert counts.get("aequa_femnist_data") == 1
    # one job per (dataset, partition, seed) training every method: 6 datasets (SST included) x 3 seeds, on the 7
    # partitions without and the 2 quantity skews with Table 8's extra Aequa run
    assert counts.get("aequa_run") == 6 * 7 * 3 and counts.get("aequa_run_pmin") == 6 * 2 * 3
    assert (
        counts.get("aequa_scale_run") == 3  # one job per seed, training its three methods
        and counts.get("mmfl_run", 0) > 0
        and counts.get("payoff_flows_valuate") == 31
    )


def _planned_resources(text: str, rule: str) -> dict[str, str]:
    """The `resources:` line of the first planned job of ``rule`` in a dry run's output."""
    block = text.split(f"rule {rule}:", 1)[1].split("\n\n", 1)[0]
    line = next(row for row in block.splitlines() if row.strip().startswith("resources:"))
    return dict(item.strip().split("=", 1) for item in line.split(":", 1)[1].split(","))


def test_slurm_profile_plans_the_paper_profile_with_per_rule_resources(tmp_path):
    pytest.importorskip("snakemake_executor_plugin_slurm", reason="install the cluster extra: uv sync --extra slurm")
    wd = _workflow_copy(tmp_path)
    out = _run(["-n", "--profile", "profiles/slurm", "--configfile", "config/paper.yaml"], wd)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    gpu = _planned_resources(out.stdout, "mmfl_run")
    assert gpu["slurm_partition"] == "gpu" and gpu["gpu"] == "1"
    # memory, checkpoint disk and time estimated from the config (fairshare.pipeline.resources), within config/paper.yaml's limits
    assert 760 < int(gpu["mem_mb"]) <= 64000 and 0 < int(gpu["disk_mb"]) <= 100000 and 0 < int(gpu["runtime"]) <= 720
    cpu = _planned_resources(out.stdout, "model_sharing")
    assert cpu["slurm_partition"] == "cpu" and "gpu" not in cpu and int(cpu["runtime"]) <= 60
    # every rule that asks for a GPU is sent to the GPU partition
    gpu_rules = {
        rule: _planned_resources(out.stdout, rule)
        for rule in set(re.findall(r"^(?:local)?rule (\w+):", out.stdout, re.M))
        if _planned_resources(out.stdout, rule).get("gpu") == "1"
    }
    assert {"aequa_run", "aequa_run_pmin", "mmfl_run", "auctions_exp6"} <= set(gpu_rules)
    assert {rule for rule, res in gpu_rules.items() if res["slurm_partition"] != "gpu"} == set()


# Snakemake (9.x) does not print in a dry run whether a job runs locally ("localrule"): the executor decides that at
# run time. The rules flagged `localrules` are read from the parsed workflow, through Snakemake's API, instead (without
# an executor every rule would be local there, so the flag itself).
LOCAL_RULES_SCRIPT = """
import sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings
with SnakemakeApi(OutputSettings()) as api:
    configfiles = [Path(f) for f in sys.argv[1:]]
    workflow = api.workflow(
        resource_settings=ResourceSettings(),
        config_settings=ConfigSettings(configfiles=configfiles),
        snakefile=Path("Snakefile"),
    )._workflow
    print("LOCAL", *sorted(rule.name for rule in workflow.rules if rule.name in workflow._localrules))
"""


@pytest.mark.parametrize("configfiles", [["config/paper.yaml"], ["config/paper.yaml", "config/paper_smoke.yaml"]])
def test_slurm_dry_run_plans_the_downloads_as_local_jobs(tmp_path, configfiles):
    """Compute nodes often have no internet: the downloads (`dataset`, the FEMNIST build) run on the submit host."""
    pytest.importorskip("snakemake_executor_plugin_slurm", reason="install the cluster extra: uv sync --extra slurm")
    wd = _workflow_copy(tmp_path)
    out = _run(["-n", "--profile", "profiles/slurm", "--configfile", *configfiles, "--quiet", "rules"], wd)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    planned = set(re.findall(r"^(\w+)\s+\d+$", out.stdout, re.M))
    # the paper profile's one job per run (rule mmfl_run); the smoke profile's one job per experiment (mmfl_run_exp1, ...)
    assert {"dataset", "aequa_femnist_data"} <= planned and any(r.startswith("mmfl_run") for r in planned), sorted(
        planned
    )
    parsed = subprocess.run(
        [sys.executable, "-c", LOCAL_RULES_SCRIPT, *configfiles], cwd=wd, capture_output=True, text=True, timeout=300
    )
    assert parsed.returncode == 0, parsed.stderr[-3000:]
    local = set(next(line for line in parsed.stdout.splitlines() if line.startswith("LOCAL ")).split()[1:])
    assert {"dataset", "aequa_femnist_data", "raw_data"} <= local
    assert not local & {"mmfl_run", "aequa_run", "aequa_scale_run", "payoff_flows_valuate", "model_sharing"}


def test_a_tree_holds_one_profile_another_is_refused_in_one_line(tmp_path):
    """A run of another profile where results/ holds one profile's run (a dry run too) stops in one line; the same
    profile plans as usual. (The first real run writes results/.profile: Snakemake's onstart.)"""
    wd = workflow_copy(tmp_path)
    (wd / "results").mkdir()
    (wd / "results" / ".profile").write_text("default\n")
    other = snakemake(["-n", "--configfile", "config/config.yaml", "config/test.yaml"], wd)
    assert other.returncode != 0
    message = [line for line in other.stderr.splitlines() if "profile's results" in line]
    assert len(message) == 1 and "'default'" in message[0] and "'test'" in message[0], other.stderr[-2000:]
    (wd / "results" / ".profile").write_text("test\n")
    same = snakemake(["-n", "--quiet", "--configfile", "config/config.yaml", "config/test.yaml"], wd)
    assert same.returncode == 0, same.stderr[-2000:]
