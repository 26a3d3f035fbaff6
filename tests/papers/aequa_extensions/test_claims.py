"""The extensions' claims say "differs" when the results contradict the paper's statement.

Each value stands for three seeds with the same small jitter (a seed effect every method shares), so the paired
differences are clear; tests/papers/aequa_extensions/test_claims_verdicts.py feeds noisy seeds and one seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairshare.papers.aequa.settings import ExtensionSettings
from fairshare.papers.aequa_extensions.claims import claims
from tests.conftest import REPO

JITTER = {0: 0.0, 1: 0.002, 2: -0.001}  # seed -> offset added to every method's value


@pytest.fixture(scope="module")
def settings() -> ExtensionSettings:
    """The test profile's extension settings: participation on digits, rates evenly spaced in [0.2, 1.0]."""
    from fairshare.pipeline.config import load_config

    return ExtensionSettings.from_block(load_config(REPO / "config" / "test.yaml")["aequa"])


def _participation(rho: dict, acc: dict) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "dataset": "digits",
                "method": m,
                "seed": seed,
                "accuracy": acc[m] + e,
                "pearson": rho[m] + e,
                "pearson_joined": rho[m] + e,
            }
            for m in rho
            for seed, e in JITTER.items()
        ]
    )


def test_participation_claims_follow_table_3(settings):
    rho = {"fedavg_ft": 0.1, "cgsv": 0.2, "iafl": 0.6, "aequa": 0.9}
    acc = {"fedavg_ft": 0.80, "cgsv": 0.70, "iafl": 0.75, "aequa": 0.85}
    assert [r.status for r in claims({"participation": _participation(rho, acc)}, settings)] == ["match"] * 4
    rows = claims({"participation": _participation({**rho, "cgsv": 0.7}, {**acc, "fedavg_ft": 0.86})}, settings)
    assert [r.status for r in rows] == ["match", "differs", "match", "differs"]  # IAFL third; FedAvg more accurate
    rows = claims({"participation": _participation({**rho, "iafl": 0.95}, acc)}, settings)
    assert rows[0].status == "differs" and "rates evenly spaced in [0.2, 1.0]" in rows[0].note


def _rounds(rho: dict, held: float = 0.5) -> dict[str, pd.DataFrame]:
    """Per-round Pearson rows of one setting and the training-time methods' final-width correlations."""
    rows = [
        {
            "dataset": "digits",
            "partition": "homogeneous",
            "method": m,
            "seed": seed,
            "round": r,
            "metric": "pearson",
            "value": v + e,
        }
        for m, v in rho.items()
        for r in (1, 2)
        for seed, e in JITTER.items()
    ]
    widths = [
        {"dataset": "digits", "partition": "homogeneous", "method": m, "seed": 0, "pearson_width": held}
        for m in ("aequa_cgsv", "aequa_shapfed")
    ]
    return {"training_time": pd.DataFrame(rows), "final_widths": pd.DataFrame(widths)}


def test_training_time_claims_follow_figs_3_and_4(settings):
    rho = {"fedavg_ft": 0.1, "cgsv": 0.2, "aequa": 0.9, "aequa_cgsv": 0.8, "aequa_shapfed": 0.75}
    rows = claims(_rounds(rho), settings)
    assert [r.status for r in rows] == ["match"] * 3
    assert rows[1].note == "Aequa+CGSV: ρ(contribution, final width) 0.500"
    rows = claims(_rounds({**rho, "aequa_shapfed": 0.85, "cgsv": 0.95}), settings)
    # CGSV first: Aequa not best at every round, Aequa+CGSV not second; ShapFed within 0.1 of Aequa+CGSV
    assert [r.status for r in rows] == ["differs", "differs", "match"]
    rows = claims(_rounds({**rho, "aequa_shapfed": 0.5}), settings)
    assert rows[2].status == "differs"  # ShapFed 0.3 below Aequa+CGSV: not comparable (it was "above every baseline")


def test_scale_claims_compare_aequa_with_fedavg_ft(settings):
    def tidy(aequa, fedavg):
        keys = ("accuracy", "pearson", "cgs")
        return pd.DataFrame(
            [
                {"method": m, "seed": seed, "clients": 30, **{k: x + e for k, x in zip(keys, v)}}
                for m, v in (("aequa", aequa), ("fedavg_ft", fedavg))
                for seed, e in JITTER.items()
            ]
        )

    assert [r.status for r in claims({"scale": tidy((0.8, 0.9, 0.01), (0.7, 0.2, 0.05))}, settings)][:3] == [
        "match"
    ] * 3
    assert [r.status for r in claims({"scale": tidy((0.6, 0.1, 0.06), (0.7, 0.2, 0.05))}, settings)][:3] == [
        "differs"
    ] * 3
    assert (
        claims({"scale": tidy((0.8, 0.5, 0.01), (0.7, np.nan, 0.05))}, settings)[1].status == "match"
    )  # NaN (identical rewards) ranks last


def test_only_the_tables_present_give_rows(settings):
    assert claims({}, settings) == []
