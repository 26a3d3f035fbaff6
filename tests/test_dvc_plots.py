"""`dvc plots show` draws each plot of dvc.yaml as separate series: on tiny results with two series each, every
template (custom ones in .dvc/plots/) fills, and each filled spec splits the rows by the column that names the series
instead of joining them into one zig-zag line (the Fig. 1 and model-sharing defects)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO

# Every plotted file with the columns the pipeline writes, and the column whose values must be separate series.
SAMPLES = {
    "metrics/plots/dp_coalitions_fig1_intervals.csv": (
        "notion",
        "notion,sigma_lo,sigma_hi,max_size\nnash,0.0,0.2,0\nnash,0.2,inf,3\nrobust,0.0,0.3,2\nrobust,0.3,inf,4\n",
    ),
    "metrics/plots/model_sharing_error_vs_coalition_size.csv": (
        "method",
        "n,M,method,error\n5,1,uniform,2.0\n5,2,uniform,1.5\n5,1,coarse,2.0\n5,2,coarse,1.3\n"
        "25,1,uniform,0.4\n25,2,uniform,0.7\n25,1,coarse,0.4\n25,2,coarse,0.34\n",
    ),
    "metrics/plots/mmfl_across_tasks.csv": (
        "series",
        "experiment,method,alpha,seed,round,min_acc,avg_acc,var_acc\nexp1,fedfair,3.0,0,1,0.1,0.2,0.01\n"
        "exp1,fedfair,3.0,1,1,0.2,0.2,0.01\nexp1,random,,0,1,0.1,0.2,0.01\nexp1,random,,0,2,0.3,0.3,0.01\n",
    ),
    "metrics/plots/aequa_width_curves.csv": (
        "method",
        "dataset,partition,method,seed,width,accuracy\ndigits,homogeneous,aequa,0,0.5,0.6\n"
        "digits,homogeneous,aequa,0,1.0,0.8\ndigits,homogeneous,aequa_pmin,0,0.5,0.5\n",
    ),
    "metrics/plots/payoff_flows_allocations.csv": (
        "scenario",
        "scenario,party,model_value\nb = inf,[0-4],0.9\nb = inf,[5-9],0.9\nb = 0,[0-4],0.5\nb = 0,[5-9],0.9\n",
    ),
}


def _fields(spec, channel: str) -> set[str]:
    """Every field a spec (with its facets and layers) encodes on ``channel``."""
    found = set()
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == channel and isinstance(value, dict) and "field" in value:
                found.add(value["field"])
            found |= _fields(value, channel)
    elif isinstance(spec, list):
        for item in spec:
            found |= _fields(item, channel)
    return found


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("dvc_plots")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([sys.executable, "-m", "dvc", "init", "-q"], cwd=root, check=True)
    shutil.copy(REPO / "dvc.yaml", root / "dvc.yaml")
    shutil.copytree(REPO / ".dvc" / "plots", root / ".dvc" / "plots")
    for path, (_, text) in SAMPLES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    out = subprocess.run(
        [sys.executable, "-m", "dvc", "plots", "show", "--json"], cwd=root, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_every_plot_has_a_sample_and_a_template():
    plots = {
        next(iter(entry)): entry[next(iter(entry))]
        for entry in yaml.safe_load((REPO / "dvc.yaml").read_text())["plots"]
    }
    assert set(plots) == set(SAMPLES)
    for props in plots.values():
        assert (REPO / ".dvc" / "plots" / f"{props['template']}.json").exists()


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_each_plot_splits_its_series(shown, path):
    assert "errors" not in shown, shown.get("errors")
    (render,) = shown["data"][path]
    spec = render["content"]
    rows = spec["data"]["values"]
    assert len(rows) == SAMPLES[path][1].count("\n") - 1
    series = SAMPLES[path][0]
    assert series in _fields(spec, "color") | _fields(spec, "facet") | _fields(spec, "column") | _fields(spec, "row")
    assert "rev" in _fields(spec, "strokeDash") | _fields(spec, "color") | _fields(spec, "xOffset")  # revisions apart


def test_every_plot_reads_a_table_the_default_run_committed():
    """The plots read copies git tracks (rule plot_data writes them to metrics/plots/ on the default profile): a plot
    of dvc.yaml without its committed table would be blank in a clone, or read from the cached results/ again."""
    plotted = [next(iter(entry)) for entry in yaml.safe_load((REPO / "dvc.yaml").read_text())["plots"]]
    assert all(path.startswith("metrics/plots/") for path in plotted), plotted
    missing = [path for path in plotted if not (REPO / path).is_file() or (REPO / path).stat().st_size == 0]
    assert not missing, missing
