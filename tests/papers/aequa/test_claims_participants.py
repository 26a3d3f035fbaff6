"""App. D.5's per-participant rows: generated CIFAR-100 per-seed results where each statement holds, fails
(differs) or is lost in seed noise (inconclusive); no CIFAR-100 setting: not run."""

from __future__ import annotations

import numpy as np

from fairshare.papers.aequa import claims_participants as P

CLEAR = np.array([0.0, 0.004, -0.003, 0.002])
NOISY = np.array([0.30, -0.25, 0.20, -0.15])
HETERO = [("cifar100", "dir"), ("cifar100", "oc")]
QSKEW = [("cifar100", "qskew")]


def _runs(values: dict) -> dict:
    return {k: dict(enumerate(np.asarray(x, float) if np.ndim(x) else x + CLEAR)) for k, x in values.items()}


def _all(cases, method, metric, x) -> dict:
    return {(*s, method, metric): x for s in cases}


def test_iafl_variable():
    wide = np.array([0.3, -0.3, 0.25, -0.25])
    assert (
        P.iafl_variable(
            _runs(_all(HETERO, "iafl", "mcg", wide) | _all(HETERO, "aequa", "mcg", 0.1 + CLEAR / 100)), HETERO
        ).status
        == "match"
    )
    assert (
        P.iafl_variable(
            _runs(_all(HETERO, "iafl", "mcg", 0.1 + CLEAR / 100) | _all(HETERO, "aequa", "mcg", wide)), HETERO
        ).status
        == "differs"
    )
    same = _all(HETERO, "iafl", "mcg", NOISY) | _all(HETERO, "aequa", "mcg", -NOISY)
    assert P.iafl_variable(_runs(same), HETERO).status == "inconclusive"


def test_iafl_negative_on_some_seed():
    assert (
        P.iafl_negative_on_some_seed(
            _runs(_all(HETERO, "iafl", "min_gain", np.array([0.1, -0.01, 0.1, 0.1]))), HETERO
        ).status
        == "match"
    )
    assert P.iafl_negative_on_some_seed(_runs(_all(HETERO, "iafl", "min_gain", 0.1)), HETERO).status == "differs"
    assert P.iafl_negative_on_some_seed({}, []).status == "not run in this profile"


def test_cgsv_near_standalone():
    assert P.cgsv_near_standalone(_runs(_all(HETERO, "cgsv", "mcg", 0.001)), HETERO, 0.01).status == "match"
    assert P.cgsv_near_standalone(_runs(_all(HETERO, "cgsv", "mcg", 0.2)), HETERO, 0.01).status == "differs"
    assert P.cgsv_near_standalone(_runs(_all(HETERO, "cgsv", "mcg", NOISY / 10)), HETERO, 0.01).status == "inconclusive"


def test_aequa_like_fedavg():
    base = _all(HETERO, "fedavg_ft", "mcg", 0.2)
    assert P.aequa_like_fedavg(_runs(base | _all(HETERO, "aequa", "mcg", 0.201)), HETERO, 0.01).status == "match"
    assert P.aequa_like_fedavg(_runs(base | _all(HETERO, "aequa", "mcg", 0.05)), HETERO, 0.01).status == "differs"
    assert (
        P.aequa_like_fedavg(_runs(base | _all(HETERO, "aequa", "mcg", 0.2 + NOISY)), HETERO, 0.01).status
        == "inconclusive"
    )


def test_positive_gains_under_quantity_skew():
    def runs(aequa):
        return _runs(_all(QSKEW, "iafl", "min_gain", 0.05) | _all(QSKEW, "aequa", "min_gain", aequa))

    assert P.positive_gains_under_quantity_skew(runs(0.02), QSKEW).status == "match"
    assert P.positive_gains_under_quantity_skew(runs(-0.05), QSKEW).status == "differs"
    assert P.positive_gains_under_quantity_skew(runs(NOISY), QSKEW).status == "inconclusive"


def test_large_clients_above_fedavg():
    base = _all(QSKEW, "fedavg_ft", "large_reward", 0.6)
    assert (
        P.large_clients_above_fedavg(_runs(base | _all(QSKEW, "aequa", "large_reward", 0.65)), QSKEW).status == "match"
    )
    assert (
        P.large_clients_above_fedavg(_runs(base | _all(QSKEW, "aequa", "large_reward", 0.5)), QSKEW).status == "differs"
    )
    assert (
        P.large_clients_above_fedavg(_runs(base | _all(QSKEW, "aequa", "large_reward", 0.6 + NOISY)), QSKEW).status
        == "inconclusive"
    )


def test_aequa_highest_mcg_under_quantity_skew():
    base = _all(QSKEW, "fedavg_ft", "mcg", 0.1) | _all(QSKEW, "cgsv", "mcg", 0.0) | _all(QSKEW, "iafl", "mcg", 0.05)
    assert (
        P.aequa_highest_mcg_under_quantity_skew(_runs(base | _all(QSKEW, "aequa", "mcg", 0.2)), QSKEW).status == "match"
    )
    assert (
        P.aequa_highest_mcg_under_quantity_skew(_runs(base | _all(QSKEW, "aequa", "mcg", 0.07)), QSKEW).status
        == "differs"
    )
    assert (
        P.aequa_highest_mcg_under_quantity_skew(_runs(base | _all(QSKEW, "aequa", "mcg", 0.1 + NOISY)), QSKEW).status
        == "inconclusive"
    )


def test_without_cifar100_the_rows_run_on_the_stand_ins():
    """App. D.5 on the profile's datasets when CIFAR-100 is not trained (issue 38; they were all 'not run')."""
    none = P.per_participant_claims({}, [("digits", "homogeneous")], {"homogeneous": "homogeneous"}, 0.01)
    assert {r.status for r in none} == {"not run in this profile"} and len(none) == 7
    case = ("digits", "qskew")
    runs = _runs(_all([case], "aequa", "mcg", 0.3) | _all([case], "fedavg_ft", "mcg", 0.1))
    runs |= _runs(_all([case], "cgsv", "mcg", 0.1) | _all([case], "iafl", "mcg", 0.1))
    row = P.aequa_highest_mcg_under_quantity_skew(runs, [case])
    assert row.status == "match" and "stand-in datasets digits" in row.note
    rows = P.per_participant_claims(runs, [case], {"qskew": "quantity_skew"}, 0.01)
    assert rows[-1].status == "match" and rows[0].status == "not run in this profile"
