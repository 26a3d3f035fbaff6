"""The auctions' claim functions follow the data: each statement is reported as failing when the results contradict it."""

from __future__ import annotations

import pandas as pd

from fairshare.papers.auctions import claims


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


def test_exp5_claims_follow_the_data():
    values = {
        "maxmin_fair": {10: (8.0, 7.6), 100: (40, 39.5)},
        "gmmfair": {10: (9, 9), 100: (45, 45)},
        "greedy_within_budget": {10: (15, 6), 100: (60, 42)},
        "budget_fair": {10: (12, 5), 100: (50, 30)},
        "random_within_budget": {10: (7, 3), 100: (41, 20)},
    }
    rows = {r.claim: r for r in claims.exp5_claims(_tidy(values), constrained_max=29)}
    assert rows["MMFL max-min fair has the smallest task difference in the budget-constrained region"].holds is True
    assert rows["GMMFair recruits the most clients per task (highest minimum) at every budget"].holds is True
    assert (
        rows["As the budget grows, Greedy Within Budget overtakes MMFL max-min fair in the minimum recruited"].holds
        is True
    )
    values["budget_fair"][10] = (7.5, 7.4)  # now budget-fair is the more balanced at B = 10
    values["greedy_within_budget"][100] = (60, 38)
    rows = {r.claim: r for r in claims.exp5_claims(_tidy(values), constrained_max=29)}
    assert rows["MMFL max-min fair has the smallest task difference in the budget-constrained region"].holds is False
    assert (
        rows["As the budget grows, Greedy Within Budget overtakes MMFL max-min fair in the minimum recruited"].holds
        is False
    )
    only_small = {m: {10: v[10]} for m, v in values.items()}
    rows = {r.claim: r for r in claims.exp5_claims(_tidy(only_small), constrained_max=29)}
    assert (
        rows["As the budget grows, Greedy Within Budget overtakes MMFL max-min fair in the minimum recruited"].holds
        is None
    )


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
    got = {r.claim: r.holds for r in claims.exp6_claims(per_round, tolerance=0.02)}
    assert list(got.values()) == [True, True, True]
    assert [r.holds for r in claims.exp6_claims(per_round, tolerance=0.005)][
        1
    ] is False  # 0.01 apart is not within 0.005
    per_round.loc[(per_round.method == "greedy_within_budget") & (per_round["round"] == 3), "min_acc"] = 0.7
    assert [r.holds for r in claims.exp6_claims(per_round, tolerance=0.02)] == [False, True, False]
