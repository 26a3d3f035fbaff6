"""The tuned-settings register (workflow/tuned_settings.yaml) and the scorecard's sensitivity column (issue 28)."""

from __future__ import annotations

import dataclasses

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
    entries = {e.id: e for e in tuned.load_register(config=DEFAULT)}
    assert tuned.applies(entries["aequa_pmin_digits"], TEST)
    assert not tuned.applies(entries["aequa_rounds"], TEST)  # the test profile trains 3 rounds
    assert not tuned.applies(entries["aequa_synthetic_features"], TEST)  # no synthetic Aequa task there
    assert not tuned.applies(entries["auctions_nearly_same_tolerance"], DEFAULT)  # decides nothing: no rerun
    # the multi-model FL entries rerun (issue 38): none is pending any more; the costly ones in a profile without a
    # per-rerun budget (the paper and CPU-scale profiles)
    assert tuned.applies(entries["mmfl_exp1_active_rate"], DEFAULT)
    assert tuned.applies(entries["mmfl_fidelity"], {**DEFAULT, "limits": {"sensitivity_rerun_minutes": None}})
    assert tuned.applies(entries["mmfl_exp1_active_rate"], TEST)  # the test profile's exp1 keeps 0.5
    assert not tuned.applies(entries["mmfl_exp3_active_rate"], TEST)  # it has no fifth experiment
    # a setting whose paper value runs in another profile says so where this profile keeps the tuned value
    assert tuned.pending_here(entries["mmfl_exp1_samples"], DEFAULT)
    assert not tuned.applies(entries["mmfl_exp1_samples"], DEFAULT)
    unlimited = {**DEFAULT, "limits": {}}
    assert all(tuned.applies(e, unlimited) for e in entries.values() if e.kind not in ("pending", "none", "profile"))


def test_a_profile_that_leaves_a_paper_out_runs_none_of_its_reruns():
    entries = {e.id: e for e in tuned.load_register(config=DEFAULT)}
    only_mmfl = {**DEFAULT, "papers": ["mmfl"]}
    assert tuned.applies(entries["mmfl_exp1_active_rate"], only_mmfl)
    assert not tuned.applies(entries["aequa_pmin_digits"], only_mmfl) and tuned.applies(
        entries["aequa_pmin_digits"], DEFAULT
    )
    assert not tuned.applies(entries["auctions_task1_mu"], only_mmfl) and tuned.applies(
        entries["auctions_task1_mu"], DEFAULT
    )
    assert tuned.pending_here(entries["mmfl_exp1_samples"], only_mmfl)
    assert not tuned.pending_here(entries["mmfl_exp1_samples"], {**DEFAULT, "papers": ["aequa"]})


def test_a_rerun_over_the_profiles_budget_is_not_run_and_its_rows_say_what_it_costs():
    entries = {e.id: e for e in tuned.load_register(config=DEFAULT)}
    cap = DEFAULT["limits"]["sensitivity_rerun_minutes"]
    costly, cheap = entries["mmfl_fidelity"], entries["mmfl_exp1_active_rate"]
    assert costly.minutes > cap >= cheap.minutes
    assert not tuned.applies(costly, DEFAULT) and tuned.pending_here(costly, DEFAULT)
    assert tuned.applies(cheap, DEFAULT) and not tuned.pending_here(cheap, DEFAULT)
    # a profile that changes the setting itself says nothing about its rerun, budget or not
    faithful = {**DEFAULT, "mmfl": {**DEFAULT["mmfl"], "fidelity": "faithful"}}
    assert not tuned.pending_here(costly, faithful)
    card = pd.DataFrame([_row("mmfl", "Table II", "x")])
    out = tuned.with_sensitivity(card, [costly], {}, [costly.id])
    assert f"about {costly.minutes:g} CPU-minutes at the reference machine" in out["sensitivity"].iloc[0]
    # the paper profile runs every rerun
    paper = load_config(REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml")
    assert paper["limits"]["sensitivity_rerun_minutes"] is None
    # the CPU-scale profile runs the claims-only reruns and none that trains (its 60-minute budget)
    cpu = load_config(
        REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml", REPO / "config" / "cpu_scale.yaml"
    )
    cpu_cap = cpu["limits"]["sensitivity_rerun_minutes"]
    run_there = {e.id: e.kind for e in entries.values() if tuned.applies(e, cpu)}
    assert cpu_cap is not None and "mmfl_fig3_learned" in run_there and "auctions_theorem11_se" in run_there
    assert not {"mmfl", "aequa", "aequa_extensions"} & set(run_there.values()), run_there
    assert tuned.pending_here(entries["mmfl_fidelity"], cpu)  # the profile trains the corrected CNN: over budget


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
    # the row held by default and differs at the rerun value: a reversal, named as one
    assert list(out["sensitivity"]) == ["auctions.task1_mu=0.5: reverses: differs (default match)", "", "", ""]
    assert list(out.columns) == [*CLAIM_COLUMNS, "sensitivity"]
    assert "| sensitivity |" in to_markdown(out, {"papers": {}}, "test")


def test_an_affected_row_missing_from_the_rerun_and_a_pending_entry_say_so():
    entries = {e.id: e for e in tuned.load_register()}
    ir = _row("aequa", "Definition 1, Sec. 4.2", "individual rationality: every client")
    nearly = _row("auctions", "Figure 7c", "MMFL max-min fair's recruits reach nearly the same minimum accuracy")
    card = pd.DataFrame([ir, nearly])
    chosen = [entries[i] for i in ("aequa_pmin_digits", "aequa_ir_split", "auctions_nearly_same_tolerance")]
    # a pending entry (no register entry is pending now: a copy of one made pending)
    chosen.append(dataclasses.replace(entries["aequa_nan_rho"], rerun={"kind": "pending", "reason": "x"}))
    reruns = {"aequa_pmin_digits": pd.DataFrame(columns=CLAIM_COLUMNS), "aequa_ir_split": card.iloc[[0]]}
    out = tuned.with_sensitivity(card, chosen, reruns, pending=["aequa_nan_rho"])
    assert list(out["sensitivity"]) == [
        "aequa.p_min.digits=0.25: not rerun; aequa.verdicts.ir_split=validation: match (as default);"
        " aequa.verdicts.nan_rho=-1: rerun pending",
        "",  # the tolerance entry has no rerun: it decides nothing
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
    assert tuned.rerun_blocks(DEFAULT, entry, "aequa")["aequa"]["p_min_ablation"]["digits"] == 0.1
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
        + ["--sensitivity", f"auctions_task1_mu={tmp_path / 'rerun.csv'}", "--pending", "aequa_nan_rho"]
        + ["--cfg", json.dumps({"profile": "test", "smoke": False})]
    )
    with open(out["card.csv"], newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert row["status"] == "match" and row["sensitivity"] == "auctions.task1_mu=0.5: reverses: differs (default match)"
    assert "| auctions.task1_mu=0.5: reverses: differs (default match) |" in open(out["card.md"]).read()
    entry = {"paper": "auctions", "rows": ["Figure 7a"], "ref": "Fig. 7a", "title": "t", "shows": "s", "look_for": "l"}
    entry |= {"rule": "r", "template": "c", "profile": "test", "seed": 1, "settings": "", "files": [], "id": "x"}
    caption = " ".join(caption_rst(entry, [row]).split())  # a caption's lines are wrapped; reST joins them again
    assert "(sensitivity: auctions.task1\\_mu=0.5: reverses: differs (default match))" in caption


def test_a_claims_only_aequa_entry_retrains_nothing_and_summarizes_the_main_runs():
    entry = {e.id: e for e in tuned.load_register()}["aequa_ir_split"]
    assert entry.kind == "aequa_claims" and tuned.applies(entry, DEFAULT) and tuned.applies(entry, TEST)
    main = ["results/aequa/runs/digits/homogeneous/aequa/seed0.json"]
    assert tuned.aequa_rerun(entry, main, "results/sensitivity/x") == []
    (summarize,) = tuned.aequa_job("results/sensitivity/x", [], main, ["table1"], "rerun.json", [])
    assert summarize.startswith(f"aequa summarize {main[0]} ") and summarize.endswith("--cfg rerun.json")
    assert tuned.rerun_blocks(DEFAULT, entry, "aequa")["aequa"]["verdicts"]["ir_split"] == "validation"


ISSUE_38 = {
    "mmfl_fig3_learned": 0.2,
    "mmfl_exp4_tasks": ["digits", "fashion_mnist", "digits", "synthetic", "digits"],
    "mmfl_exp2_clients": 24,
    "mmfl_exp1_clients": 30,
    "mmfl_fig4_clients": 10,
    "mmfl_exp3_clients": 20,
    "mmfl_exp4_clients": 15,
    "mmfl_exp1_samples": [20, 30],
    "mmfl_exp2_samples": [15, 25],
    "mmfl_exp3_samples": [25, 35],
    "auctions_nearly_same_margin": 0.02,
    "aequa_pmin_default": 0.1,
    "aequa_pmin_ablation_default": 0.05,
    "aequa_lr": 0.05,
    "aequa_batch_size": 32,
    "aequa_fmnist_model": "aequa_mlp",
    "aequa_scale_clients": 300,
    "aequa_scale_rounds": 30,
    "aequa_fedavg_ft_lr": "initial",
    "auctions_theorem11_se": "null_hypothesis",
    "aequa_nan_rho": 0,
}


def test_issue_38_entries_name_config_keys_holding_their_defaults_and_rerun_the_papers_value():
    entries = {e.id: e for e in tuned.load_register(config=DEFAULT)}
    for entry_id, default in ISSUE_38.items():
        entry = entries[entry_id]
        assert tuned.lookup(DEFAULT, entry.config) == default == entry.default, entry_id
    # group B: the reruns run the paper's (spec's) values, the pre-change rounds kept beside as a second entry
    assert entries["aequa_pmin_digits"].rerun_value == 0.25 and entries["aequa_pmin_ablation_digits"].rerun_value == 0.1
    assert entries["aequa_rounds"].rerun_value == 50 and entries["aequa_rounds_before"].rerun_value == 20
    assert entries["mmfl_exp2_clients"].rerun_value == 20
    # every setting is a config key now: no entry is pending
    assert not [e.id for e in entries.values() if e.kind == "pending"]


def test_fedavg_ft_fine_tunes_at_the_initial_rate_by_default():
    from fairshare.papers.aequa.settings import AequaSettings

    assert AequaSettings.from_block(DEFAULT["aequa"]).finetune_lr == "initial"
    block = tuned.rerun_blocks(DEFAULT, {e.id: e for e in tuned.load_register()}["aequa_fedavg_ft_lr"], "aequa")
    assert AequaSettings.from_block(block["aequa"]).finetune_lr == "last_round"


def _example(pattern: str) -> str:
    return pattern.replace("*", "x").replace("?", "x").replace("[", "").replace("]", "")


def test_every_row_an_entry_touches_gets_a_sensitivity_cell():
    """A generated scorecard with one row per pattern of every entry: each row's cell is non-empty once every rerun
    this profile runs has given its claims, and the entries of other profiles and pending ones say so."""
    entries = tuned.load_register(config=DEFAULT)
    rows = [_row(r["paper"], _example(r["artifact"]), _example(r["claim"])) for e in entries for r in e.rows]
    card = pd.DataFrame(rows).drop_duplicates(subset=["paper", "artifact", "claim"], ignore_index=True)
    reruns = {e.id: card.assign(status="differs") for e in entries if tuned.applies(e, DEFAULT)}
    pending = [e.id for e in entries if tuned.pending_here(e, DEFAULT)]
    out = tuned.with_sensitivity(card, entries, reruns, pending)
    for entry in entries:
        if entry.kind == "none":
            continue
        for r in entry.rows:
            hit = out[(out["artifact"] == _example(r["artifact"])) & (out["claim"] == _example(r["claim"]))]
            assert entry.label in hit["sensitivity"].iloc[0], (entry.id, r)
    profile_only = {e.id: e for e in entries}["aequa_scale_clients"]
    assert f"{profile_only.label}: runs in the paper profile only, not rerun here" in " ".join(out["sensitivity"])


def test_a_profile_entry_shows_the_committed_verdict_of_the_profile_that_runs_the_paper_value():
    """mmfl_exp1_clients (120 clients) runs in the CPU-scale profile only: its rows show that profile's committed
    verdict of the same row beside this profile's, and nothing when that verdict is of other row definitions."""
    entry = {e.id: e for e in tuned.load_register()}["mmfl_exp1_clients"]
    claim = "max-min has the highest minimum accuracy (exp1)"
    card = pd.DataFrame([_row("mmfl", "Figure 2", claim, status="inconclusive")])
    committed = pd.DataFrame(
        [{"paper": "mmfl", "artifact": "Figure 2", "claim": claim, "status": "differs", "definitions": "abc"}]
    )
    cell = tuned.with_sensitivity(card, [entry], {}, [entry.id], {"cpu_scale": committed}, "abc")["sensitivity"][0]
    assert (
        cell == f"{entry.label}: in the cpu_scale profile's committed run: contradicted: differs (default inconclusive)"
    )
    stale = tuned.with_sensitivity(card, [entry], {}, [entry.id], {"cpu_scale": committed}, "new")["sensitivity"][0]
    assert "older row definitions" in stale and "differs" not in stale
    other = committed.assign(claim="another statement (exp1)")
    missing = tuned.with_sensitivity(card, [entry], {}, [entry.id], {"cpu_scale": other}, "abc")["sensitivity"][0]
    assert missing.endswith("which has no such row")
    alone = tuned.with_sensitivity(card, [entry], {}, [entry.id])["sensitivity"][0]
    assert alone.endswith("runs in the cpu_scale profile only, not rerun here")


@pytest.mark.parametrize(
    "default, rerun, intervals, text",
    [
        ("match", "differs", ("", ""), "x=1: reverses: differs (default match)"),
        ("differs", "match", ("", ""), "x=1: reverses: match (default differs)"),
        ("inconclusive", "differs", ("", ""), "x=1: contradicted: differs (default inconclusive)"),
        ("match", "inconclusive", ("", ""), "x=1: inconclusive (default match)"),
        ("match", "match", ("", ""), "x=1: match (as default)"),
        ("not run in this profile", "not run in this profile", ("", ""), "x=1: not run in this profile"),
        (
            "differs",
            "differs",
            ("33 match, 11 differ, 6 inconclusive of 50 pairs", "22 match, 20 differ, 8 inconclusive of 50 pairs"),
            "x=1: contradicted on more comparisons: differs on 20 of 50 (default 11 of 50)",
        ),
        (
            "differs",
            "differs",
            ("3 match, 2 differ, 0 inconclusive of 5", "4 match, 1 differ, 0 inconclusive of 5"),
            "x=1: differs (as default)",
        ),
    ],
)
def test_a_reversal_reads_as_one(default, rerun, intervals, text):
    assert tuned.compare("x=1", default, rerun, *intervals) == text


def test_a_multi_model_fl_rerun_retrains_its_experiments_and_summarizes_the_others():
    entries = {e.id: e for e in tuned.load_register()}
    entry = entries["mmfl_exp2_clients"]
    runs = [{"experiment": e, "label": "fedfair", "seed": "0"} for e in ("exp1", "exp2_s6", "exp2_s10")]
    retrained = tuned.mmfl_rerun(entry, runs)
    assert [r["experiment"] for r in retrained] == ["exp2_s6", "exp2_s10"]
    assert tuned.mmfl_rerun(entries["mmfl_fig3_learned"], runs) == []  # a summaries-only setting retrains nothing
    assert len(tuned.mmfl_rerun(entries["mmfl_fidelity"], runs)) == 3  # every experiment
    changed = tuned.rerun_config(DEFAULT, entry)  # `also`: both Exp 2 client counts at the paper's 20
    assert [changed["mmfl"]["experiments"][i]["clients"] for i in (1, 2)] == [20, 20]
    assert DEFAULT["mmfl"]["experiments"][2]["clients"] == 30  # the config itself is left as it is
    root = "results/sensitivity/mmfl_exp2_clients"
    (command, _) = tuned.mmfl_commands(
        retrained,
        {("exp2_s6", "fedfair", "0"): ("fedfair", 3.0), ("exp2_s10", "fedfair", "0"): ("fedfair", 3.0)},
        {"exp2_s6": ["digits=d.npz"], "exp2_s10": ["digits=d.npz"]},
        {"exp2_s6": "a.json", "exp2_s10": "b.json"},
        root,
        "checkpoints",
    )
    assert command.startswith("mmfl run --experiment exp2_s6 --method fedfair --alpha 3.0 --seed-index 0")
    assert f"--output {root}/mmfl/runs/exp2_s6/fedfair/seed0.csv" in command and command.endswith("--cfg a.json")
    assert "checkpoints/sensitivity/mmfl_exp2_clients/mmfl/runs/exp2_s6/fedfair/seed0.pt" in command
    main = [f"results/mmfl/runs/{r['experiment']}/fedfair/seed0.csv" for r in runs]
    new = {main[1]: tuned.mmfl_file(root, runs[1], ".csv")}
    summarize = tuned.mmfl_summarize(root, main, new, "s.json")
    assert summarize.startswith(f"mmfl summarize {main[0]} {new[main[1]]} {main[2]} ")
    assert f"--claims {root}/mmfl/claims.csv --cfg s.json" in summarize


def test_the_claims_only_reruns_of_theorem_11s_standard_error_and_the_nan_rule_run_in_every_profile():
    """Both were constants of claims modules (pending); as config keys they rerun the claims, no training: Section V's
    claims with the win rate's own standard error, and the Aequa claims with NaN rho counted as -1."""
    from fairshare.papers.aequa.settings import AequaSettings
    from fairshare.papers.auctions.experiment import Settings

    entries = {e.id: e for e in tuned.load_register(config=DEFAULT)}
    se, nan = entries["auctions_theorem11_se"], entries["aequa_nan_rho"]
    assert (se.kind, nan.kind) == ("auctions_claims", "aequa_claims")
    # the NaN rule reaches the extensions' rows too: their claims are rerun beside the main experiments'
    assert nan.rerun.get("extensions") and not entries["aequa_ir_split"].rerun.get("extensions")
    assert "| aequa_claims + the extensions' claims |" in tuned.register_table([nan])
    for config in (DEFAULT, TEST):
        assert tuned.applies(se, config) and tuned.applies(nan, config) and not tuned.pending_here(se, config)
    assert tuned.aequa_rerun(nan, ["results/aequa/runs/digits/homogeneous/aequa/seed0.json"], "x") == []
    auctions = Settings.from_block(tuned.rerun_blocks(DEFAULT, se, "auctions")["auctions"])
    assert auctions.theorem11["standard_error"] == "own"
    aequa = AequaSettings.from_block(tuned.rerun_blocks(DEFAULT, nan, "aequa")["aequa"])
    assert aequa.tables.verdicts.nan_rho == -1
    assert AequaSettings.from_block(DEFAULT["aequa"]).tables.verdicts.nan_rho == 0  # the config itself keeps 0
    # their rows' cells carry the rerun's verdict beside the default's
    row = _row("auctions", "Section V-C", "Under the budget-fair auction a user bidding b joins a task")
    rerun = pd.DataFrame([{**row, "status": "differs"}])
    out = tuned.with_sensitivity(pd.DataFrame([row]), [se], {se.id: rerun})
    assert out["sensitivity"].iloc[0] == "auctions.theorem11.standard_error=own: reverses: differs (default match)"
