"""The seed-aware verdicts (fairshare.pipeline.verdicts): each kind of statement fed results that match, differ and are
inconclusive, generated here."""

import math

import numpy as np
import pytest

from fairshare.pipeline import verdicts as v
from fairshare.pipeline.report import Claim


def seeds(values):
    return dict(enumerate(values))


def test_interval_is_the_student_t_interval_of_the_values():
    iv = v.interval([0.1, 0.2, 0.3])
    # mean 0.2, sd 0.1, t(0.975, 2) = 4.3027
    assert iv.mean == pytest.approx(0.2)
    assert iv.high - iv.mean == pytest.approx(4.302653 * 0.1 / math.sqrt(3), rel=1e-5)
    assert v.interval([0.4]).low == -math.inf


def test_paired_differences_use_the_seeds_both_ran():
    iv = v.paired({0: 0.5, 1: 0.7, 2: 0.9}, {1: 0.6, 2: 0.6, 3: 0.0})
    assert iv.values == pytest.approx((0.1, 0.3))


@pytest.mark.parametrize(
    ("a", "b", "status"),
    [
        ([0.80, 0.82, 0.79, 0.81, 0.83], [0.70, 0.71, 0.69, 0.72, 0.70], v.MATCH),
        ([0.60, 0.62, 0.59, 0.61, 0.63], [0.70, 0.71, 0.69, 0.72, 0.70], v.DIFFERS),
        ([0.80, 0.60, 0.75, 0.62, 0.71], [0.70, 0.71, 0.69, 0.72, 0.70], v.INCONCLUSIVE),
        ([0.90], [0.10], v.INCONCLUSIVE),
    ],
)
def test_higher_and_lower(a, b, status):
    iv = v.paired(seeds(a), seeds(b))
    assert v.higher(iv).status == status
    flipped = {v.MATCH: v.DIFFERS, v.DIFFERS: v.MATCH, v.INCONCLUSIVE: v.INCONCLUSIVE}[status]
    assert v.lower(iv).status == flipped


def test_a_tie_on_every_seed_is_inconclusive_not_a_difference():
    iv = v.paired(seeds([0.1, 0.1, 0.1]), seeds([0.1, 0.1, 0.1]))
    assert v.higher(iv).status == v.INCONCLUSIVE
    assert v.lower(iv).status == v.INCONCLUSIVE


def test_a_single_seed_is_inconclusive_with_its_reason():
    verdict = v.higher(v.paired({0: 0.9}, {0: 0.1}))
    assert verdict.status == v.INCONCLUSIVE and "too few seeds" in verdict.why


@pytest.mark.parametrize(
    ("gaps", "status"),
    [
        ([0.001, -0.002, 0.0, 0.003, -0.001], v.MATCH),
        ([0.10, 0.12, 0.11, 0.09, 0.10], v.DIFFERS),
        ([0.03, -0.02, 0.05, -0.04, 0.01], v.INCONCLUSIVE),
    ],
)
def test_comparable_is_an_equivalence_test(gaps, status):
    assert v.comparable(v.interval(gaps), 0.02).status == status


def test_at_least_accepts_the_same_or_higher():
    assert v.at_least(v.interval([0.0, 0.001, -0.001, 0.002]), 0.02).status == v.MATCH
    assert v.at_least(v.interval([-0.1, -0.12, -0.11]), 0.02).status == v.DIFFERS


def test_every_and_most_count_settings():
    m, d, i = (v.Verdict(s, "") for s in (v.MATCH, v.DIFFERS, v.INCONCLUSIVE))
    assert v.every({"a": m, "b": m}).status == v.MATCH
    assert v.every({"a": m, "b": i}).status == v.INCONCLUSIVE
    assert v.every({"a": m, "b": i, "c": d}).status == v.DIFFERS
    assert "1 match, 1 differ, 1 inconclusive of 3 settings" in v.every({"a": m, "b": i, "c": d}).evidence
    assert v.most({"a": m, "b": m, "c": d}).status == v.MATCH
    assert v.most({"a": m, "b": d, "c": d}).status == v.DIFFERS
    assert v.most({"a": m, "b": i, "c": d}).status == v.INCONCLUSIVE


def test_trends_are_monotone_within_the_uncertainty():
    rng = np.random.default_rng(0)
    noise = lambda: rng.normal(0, 0.005, 5)  # noqa: E731
    rising = {k: seeds(0.1 * k + noise()) for k in (1, 2, 3)}
    assert v.increasing(rising).status == v.MATCH
    assert v.decreasing(rising).status == v.DIFFERS
    peaked = {1: seeds(0.1 + noise()), 2: seeds(0.3 + noise()), 3: seeds(0.1 + noise())}
    assert v.increasing(peaked).status == v.DIFFERS
    flat = {k: seeds(0.5 + rng.normal(0, 0.05, 5)) for k in (1, 2)}
    assert v.increasing(flat).status == v.INCONCLUSIVE


def test_spread_decreases_on_the_variance_ratio():
    rng = np.random.default_rng(1)
    wide, narrow = rng.normal(0, 1.0, 8), rng.normal(0, 0.05, 8)
    assert v.spread_decreases(wide, narrow).status == v.MATCH
    assert v.spread_decreases(narrow, wide).status == v.DIFFERS
    assert v.spread_decreases(wide, rng.normal(0, 1.0, 8)).status == v.INCONCLUSIVE
    assert v.spread_decreases([0.1], [0.2, 0.3]).status == v.INCONCLUSIVE


def test_a_comparison_claim_carries_status_interval_and_reason():
    verdict = v.higher(v.paired(seeds([0.5, 0.9, 0.4]), seeds([0.6, 0.5, 0.5])))
    row = Claim.comparison(
        paper="mmfl", artifact="Figure 2", claim="x", paper_states="y", reproduced="z", verdict=verdict
    )
    assert row.status == "inconclusive" and row.holds is None
    assert row.interval.startswith("+0.0667 [") and row.note.startswith("inconclusive: seed noise")


# The rho of identical rewards as an exact test of np.std == 0 computed it (IAFL and FedAvg-FT in a default run)
ROUNDING_RHO = [1.1559419754658011e-14, -8.645754450735995e-15, 7.158278428674918e-16]


def test_a_variance_at_numerical_zero_forms_no_ratio():
    aequa = [0.91, 0.78, 0.85]
    verdict = v.spread_decreases(ROUNDING_RHO, aequa)  # the exact variance, 1e-28, gave a ratio of 1e26: differs
    assert verdict.status == v.INCONCLUSIVE and "no spread in the first setting" in verdict.why
    assert v.spread_decreases([0.3, 0.1 + 0.2, 0.3], aequa).status == v.INCONCLUSIVE  # variance 1e-33 on 0.3
    smaller = v.spread_decreases(aequa, [0.3, 0.1 + 0.2, 0.3])  # the other way: a zero spread is smaller
    assert smaller.status == v.MATCH and smaller.evidence.startswith("variance ratio 0 [0, 0]")


def test_nan_seed_values_leave_a_comparison_open_and_say_why():
    verdict = v.higher(v.paired(seeds([0.9, np.nan, 0.8]), seeds([0.1, 0.2, 0.1])))
    assert verdict.status == v.INCONCLUSIVE and verdict.why == "undefined on some seed (NaN)"
    spread = v.spread_decreases([0.1, np.nan, 0.3], [0.5, 0.5, 0.51])
    assert spread.status == v.INCONCLUSIVE and spread.why == "undefined on some seed (NaN)"
    assert v.comparable(v.interval([0.0, np.nan, 0.001]), 0.02).why == "undefined on some seed (NaN)"


def test_a_difference_within_rounding_is_a_tie():
    iv = v.paired(seeds([0.1 + 0.2] * 3), seeds([0.3] * 3))  # 0.30000000000000004 - 0.3 = 5.6e-17 on every seed
    assert iv.values == (0.0, 0.0, 0.0)
    assert v.higher(iv).status == v.INCONCLUSIVE and v.lower(iv).status == v.INCONCLUSIVE
    assert v.paired(seeds([0.3 + 1e-9]), seeds([0.3])).values[0] > 0  # a real difference stays


def test_an_interval_of_values_equal_up_to_rounding_has_zero_width():
    iv = v.interval([0.1 + 0.2, 0.3, 0.3])
    assert iv.low == iv.high == iv.mean
