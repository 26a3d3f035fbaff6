"""Issue 38: the extensions' rho rows against the standalone contributions (Figs 3-4, Table 4) leave a setting whose
contributions are not measurable unjudged, computed as the main rows compute it (the standalone runs' test halves)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairshare.papers.aequa import tables
from fairshare.papers.aequa_extensions import claims as X
from fairshare.papers.aequa_extensions.experiment import contribution_measurement, scale_results

JITTER = {0: 0.0, 1: 0.002, 2: -0.001}
SPREAD = np.linspace(0.6, 0.7, 10)  # standard deviation over clients ~0.0319


def _standalone(seed: int, half_noise: float, dataset: str = "digits", partition: str = "homogeneous") -> dict:
    """A standalone run whose two test halves sit ``half_noise`` either side of the test accuracies (the whole test
    split's error ``half_noise``: main rows' ``claims_measure.split_error``) and whose validation split is far off."""
    test = SPREAD + 0.001 * seed
    signs = np.where(np.arange(10) % 2 == 0, 1.0, -1.0)
    return {
        "dataset": dataset,
        "partition": partition,
        "method": "standalone",
        "seed": seed,
        "reward_acc": test.tolist(),
        "validation_acc": (test + 0.2 * signs).tolist(),  # validation error 0.2, far above the spread
        "reward_acc_halves": [(test + half_noise * signs).tolist(), (test - half_noise * signs).tolist()],
    }


def _measurement(half_noise: float) -> pd.DataFrame:
    return contribution_measurement([_standalone(s, half_noise) for s in JITTER])


def _rounds(rho: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = [
        {"dataset": "digits", "partition": "homogeneous", "method": m, "seed": s, "round": r, "metric": "pearson"}
        | {"value": x + e}
        for m, x in rho.items()
        for r in (1, 2)
        for s, e in JITTER.items()
    ]
    widths = pd.DataFrame(columns=["dataset", "partition", "method", "seed", "pearson_width"])
    return pd.DataFrame(rows), widths


# Aequa+CGSV far below Aequa+ShapFed and CGSV above Aequa: every training-time rho claim is false
FALSE = {"fedavg_ft": 0.1, "cgsv": 0.95, "aequa": 0.9, "aequa_cgsv": 0.2, "aequa_shapfed": 0.8}


def _rows(measurement: pd.DataFrame | None):
    tidy, widths = _rounds(FALSE)
    return X._training_time_claims(tidy, widths, 0.1, 0.0, measurement)


def test_measurement_is_the_main_rows_own():
    """The same numbers the main runs' tidy table records for an Aequa run on these contributions."""
    run = _standalone(0, 0.02)
    aequa_run = {
        "contributions": run["reward_acc"],
        "contributions_validation": run["validation_acc"],
        "contributions_halves": run["reward_acc_halves"],
        "crossfit_pearson": [0.5, 0.5],
    }
    main = tables._held_out_metrics(aequa_run)
    ours = contribution_measurement([run]).iloc[0]
    for column in X.MEASURE_COLUMNS:
        assert ours[column] == main[column]


def test_an_unmeasurable_setting_is_not_judged_on_rho():
    """Halves 0.1 either side: the test split's error 0.1 is above the spread 0.032."""
    rows = _rows(_measurement(0.1))
    every, second, comparable = rows
    for row in (second, comparable):
        assert row.status == "inconclusive" and "contribution not measurable: error 0.100 >= spread 0.032" in row.note
    assert every.status == "inconclusive" and "Pearson rounds not judged" in every.note


def test_a_measurable_setting_with_a_false_claim_differs():
    """Halves 0.02 either side (error 0.02, below the spread) although the validation split is 0.2 off: judged,
    as the main rows judge it (the test halves' error, not the validation split's upper estimate)."""
    assert [r.status for r in _rows(_measurement(0.02))] == ["differs"] * 3
    assert [r.status for r in _rows(None)] == ["differs"] * 3  # no standalone runs given: judged


def _scale_runs(half_noise: float) -> list[dict]:
    runs = []
    for s, e in JITTER.items():
        standalone = _standalone(s, half_noise)
        c = standalone["reward_acc"]
        common = {"seed": s, "global_acc": 0.8 + e, "n_test": 1000, "participants_per_round": 3}
        common |= {"contributions": c, "contributions_validation": standalone["validation_acc"]}
        runs += [
            standalone,
            {**common, "method": "aequa", "reward_acc": (np.asarray(c) + 0.05 + e).tolist()},  # rho 1
            {**common, "method": "fedavg_ft", "reward_acc": (np.asarray(c)[::-1] + 0.05 + e).tolist()},  # rho -1
        ]
    return runs


def test_table4_rho_judged_with_the_standalone_halves():
    """Table 4's rho row: judged (match) when the standalone halves measure the contributions, not judged when they
    do not; the validation split's larger error alone no longer decides."""
    measured = X._scale_claims(scale_results(_scale_runs(0.02)), 0.1, 0.01, 0.0)
    assert measured[1].status == "match"
    noisy = X._scale_claims(scale_results(_scale_runs(0.1)), 0.1, 0.01, 0.0)
    assert (
        noisy[1].status == "inconclusive"
        and "contribution not measurable: error 0.100 >= spread 0.032" in noisy[1].note
    )
    assert noisy[0].status == measured[0].status  # accuracy is not a rho row
