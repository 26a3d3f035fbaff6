"""The DP-coalitions experiment (Figure 1, worked examples, price of stability) and its commands end to end."""

from __future__ import annotations

import argparse

import yaml

from fairshare.papers.dp_coalitions import claims, commands, experiment
from fairshare.pipeline.config import validate_config
from fairshare.pipeline.report import read_claims
from tests.conftest import REPO

REFERENCE = REPO / "workflow" / "reference" / "dp_coalitions_printed.yaml"
REF = yaml.safe_load(REFERENCE.read_text())
CFG = validate_config(
    {
        "seed": 1,
        "dp_coalitions": {
            "claims_instances": 2,
            "monte_carlo_repetitions": 2000,
            "pos": {"alphas": [-1, 0, 1], "n_values": [1000, 10000]},
        },
    }
)


def test_worked_examples_match_every_printed_number():
    examples = experiment.worked_examples(REF)
    assert set(examples.example) == {"Lemma 4, U_1", "Lemma 4, U_2", "Lemma 3", "Lemma 4", "Lemma 5"}
    assert set(examples["compare"]) == {"number", "same", "contains", "exists"}
    rows = claims._worked_examples(examples)
    assert len(rows) == len(examples) and all(r.status == "match" for r in rows)


def test_figure1_pieces_cover_sigma_in_order():
    intervals, windows = experiment.figure1(REF["figure1"])
    for _, pieces in intervals.groupby("notion"):
        assert pieces.sigma_lo.iloc[0] == 0 and pieces.sigma_hi.iloc[-1] == float("inf")
        assert (pieces.sigma_hi.to_numpy()[:-1] == pieces.sigma_lo.to_numpy()[1:]).all()
    assert set(windows.notion) == {"nash", "robust"} and (windows.sigma2_lo < windows.sigma2_hi).all()


def test_price_of_stability_sweeps_the_settings():
    settings = experiment.Settings.from_config(CFG["dp_coalitions"], CFG["seed"])
    table = experiment.price_of_stability(settings)
    assert len(table) == len(settings.pos_costs) * 3 * 2 * 2
    assert (table.pos_sc >= 1 - 1e-12).all()


def test_commands_write_a_claims_file(tmp_path):
    paths = {name: str(tmp_path / f"{name}.csv") for name in ("intervals", "windows", "examples", "pos", "claims")}
    ref = str(REFERENCE)
    commands.fig1(argparse.Namespace(reference=ref, intervals=paths["intervals"], windows=paths["windows"]))
    commands.examples(argparse.Namespace(reference=ref, output=paths["examples"]))
    commands.pos(argparse.Namespace(output=paths["pos"], cfg=CFG))
    commands.claims_cmd(
        argparse.Namespace(
            intervals=paths["intervals"],
            examples=paths["examples"],
            pos=paths["pos"],
            output=paths["claims"],
            cfg=CFG,
        )
    )
    rows = read_claims(paths["claims"])
    assert len(rows) > 40 and set(rows.paper) == {"dp_coalitions"}
