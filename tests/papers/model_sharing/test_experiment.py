"""The model-sharing experiment and its paper-numbers command on the paper's inputs: Tables 1-5 and Example C.6."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction

import pandas as pd
import pytest
import yaml

from fairshare.papers.model_sharing import commands, experiment
from fairshare.pipeline.config import validate_config
from fairshare.pipeline.report import read_claims
from tests.conftest import REPO

REFERENCE = REPO / "workflow" / "reference" / "model_sharing_printed.yaml"
REF = yaml.safe_load(REFERENCE.read_text())
TABLES = [f"table{i}" for i in range(1, 6)]


def _cfg(**block) -> dict:
    return validate_config({"seed": 3, "model_sharing": block})


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("model_sharing")
    args = argparse.Namespace(
        reference=str(REFERENCE),
        tables=TABLES,
        cells=[str(out / f"{t}.csv") for t in TABLES],
        all_coalitions=[str(out / f"{t}_all.csv") for t in TABLES],
        stability=[str(out / f"{t}_stability.csv") for t in TABLES],
        appendix_c=str(out / "appendix_c.json"),
        core_vs_l=str(out / "core.csv"),
        printed_values=str(out / "printed.csv"),
        cfg=_cfg(appendix_c_L=[6, 7, 8]),
    )
    commands.paper_numbers(args)
    return out


def test_round_like_is_exact_half_up():
    assert experiment.round_like(Fraction(4, 3), "1.3") == "1.3"
    assert experiment.round_like(Fraction(13, 399), "0.0325") == "0.0326"
    assert experiment.round_like(Fraction(5, 18), "0.278") == "0.278"
    assert experiment.round_like(Fraction(1, 8), "0.12") == "0.13"  # a true half rounds up, no float error
    assert experiment.round_like(Fraction(2), "2") == "2"


def test_settings_are_built_once_from_the_block():
    settings = experiment.Settings.from_config(_cfg()["model_sharing"], 3)
    assert settings.phase.n_large[0] == 2 and settings.phase.n_large[-1] == 1000
    assert len(settings.phase.n_large) == len(set(settings.phase.n_large)) <= 30
    assert settings.monte_carlo.n == (10, 20, 30) and settings.seed == 3


def test_every_printed_table_value_matches_except_table5_last_digit(outputs):
    cells = pd.concat([pd.read_csv(outputs / f"{t}.csv", dtype={"printed": str, "rounded": str}) for t in TABLES])
    assert len(cells) == 9 + 12 + 9 + 6 + 6  # every printed cell of Tables 1-5
    mismatched = cells[~cells.match]
    assert mismatched[["table", "structure", "player", "printed", "rounded", "exact"]].values.tolist() == [
        ["table5", "{a,b,c,d}", "d", "0.0325", "0.0326", "13/399"]
    ]
    assert mismatched.note.iloc[0].startswith("err_d of the grand coalition is exactly 13/399")


def test_full_tables_and_stability_reports(outputs):
    full = pd.read_csv(outputs / "table4_all.csv")
    assert len(full) == sum(bin(mask).count("1") for mask in range(1, 16))
    report = pd.read_csv(outputs / "table4_stability.csv").set_index("partition")
    assert len(report) == 15 and report.core.sum() == 1 and report.loc["{a,b,c},{d}", "core"]
    assert report.loc["{a,b,c,d}", "individual"] and not report.loc["{a,b,c,d}", "core"]
    assert report.loc["{a,b,c,d}", "core_blocking"] == "{a,b,c}"


def test_appendix_c_report(outputs):
    report = json.loads((outputs / "appendix_c.json").read_text())
    assert (report["inferred_n_s"], report["inferred_n_l"]) == (11, 106)
    assert [v["match"] for v in report["values"]] == [True] * 7
    core = pd.read_csv(outputs / "core.csv")
    assert core.individually_stable.all() and core.l_prime.tolist() == [3, 3, 3]
    assert core.core_stable.tolist() == [True, False, False]
    assert core.blocking_coalitions.fillna("").tolist() == ["", "pi(67,4);pi(68,4)", "pi(67,4);pi(68,4)"]


def test_printed_values_claims(outputs):
    rows = read_claims(outputs / "printed.csv")
    c6 = rows[rows.artifact == "Example C.6"]
    assert (c6.kind == "printed").sum() == 7 and c6.claim.tolist()[-2:] == ["conclusion, L = 7", "conclusion, L = 8"]
    stability = rows[rows.claim.str.startswith("§2 text: ")]
    assert len(stability) == 17 and (stability.status == "match").all() and (stability.kind == "claim").all()
    assert (rows.status == "match").sum() == len(rows) - 1  # only Table 5's last digit
    assert set(rows.kind) == {"printed", "claim"}


def test_paper_numbers_refuses_mismatched_lists(tmp_path):
    args = argparse.Namespace(
        reference=str(REFERENCE),
        tables=["table1", "table2"],
        cells=[str(tmp_path / "a.csv")],
        all_coalitions=[],
        stability=[],
        cfg=_cfg(),
    )
    with pytest.raises(commands.UserError):
        commands.paper_numbers(args)


def test_curves_and_phase_diagram_are_tidy():
    settings = experiment.Settings.from_config(
        _cfg(curve_max_players=3, phase={"S": 2, "L": 1, "n_max": 4})["model_sharing"], 0
    )
    sizes = experiment.error_vs_size(settings)
    assert len(sizes) == 3 * 3 * 3 and set(sizes.method) == {"uniform", "coarse", "fine"}
    phases = experiment.phase_diagram(settings)
    assert {(s, l) for s, l in zip(phases.S, phases.L)} == {(3, 1), (2, 1)}
    assert (phases.n_l > phases.n_s).all()
