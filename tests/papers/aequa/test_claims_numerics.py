"""Aequa's claims fed rewards that are constant, equal up to rounding (a spread of 1e-17) or NaN, from the run
results through the tidy metrics (issue 42): such rewards carry no correlation (NaN, counted as 0), their gains no
spread (CGS 0), and a seed variance at numerical zero decides no spread comparison."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairshare.papers.aequa import claims as C
from fairshare.papers.aequa import claims_text as T
from fairshare.papers.aequa.tables import tidy_metrics

CLIENTS, SEEDS = 10, (0, 1, 2)
HOMO, QSKEW = ("digits", "homogeneous"), ("digits", "qskew")
SCHEMES = {"homogeneous": "homogeneous", "qskew": "quantity_skew"}
# One reward for every client, per seed, as IAFL and FedAvg-FT wrote them in a default run: np.std reads 1.1e-16
CONSTANT = (0.9513284517602851, 0.9519681159809938, 0.9829310273060272)


def contributions(seed: int) -> np.ndarray:
    return np.linspace(0.55, 0.9, CLIENTS) + 0.01 * seed


def ulps(x: float, rising: bool = True) -> list[float]:
    """``CLIENTS`` rewards equal up to rounding: ``x`` and its next floats, one ulp apart (np.std about 1e-16),
    ordered with the contributions (or against them)."""
    out = [x]
    for _ in range(CLIENTS - 1):
        out.append(float(np.nextafter(out[-1], np.inf)))
    return out if rising else out[::-1]


def aequa(seed: int) -> list[float]:
    """Rewards that follow the contributions, with seed noise (rho near 0.98, varying over seeds)."""
    return (contributions(seed) + 0.05 + np.random.default_rng(seed).normal(0, 0.02, CLIENTS)).tolist()


def run(method: str, seed: int, rewards, setting=HOMO) -> dict:
    out = {
        "method": method,
        "dataset": setting[0],
        "dataset_used": setting[0],
        "partition": setting[1],
        "scheme": SCHEMES[setting[1]],
        "seed": seed,
        "rounds": 1,
        "global_acc": 0.9,
        "contributions": contributions(seed).tolist(),
        "reward_acc": list(rewards),
    }
    if method == "aequa":
        widths = np.linspace(0.2, 1.0, CLIENTS).tolist()
        out |= {
            "allocation_spread": "std",
            "variants": {},
            "allocated_width": widths,
            "ir_infeasible": [0] * CLIENTS,
            "width_reward_width": widths,
            "width_reward_acc": list(rewards),
            "curve": [0.5, 0.9],
        }
    return out


def per_seed(runs: list[dict]) -> C.Runs:
    return C._per_seed(tidy_metrics(runs), "std")


def test_rewards_equal_up_to_rounding_have_no_pearson_correlation():
    assert all(np.std([x] * CLIENTS) > 0 for x in CONSTANT) and 0 < np.std(ulps(0.3)) < 1e-15
    runs = [run("iafl", s, [CONSTANT[s]] * CLIENTS) for s in SEEDS] + [run("fedavg_ft", s, ulps(0.3)) for s in SEEDS]
    values = per_seed(runs)
    assert all(math.isnan(x) for m in ("iafl", "fedavg_ft") for x in values[(*HOMO, m, "pearson")].values())


def test_rounding_does_not_beat_aequa_on_pearson():
    # FedAvg-FT's rewards rise with the contributions by one ulp each: the exact test read rho = 1, above Aequa's
    runs = [run("aequa", s, aequa(s)) for s in SEEDS] + [run("fedavg_ft", s, ulps(CONSTANT[s])) for s in SEEDS]
    row = C._pearson_highest(per_seed(runs), [HOMO], nan_rho=0.0)
    assert row.status == "match" and "aequa > fedavg_ft" in row.interval


def test_rounding_is_not_a_negative_correlation():
    # falling by one ulp per client: the exact test read rho = -1 on every seed, a "negative" FedAvg-FT; the rho of
    # identical rewards is 0 on every seed, which shows "not negative" (issue 38: it read inconclusive)
    runs = [run("fedavg_ft", s, ulps(CONSTANT[s], rising=False), QSKEW) for s in SEEDS]
    row = T.fedavg_negative_under_quantity_skew(per_seed(runs), [QSKEW], SCHEMES, nan_rho=0.0)
    assert row.status == "differs" and "exactly 0 on every seed" in row.interval


def test_constant_rewards_decide_no_spread_comparison():
    """Aequa's rho "varies less over seeds" than IAFL's, whose rewards are constant on every seed: IAFL's rho is
    undefined (0 by the NaN rule) on each seed, its variance 0, and no ratio is formed (it read 1e27, differs)."""
    runs = [run("aequa", s, aequa(s)) for s in SEEDS] + [run("iafl", s, [CONSTANT[s]] * CLIENTS) for s in SEEDS]
    row = T.aequa_tighter(per_seed(runs), [HOMO], nan_rho=0.0)
    assert row.status == "inconclusive" and "no spread in the first setting" in row.note


def test_gains_equal_up_to_rounding_are_a_cgs_tie():
    """Both methods give every client the same gain (0.1 and 0.2, up to rounding): both CGS are 0, a tie on every
    seed, so "FedAvg-FT's CGS above Aequa's" cannot be decided either way (rounding made FedAvg-FT's 5.6e-17: match)."""
    runs = [run("aequa", s, contributions(s) + 0.1) for s in SEEDS]
    runs += [run("fedavg_ft", s, contributions(s) + 0.2) for s in SEEDS]
    values = per_seed(runs)
    assert set(values[(*HOMO, "aequa", "cgs")].values()) == set(values[(*HOMO, "fedavg_ft", "cgs")].values()) == {0.0}
    _, higher = T.fedavg_gain_and_spread(values, [HOMO])
    assert higher.status == "inconclusive" and "+0.0000 [+0.0000, +0.0000]" in higher.interval


@pytest.mark.parametrize("metric", ["cgs", "mcg"])
def test_nan_rewards_count_as_no_correlation_and_leave_gain_comparisons_open(metric):
    against = {s: aequa(s)[::-1] for s in SEEDS}  # CGSV's rewards fall with the contributions
    against[1][3] = math.nan  # a NaN reward on one seed: its rho counts as 0, its gains are undefined
    runs = [run("aequa", s, aequa(s)) for s in SEEDS] + [run("cgsv", s, against[s]) for s in SEEDS]
    values = per_seed(runs)
    assert math.isnan(values[(*HOMO, "cgsv", "pearson")][1])
    rho = C._pearson_highest(values, [HOMO], nan_rho=0.0)
    assert rho.status == "match" and "nan" not in rho.interval.lower()
    row = C._cgs_lowest_in_most(values, [HOMO]) if metric == "cgs" else C._mcg_where_cgs_not_lowest(values, [HOMO])
    assert row.status == "inconclusive" and "undefined on some seed (NaN)" in row.note
