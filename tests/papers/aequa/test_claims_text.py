"""The rows of claims_text (issue 28) and the changed rows of claims: each fed generated per-seed results where the
statement holds (match), fails (differs) and, for comparisons over seeds, is lost in seed noise (inconclusive)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairshare.papers.aequa import claims as C
from fairshare.papers.aequa import claims_text as T

SEEDS = 4
CLEAR = np.array([0.0, 0.004, -0.003, 0.002])
NOISY = np.array([0.30, -0.25, 0.20, -0.15])
SCHEMES = {"homogeneous": "homogeneous", "dir": "dirichlet", "qskew": "quantity_skew", "oc": "label_skew"}
CASES = [("digits", p) for p in SCHEMES]


def _runs(values: dict) -> dict:
    """{(dataset, partition, method, metric): seed -> value} from per-seed arrays (a scalar: plus CLEAR)."""
    return {k: dict(enumerate(np.asarray(x, float) if np.ndim(x) else x + CLEAR)) for k, x in values.items()}


def _everywhere(method: str, metric: str, value, cases=CASES) -> dict:
    return {(*s, method, metric): value for s in cases}


def test_near_perfect_fitted():
    assert T.near_perfect_fitted(_runs(_everywhere("aequa", "pearson_fit", 0.97)), CASES, 0.9).status == "match"
    low = _runs({**_everywhere("aequa", "pearson_fit", 0.97), ("digits", "oc", "aequa", "pearson_fit"): 0.6})
    assert T.near_perfect_fitted(low, CASES, 0.9).status == "differs"
    noisy = _runs(_everywhere("aequa", "pearson_fit", 0.9 + NOISY / 3))
    assert T.near_perfect_fitted(noisy, CASES, 0.9).status == "inconclusive"


def test_near_perfect_held_out_needs_a_split_that_can_measure():
    base = {
        **_everywhere("aequa", "pearson", 0.97),
        **_everywhere("aequa", "contribution_error", 0.01),
        **_everywhere("aequa", "contribution_spread", 0.1),
    }
    assert T.near_perfect_held_out(_runs(base), CASES, 0.9).status == "match"
    assert (
        T.near_perfect_held_out(_runs({**base, **_everywhere("aequa", "pearson", 0.5)}), CASES, 0.9).status == "differs"
    )
    small = _runs({**base, ("digits", "dir", "aequa", "contribution_error"): 0.2})
    row = T.near_perfect_held_out(small, CASES, 0.9)
    assert row.status == "inconclusive" and "held-out split too small" in row.interval
    none = _runs(_everywhere("aequa", "pearson", 0.97))
    assert T.near_perfect_held_out(none, CASES, 0.9).status == "not run in this profile"


def test_near_perfect_held_out_prefers_the_cross_fit():
    base = {
        **_everywhere("aequa", "pearson", 0.97),
        **_everywhere("aequa", "contribution_error", 0.01),
        **_everywhere("aequa", "contribution_spread", 0.1),
        **_everywhere("aequa", "crossfit_error", 0.01),
    }
    low = _runs({**base, **_everywhere("aequa", "pearson_crossfit", 0.5)})
    row = T.near_perfect_held_out(low, CASES, 0.9)
    assert row.status == "differs" and "cross-fitted" in row.note
    noisy = _runs({**base, **_everywhere("aequa", "pearson_crossfit", 0.9 + NOISY / 3)})
    assert T.near_perfect_held_out(noisy, CASES, 0.9).status == "inconclusive"
    assert (
        T.near_perfect_held_out(_runs({**base, **_everywhere("aequa", "pearson_crossfit", 0.95)}), CASES, 0.9).status
        == "match"
    )


def test_tidy_metrics_read_the_cross_fit_and_the_fitted_split():
    from fairshare.papers.aequa.tables import tidy_metrics

    allocation = {
        "reward_acc": [0.5, 0.7, 0.9],
        "allocated_width": [0.2, 0.6, 1.0],
        "ir_infeasible": [0, 0, 0],
        "width_reward_width": [0.2, 0.6, 1.0],
        "width_reward_acc": [0.5, 0.7, 0.9],
    }
    run = {
        "method": "aequa",
        "dataset": "d",
        "dataset_used": "d",
        "partition": "p",
        "scheme": "s",
        "seed": 0,
        "rounds": 1,
        "global_acc": 0.9,
        "allocation_spread": "std",
        "variants": {},
        "sizes": [1, 1, 3],
        "contributions": [0.4, 0.6, 0.8],
        "contributions_validation": [0.45, 0.6, 0.85],
        "widths": [0.2, 0.6, 1.0],
        "curve": [0.5, 0.7, 0.9],
        "curve_validation": [0.4, 0.65, 0.95],
        "crossfit_pearson": [0.9, 0.7],
        "contributions_halves": [[0.4, 0.6, 0.8], [0.42, 0.58, 0.8]],
        **allocation,
    }
    got = tidy_metrics([run]).set_index("metric").value
    assert abs(got["pearson_crossfit"] - 0.8) < 1e-12 and abs(got["crossfit_error"] - 0.02 / 3**0.5) < 1e-12
    assert abs(got["min_gain_fit"] - (-0.05)) < 1e-12 and got["pearson_fit"] > 0.99 and got["large_reward"] == 0.9


def _accuracy(aequa, fedavg, cgsv, iafl) -> dict:
    out = {}
    for m, x in zip(("aequa", "fedavg_ft", "cgsv", "iafl"), (aequa, fedavg, cgsv, iafl)):
        out.update(_everywhere(m, "accuracy", x))
    return out


def test_fairness_baselines_lag():
    assert T.fairness_baselines_lag(_runs(_accuracy(0.9, 0.9, 0.7, 0.7)), CASES, SCHEMES).status == "match"
    assert T.fairness_baselines_lag(_runs(_accuracy(0.9, 0.9, 0.95, 0.7)), CASES, SCHEMES).status == "differs"
    assert (
        T.fairness_baselines_lag(_runs(_accuracy(0.9, 0.9, 0.9 + NOISY, 0.7)), CASES, SCHEMES).status == "inconclusive"
    )


def test_matches_fedavg():
    assert T.matches_fedavg(_runs(_accuracy(0.895, 0.9, 0.7, 0.7)), CASES, 0.01).status == "match"
    assert T.matches_fedavg(_runs(_accuracy(0.85, 0.9, 0.7, 0.7)), CASES, 0.01).status == "differs"
    assert T.matches_fedavg(_runs(_accuracy(0.9 + NOISY, 0.9, 0.7, 0.7)), CASES, 0.01).status == "inconclusive"


def test_fedavg_negative_under_quantity_skew():
    assert (
        T.fedavg_negative_under_quantity_skew(_runs(_everywhere("fedavg_ft", "pearson", -0.4)), CASES, SCHEMES).status
        == "match"
    )
    assert (
        T.fedavg_negative_under_quantity_skew(_runs(_everywhere("fedavg_ft", "pearson", 0.4)), CASES, SCHEMES).status
        == "differs"
    )
    noisy = _runs(_everywhere("fedavg_ft", "pearson", NOISY))
    assert T.fedavg_negative_under_quantity_skew(noisy, CASES, SCHEMES).status == "inconclusive"


def _rho(method: str, homogeneous, dirichlet, qskew) -> dict:
    return {
        ("digits", "homogeneous", method, "pearson"): homogeneous,
        ("digits", "dir", method, "pearson"): dirichlet,
        ("digits", "qskew", method, "pearson"): qskew,
    }


def test_weak_under_homogeneous():
    good = _runs({**_rho("cgsv", 0.1, 0.6, 0.6), **_rho("iafl", 0.1, 0.6, 0.6)})
    assert T.weak_under_homogeneous(good, CASES, SCHEMES).status == "match"
    bad = _runs({**_rho("cgsv", 0.8, 0.6, 0.6), **_rho("iafl", 0.1, 0.6, 0.6)})
    assert T.weak_under_homogeneous(bad, CASES, SCHEMES).status == "differs"
    noisy = _runs({**_rho("cgsv", 0.6 + NOISY, 0.6, 0.6), **_rho("iafl", 0.1, 0.6, 0.6)})
    assert T.weak_under_homogeneous(noisy, CASES, SCHEMES).status == "inconclusive"


def test_iafl_improves_under_quantity_skew():
    assert T.iafl_improves_under_quantity_skew(_runs(_rho("iafl", 0.1, 0.5, 0.7)), CASES, SCHEMES).status == "match"
    assert T.iafl_improves_under_quantity_skew(_runs(_rho("iafl", 0.7, 0.5, 0.1)), CASES, SCHEMES).status == "differs"
    noisy = _runs(_rho("iafl", 0.5, 0.5, 0.5 + NOISY))
    assert T.iafl_improves_under_quantity_skew(noisy, CASES, SCHEMES).status == "inconclusive"


def test_aequa_tighter():
    wide = np.array([0.9, -0.9, 0.8, -0.8])
    tight = {**_everywhere("aequa", "pearson", 0.9 + CLEAR / 100), **_everywhere("iafl", "pearson", wide)}
    assert T.aequa_tighter(_runs(tight), CASES).status == "match"
    loose = {**_everywhere("aequa", "pearson", wide), **_everywhere("iafl", "pearson", 0.5 + CLEAR / 100)}
    assert T.aequa_tighter(_runs(loose), CASES).status == "differs"
    same = {**_everywhere("aequa", "pearson", 0.5 + NOISY), **_everywhere("iafl", "pearson", 0.5 - NOISY)}
    assert T.aequa_tighter(_runs(same), CASES).status == "inconclusive"


def test_iafl_lower_cgs_under_quantity_skew():
    def runs(iafl):
        return _runs({**_everywhere("aequa", "cgs", 0.05), **_everywhere("iafl", "cgs", iafl)})

    assert T.iafl_lower_cgs_under_quantity_skew(runs(0.02), CASES, SCHEMES).status == "match"
    assert T.iafl_lower_cgs_under_quantity_skew(runs(0.09), CASES, SCHEMES).status == "differs"
    assert T.iafl_lower_cgs_under_quantity_skew(runs(0.05 + NOISY / 10), CASES, SCHEMES).status == "inconclusive"


def test_cgsv_gain_sign():
    holds = {**_everywhere("cgsv", "mcg", -0.05), ("digits", "oc", "cgsv", "mcg"): 0.2}
    assert [r.status for r in T.cgsv_gain_sign(_runs(holds), CASES, SCHEMES)] == ["match", "match"]
    fails = _everywhere("cgsv", "mcg", 0.1) | {("digits", "oc", "cgsv", "mcg"): -0.2}
    assert [r.status for r in T.cgsv_gain_sign(_runs(fails), CASES, SCHEMES)] == ["differs", "differs"]
    noisy = _everywhere("cgsv", "mcg", NOISY / 10)
    assert [r.status for r in T.cgsv_gain_sign(_runs(noisy), CASES, SCHEMES)] == ["inconclusive"] * 2


def test_fedavg_gain_and_spread():
    holds = {
        **_everywhere("fedavg_ft", "mcg", 0.1),
        **_everywhere("fedavg_ft", "cgs", 0.09),
        **_everywhere("aequa", "cgs", 0.02),
    }
    assert [r.status for r in T.fedavg_gain_and_spread(_runs(holds), CASES)] == ["match", "match"]
    fails = {
        **_everywhere("fedavg_ft", "mcg", -0.1),
        **_everywhere("fedavg_ft", "cgs", 0.01),
        **_everywhere("aequa", "cgs", 0.09),
    }
    assert [r.status for r in T.fedavg_gain_and_spread(_runs(fails), CASES)] == ["differs", "differs"]
    noisy = {
        **_everywhere("fedavg_ft", "mcg", NOISY / 10),
        **_everywhere("fedavg_ft", "cgs", 0.05 + NOISY / 10),
        **_everywhere("aequa", "cgs", 0.05),
    }
    assert [r.status for r in T.fedavg_gain_and_spread(_runs(noisy), CASES)] == ["inconclusive"] * 2


def _curves(step: float, noise=CLEAR) -> pd.DataFrame:
    widths = np.linspace(0.1, 1.0, 10)
    return pd.DataFrame(
        [
            {
                "dataset": "digits",
                "partition": "homogeneous",
                "method": "aequa",
                "seed": s,
                "width": w,
                "accuracy": 0.5 + step * i + noise[s] * (i % 2),
            }
            for s in range(SEEDS)
            for i, w in enumerate(widths)
        ]
    )


def test_width_accuracy_monotone():
    assert T.width_accuracy_monotone(_curves(0.05), "homogeneous").status == "match"
    assert T.width_accuracy_monotone(_curves(-0.05), "homogeneous").status == "differs"
    assert T.width_accuracy_monotone(_curves(0.0, NOISY), "homogeneous").status == "inconclusive"
    assert T.width_accuracy_monotone(None, "homogeneous").status == "not run in this profile"


def test_table9_rho_is_judged_on_bucketed_widths_against_the_fitted_contributions():
    runs = _runs(_everywhere("aequa", "pearson_width_fit", 0.99))
    assert C._width_reward_rho(runs, CASES, {"digits"}).status == "match"
    low = _runs(_everywhere("aequa", "pearson_width_fit", 0.7))
    assert C._width_reward_rho(low, CASES, {"digits"}).status == "differs"
    assert C._width_reward_rho(low, CASES, set()).status == "not run in this profile"


def test_ir_is_judged_on_the_configured_split():
    tidy = pd.DataFrame(
        [
            {"method": "aequa", "metric": m, "value": x, "cost": "std", "seed": 0}
            for m, x in (("min_gain", 0.01), ("min_gain_fit", -0.02), ("ir_infeasible", 0.0))
        ]
    )
    assert C._individual_rationality(tidy, "std", "test").status == "match"
    assert C._individual_rationality(tidy, "std", "validation").status == "differs"


def test_mcg_significantly_needs_the_margin():
    cases = [("digits", "qskew")]
    values = {**_everywhere("aequa", "cgs", 0.09, cases)}
    for b in ("fedavg_ft", "cgsv", "iafl"):
        values |= _everywhere(b, "cgs", 0.05, cases) | _everywhere(b, "mcg", 0.1, cases)
    runs = _runs({**values, **_everywhere("aequa", "mcg", 0.105, cases)})
    assert C._mcg_where_cgs_not_lowest(runs, cases, 0.0).status == "match"
    assert C._mcg_where_cgs_not_lowest(runs, cases, 0.01).status == "differs"  # above, but by less than the margin
    noisy = _runs({**values, **_everywhere("aequa", "mcg", 0.11 + NOISY / 10, cases)})
    assert C._mcg_where_cgs_not_lowest(noisy, cases, 0.01).status == "inconclusive"


def test_bucketed_models_are_those_with_switchable_batch_norm():
    from fairshare.learning.aequa import AEQUA_MODELS, uses_batch_norm

    assert {m for m in AEQUA_MODELS if uses_batch_norm(m)} == set(C.BUCKETED_MODELS)
