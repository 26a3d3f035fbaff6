"""The tuned-settings register (workflow/tuned_settings.yaml) and the scorecard's sensitivity column (issue 28)."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from fairshare.pipeline import sensitivity as tuned
from fairshare.pipeline.config import load_config
from fairshare.pipeline.report import CLAIM_COLUMNS, to_markdown
from tests.conftest import REPO

DEFAULT = load_config(REPO / "config" / "config.yaml")
TEST = load_config(REPO / "config" / "config.yaml", REPO / "config" / "test.yaml")


def test_every_entry_names_a_config_path_holding_its_default():
    entries = tuned.load_register(config=DEFAULT)
    assert {e.id for e in entries} >= {
        "aequa_pmin_digits",
        "aequa_pmin_ablation_digits",
        "aequa_rounds",
        "aequa_synthetic_features",
        "aequa_ir_split",
        "auctions_task1_mu",
        "auctions_nearly_same_tolerance",
    }
    for entry in entries:
        if entry.kind == "pending" and entry.config.split(".")[-1] not in DEFAULT[entry.config.split(".")[0]]:
            continue  # the setting is not a named config key yet; its rows say "rerun pending"
        assert tuned.lookup(DEFAULT, entry.config) == entry.default, entry.id
        assert entry.rerun_value != entry.default, entry.id


def test_a_missing_config_path_fails_in_one_line(tmp_path):
    data = yaml.safe_load(tuned.REGISTER.read_text())
    data[0]["config"] = "aequa.p_min.no_such_dataset"
    path = tmp_path / "register.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(tuned.RegisterError) as err:
        tuned.load_register(path, config=DEFAULT)
    assert str(err.value) == (
        f"tuned setting '{data[0]['id']}': config path 'aequa.p_min.no_such_dataset' does not exist in the config"
    )


def test_an_entry_outside_the_schema_fails(tmp_path):
    data = yaml.safe_load(tuned.REGISTER.read_text())
    del data[0]["why"]
    path = tmp_path / "register.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(tuned.RegisterError, match="'why' is a required property"):
        tuned.load_register(path)


def test_a_profile_that_overrides_the_setting_runs_no_rerun():
    entries = {e.id: e for e in tuned.load_register(config=TEST)}
    assert tuned.applies(entries["aequa_pmin_digits"], TEST)
    assert not tuned.applies(entries["aequa_rounds"], TEST)  # the test profile trains 3 rounds
    assert not tuned.applies(entries["aequa_synthetic_features"], TEST)  # no synthetic Aequa task there
    assert not tuned.applies(entries["mmfl_fidelity"], DEFAULT)  # pending
    assert not tuned.applies(entries["auctions_nearly_same_tolerance"], DEFAULT)  # decides nothing: no rerun
    # a pending entry's rows say so where the profile keeps the tuned value
    assert tuned.pending_here(entries["mmfl_fidelity"], DEFAULT)
    faithful = {**DEFAULT, "mmfl": {**DEFAULT["mmfl"], "fidelity": "faithful"}}
    assert not tuned.pending_here(entries["mmfl_fidelity"], faithful)
    assert tuned.pending_here(entries["mmfl_exp1_active_rate"], TEST)  # the test profile's exp1 keeps 0.5
    assert not tuned.pending_here(entries["mmfl_exp3_active_rate"], TEST)  # it has no fifth experiment
    assert all(tuned.applies(e, DEFAULT) for e in entries.values() if e.kind not in ("pending", "none"))


def _row(paper, artifact, claim, status="match"):
    return dict.fromkeys(CLAIM_COLUMNS, "") | {"paper": paper, "artifact": artifact, "claim": claim, "status": status}


def test_the_join_puts_a_verdict_on_affected_rows_only():
    entries = {e.id: e for e in tuned.load_register()}
    chosen = [entries["auctions_task1_mu"], entries["aequa_pmin_ablation_digits"]]
    card = pd.DataFrame(
        [
            _row("auctions", "Figure 7a", "Greedy Within Budget becomes fairer as the budget grows"),
            _row("auctions", "Figure 7c", "GMMFair's recruits reach the highest minimum accuracy in every round"),
            _row("aequa", "Table 8", "with p_min lowered, Aequa has the lowest CGS"),  # affected, not rerun here
            _row("mmfl", "Figure 7a", "Greedy Within Budget becomes fairer as the budget grows"),
        ]
    )
    rerun = card.iloc[[0, 1, 3]].assign(status=["differs", "match", "match"])
    out = tuned.with_sensitivity(card, chosen, {"auctions_task1_mu": rerun})
    assert list(out["sensitivity"]) == ["auctions.task1_mu=0.5: differs", "", "", ""]
    assert list(out.columns) == [*CLAIM_COLUMNS, "sensitivity"]
    assert "| sensitivity |" in to_markdown(out, {"papers": {}}, "test")


def test_an_affected_row_missing_from_the_rerun_and_a_pending_entry_say_so():
    entries = {e.id: e for e in tuned.load_register()}
    ir = _row("aequa", "Definition 1, Sec. 4.2", "individual rationality: every client")
    nearly = _row("auctions", "Figure 7c", "MMFL max-min fair's recruits reach nearly the same minimum accuracy")
    card = pd.DataFrame([ir, nearly])
    chosen = [entries[i] for i in ("aequa_pmin_digits", "aequa_ir_split", "auctions_nearly_same_tolerance")]
    chosen.append(entries["mmfl_fidelity"])
    reruns = {"aequa_pmin_digits": pd.DataFrame(columns=CLAIM_COLUMNS), "aequa_ir_split": card.iloc[[0]]}
    out = tuned.with_sensitivity(card, chosen, reruns, pending=["mmfl_fidelity"])
    assert list(out["sensitivity"]) == [
        "aequa.p_min.digits=0.1: not rerun; aequa.verdicts.ir_split=validation: match",
        "mmfl.fidelity=faithful: rerun pending",  # the tolerance entry has no rerun: it decides nothing
    ]
    assert list(tuned.with_sensitivity(card, chosen, {})["sensitivity"]) == ["", ""]  # no rerun, nothing pending
    with pytest.raises(tuned.RegisterError, match="no register entry"):
        tuned.with_sensitivity(card, [], reruns)


def test_an_aequa_rerun_retrains_only_its_runs_and_reuses_the_standalone_contributions():
    entry = {e.id: e for e in tuned.load_register()}["aequa_pmin_ablation_digits"]
    main = [
        f"results/aequa/runs/{d}/{p}/{m}/seed{s}.json"
        for d in ("digits", "synthetic")
        for p in ("homogeneous", "qskew0.4x2")
        for m in ("standalone", "aequa", *(["aequa_pmin"] if p != "homogeneous" else []))
        for s in (0, 1)
    ]
    pairs = tuned.aequa_rerun(entry, main, "results/sensitivity/x")
    assert pairs == [
        (
            f"results/aequa/runs/digits/qskew0.4x2/aequa_pmin/seed{s}.json",
            f"results/sensitivity/x/aequa/runs/digits/qskew0.4x2/aequa_pmin/seed{s}.json",
        )
        for s in (0, 1)
    ]
    summary_inputs = tuned.rerun_inputs(pairs, main)
    assert len(summary_inputs) == len(main) and sum(p.startswith("results/sensitivity/") for p in summary_inputs) == 2
    (command,) = tuned.aequa_commands(pairs, {"digits": "data/digits.npz"}, "cfg.json", "checkpoints")
    assert "--standalone 0 results/aequa/runs/digits/qskew0.4x2/standalone/seed0.json" in command
    assert "--run 1 aequa_pmin results/sensitivity/x/aequa/runs/digits/qskew0.4x2/aequa_pmin/seed1.json" in command
    assert " checkpoints/sensitivity/x/aequa/runs/digits/qskew0.4x2/aequa_pmin/seed1.pt" in command
    assert tuned.rerun_blocks(DEFAULT, entry, "aequa")["aequa"]["p_min_ablation"]["digits"] == 0.05
    assert DEFAULT["aequa"]["p_min_ablation"]["digits"] == 0.02  # the config itself is left as it is


@pytest.mark.parametrize("path", list(tuned.MARKERS))
def test_docs_and_readme_show_the_register(path):
    start, end, render = tuned.MARKERS[path]
    text = path.read_text()
    assert text.split(start, 1)[1].split(end, 1)[0] == "\n" + render(tuned.load_register()), (
        f"{path.name} is out of date: run python -m fairshare.pipeline.sensitivity"
    )


def test_the_scorecard_command_writes_the_column_and_the_captions_show_it(tmp_path):
    import csv
    import json

    from fairshare.cli import main
    from fairshare.pipeline.report import Claim, write_claims
    from fairshare.pipeline.report_items import caption_rst

    claim = "Greedy Within Budget becomes fairer as the budget grows"
    fields = {"paper": "auctions", "artifact": "Figure 7a", "claim": claim, "paper_states": "p", "reproduced": "r"}
    write_claims(tmp_path / "main.csv", [Claim.statement(**fields, holds=True)])
    write_claims(tmp_path / "rerun.csv", [Claim.statement(**fields, holds=False)])
    out = {name: str(tmp_path / name) for name in ("card.csv", "card.md", "metrics.json")}
    assert 0 == main(
        ["report", "scorecard", str(tmp_path / "main.csv"), "--csv", out["card.csv"], "--markdown", out["card.md"]]
        + ["--metrics", out["metrics.json"], "--register", str(tuned.REGISTER)]
        + ["--sensitivity", f"auctions_task1_mu={tmp_path / 'rerun.csv'}", "--pending", "mmfl_fidelity"]
        + ["--cfg", json.dumps({"profile": "test", "smoke": False})]
    )
    with open(out["card.csv"], newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert row["status"] == "match" and row["sensitivity"] == "auctions.task1_mu=0.5: differs"
    assert "| auctions.task1_mu=0.5: differs |" in open(out["card.md"]).read()
    entry = {"paper": "auctions", "rows": ["Figure 7a"], "ref": "Fig. 7a", "title": "t", "shows": "s", "look_for": "l"}
    entry |= {"rule": "r", "template": "c", "profile": "test", "seed": 1, "settings": "", "files": [], "id": "x"}
    caption = " ".join(caption_rst(entry, [row]).split())  # a caption's lines are wrapped; reST joins them again
    assert "(sensitivity: auctions.task1\\_mu=0.5: differs)" in caption


def test_a_claims_only_aequa_entry_retrains_nothing_and_summarizes_the_main_runs():
    entry = {e.id: e for e in tuned.load_register()}["aequa_ir_split"]
    assert entry.kind == "aequa_claims" and tuned.applies(entry, DEFAULT) and tuned.applies(entry, TEST)
    main = ["results/aequa/runs/digits/homogeneous/aequa/seed0.json"]
    assert tuned.aequa_rerun(entry, main, "results/sensitivity/x") == []
    (summarize,) = tuned.aequa_job("results/sensitivity/x", [], main, ["table1"], "rerun.json", [])
    assert summarize.startswith(f"aequa summarize {main[0]} ") and summarize.endswith("--cfg rerun.json")
    assert tuned.rerun_blocks(DEFAULT, entry, "aequa")["aequa"]["verdicts"]["ir_split"] == "validation"
