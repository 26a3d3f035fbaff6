"""The Aequa extensions' sensitivity reruns (issue 38: kind aequa_extensions, one `<id>_ext` entry per training
setting): which profile retrains which extension runs, and the extension rows' cells filled from a rerun's claims."""

from __future__ import annotations

import csv
import json

from fairshare.pipeline import sensitivity as tuned
from fairshare.pipeline.config import load_config
from fairshare.pipeline.sensitivity_extensions import Layout, extension_job, extension_plan
from tests.conftest import REPO

DEFAULT = load_config(REPO / "config" / "config.yaml")
TEST = load_config(REPO / "config" / "config.yaml", REPO / "config" / "test.yaml")
EXTENSION_ROWS = ("Table 3, Fig. 2", "Figs 3-4, Sec. 6.5", "Table 4")
TRAINING = [  # the Aequa entries that retrain runs the extensions also train
    "aequa_pmin_digits",
    "aequa_pmin_default",
    "aequa_rounds",
    "aequa_rounds_before",
    "aequa_synthetic_features",
    "aequa_lr",
    "aequa_batch_size",
    "aequa_fedavg_ft_lr",
]


def _entries():
    return {e.id: e for e in tuned.load_register(config=DEFAULT)}


def test_each_training_setting_has_an_extensions_entry_holding_the_extension_rows():
    entries = _entries()
    for main_id in TRAINING:
        main, ext = entries[main_id], entries[f"{main_id}_ext"]
        assert ext.kind == "aequa_extensions" and main.kind == "aequa", main_id
        assert (ext.config, ext.default, ext.rerun_value, ext.label) == (
            main.config,
            main.default,
            main.rerun_value,
            main.label.split(" (")[0],  # the extension rerun is not limited to the main rerun's partitions
        )
        assert not any(main.affects("aequa", a, "c") for a in EXTENSION_ROWS), main_id  # its rows are the _ext's
        assert ext.affects("aequa", "Table 3, Fig. 2", "c") or ext.affects("aequa", "Figs 3-4, Sec. 6.5", "c")
        assert ext.minutes is not None


def test_the_default_profile_reruns_the_extensions_within_its_budget_and_names_the_cost_of_the_others():
    entries = _entries()
    cap = DEFAULT["limits"]["sensitivity_rerun_minutes"]
    ext = {i: e for i, e in entries.items() if e.kind == "aequa_extensions"}
    ran = {i for i, e in ext.items() if tuned.applies(e, DEFAULT)}
    assert ran == {i for i, e in ext.items() if e.minutes <= cap}  # the budget alone decides
    assert ran == {f"{i}_ext" for i in TRAINING} - {"aequa_pmin_digits_ext"}
    costly = ext["aequa_pmin_digits_ext"]
    assert (
        costly.minutes > cap
        and tuned.pending_here(costly, DEFAULT)
        and not tuned.pending_here(ext["aequa_lr_ext"], DEFAULT)
    )
    assert extension_plan(costly, DEFAULT["aequa"])  # it would retrain runs: only the budget keeps it out
    # what each retrains in the default profile: the entry's datasets and methods, by extension
    plan = {i: extension_plan(e, DEFAULT["aequa"]) for i, e in ext.items()}
    assert plan["aequa_rounds_before_ext"] == [
        ("participation", {"dataset": "fashion_mnist"}, ["fedavg_ft", "cgsv", "iafl", "aequa"])
    ]
    features = plan["aequa_synthetic_features_ext"]
    assert [(x, s["dataset"]) for x, s, _ in features] == [("training_time", "synthetic")] * 2
    assert all(len(m) == 6 for _, _, m in features)  # a training setting: every method retrains
    pmin = {x: m for x, _, m in plan["aequa_pmin_default_ext"]}
    assert pmin == {
        "participation": ["aequa"],
        "training_time": ["aequa", "aequa_cgsv", "aequa_shapfed"],
        "scale": ["aequa"],
    }
    assert {x for x, _, _ in plan["aequa_fedavg_ft_lr_ext"]} == {"participation", "training_time", "scale"}
    assert all(m == ["fedavg_ft"] for _, _, m in plan["aequa_fedavg_ft_lr_ext"])
    assert ("scale", {}, ["standalone", "fedavg_ft", "aequa"]) in plan["aequa_lr_ext"]
    assert not any(x == "scale" for x, _, _ in plan["aequa_rounds_ext"])  # the scale runs have their own rounds
    # the main reruns' rows stay theirs: a main entry never plans extension runs
    assert extension_plan(entries["aequa_lr"], DEFAULT["aequa"]) == []


def test_the_test_profile_runs_its_extension_reruns_at_its_tiny_scale():
    entries = _entries()
    ran = {i for i, e in entries.items() if e.kind == "aequa_extensions" and tuned.applies(e, TEST)}
    # no budget there; digits only; the learning rate and batch size equal the default's there, the rounds do not
    assert ran == {
        "aequa_pmin_digits_ext",
        "aequa_fedavg_ft_lr_ext",
        "aequa_lr_fig34_ext",
        "aequa_batch_size_fig34_ext",
    }
    assert TEST["aequa"]["train"]["rounds"]["default"] <= 3 and TEST["aequa"]["scale"]["rounds"] <= 3
    steps = extension_plan(entries["aequa_pmin_digits_ext"], TEST["aequa"])
    assert ("scale", {}, ["aequa"]) in steps  # the test profile's scale runs train digits: p_min.digits reaches them


def _layout():
    def run_file(folder, run, method):
        setting = [run[k] for k in ("dataset", "partition") if k in run]
        return "/".join(["results", "aequa", folder, *setting, method, f"seed{run['seed']}.json"])

    tt = DEFAULT["aequa"]["training_time"]
    main_runs = {
        "participation": [run_file("participation", {"dataset": "fashion_mnist", "seed": "0"}, "fedavg_ft")],
        "training_time": [
            run_file("training_time", {"dataset": "synthetic", "partition": p, "seed": "0"}, "fedavg_ft")
            for p in tt["partitions"].values()
        ],
        "scale": [run_file("scale", {"seed": "0"}, m) for m in ("standalone", "fedavg_ft", "aequa")],
    }
    return Layout(
        seeds=["0"],
        run_file=run_file,
        dataset_file=lambda d: f"data/{d}.npz",
        scale_dataset="fashion_mnist",
        scale_data="data/fashion_mnist.npz",
        scale_writers=None,
        main_runs=main_runs,
        training_time_standalone=[
            run_file("runs", {"dataset": "synthetic", "partition": p, "seed": "0"}, "standalone")
            for p in tt["partitions"].values()
        ],
        figures=tt["partitions"],
        checkpoints="checkpoints",
        check=lambda p: f"{p}.check.json",
    )


def test_an_extension_job_retrains_its_runs_under_its_root_and_summarizes_them_in_place_of_the_main_ones():
    entries = _entries()
    root = "results/sensitivity/x"
    # a training setting (features): the training-time rewards' standalone runs retrain first and give the contributions
    features = entries["aequa_synthetic_features_ext"]
    outputs, inputs, commands, claims = extension_job(
        features, extension_plan(features, DEFAULT["aequa"]), root, _layout(), "train.json", "main.json"
    )
    assert commands[0].startswith("sensitivity aequa-run --dataset synthetic --dataset-file data/synthetic.npz")
    rerun_standalone = f"{root}/aequa/runs/synthetic/homogeneous/standalone/seed0.json"
    assert f"--standalone 0 {rerun_standalone}" in commands[1] and rerun_standalone in outputs
    assert not any("results/aequa/runs/" in p for p in inputs)  # the main standalone runs are not read
    assert all(c.endswith("--cfg train.json") for c in commands[:4])
    summary = commands[4]
    assert summary.startswith("aequa-ext training-time-summary") and summary.endswith("--cfg main.json")
    assert f"{root}/aequa/training_time/synthetic/homogeneous/fedavg_ft/seed0.json" in summary
    assert "results/aequa/training_time/" not in summary  # every run it summarizes was retrained
    # the contributions that decide whether rho is judged are the retrained standalone runs' (issue 38)
    assert f"--standalone {rerun_standalone} " in summary and "results/aequa/runs/" not in summary
    assert claims == f"{root}/claims.csv" and commands[-1].endswith(f"{root}/aequa/training_time_claims.csv")
    assert all(p.startswith(root) for p in outputs)  # the main run's outputs are never touched
    # one method (FedAvg-FT's rate): the main standalone runs give the contributions, the scale runs' too
    fedavg = entries["aequa_fedavg_ft_lr_ext"]
    outputs, inputs, commands, _ = extension_job(
        fedavg, extension_plan(fedavg, DEFAULT["aequa"]), root, _layout(), "train.json", "main.json"
    )
    (scale,) = [c for c in commands if c.startswith("aequa-ext scale ")]
    assert "--run 0 fedavg_ft" in scale and "--standalone 0 results/aequa/scale/standalone/seed0.json" in scale
    assert "results/aequa/scale/standalone/seed0.json" in inputs and "results/aequa/scale/aequa/seed0.json" in inputs
    assert "--standalone 0 results/aequa/runs/digits/homogeneous/standalone/seed0.json" in " ".join(commands)
    (tt_summary,) = [c for c in commands if c.startswith("aequa-ext training-time-summary")]
    assert "--standalone results/aequa/runs/synthetic/homogeneous/standalone/seed0.json" in tt_summary
    assert "results/aequa/runs/synthetic/homogeneous/standalone/seed0.json" in inputs  # the main run's, unchanged
    assert all(p.startswith(root) for p in outputs)


def test_an_extension_rows_cell_comes_from_its_rerun_claims_file_and_names_a_reversal(tmp_path):
    from fairshare.cli import main
    from fairshare.pipeline.report import Claim, write_claims

    def claim(artifact, text, holds):
        fields = {"paper": "aequa", "artifact": artifact, "claim": text, "paper_states": "p", "reproduced": "r"}
        return Claim.statement(**fields, holds=holds)

    table3 = ("Table 3, Fig. 2", "digits: Aequa's rewards correlate with participation rates")
    table4 = ("Table 4", "at scale, Aequa's Pearson correlation is above FedAvg-FT's")
    figs = ("Figs 3-4, Sec. 6.5", "digits/homogeneous: post-training Aequa is best")
    write_claims(tmp_path / "main.csv", [claim(*table3, True), claim(*table4, True), claim(*figs, True)])
    # the rerun's extension claims, joined as rule sensitivity_<id> joins them: Table 3 reverses, Table 4 holds,
    # the training-time rewards are another entry's (aequa_lr_fig34_ext)
    write_claims(tmp_path / "participation.csv", [claim(*table3, False)])
    write_claims(tmp_path / "scale.csv", [claim(*table4, True)])
    rerun = tmp_path / "claims.csv"
    assert 0 == main(
        ["sensitivity", "join-claims", str(tmp_path / "participation.csv"), str(tmp_path / "scale.csv")]
        + ["--output", str(rerun)]
    )
    card = tmp_path / "card.csv"
    assert 0 == main(
        ["report", "scorecard", str(tmp_path / "main.csv"), "--csv", str(card), "--markdown", str(tmp_path / "c.md")]
        + ["--metrics", str(tmp_path / "m.json"), "--register", str(tuned.REGISTER)]
        + ["--sensitivity", f"aequa_lr_ext={rerun}", "--pending", "aequa_pmin_digits_ext", "aequa_lr_fig34_ext"]
        + ["--cfg", json.dumps({"profile": "test", "smoke": False})]
    )
    with open(card, newline="") as f:
        cells = {r["artifact"]: r["sensitivity"] for r in csv.DictReader(f)}
    over = (
        "aequa.p_min.digits=0.25: not rerun in this profile: about 4.1 CPU-minutes at the reference machine, over its"
        " limits.sensitivity_rerun_minutes (run it with that limit raised)"
    )
    assert cells["Table 3, Fig. 2"].split("; ") == [over, "aequa.train.lr=0.01: reverses: differs (default match)"]
    assert cells["Table 4"] == "aequa.train.lr=0.01: match (as default)"  # p_min.digits does not reach the scale runs
    # the training-time rows are aequa_lr_fig34_ext's (digits and synthetic), over the budget here
    lr_over = over.replace("p_min.digits=0.25", "train.lr=0.01").replace("4.1", "8.7")
    assert cells["Figs 3-4, Sec. 6.5"].split("; ") == [over, lr_over]


def test_the_scale_command_reads_standalone_files_only_in_place_of_a_standalone_run(tmp_path, capsys):
    """`aequa-ext scale --standalone SEED JSON` (the extension reruns' contributions): refused beside a standalone
    --run of the job, and with a seed that is no seed index, in one line each."""
    from fairshare.cli import main

    base = ["aequa-ext", "scale", "--dataset", "digits", "--dataset-file", str(tmp_path / "d.npz"), "--cfg", "{}"]
    run = ["--run", "0", "standalone", str(tmp_path / "s.json"), str(tmp_path / "s.pt")]
    assert main([*base, *run, "--standalone", "0", str(tmp_path / "main.json")]) == 2
    assert "--standalone and a standalone --run exclude each other" in capsys.readouterr().err
    fedavg = ["--run", "0", "fedavg_ft", str(tmp_path / "f.json"), str(tmp_path / "f.pt")]
    assert main([*base, *fedavg, "--standalone", "x", str(tmp_path / "main.json")]) == 2
    assert "--standalone SEED JSON: the seed is a seed index" in capsys.readouterr().err
