"""Recruitment auctions: budget feasibility, individual rationality, optimality, truthfulness, Corollary 10."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fairshare.games import auctions as au


def _bids(seed, n=30):
    return au.experiment5_bids(n, np.random.default_rng(seed), 0.2, 0.1)


@pytest.mark.parametrize("mech", ["budget_fair", "maxmin_fair", "gmmfair", "greedy_within_budget", "random_within_budget"])
@pytest.mark.parametrize("budget", [0.5, 3.0, 12.0])
def test_budget_feasible_and_individually_rational(mech, budget):
    for seed in range(4):
        b = _bids(seed)
        r = au.run_mechanism(mech, b, budget, np.random.default_rng(seed))
        assert r.spent <= budget + 1e-9
        won = r.x >= 1
        assert np.all(r.payments[won] >= b[won] - 1e-12)  # winners are paid at least their bid
        part = (r.x > 0) & (r.x < 1)
        assert np.all(r.payments[part] <= b[part] + 1e-12)  # fractional users are paid pro rata


def test_gmmfair_is_max_min_optimal_by_brute_force():
    # Pay-as-bid, shared budget: the best max-min count is the largest t with every task's t cheapest affordable.
    rng = np.random.default_rng(1)
    for _ in range(30):
        b = rng.random((5, 2))
        budget = float(rng.uniform(0.2, 4))
        best = 0
        for counts in itertools.product(range(6), repeat=2):
            cost = sum(np.sort(b[:, s])[: counts[s]].sum() for s in range(2))
            if cost <= budget:
                best = max(best, min(counts))
        assert au.gmmfair(b, budget).take_up.min() == best


def test_budget_fair_is_truthful_for_a_misreporting_user():
    rng = np.random.default_rng(2)
    for _ in range(40):
        costs = rng.random((12, 2))
        budget = float(rng.uniform(0.5, 4))
        i, s = int(rng.integers(12)), int(rng.integers(2))
        honest = au.budget_fair(costs, budget)
        u_honest = honest.payments[i, s] - costs[i, s] * honest.x[i, s]
        for report in np.linspace(0, 1, 21):
            lie = costs.copy()
            lie[i, s] = report
            r = au.budget_fair(lie, budget)
            assert r.payments[i, s] - costs[i, s] * r.x[i, s] <= u_honest + 1e-12


def test_maxmin_fair_balances_tasks_and_beats_budget_fair():
    gaps, mins_mm, mins_bf = [], [], []
    for seed in range(5):
        b = au.experiment5_bids(100, np.random.default_rng(seed), 0.2, 0.1)
        mm = au.maxmin_fair(b, 10)
        gaps.append(abs(mm.take_up[0] - mm.take_up[1]))
        mins_mm.append(mm.take_up.min())
        mins_bf.append(au.budget_fair(b, 10).take_up.min())
    assert np.mean(gaps) < 1.5 and np.mean(mins_mm) > np.mean(mins_bf)


def test_corollary_10_against_monte_carlo():
    rng = np.random.default_rng(3)
    x = rng.exponential(1.0, size=(200_000, 2))
    for y in (1.0, 2.0):
        mm, bf = au.corollary10(y)
        assert abs(np.mean(x.sum(1) >= y) - mm) < 0.006 and abs(np.mean(x.max(1) >= y / 2) - bf) < 0.006
        assert mm < bf  # the corollary's inequality (the text's "strictly greater" is an erratum)


def test_bad_input():
    with pytest.raises(ValueError, match="non-negative"):
        au.budget_fair(np.array([[-0.1, 0.2]]), 1.0)
    with pytest.raises(ValueError, match="unknown mechanism"):
        au.run_mechanism("vickrey", np.ones((2, 2)), 1.0, np.random.default_rng(0))
