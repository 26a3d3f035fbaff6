"""Aequa's claims say "differs" when the results contradict the paper's statement, and "match" when they agree.

A scalar in these tests stands for three seeds with the same small jitter (the seed effect every method shares), so
the paired differences are clear; tests/papers/aequa/test_claims_verdicts.py feeds noisy seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairshare.papers.aequa import claims as C
from fairshare.papers.aequa.settings import AequaSettings
from fairshare.papers.aequa.tables import tidy_metrics
from tests.conftest import REPO

SETTINGS = [("digits", "homogeneous"), ("digits", "qskew")]
JITTER = (0.0, 0.002, -0.001)  # a scalar value becomes these offsets on seeds 0, 1, 2


def _tidy(values: dict[tuple[str, str, str, str], float | list[float]], cost: str = "std") -> pd.DataFrame:
    """Tidy rows from {(dataset, partition, method, metric): value (three jittered seeds) or per-seed values}; Aequa
    rows carry ``cost``."""
    rows = []
    for (d, p, method, metric), v in values.items():
        for seed, x in enumerate(np.asarray(v, float) + np.asarray(JITTER) if np.ndim(v) == 0 else v):
            rows.append(
                {
                    "dataset": d,
                    "partition": p,
                    "method": method,
                    "seed": seed,
                    "metric": metric,
                    "value": float(x),
                    "cost": cost if method.startswith("aequa") else None,
                }
            )
    return pd.DataFrame(rows)


def _metric(metric: str, aequa: float, baselines=(0.5, 0.4, 0.3), method: str = "aequa", settings=SETTINGS) -> dict:
    out = {}
    for s in settings:
        out[(*s, method, metric)] = aequa
        out.update({(*s, b, metric): v for b, v in zip(("fedavg_ft", "cgsv", "iafl"), baselines)})
    return out


def _means(values: dict) -> C.Runs:
    return C._per_seed(_tidy(values), "std")


def test_pearson_must_be_highest_in_every_setting():
    values = _metric("pearson", 0.9)
    assert C._pearson_highest(_means(values), SETTINGS, nan_rho=0.0).status == "match"
    values[("digits", "qskew", "cgsv", "pearson")] = 0.95  # one setting of two: "most" would pass, "all" does not
    row = C._pearson_highest(_means(values), SETTINGS, nan_rho=0.0)
    assert row.status == "differs" and "digits/qskew" in row.note
    values[("digits", "qskew", "cgsv", "pearson")] = np.nan  # a NaN baseline (identical rewards) counts as below
    assert C._pearson_highest(_means(values), SETTINGS, nan_rho=0.0).status == "match"


def test_the_pearson_claim_uses_the_configured_cost_not_the_variant():
    tidy = pd.concat(
        [_tidy(_metric("pearson", 0.9)), _tidy({(*s, "aequa", "pearson"): 0.1 for s in SETTINGS}, cost="var")]
    )
    assert C._pearson_highest(C._per_seed(tidy, "std"), SETTINGS, nan_rho=0.0).status == "match"
    assert C._pearson_highest(C._per_seed(tidy, "var"), SETTINGS, nan_rho=0.0).status == "differs"


def test_accuracy_is_best_or_second_to_fedavg_everywhere():
    values = _metric("accuracy", 0.9, baselines=(0.95, 0.5, 0.5))
    assert C._accuracy_best_or_second(_means(values), SETTINGS).status == "match"
    values = _metric("accuracy", 0.9, baselines=(0.5, 0.95, 0.5))  # second, but behind CGSV, not FedAvg
    assert C._accuracy_best_or_second(_means(values), SETTINGS).status == "differs"
    values = _metric("accuracy", 0.4, baselines=(0.95, 0.9, 0.5))  # third
    assert C._accuracy_best_or_second(_means(values), SETTINGS).status == "differs"


def test_individual_rationality_is_judged_on_the_test_gains():
    ok = {(*s, "aequa", m): v for s in SETTINGS for m, v in (("min_gain", 0.01), ("ir_infeasible", [0.0, 0.0, 0.0]))}
    assert C._individual_rationality(_tidy(ok), "std").status == "match"
    negative = {**ok, ("digits", "qskew", "aequa", "min_gain"): -0.02}
    assert C._individual_rationality(_tidy(negative), "std").status == "differs"
    infeasible = C._individual_rationality(
        _tidy({**ok, ("digits", "qskew", "aequa", "ir_infeasible"): [1.0, 0.0, 0.0]}), "std"
    )
    assert infeasible.status == "match" and infeasible.note.endswith(": 1")  # infeasible on the fitted split: reported


def test_cgs_lowest_in_most_and_mcg_where_it_is_not():
    values = {**_metric("cgs", 0.01, baselines=(0.05, 0.05, 0.05)), **_metric("mcg", 0.1, baselines=(0.2, 0.0, 0.0))}
    means = _means(values)
    assert C._cgs_lowest_in_most(means, SETTINGS).status == "match"
    assert C._mcg_where_cgs_not_lowest(means, SETTINGS).status == "not run in this profile"  # no such setting
    values[("digits", "qskew", "aequa", "cgs")] = 0.09
    means = _means(values)
    # "most" is a pooled test over settings x seeds: 0.04 below the baselines in one setting and 0.04 above in the
    # other is no gain on average (a tie on every seed), and clearly above in one outweighs the other
    assert C._cgs_lowest_in_most(means, SETTINGS).status == "inconclusive"
    values[("digits", "qskew", "aequa", "cgs")] = 0.2
    means = _means(values)
    assert C._cgs_lowest_in_most(means, SETTINGS).status == "differs"
    assert C._mcg_where_cgs_not_lowest(means, SETTINGS).status == "differs"  # FedAvg-FT's MCG 0.2 > Aequa's 0.1
    values[("digits", "qskew", "aequa", "mcg")] = 0.3
    assert C._mcg_where_cgs_not_lowest(_means(values), SETTINGS).status == "match"


def test_lower_pmin_must_win_more_quantity_skew_settings_or_all():
    q = [("digits", "qskew")]
    values = {
        **_metric("cgs", 0.09, baselines=(0.05, 0.05, 0.05), settings=q),
        ("digits", "qskew", "aequa_pmin", "cgs"): 0.01,
    }
    assert C._lower_pmin_helps(_means(values), q, 0.02).status == "match"
    values[("digits", "qskew", "aequa_pmin", "cgs")] = 0.08  # lower p_min does not help
    assert C._lower_pmin_helps(_means(values), q, 0.02).status == "differs"
    assert C._lower_pmin_helps(_means(_metric("cgs", 0.01)), q, 0.02) is None  # no lower-p_min runs: no row


def test_width_reward_rho_is_compared_at_the_printed_precision():
    values = {(*s, "aequa", "pearson_width_fit"): 0.96 for s in SETTINGS}
    row = C._width_reward_rho(_means(values), SETTINGS, {"digits"})
    assert row.status == "match" and row.kind == "printed"
    values[("digits", "qskew", "aequa", "pearson_width_fit")] = 0.93
    assert C._width_reward_rho(_means(values), SETTINGS, {"digits"}).status == "differs"


def test_width_reward_accuracy_must_beat_every_baseline_everywhere():
    values = {
        **_metric("pearson", 0.9, baselines=(0.5, 0.4, 0.3)),
        **{(*s, "aequa", "pearson_width_acc"): 0.8 for s in SETTINGS},
    }
    assert C._width_reward_accuracy(_means(values), SETTINGS, nan_rho=0.0).status == "match"
    values[("digits", "homogeneous", "iafl", "pearson")] = 0.85
    assert C._width_reward_accuracy(_means(values), SETTINGS, nan_rho=0.0).status == "differs"


@pytest.fixture
def runs():
    """Two tiny runs of one setting (standalone contributions, an Aequa run with a variant cost)."""
    c = [0.6, 0.7, 0.8]
    base = {
        "dataset": "digits",
        "dataset_used": "digits",
        "partition": "homogeneous",
        "scheme": "homogeneous",
        "seed": 0,
        "rounds": 1,
    }
    allocation = {
        "reward_acc": [0.7, 0.8, 0.9],
        "width_reward_width": [0.2, 0.5, 1.0],
        "width_reward_acc": [0.65, 0.75, 0.9],
        "ir_infeasible": [False] * 3,
    }
    return [
        {**base, "method": "standalone", "reward_acc": c},
        {
            **base,
            "method": "aequa",
            "contributions": c,
            "global_acc": 0.9,
            "curve": [0.5, 0.9],
            "allocation_spread": "std",
            "p_min": 0.25,
            **allocation,
            "variants": {"var": {**allocation, "reward_acc": [0.9, 0.9, 0.9]}},
        },
    ]


def test_tidy_metrics_keep_each_cost_in_its_own_rows(runs):
    tidy = tidy_metrics(runs)
    rho = tidy[(tidy.method == "aequa") & (tidy.metric == "pearson")].set_index("cost").value
    assert rho["std"] == pytest.approx(1.0) and np.isnan(rho["var"])  # the variant's identical rewards: NaN
    variant = set(tidy[tidy.cost == "var"].metric)
    assert "pearson_width" in variant and "accuracy" not in variant  # only what the allocation changes
    assert tidy[tidy.method == "standalone"].cost.isna().all()
    assert set(tidy[tidy.method == "aequa"].p_min) == {0.25} and tidy[tidy.method == "standalone"].p_min.isna().all()


def test_claims_give_every_row_in_order_from_the_tidy_table():
    from fairshare.pipeline.config import load_config

    settings = AequaSettings.from_block(load_config(REPO / "config" / "test.yaml")["aequa"])
    values = {**_metric("pearson", 0.9), **_metric("accuracy", 0.9, baselines=(0.95, 0.5, 0.5))}
    rows = C.claims({"tidy": _tidy(values)}, settings)
    assert [r.artifact for r in rows][:2] == ["Tables 2, 6", "Table 5, Table 1"]
    assert [r.status for r in rows][:2] == ["match", "match"]
    assert C.claims({}, settings) == []


def test_the_claims_count_a_nan_rho_as_aequa_verdicts_nan_rho():
    """The NaN rule is a config key (a tuned setting): FedAvg-FT's identical rewards (NaN rho on every seed) count as
    0 by default, above Aequa's negative rho, and as -1 at the rerun value, below it."""
    from fairshare.pipeline.config import load_config

    block = load_config(REPO / "config" / "test.yaml")["aequa"]
    assert block["verdicts"]["nan_rho"] == 0
    values = {**_metric("pearson", -0.5, baselines=(np.nan, -0.6, -0.7)), **_metric("accuracy", 0.9)}
    rerun = {**block, "verdicts": {**block["verdicts"], "nan_rho": -1}}
    default, at_minus_one = (C.claims({"tidy": _tidy(values)}, AequaSettings.from_block(b))[0] for b in (block, rerun))
    assert default.artifact == at_minus_one.artifact == "Tables 2, 6"
    assert (default.status, at_minus_one.status) == ("differs", "match")
    assert default.interval != at_minus_one.interval  # the verdict's evidence moves with the rule
