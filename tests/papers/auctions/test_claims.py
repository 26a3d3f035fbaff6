"""The auctions' claim functions follow the data: each statement is reported as failing when the results contradict it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairshare.papers.auctions import claims, claims_properties
from fairshare.papers.auctions.experiment import Misreports, Settings, theorem8_witness
from fairshare.pipeline.config import ConfigError, load_config
from tests.conftest import REPO


def _tidy(values: dict[str, dict[float, tuple[float, float]]], seeds: int = 2) -> pd.DataFrame:
    """A tidy exp5 table from per-method {budget: (task 1 take-up, task 2 take-up)}; spent = budget."""
    rows = []
    for method, by_budget in values.items():
        for budget, (n1, n2) in by_budget.items():
            metrics = {
                "take_up_task1": n1,
                "take_up_task2": n2,
                "difference": abs(n1 - n2),
                "min_recruited": min(n1, n2),
                "spent": budget,
            }
            rows += [
                {
                    "paper": "auctions",
                    "experiment": "exp5",
                    "method": method,
                    "seed": s,
                    "round": 0,
                    "budget": budget,
                    "metric": k,
                    "value": v,
                }
                for s in range(seeds)
                for k, v in metrics.items()
            ]
    return pd.DataFrame(rows)


def _exp5_values() -> dict:
    """Take-ups (task 1, task 2) where every Fig. 7 statement holds: B = 10, 29 constrained; 60, 100, 150 above."""
    return {
        "maxmin_fair": {10: (8.0, 7.6), 29: (20, 19.5), 60: (40, 39.5), 100: (50, 49.6), 150: (70, 69.5)},
        "gmmfair": {10: (9, 9), 29: (22, 22), 60: (45, 45), 100: (60, 60), 150: (80, 80)},
        "greedy_within_budget": {10: (15, 4), 29: (26, 17), 60: (47, 41), 100: (61, 57), 150: (81, 79)},
        "budget_fair": {10: (12, 3), 29: (20, 13), 60: (40, 35), 100: (54, 51), 150: (70, 69)},
        "random_within_budget": {10: (7, 4), 29: (15, 14), 60: (45, 36), 100: (60, 52), 150: (80, 70)},
        "val_threshold_0.4": {b: (14, 5) for b in (10, 29, 60, 100, 150)},
    }


def _exp5_rows(values: dict) -> dict:
    return {r.claim: r for r in claims._exp5(_tidy(values), constrained_max=29)}


SMALLEST_DIFF = (
    "In the budget-constrained region MMFL max-min fair has a smaller task difference than Greedy Within Budget and "
    "Budget-Fair"
)
GMM_MOST = "GMMFair recruits the most clients per task (highest minimum) at every budget"
MAXMIN_SECOND = (
    "In the budget-constrained region MMFL max-min fair recruits more clients than every mechanism but GMMFair"
)
OVERTAKES = "As the budget grows, Greedy Within Budget overtakes MMFL max-min fair in the minimum recruited, for good"
TASK1 = "Greedy Within Budget assigns the most clients to task 1"
UPPER = "GMMFair's minimum number of clients per task upper-bounds MMFL max-min fair's at every budget"
DISFAVORED = (
    "Under the budget-fair auction the disfavored task (task 2, the higher costs) recruits fewer clients than task 1 "
    "at every budget"
)
COST = (
    "Truthfulness costs the budget-fair auction clients: Greedy and Random Within Budget recruit more per task at "
    "every budget"
)
GREEDY_FAIRER = "Greedy Within Budget becomes fairer as the budget grows"
BF_FAIRER = "Budget-Fair becomes fairer as the budget grows"


def test_exp5_claims_follow_the_data():
    rows = _exp5_rows(_exp5_values())
    assert len(rows) == 10 and all(r.status == "match" for r in rows.values()), [
        (r.claim, r.reproduced) for r in rows.values()
    ]

    values = _exp5_values()
    values["budget_fair"][10] = (8, 8)  # budget-fair balances the tasks exactly at B = 10 (max-min's difference 0.4)
    values["val_threshold_0.4"] = {b: (30, 24) for b in (10, 29, 60, 100, 150)}  # a posted price beats both at small B
    values["greedy_within_budget"][150] = (95, 60)  # greedy falls behind max-min fair again at the largest budget
    rows = _exp5_rows(values)
    for claim in (SMALLEST_DIFF, GMM_MOST, MAXMIN_SECOND, OVERTAKES):
        assert rows[claim].status == "differs", claim
    assert "val_threshold_0.4 24.0 vs 9.0" in rows[GMM_MOST].reproduced
    assert "2 (budget, seed, rival) cases where a rival balances" in rows[SMALLEST_DIFF].reproduced  # 2 seeds
    assert "can differ only where a rival balances the tasks exactly" in rows[SMALLEST_DIFF].note
    assert rows[UPPER].status == "match"  # the posted price does not bear on GMMFair against max-min

    values = _exp5_values()
    values["maxmin_fair"][29] = (22.5, 22.4)  # a fractional last winner lifts max-min above GMMFair's 22
    values["budget_fair"][10] = (4, 5)  # budget-fair's disfavored task 2 recruits more than task 1 at B = 10
    values["random_within_budget"][10] = (2, 1)  # random within budget recruits fewer than budget-fair's 3
    rows = _exp5_rows(values)
    for claim in (UPPER, GMM_MOST, DISFAVORED, COST):
        assert rows[claim].status == "differs", claim

    values = _exp5_values()
    values["budget_fair"][10] = (16, 5)  # budget-fair gives task 1 more than greedy at B = 10
    values["greedy_within_budget"][100] = (82, 50)  # greedy's difference rises from 6 to 32 at B = 100
    values["budget_fair"][150] = (90, 60)  # budget-fair's difference rises at the largest budget
    rows = _exp5_rows(values)
    for claim in (TASK1, GREEDY_FAIRER, BF_FAIRER):
        assert rows[claim].status == "differs", claim

    only_small = {m: {b: v[b] for b in (10, 29)} for m, v in _exp5_values().items()}
    rows = _exp5_rows(only_small)
    assert rows[OVERTAKES].status == "not run in this profile"
    assert rows[GREEDY_FAIRER].status == rows[BF_FAIRER].status == "match"  # B = 10 -> 29 is the only step, a fall


def _truth(
    counts: dict[str, tuple[int, ...]], advance: int = 1, rounds: bool = True, out: tuple[int, int] | None = (70, 100)
) -> pd.DataFrame:
    """A truthfulness table: per method (profitable, profitable_same_task, outside, outside_by_losers, max_drop,
    max_gain); every same-task-profitable misreport brings Algorithm 3's end ``advance`` rounds earlier (no such
    metrics with ``rounds`` False: a sweep from before they were recorded); ``out`` = (k, n): k of the n misreports
    under Theorem 8's conditions miss their task's winning set (no winning-set metrics with None: an older sweep)."""
    rows = []
    for method, (profitable, same, outside, losers, drop, gain) in counts.items():
        metrics = {"misreports": 1000, "profitable": profitable, "max_gain": gain, "profitable_same_task": same,
                   "profitable_other_task_only": max(profitable - same, 0), "max_gain_same_task": gain,
                   "same_task_outside_events": outside, "same_task_outside_events_by_losers": losers,
                   "max_objective_drop": drop, "max_objective_drop_profitable": drop}  # fmt: skip
        if rounds:
            metrics.update(max_final_round_advance=max(advance, 2), max_final_round_advance_same_task=advance,
                           same_task_advance_over_one=same if advance > 1 else 0)  # fmt: skip
        if out is not None:
            k, n = out
            metrics.update(liar_out=600, liar_out_any_task=300, theorem8_conditions=n, theorem8_conditions_liar_out=k,
                           theorem8_conditions_liar_out_any_task=k // 2, theorem8_conditions_truthful_in=n // 4)  # fmt: skip
        rows += [{"method": method, "seed": 0, "metric": k, "value": float(v)} for k, v in metrics.items()]
    return pd.DataFrame(rows)


def _truth_counts() -> dict:
    zero = (0, 0, 0, 0, 0.0, 0.0)
    return {"budget_fair": zero, "budget_fair_uniform_price": (5, 5, 5, 5, 0.0, 0.07), "maxmin_fair": (10, 9, 0, 0, 1.0, 0.2),
            "gmmfair": (60, 60, 0, 0, 1.0, 0.5), "greedy_within_budget": (80, 80, 0, 0, 3.0, 0.4),
            "random_within_budget": (90, 90, 0, 0, 3.0, 0.9)}  # fmt: skip


def _witness(gain: float, in_event: bool = False) -> Misreports:
    """A Theorem 8 witness run whose one misreport gains ``gain`` in its task."""
    one = np.array([gain])
    flag = np.array([in_event])
    return Misreports(
        2, 0, np.zeros(1), one, one, np.zeros(1), flag, False, np.zeros(1, dtype=int), ~flag, ~flag, False, flag
    )


NO_WITNESS = _witness(0.0)


def _settings() -> Settings:
    return Settings.from_block(load_config(REPO / "config" / "config.yaml")["auctions"])


def test_theorem8_row_considers_both_the_random_sweep_and_the_fixed_witness():
    def status(outside: int, witness: Misreports) -> str:
        counts = _truth_counts()
        counts["maxmin_fair"] = (10, 9, outside, outside, 1.0, 0.2)
        return {r.artifact: r for r in claims_properties.truthfulness(_truth(counts), witness)}["Theorem 8"].status

    assert status(0, NO_WITNESS) == "match"  # no exception in the sweep, no gain on the witness
    assert status(0, _witness(0.05, in_event=True)) == "match"  # a gain inside a re-allocation round is allowed
    assert status(0, _witness(0.05)) == "differs"  # the witness alone refutes it
    assert status(3, NO_WITNESS) == "differs"  # the sweep alone refutes it
    real = claims_properties.truthfulness(_truth(_truth_counts()), theorem8_witness(_settings()))
    assert {r.artifact: r for r in real}["Theorem 8"].status == "differs"  # the mechanism's own witness run


def test_truthfulness_claims_follow_the_data():
    rows = claims_properties.truthfulness(_truth(_truth_counts()), NO_WITNESS)
    assert [r.status for r in rows] == ["match"] * 6 and rows[0].kind == "erratum"
    assert "1 max-min misreports pay only through the user's other task" in rows[4].note

    counts = _truth_counts()
    counts["budget_fair_uniform_price"] = (0, 0, 0, 0, 0.0, 0.0)  # the printed payment would be truthful: no erratum
    counts["maxmin_fair"] = (70, 9, 3, 3, 2.5, 0.6)  # exceptions to Theorem 8, drop > 2, pays more often than GMMFair
    assert [r.status for r in claims_properties.truthfulness(_truth(counts), NO_WITNESS)] == ["differs"] * 3 + [
        "match",
        "differs",
        "match",
    ]  # the round row is the fourth, the winning-set row the last
    counts["budget_fair_uniform_price"], counts["budget_fair"] = (5, 5, 5, 5, 0.0, 0.07), (1, 1, 0, 0, 0.0, 0.01)
    assert (
        claims_properties.truthfulness(_truth(counts), NO_WITNESS)[0].status == "differs"
    )  # threshold payment not truthful either


def test_corollary9_round_row_differs_when_a_paying_misreport_ends_the_auction_two_rounds_earlier():
    def row(table: pd.DataFrame):
        return [r for r in claims_properties.truthfulness(table, NO_WITNESS) if "round earlier" in r.claim][0]

    assert row(_truth(_truth_counts(), advance=1)).status == "match"  # every-misreport's 2 is reported, not judged
    late = row(_truth(_truth_counts(), advance=2))
    assert late.status == "differs" and "9 of them more than one round earlier" in late.reproduced
    assert row(_truth(_truth_counts(), rounds=False)).status == "not run in this profile"  # an old sweep


def test_near_truthfulness_is_judged_against_every_non_truthful_mechanism():
    def status(counts: dict) -> str:
        rows = claims_properties.truthfulness(_truth(counts), NO_WITNESS)
        return [r for r in rows if r.artifact == "Section V-B" and "near-truthful" in r.claim][0].status

    assert status(_truth_counts()) == "match"
    for rival in ("gmmfair", "greedy_within_budget", "random_within_budget"):
        counts = _truth_counts()
        counts[rival] = (5, 5, 0, 0, 1.0, 0.5)  # this mechanism's misreports pay less often than max-min's 10
        assert status(counts) == "differs", rival
        counts = _truth_counts()
        counts[rival] = (60, 60, 0, 0, 1.0, 0.1)  # its largest gain below max-min's 0.2
        assert status(counts) == "differs", rival


def test_winning_set_row_follows_the_clopper_pearson_bounds():
    def row(out: tuple[int, int] | None):
        rows = claims_properties.truthfulness(_truth(_truth_counts(), out=out), NO_WITNESS)
        return [r for r in rows if "winning set" in r.claim][0]

    assert row((70, 100)).status == "match"  # 0.70, lower bound about 0.62 > 0.5
    liars_win = row((30, 100))  # most liars under Theorem 8's conditions still win their task: the statement fails
    assert liars_win.status == "differs" and "30 of 100" in liars_win.reproduced
    assert row((55, 100)).status == "inconclusive"  # 0.55: the bounds straddle 0.5
    assert row((0, 0)).status == "inconclusive"  # no misreport under the conditions: nothing to decide on
    assert row(None).status == "not run in this profile"  # a sweep from before the winning-set metrics
    assert row((70, 100)).artifact == "Section V-B" and "Clopper-Pearson" in row((70, 100)).note


def test_clopper_pearson_bounds_are_the_exact_binomial_ones():
    low, high = claims_properties.clopper_pearson(7, 10)
    # P(X >= 7 | p = low) = 5 % and P(X <= 7 | p = high) = 5 % for X ~ Binomial(10, p)
    assert stats.binom.sf(6, 10, low) == pytest.approx(0.05)
    assert stats.binom.cdf(7, 10, high) == pytest.approx(0.05)
    assert claims_properties.clopper_pearson(0, 10)[0] == 0.0 and claims_properties.clopper_pearson(10, 10)[1] == 1.0
    assert claims_properties.clopper_pearson(0, 0) == (0.0, 1.0)


def _corollary(y: float, mm: float, bf: float, mc_mm: float, auc_bf: float | None = None, se: float = 0.001):
    """One B lambda of corollary10.csv: closed forms ``mm``, ``bf``; Monte Carlo max-min ``mc_mm`` (both sources),
    budget-fair ``bf`` (minimum bids) and ``auc_bf`` (auctions; ``bf`` if None)."""
    rows = [("closed_form", "p_no_user_maxmin", mm), ("closed_form", "p_no_user_budget_fair", bf)]
    for source, est_bf in (("monte_carlo", bf), ("auctions", bf if auc_bf is None else auc_bf)):
        rows += [(source, "p_no_user_maxmin", mc_mm), (source, "p_no_user_budget_fair", est_bf),
                 (source, "se_maxmin", se), (source, "se_budget_fair", se)]  # fmt: skip
    return pd.DataFrame(
        [{"experiment": "corollary10", "y": y, "method": m, "metric": k, "value": v} for m, k, v in rows]
    )


def _cor_statuses(*parts: pd.DataFrame) -> list[str]:
    return [r.status for r in claims_properties.corollary10(pd.concat(parts))]


def test_corollary10_closed_forms_follow_the_data():
    good = [_corollary(2.0, 0.406, 0.600, 0.407), _corollary(5.0, 0.040, 0.157, 0.041)]
    assert _cor_statuses(*good) == ["match"]  # the closed forms fit both Monte Carlo estimates
    assert _cor_statuses(good[0], _corollary(5.0, 0.040, 0.157, 0.060)) == ["differs"]  # MC off at y = 5
    assert _cor_statuses(good[0], _corollary(5.0, 0.040, 0.157, 0.041, auc_bf=0.10)) == ["differs"]  # auctions off


def _line5(smallest: float, biggest: float, budget_fair: float, seeds: int = 2) -> pd.DataFrame:
    rows = [{"experiment": "algorithm3_line5", "method": m, "seed": s, "y": b, "metric": "min_recruited", "value": v}
            for b in (5.0, 29.0) for s in range(seeds)
            for m, v in (("line5_smallest", smallest * b), ("line5_biggest", biggest * b), ("budget_fair", budget_fair * b))]  # fmt: skip
    return pd.DataFrame(rows)


def test_algorithm3_line5_erratum_follows_the_data():
    assert claims_properties.algorithm3_line5(_line5(1.2, 0.5, 1.0))[0].status == "match"
    assert claims_properties.algorithm3_line5(_line5(1.2, 1.1, 1.0))[0].status == "differs"  # printed reading fine
    assert claims_properties.algorithm3_line5(_line5(0.9, 0.5, 1.0))[0].status == "differs"  # corrected one below


def _theorem11(exact: float, estimate: float, se: float = 0.01, se_own: float = 0.01) -> pd.DataFrame:
    rows = [
        ("closed_form", "p_join", exact),
        ("auctions", "p_join", estimate),
        ("auctions", "se", se),
        ("auctions", "se_own", se_own),
    ]
    return pd.DataFrame([{"experiment": "theorem11", "method": m, "y": 2.0, "bid": 0.3, "metric": k, "value": v}
                         for m, k, v in rows])  # fmt: skip


NULL = "null_hypothesis"


def test_theorem11_join_probability_follows_the_data():
    assert claims_properties.theorem11(_theorem11(0.76, 0.75), 4.0, NULL)[0].status == "match"
    assert claims_properties.theorem11(_theorem11(0.76, 0.60), 4.0, NULL)[0].status == "differs"  # 16 SEs off
    # A win rate of exactly 1 has standard error 0: the first computation's check fails there; the row reports it
    # beside its own verdict, which uses the standard error under the closed form.
    row = claims_properties.theorem11(_theorem11(0.999, 1.0, se=0.001, se_own=0.0), 4.0, NULL)[0]
    assert row.status == "match" and "own standard error (the first computation, beside): 0 of 1" in row.reproduced


def test_theorem11_standard_error_is_the_configured_rule():
    """auctions.theorem11.standard_error (a tuned setting): the rerun value `own` judges with the win rate's own
    standard error, which is 0 at a rate of exactly 1, so the same results read differs there."""
    at_one = _theorem11(0.999, 1.0, se=0.001, se_own=0.0)
    default = claims_properties.theorem11(at_one, 4.0, NULL)[0]
    own = claims_properties.theorem11(at_one, 4.0, "own")[0]
    assert (default.status, own.status) == ("match", "differs")
    assert own.claim == default.claim  # the same row: the sensitivity column finds it by its text
    assert own.reproduced.startswith("0 of 1 closed forms") and "(the null, beside): 1 of 1" in own.reproduced
    # where the rate's own standard error is the wider one, `own` accepts what the null refuses
    wide = _theorem11(0.76, 0.70, se=0.01, se_own=0.02)  # 6 null SEs off, 3 own SEs off
    assert claims_properties.theorem11(wide, 4.0, NULL)[0].status == "differs"
    assert claims_properties.theorem11(wide, 4.0, "own")[0].status == "match"
    with pytest.raises(ValueError, match="standard_error"):
        claims_properties.theorem11(at_one, 4.0, "bootstrap")


def test_the_entry_point_reads_the_standard_error_rule_from_the_config():
    block = load_config(REPO / "config" / "test.yaml")["auctions"]
    assert block["theorem11"]["standard_error"] == NULL  # the schema's default fills a profile that omits it
    parts = [_corollary(2.0, 0.406, 0.600, 0.407), _line5(1.2, 0.5, 1.0), _theorem11(0.999, 1.0, 0.001, 0.0)]
    at_one = {"corollary10": pd.concat(parts)}
    own = {**block, "theorem11": {**block["theorem11"], "standard_error": "own"}}
    for b, status in ((block, "match"), (own, "differs")):
        row = claims.claims(at_one, Settings.from_block(b))[-2]
        assert (row.artifact, row.status) == ("Section V-C", status)


def test_the_config_refuses_an_unknown_standard_error_rule():
    with pytest.raises(ConfigError, match="standard_error") as err:
        load_config(REPO / "config" / "config.yaml", overrides={"auctions": {"theorem11": {"standard_error": "x"}}})
    assert "\n" not in str(err.value)


def test_exp6_claims_follow_the_data():
    rows = []
    for method, final in (
        ("gmmfair", 0.65),
        ("maxmin_fair", 0.64),
        ("greedy_within_budget", 0.62),
        ("val_threshold_0.4", 0.60),
    ):
        for seed in range(2):
            rows += [
                {"method": method, "seed": seed, "round": r, "min_acc": final * r / 3, "min_recruited": 30}
                for r in (1, 2, 3)
            ]
    per_round = pd.DataFrame(rows)
    assert [r.status for r in claims._exp6(per_round, margin=0.02, tolerance=0.02)] == ["match"] * 3
    assert (
        claims._exp6(per_round, margin=0.005, tolerance=0.02)[1].status == "differs"
    )  # 0.01 apart is not within 0.005
    ahead = per_round.copy()
    ahead.loc[(ahead.method == "greedy_within_budget") & (ahead["round"] == 1), "min_acc"] = (
        0.5  # greedy leads in round 1
    )
    assert [r.status for r in claims._exp6(ahead, margin=0.02, tolerance=0.02)] == ["differs", "match", "match"]
    tie = per_round.copy()
    tie.loc[(tie.method == "greedy_within_budget") & (tie["round"] == 3), "min_acc"] = 0.64  # a tie is not "higher"
    assert [r.status for r in claims._exp6(tie, margin=0.02, tolerance=0.02)] == ["match", "match", "inconclusive"]


def test_the_entry_point_returns_the_rows_of_the_results_it_is_given():
    settings = Settings.from_block(load_config(REPO / "config" / "test.yaml")["auctions"])
    per_round = pd.DataFrame(
        [{"method": m, "seed": 0, "round": 1, "min_acc": a} for m, a in (("gmmfair", 0.6), ("maxmin_fair", 0.59))]
    )
    assert [r.artifact for r in claims.claims({"exp6": per_round}, settings)] == ["Figure 7c", "Figure 7c"]
    counts = _truth_counts()
    assert len(claims.claims({"truthfulness": _truth(counts)}, settings)) == 6
    table = pd.concat([_corollary(2.0, 0.406, 0.600, 0.407), _line5(1.2, 0.5, 1.0), _theorem11(0.76, 0.75)])
    artifacts = [r.artifact for r in claims.claims({"corollary10": table}, settings)]
    assert artifacts == ["Corollary 10", "Algorithm 3", "Section V-C", "Theorem 11"]
    with pytest.raises(ValueError, match="exp7"):
        claims.claims({"exp7": per_round}, settings)
