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


def test_every_counts_settings_and_rules_of_their_own_enter_with_their_status():
    m, d, i = (v.Verdict(s, "") for s in (v.MATCH, v.DIFFERS, v.INCONCLUSIVE))
    assert v.every({"a": m, "b": m}).status == v.MATCH
    assert v.every({"a": m, "b": i}).status == v.INCONCLUSIVE
    assert v.every({"a": m, "b": i, "c": d}).status == v.DIFFERS
    assert "1 match, 1 differ, 1 inconclusive of 3 settings" in v.every({"a": m, "b": i, "c": d}).evidence
    # settings without a seed interval (rules of their own) cannot be pooled: "most" counts their statuses
    assert v.most({"a": m, "b": m, "c": d}).status == v.MATCH
    assert v.most({"a": m, "b": d, "c": d}).status == v.DIFFERS
    assert v.most({"a": m, "b": i, "c": d}).status == v.INCONCLUSIVE


def test_holm_against_a_hand_computation():
    # k = 4 at 2.5 %: thresholds 0.025/4 = 0.00625, 0.025/3 = 0.00833, 0.025/2 = 0.0125, 0.025
    assert v.holm({"a": 0.001, "b": 0.01, "c": 0.012, "d": 0.3}) == ["a"]  # b: 0.01 > 0.00833 stops it
    assert v.holm({"a": 0.001, "b": 0.008, "c": 0.012, "d": 0.3}) == ["a", "b", "c"]  # d: 0.3 > 0.025
    assert v.holm({"a": 0.007, "b": 0.001}) == ["b", "a"]  # 0.001 <= 0.0125, then 0.007 <= 0.025
    assert v.holm({"a": 0.03, "b": 0.001}) == ["b"]
    assert v.holm({"a": 0.02}) == ["a"] and v.holm({"a": 0.03}) == []


def test_p_against_is_the_one_sided_t_p_value_by_hand():
    d = [-0.05, -0.02, -0.04, -0.01]  # mean -0.03, sd 0.018257, se 0.0091287, t = -3.2863 on 3 df
    t = -0.03 / (np.std(d, ddof=1) / 2)
    assert t == pytest.approx(-3.2863, abs=1e-4)
    p = v.p_against(v.higher(v.interval(d)))
    assert p == pytest.approx(0.0231, abs=1e-4)  # scipy.stats.t.cdf(-3.2863, 3); a single "higher" differs at 2.5 %
    assert v.higher(v.interval(d)).status == v.DIFFERS
    # "lower" is oriented so the paper's side is up: the same data is then far from against it
    assert v.p_against(v.lower(v.interval(d))) == pytest.approx(1 - 0.0231, abs=1e-4)
    # equivalence: mean +0.05 outside ±0.02 by +0.03, se 0.0091287: the upper one-sided p-value
    e = [0.07, 0.04, 0.06, 0.03]
    assert v.p_against(v.comparable(v.interval(e), 0.02)) == pytest.approx(0.0231, abs=1e-4)
    assert v.p_against(v.comparable(v.interval([0.0, 0.01, -0.01, 0.0]), 0.02)) > 0.99


def test_every_of_one_setting_decides_as_its_own_test():
    rng = np.random.default_rng(3)
    for _ in range(200):
        single = v.higher(v.interval(rng.normal(rng.normal(0, 0.05), 0.05, int(rng.integers(2, 8)))))
        assert v.every({"only": single}).status == single.status


def test_every_differs_only_after_holm_over_the_settings():
    against = v.higher(v.interval([-0.05, -0.02, -0.04, -0.01]))  # p = 0.023: differs on its own
    unclear = v.higher(v.interval([0.05, -0.05, 0.01, -0.01]))
    assert against.status == v.DIFFERS
    # three settings: 0.023 > 0.025 / 3, so no setting is against the paper after the correction
    verdict = v.every({"a": against, "b": unclear, "c": unclear})
    assert verdict.status == v.INCONCLUSIVE
    assert "not after Holm" in verdict.why and "none against the paper" in verdict.evidence
    # a decisive setting survives the correction, and the evidence names it
    decisive = v.higher(v.interval([-0.05, -0.04, -0.05, -0.04, -0.045]))
    verdict = v.every({"a": decisive, "b": unclear, "c": unclear})
    assert verdict.status == v.DIFFERS and "against the paper: a p=" in verdict.evidence


def test_every_corrects_over_the_pairs_inside_its_settings():
    against = v.higher(v.interval([-0.05, -0.02, -0.04, -0.01]))  # p = 0.023
    good = v.higher(v.interval([0.05, 0.06, 0.05, 0.06]))
    inner = v.every({"x > y": against})  # one pair: differs on its own
    assert inner.status == v.DIFFERS
    outer = v.every({"s1": inner, "s2": v.every({"x > y": good, "x > z": good})})
    assert outer.status == v.INCONCLUSIVE  # three tests: 0.023 > 0.025 / 3
    assert "Holm's correction over 3 tests" in outer.why


def test_most_pools_settings_and_seeds_where_each_setting_alone_is_undecided():
    # six settings, three seeds each, a true gain of 0.1 with a seed SD near 0.1: every setting's own interval
    # (half-width about 4.3 x 0.1 / 1.7 = 0.25) includes 0, so a per-setting count or conjunction decides nothing;
    # the pooled test (18 seeds) finds the gain
    per = {f"s{j}": v.higher(v.interval(0.1 + np.array([-0.1, 0.0, 0.1]) + 0.01 * j)) for j in range(6)}
    assert all(x.status == v.INCONCLUSIVE for x in per.values())
    assert v.every(per).status == v.INCONCLUSIVE
    pooled = v.most(per)
    assert pooled.status == v.MATCH
    assert pooled.interval.mean == pytest.approx(0.125) and pooled.interval.low > 0
    assert "0 match, 0 differ, 6 inconclusive of 6 settings" in pooled.evidence  # counts beside the pooled effect
    # the same spread around a loss: the pooled test differs
    loss = {f"s{j}": v.higher(v.interval(-0.1 + np.array([-0.1, 0.0, 0.1]))) for j in range(6)}
    assert v.most(loss).status == v.DIFFERS


def test_most_is_stratified_by_setting():
    # two settings whose means differ by design (0.1 and 0.5) with tiny seed noise: a plain pool of the six values
    # would count the 0.4 between them as noise; the stratified interval is that of the seed noise only
    per = {"a": v.higher(v.interval([0.09, 0.1, 0.11])), "b": v.higher(v.interval([0.49, 0.5, 0.51]))}
    iv = v.most(per).interval
    # se = sqrt(2 x 0.0001 / 3) / 2, df = 4 by Welch-Satterthwaite
    half = 2.7764451 * math.sqrt(2 * 0.0001 / 3) / 2
    assert iv.mean == pytest.approx(0.3) and iv.high - iv.mean == pytest.approx(half, rel=1e-6)


def test_most_of_pairs_pools_each_pair_over_the_settings():
    def setting(gain_b, gain_c):
        return v.every(
            {
                "a > b": v.higher(v.interval(gain_b + np.array([-0.1, 0.0, 0.1]))),
                "a > c": v.higher(v.interval(gain_c + np.array([-0.1, 0.0, 0.1]))),
            },
            "pairs",
        )

    per = {f"s{j}": setting(0.1, 0.1) for j in range(6)}
    assert v.most(per).status == v.MATCH
    per = {f"s{j}": setting(0.1, -0.1) for j in range(6)}  # a is below c on average
    verdict = v.most(per)
    assert verdict.status == v.DIFFERS and "a > c" in verdict.evidence


def test_every_setting_that_can_decide_is_shown():
    unclear = v.higher(v.interval([0.05, -0.05, 0.01, -0.01]))
    good = v.higher(v.interval([0.05, 0.06, 0.05, 0.06]))
    per = {f"s{j}": unclear for j in range(9)} | {f"m{j}": good for j in range(3)}
    evidence = v.every(per).evidence
    assert "not shown" not in evidence
    assert all(f"s{j}: inconclusive" in evidence for j in range(9))
    assert all(f"m{j} +0.055" in evidence for j in range(3))  # matching ones by name and interval


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


def test_reach_note_names_equivalence_tests_wider_than_their_margin():
    wide = v.comparable(v.interval([0.01, -0.02, 0.03, 0.0, 0.01]), 0.007)  # half-width 0.0226 at 5 seeds
    assert v.reach_note(wide) == "cannot match at 5 seeds: half-width 0.0226 > margin 0.007"
    narrow = v.comparable(v.interval([0.001, -0.001, 0.0, 0.001, 0.0]), 0.007)
    assert narrow.status == v.MATCH and v.reach_note(narrow) == ""
    assert v.reach_note(v.higher(v.interval([0.01, -0.02, 0.03]))) == ""  # a side test can always be cleared
    joined = v.every({"digits/homogeneous": wide, "digits/qskew": narrow})
    assert v.reach_note(joined) == "digits/homogeneous: cannot match at 5 seeds: half-width 0.0226 > margin 0.007"


def test_detectable_ratio_of_the_f_test():
    # F(0.025; 4, 4) = 0.1041 and F(0.025; 2, 2) = 1/39: the observed variance ratio a match needs
    assert "below 0.104;" in v.detectable_ratio(5, 5)
    assert f"below {1 / 39:.3g};" in v.detectable_ratio(3, 3)
    # the true ratio found with 80 % probability: an observed ratio is the true one times an F(4, 4) variable
    r = float(v.detectable_ratio(5, 5).split("true ratio of ")[1].split(" ")[0])
    assert r == pytest.approx(0.1041 / 2.4826, rel=1e-2)  # F(0.80; 4, 4) = 2.4826


def test_the_reasons_a_statement_stays_open_are_given_once():
    unclear = v.higher(v.interval([0.05, -0.05, 0.01, -0.01]))
    against = v.higher(v.interval([-0.05, -0.02, -0.04, -0.01]))  # p = 0.023: differs alone, not after Holm
    inner = v.every({"x": unclear, "y": against, "z": unclear})
    outer = v.every({"s1": inner, "s2": inner})
    assert outer.status == v.INCONCLUSIVE
    reasons = outer.why.split("; ")
    assert len(reasons) == len(set(reasons)) and "seed noise: the interval includes no effect" in reasons
