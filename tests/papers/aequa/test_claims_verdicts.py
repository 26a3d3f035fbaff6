"""Aequa's method comparisons are decided over seeds: generated per-seed results where the statement holds beyond
noise (match), fails beyond noise (differs), or is lost in seed noise (inconclusive)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairshare.papers.aequa import claims as C
from fairshare.papers.aequa.claims_seeds import placed, seed_values
from fairshare.pipeline.config import ConfigError, load_config
from tests.conftest import REPO

SETTINGS = [("digits", "homogeneous"), ("digits", "qskew")]
SEEDS = 4
CLEAR = np.array([0.0, 0.004, -0.003, 0.002])  # a seed effect shared by every method: clear paired differences
NOISY = np.array([0.30, -0.25, 0.20, -0.15])  # one method's own seed noise: its differences straddle zero


def _tidy(values: dict[tuple[str, str, str, str], object]) -> pd.DataFrame:
    """Tidy rows from {(dataset, partition, method, metric): per-seed values}; Aequa rows carry the cost "std"."""
    return pd.DataFrame(
        [
            {
                "dataset": d,
                "partition": p,
                "method": method,
                "seed": seed,
                "metric": metric,
                "value": float(x),
                "cost": "std" if method.startswith("aequa") else None,
            }
            for (d, p, method, metric), per_seed in values.items()
            for seed, x in enumerate(per_seed)
        ]
    )


def _metric(metric: str, aequa, baselines=(0.5, 0.4, 0.3), method: str = "aequa", settings=SETTINGS) -> dict:
    """Aequa's and the three baselines' per-seed values of ``metric``; a scalar becomes that value plus CLEAR."""

    def seeds(x):
        return np.asarray(x, float) if np.ndim(x) else x + CLEAR

    out = {}
    for s in settings:
        out[(*s, method, metric)] = seeds(aequa)
        out.update({(*s, b, metric): seeds(v) for b, v in zip(("fedavg_ft", "cgsv", "iafl"), baselines)})
    return out


def _runs(values: dict) -> C.Runs:
    return C._per_seed(_tidy(values), "std")


def test_a_nan_pearson_counts_as_no_correlation_on_its_seed():
    assert seed_values({0: np.nan, 1: 0.2}, "pearson", nan_rho=0.0) == {0: 0.0, 1: 0.2}
    assert np.isnan(seed_values({0: np.nan}, "accuracy")[0])
    nan = {0: np.nan, 1: np.nan, 2: np.nan}
    verdict = placed("a", {"a": {0: 0.1, 1: 0.2, 2: 0.15}, "b": seed_values(nan, "pearson", nan_rho=0.0)})
    assert verdict.status == "match" and "a > b" in verdict.evidence


def test_the_nan_rule_is_the_configured_value_and_a_rho_column_needs_it():
    """aequa.verdicts.nan_rho (a tuned setting): -1, its rerun value, counts a NaN seed as an anti-correlation."""
    assert seed_values({0: np.nan, 1: 0.2}, "pearson", nan_rho=-1) == {0: -1.0, 1: 0.2}
    nan = {0: np.nan, 1: np.nan, 2: np.nan}
    below = {0: -0.5, 1: -0.45, 2: -0.55}  # a negative correlation on every seed: above -1, below 0
    assert placed("a", {"a": below, "b": seed_values(nan, "pearson", nan_rho=-1.0)}).status == "match"
    assert placed("a", {"a": below, "b": seed_values(nan, "pearson", nan_rho=0.0)}).status == "differs"
    with pytest.raises(ValueError, match="aequa.verdicts.nan_rho"):
        seed_values({0: 0.2}, "pearson")  # no rule given: refused even without a NaN
    assert seed_values({0: 0.2}, "accuracy") == {0: 0.2}  # other columns need none


@pytest.mark.parametrize(
    "column", ["pearson", "pearson_joined", "pearson_fit", "pearson_crossfit", "pearson_width_acc", "pearson_width"]
)
def test_one_nan_rule_for_every_rho_column(column):
    assert seed_values({0: np.nan, 1: 0.3}, column, nan_rho=0.0) == {0: 0.0, 1: 0.3}


def test_a_ranking_is_every_pair_it_implies():
    values = {"a": {s: 0.9 + e for s, e in enumerate(CLEAR)}, "b": {s: 0.5 + e for s, e in enumerate(CLEAR)}}
    values["c"] = {s: 0.3 + e for s, e in enumerate(CLEAR)}
    assert placed("b", values, above=["a"]).status == "match"
    assert placed("b", values).status == "differs"  # b is not first: a > b fails
    assert (
        placed("c", values, lower_is_better=True).status == "match"
        and "c < a" in placed("c", values, lower_is_better=True).evidence
    )


def test_pearson_highest_is_paired_per_setting_and_every_over_settings():
    values = _metric("pearson", 0.9)
    row = C._pearson_highest(_runs(values), SETTINGS, nan_rho=0.0)
    assert row.status == "match" and "2 match, 0 differ, 0 inconclusive of 2 settings" in row.interval
    values[("digits", "qskew", "cgsv", "pearson")] = 0.95 + CLEAR  # above Aequa on every seed in one setting
    row = C._pearson_highest(_runs(values), SETTINGS, nan_rho=0.0)
    assert row.status == "differs" and "differs in: digits/qskew" in row.note
    values[("digits", "qskew", "cgsv", "pearson")] = 0.9 + NOISY  # as high as Aequa within seed noise
    row = C._pearson_highest(_runs(values), SETTINGS, nan_rho=0.0)
    assert row.status == "inconclusive" and row.note.startswith("inconclusive: seed noise")


def test_a_baseline_nan_on_some_seeds_counts_as_beaten_there():
    values = _metric("pearson", 0.9)
    values[("digits", "qskew", "cgsv", "pearson")] = np.array([np.nan, -0.5, -0.6, np.nan])
    row = C._pearson_highest(_runs(values), SETTINGS, nan_rho=0.0)
    assert row.status == "match" and "+0.9000" in row.interval  # 0.9 - 0 on seed 0
    # a NaN Aequa is no correlation too: it loses to a baseline's positive correlation
    values[("digits", "qskew", "aequa", "pearson")] = np.array([np.nan] * 4)
    values[("digits", "qskew", "cgsv", "pearson")] = np.array([0.5, 0.52, 0.48, 0.51])
    assert C._pearson_highest(_runs(values), SETTINGS, nan_rho=0.0).status == "differs"


def test_accuracy_needs_only_cgsv_and_iafl_below_aequa():
    values = _metric("accuracy", 0.9, baselines=(0.95, 0.5, 0.5))  # second to FedAvg: fine
    assert C._accuracy_best_or_second(_runs(values), SETTINGS).status == "match"
    values = _metric("accuracy", 0.9, baselines=(0.5, 0.95, 0.5))  # behind CGSV
    assert C._accuracy_best_or_second(_runs(values), SETTINGS).status == "differs"
    values = _metric("accuracy", 0.9 + NOISY, baselines=(0.95, 0.88, 0.5))
    assert C._accuracy_best_or_second(_runs(values), SETTINGS).status == "inconclusive"


def test_cgs_lowest_in_most_settings():
    three = [*SETTINGS, ("synthetic", "homogeneous")]
    values = _metric("cgs", 0.01, baselines=(0.05, 0.05, 0.05), settings=three)
    values[("digits", "qskew", "aequa", "cgs")] = 0.09 + CLEAR  # 2 of 3 lowest: most
    assert C._cgs_lowest_in_most(_runs(values), three).status == "match"
    values[("synthetic", "homogeneous", "aequa", "cgs")] = 0.09 + CLEAR  # 1 of 3
    assert C._cgs_lowest_in_most(_runs(values), three).status == "differs"
    values[("synthetic", "homogeneous", "aequa", "cgs")] = 0.05 + NOISY / 10  # 1 match, 1 differs, 1 open
    row = C._cgs_lowest_in_most(_runs(values), three)
    assert row.status == "inconclusive" and "inconclusive in: synthetic/homogeneous" in row.note


def test_mcg_is_judged_where_cgs_is_not_established_lowest():
    values = {**_metric("cgs", 0.01, baselines=(0.05, 0.05, 0.05)), **_metric("mcg", 0.1, baselines=(0.2, 0, 0))}
    assert C._mcg_where_cgs_not_lowest(_runs(values), SETTINGS).status == "not run in this profile"
    values[("digits", "qskew", "aequa", "cgs")] = 0.09 + CLEAR  # CGS not lowest, MCG below FedAvg-FT's
    assert C._mcg_where_cgs_not_lowest(_runs(values), SETTINGS).status == "differs"
    values[("digits", "qskew", "aequa", "mcg")] = 0.3 + CLEAR
    assert C._mcg_where_cgs_not_lowest(_runs(values), SETTINGS).status == "match"
    values[("digits", "qskew", "aequa", "mcg")] = 0.2 + NOISY  # MCG level with FedAvg-FT's within noise
    assert C._mcg_where_cgs_not_lowest(_runs(values), SETTINGS).status == "inconclusive"


def test_mcg_not_highest_where_cgs_is_open_stays_open():
    values = {**_metric("cgs", 0.01, baselines=(0.05, 0.05, 0.05)), **_metric("mcg", 0.1, baselines=(0.2, 0, 0))}
    values[("digits", "qskew", "aequa", "cgs")] = 0.05 + NOISY / 10  # maybe lowest: the MCG statement may not apply
    assert C._mcg_where_cgs_not_lowest(_runs(values), SETTINGS).status == "inconclusive"


@pytest.mark.parametrize(
    ("lowered", "status"),
    [(0.01 + CLEAR, "match"), (0.08 + CLEAR, "differs"), (0.05 + NOISY / 10, "inconclusive")],
)
def test_lower_pmin_must_win_more_quantity_skew_settings(lowered, status):
    q = [("digits", "qskew")]
    values = _metric("cgs", 0.09, baselines=(0.05, 0.05, 0.05), settings=q)
    values[("digits", "qskew", "aequa_pmin", "cgs")] = lowered
    assert C._lower_pmin_helps(_runs(values), q, 0.02).status == status


def test_width_reward_accuracy_is_paired_with_each_baseline():
    values = {**_metric("pearson", 0.9), **{(*s, "aequa", "pearson_width_acc"): 0.8 + CLEAR for s in SETTINGS}}
    assert C._width_reward_accuracy(_runs(values), SETTINGS, nan_rho=0.0).status == "match"
    values[("digits", "homogeneous", "iafl", "pearson")] = 0.85 + CLEAR
    assert C._width_reward_accuracy(_runs(values), SETTINGS, nan_rho=0.0).status == "differs"
    values[("digits", "homogeneous", "iafl", "pearson")] = 0.8 + NOISY
    assert C._width_reward_accuracy(_runs(values), SETTINGS, nan_rho=0.0).status == "inconclusive"


def test_one_seed_leaves_every_comparison_inconclusive():
    values = {k: v[:1] for k, v in _metric("pearson", 0.9).items()}
    row = C._pearson_highest(_runs(values), SETTINGS, nan_rho=0.0)
    assert row.status == "inconclusive" and "too few seeds (1)" in row.note


def test_the_config_refuses_a_nan_rule_outside_the_range_of_rho():
    with pytest.raises(ConfigError, match="nan_rho") as err:
        load_config(REPO / "config" / "config.yaml", overrides={"aequa": {"verdicts": {"nan_rho": -2}}})
    assert "\n" not in str(err.value)
