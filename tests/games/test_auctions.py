"""Recruitment mechanisms (FedFairMMFL Sec. V): feasibility, individual rationality, hand-worked Algorithm 3 rounds,
GMMFair's optimality against brute force, the baselines' rules, tie-breaking, and the recruitment record."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from scipy import stats

from fairshare.games import auctions as au

BUDGETED_VARIANTS = [
    ("budget_fair", {}),
    ("budget_fair", {"payment": "uniform"}),
    ("maxmin_fair", {}),
    ("maxmin_fair", {"fractional": False}),
    ("maxmin_fair", {"strict": False}),
    ("maxmin_fair", {"reallocation": "proportional"}),
    ("gmmfair", {}),
    ("greedy_within_budget", {}),
    ("random_within_budget", {}),
    ("random_within_budget", {"skip": True}),
]


def _profiles(count: int, users: int = 25, tasks: int = 2):
    """Random bid profiles of three shapes: Exp 5's distributions, uniform, and heavy-tailed; with random budgets."""
    rng = np.random.default_rng(11)
    for k in range(count):
        if k % 3 == 0:
            bids = au.experiment5_bids(users, rng, 0.2, 0.2)
        elif k % 3 == 1:
            bids = rng.random((users, tasks))
        else:
            bids = rng.exponential(0.4, size=(users, tasks))
        yield bids, float(rng.uniform(0.05, 1.2) * bids.sum() / 2)


@pytest.mark.parametrize("mech, switches", BUDGETED_VARIANTS)
def test_budgeted_mechanisms_are_feasible_and_individually_rational(mech, switches):
    for k, (bids, budget) in enumerate(_profiles(24)):
        r = au.run_mechanism(mech, bids, budget, np.random.default_rng(k), **switches)
        assert r.spent <= budget * (1 + 1e-12) + 1e-12
        assert np.all((r.x >= 0) & (r.x <= 1))
        assert np.all(r.payments[r.x == 0] == 0)
        full = r.x == 1
        assert np.all(r.payments[full] >= bids[full] - 1e-12)  # winners are paid at least their bid
        part = (r.x > 0) & (r.x < 1)
        np.testing.assert_allclose(
            r.payments[part], r.x[part] * bids[part], rtol=1e-12
        )  # fractional: paid at the bid rate


def test_budget_fair_winners_follow_the_proportional_share_rule():
    for bids, budget in _profiles(20, users=15, tasks=3):
        uniform = au.budget_fair(bids, budget, payment="uniform")
        threshold = au.budget_fair(bids, budget)
        np.testing.assert_array_equal(uniform.x, threshold.x)  # the payment rule never changes the winners
        share = budget / bids.shape[1]
        for s in range(bids.shape[1]):
            srt = np.sort(bids[:, s])
            k_star = max([k for k in range(1, len(srt) + 1) if srt[k - 1] <= share / k], default=0)
            winners = uniform.winners(s)
            assert len(winners) == k_star and set(winners) == set(np.argsort(bids[:, s])[:k_star])
            if k_star:
                np.testing.assert_allclose(uniform.payments[:, s].sum(), share)  # as printed: spends exactly B/S
                expected = min(share / k_star, srt[k_star]) if k_star < len(srt) else share / k_star
                np.testing.assert_allclose(threshold.payments[winners, s], expected)


def test_budget_fair_threshold_payment_by_hand():
    bids = np.array([[0.1], [0.4], [0.45]])  # one task, budget 1: k* = 2 (0.45 > 1/3), next bid 0.45
    r = au.budget_fair(bids, 1.0)
    np.testing.assert_array_equal(r.x[:, 0], [1, 1, 0])
    np.testing.assert_allclose(r.payments[:, 0], [0.45, 0.45, 0])
    np.testing.assert_allclose(au.budget_fair(bids, 1.0, payment="uniform").payments[:, 0], [0.5, 0.5, 0])


def test_maxmin_fair_reallocation_round_by_hand():
    # B = 2, B_s = 1. Round 2: task 1's 0.6 > 1/2; shortfall A = 2*0.6 - 1 = 0.2 < surplus C = 1 - 2*0.2 = 0.6, so task 0
    # gives 0.2 (budget 0.8, price 0.4) and task 1 gets 1.2 (price 0.6). Round 3: both fail, nothing to share: stop.
    bids = np.array([[0.1, 0.5], [0.2, 0.6], [0.3, 0.9]])
    r = au.maxmin_fair(bids, 2.0)
    np.testing.assert_array_equal(r.x, [[1, 1], [1, 1], [0, 0]])
    np.testing.assert_allclose(r.payments, [[0.4, 0.6], [0.4, 0.6], [0, 0]])
    assert [(e.round, e.kind, e.recipients, e.donors) for e in r.events] == [
        (2, "reallocation", ((1, 1),), ((0, 1),)),
        (3, "stop", ((0, 2), (1, 2)), ()),
    ]
    np.testing.assert_allclose(r.events[0].amount, 0.2)


def test_maxmin_fair_fractional_round_by_hand():
    # B = 1.6, B_s = 0.8. Round 2: task 1's 0.9 > 0.4; A = 1.8 - 0.8 = 1.0 >= C = 0.8 - 0.4 = 0.4: fractional round.
    # Task 1's second user gets x = 0.4 / 0.9 paid 0.4; task 0 keeps 2 * 0.2 (price 0.2); task 1's first winner keeps 0.8.
    bids = np.array([[0.1, 0.3], [0.2, 0.9]])
    r = au.maxmin_fair(bids, 1.6)
    np.testing.assert_allclose(r.x, [[1, 1], [1, 0.4 / 0.9]])
    np.testing.assert_allclose(r.payments, [[0.2, 0.8], [0.2, 0.4]])
    np.testing.assert_allclose(r.spent, 1.6)
    np.testing.assert_allclose(r.take_up, [2, 1 + 0.4 / 0.9])
    assert r.events[-1].kind == "fractional"
    no_fraction = au.maxmin_fair(bids, 1.6, fractional=False)
    np.testing.assert_allclose(no_fraction.x, [[1, 1], [1, 0]])
    np.testing.assert_allclose(no_fraction.payments, [[0.4, 0.8], [0.4, 0]])  # donors keep the proportional-share price
    assert no_fraction.events[-1].kind == "stop"


def test_maxmin_fair_strict_switch_when_shortfall_equals_surplus():
    bids = np.array(
        [[0.125, 0.25], [0.25, 0.75]]
    )  # B = 2: round 2 has A = 1.5 - 1 = 0.5 = C = 1 - 0.5 (exact in binary)
    strict = au.maxmin_fair(bids, 2.0)
    loose = au.maxmin_fair(bids, 2.0, strict=False)
    assert strict.events[-1].kind == "fractional" and loose.events[-1].kind == "reallocation"
    np.testing.assert_allclose(strict.x[:, 1], [1, 0.5 / 0.75])
    np.testing.assert_allclose(loose.x, np.ones((2, 2)))
    np.testing.assert_allclose(loose.payments, [[0.25, 0.75], [0.25, 0.75]])


def test_waterfill_and_proportional_donations():
    np.testing.assert_allclose(au.waterfill(np.array([3.0, 1.0, 2.0]), 2.5), [1.75, 0.0, 0.75])  # common level 1.25
    np.testing.assert_allclose(au.waterfill(np.array([3.0, 1.0, 2.0]), 0.0), 0.0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        surplus = rng.random(4)
        amount = float(rng.uniform(0, surplus.sum()))
        take = au.waterfill(surplus, amount)
        np.testing.assert_allclose(take.sum(), amount)
        assert np.all((take >= -1e-15) & (take <= surplus + 1e-15))
        left = surplus - take
        givers = take > 1e-12
        assert np.ptp(left[givers]) < 1e-9 if givers.any() else True  # givers end at one common level ...
        assert np.all(left[~givers] <= left[givers].min() + 1e-9) if givers.any() else True  # ... above every non-giver


def test_maxmin_fair_balances_tasks_and_starts_from_budget_fair():
    for bids, budget in _profiles(30, users=30, tasks=3):
        r = au.maxmin_fair(bids, budget)
        assert r.difference < 1  # fractional last round: take-ups differ by less than one user
        integer = (r.x == 1).sum(axis=0)
        assert np.ptp(integer) <= 1
        assert (
            r.objective >= au.budget_fair(bids, budget).objective - 1e-12
        )  # it only adds users to budget-fair's rounds
        for variant in ({"reallocation": "proportional"}, {"strict": False}):
            assert au.maxmin_fair(bids, budget, **variant).difference < 1


def test_maxmin_fair_recruits_everyone_with_a_large_budget():
    bids = np.random.default_rng(3).random((10, 2))
    r = au.maxmin_fair(bids, budget=2 * 10 * bids.max() + 1)
    np.testing.assert_array_equal(r.x, 1)
    assert r.events == ()


def _brute_force_maxmin(bids: np.ndarray, budget: float) -> int:
    """max over every choice of a user subset per task of the smallest subset, paying each user its bid (Eqs. 36-38)."""
    n, tasks = bids.shape
    subsets = [
        [(sum(bids[list(c), s]), len(c)) for r in range(n + 1) for c in itertools.combinations(range(n), r)]
        for s in range(tasks)
    ]
    best = 0
    for pick in itertools.product(*subsets):
        if sum(cost for cost, _ in pick) <= budget:
            best = max(best, min(size for _, size in pick))
    return best


@pytest.mark.parametrize("users, tasks", [(5, 2), (4, 3)])
def test_gmmfair_is_max_min_optimal_by_brute_force(users, tasks):
    rng = np.random.default_rng(users * 10 + tasks)
    for _ in range(15):
        bids = rng.random((users, tasks))
        budget = float(rng.uniform(0.1, bids.sum()))
        r = au.gmmfair(bids, budget)
        assert np.all(r.take_up == r.take_up[0])  # equal counts across tasks
        assert r.objective == _brute_force_maxmin(bids, budget)  # Lemma 7


def test_greedy_takes_the_longest_affordable_prefix_and_random_skip_is_maximal():
    for k, (bids, budget) in enumerate(_profiles(12, users=20)):
        share = budget / bids.shape[1]
        greedy = au.greedy_within_budget(bids, budget)
        np.testing.assert_array_equal(greedy.x, au.greedy_within_budget(bids, budget, skip=True).x)
        for s in range(bids.shape[1]):
            srt = np.sort(bids[:, s])
            assert greedy.take_up[s] == np.searchsorted(np.cumsum(srt), share, side="right")
        rand = au.random_within_budget(bids, budget, np.random.default_rng(k), skip=True)
        for s in range(bids.shape[1]):
            left = share - rand.payments[:, s].sum()
            losers = rand.x[:, s] == 0
            assert np.all(bids[losers, s] > left)  # no unrecruited user would still fit
        again = au.random_within_budget(bids, budget, np.random.default_rng(k), skip=True)
        np.testing.assert_array_equal(rand.x, again.x)


def test_random_within_budget_needs_a_generator_and_depends_on_it():
    bids = np.random.default_rng(0).random((40, 2))
    with pytest.raises(ValueError, match="Generator"):
        au.random_within_budget(bids, 5.0, None)
    outcomes = {au.random_within_budget(bids, 5.0, np.random.default_rng(s)).x.tobytes() for s in range(5)}
    assert len(outcomes) > 1


def test_val_threshold_is_a_posted_price_without_budget():
    bids = np.random.default_rng(1).random((50, 2))
    for name, tau in (("val_threshold_0.4", 0.4), ("val_threshold_0.6", 0.6)):
        small, large = au.run_mechanism(name, bids, 0.0), au.run_mechanism(name, bids, 1e6)
        np.testing.assert_array_equal(small.x, large.x)
        np.testing.assert_array_equal(small.take_up, (bids < tau).sum(axis=0))
        np.testing.assert_allclose(small.payments, tau * (bids < tau))


def test_ties_are_broken_at_random_not_by_index():
    bids = np.full((4, 1), 0.5)  # budget 1: k* = 2 of 4 identical bids win
    wins = np.zeros(4)
    for s in range(2000):
        wins += au.budget_fair(bids, 1.0, np.random.default_rng(s)).x[:, 0]
    np.testing.assert_allclose(wins / 2000, 0.5, atol=0.05)
    np.testing.assert_array_equal(au.budget_fair(bids, 1.0).x[:, 0], [1, 1, 0, 0])  # without a Generator: lower index


def test_recruitment_record_round_trips_through_json():
    bids = au.experiment5_bids(30, np.random.default_rng(4), 0.2, 0.2)
    r = au.maxmin_fair(bids, 4.0)
    assert any(e.kind == "fractional" for e in r.events)
    record = json.loads(json.dumps(r.to_record()))
    back = au.Recruitment.from_record(record)
    np.testing.assert_array_equal(back.x, r.x)
    np.testing.assert_array_equal(back.payments, r.payments)
    assert back.events == r.events
    assert [t["winners"] for t in record["tasks"]] == [w.tolist() for w in r.winners_per_task]
    assert record["tasks"][1]["take_up"] == pytest.approx(r.take_up[1])


def test_experiment5_bid_distributions():
    bids = au.experiment5_bids(4000, np.random.default_rng(5), 0.2, 0.2)
    assert bids.shape == (4000, 2) and bids.min() >= 0 and bids.max() <= 1
    a, b = (0 - 0.2) / 0.2, (1 - 0.2) / 0.2
    assert stats.kstest(bids[:, 0], stats.truncnorm(a, b, loc=0.2, scale=0.2).cdf).pvalue > 1e-3
    assert stats.kstest(bids[:, 1], lambda x: np.clip(x, 0, 1) ** 2).pvalue > 1e-3  # pdf 2x, cdf x^2


def test_run_mechanism_keeps_only_its_own_switches_and_rejects_bad_input():
    bids = np.random.default_rng(0).random((6, 2))
    every = {"fractional": False, "strict": False, "reallocation": "proportional", "skip": True, "payment": "uniform"}
    for name in au.MECHANISMS:
        assert au.run_mechanism(name, bids, 2.0, np.random.default_rng(0), **every).x.shape == (6, 2)
    with pytest.raises(ValueError, match="unknown mechanism"):
        au.run_mechanism("vickrey", bids, 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        au.budget_fair(np.array([[-0.1, 0.2]]), 1.0)
    with pytest.raises(ValueError, match="budget"):
        au.gmmfair(bids, -1.0)
    with pytest.raises(ValueError, match="reallocation"):
        au.maxmin_fair(bids, 1.0, reallocation="auction")
    with pytest.raises(ValueError, match="payment"):
        au.budget_fair(bids, 1.0, payment="vcg")


def test_utility_counts_payments_minus_costs_over_tasks():
    r = au.Recruitment(np.array([[1.0, 0.5], [0.0, 0.0]]), np.array([[0.6, 0.2], [0.0, 0.0]]))
    np.testing.assert_allclose(au.utility(r, np.array([[0.5, 0.3], [0.1, 0.1]])), [0.1 + 0.05, 0.0])


def test_corollary10_closed_forms():
    mm, bf = au.corollary10(2.0)
    assert mm == pytest.approx(np.exp(-2) * 3) and bf == pytest.approx(np.exp(-2) * (2 * np.e - 1))
    assert (round(mm, 4), round(bf, 4)) == (0.406, 0.6004)  # spec §3.5
    for y in np.linspace(0.01, 10, 50):
        mm, bf = au.corollary10(y)
        assert 0 < mm < bf < 1  # the corollary's inequality ("strictly greater" in the text is an erratum)


def test_maxmin_difference_is_below_one_and_the_rivals_are_whole_numbers():
    # Fig. 7a "max-min fair has the smallest difference" by construction: max-min's difference is below 1 and every
    # other mechanism's is a whole number, so only a rival that balances the tasks exactly can tie or beat it.
    rng = np.random.default_rng(5)
    for bids, budget in _profiles(24, users=40):
        assert au.maxmin_fair(bids, budget).difference < 1
        for name in ("budget_fair", "greedy_within_budget", "random_within_budget", "val_threshold_0.4", "gmmfair"):
            diff = au.run_mechanism(name, bids, budget, rng).difference
            assert diff == int(diff)


def test_corollary10_inequality_holds_on_every_draw():
    # Corollary 10's inequality: a task the max-min auction (no fractional round) leaves empty is empty under the
    # budget-fair auction too (sum of minimum bids > B implies some minimum bid > B/S), draw by draw.
    rng = np.random.default_rng(8)
    seen = 0
    for _ in range(300):
        bids, budget = rng.exponential(5.0, size=(5, 2)), float(rng.uniform(0.2, 3.0))
        empty_mm = (au.maxmin_fair(bids, budget, fractional=False).x >= 1).sum(axis=0).min() == 0
        empty_bf = au.budget_fair(bids, budget).take_up.min() == 0
        assert empty_bf or not empty_mm
        seen += int(empty_mm)
    assert seen > 10  # the implication was exercised


def test_winner_set_probabilities_are_a_poisson_binomial_law():
    # Theorem 11's J_W over all winner sets: a probability law whose size distribution is the Poisson binomial one,
    # so sum_{K >= 1} sum_{W in W_K} J_W = 1 - prod (1 - p_i).
    p = np.array([0.1, 0.5, 0.7, 0.95])
    law = au.winner_set_probabilities(p)
    assert len(law) == 2 ** len(p) and sum(law.values()) == pytest.approx(1.0)
    assert sum(v for w, v in law.items() if w) == pytest.approx(1 - np.prod(1 - p))
    sizes = np.zeros(len(p) + 1)
    for w, v in law.items():
        sizes[len(w)] += v
    pmf = np.array([1.0])
    for q in p:
        pmf = np.convolve(pmf, [1 - q, q])
    np.testing.assert_allclose(sizes, pmf)
    assert law[(1, 3)] == pytest.approx(0.9 * 0.5 * 0.3 * 0.95)


def test_budget_fair_join_probability_by_hand():
    # two users, one other bid with F(b) = 0.25, B = 1 and S = 1: rank 1 (prob 0.75) joins if b <= 1, rank 2 (prob
    # 0.25) if b <= 1/2
    assert au.budget_fair_join_probability(0.4, 1.0, 2, 1, 0.25) == pytest.approx(1.0)
    assert au.budget_fair_join_probability(0.6, 1.0, 2, 1, 0.25) == pytest.approx(0.75)
    assert au.budget_fair_join_probability(1.1, 1.0, 2, 1, 0.25) == 0.0


def test_maxmin_fair_line5_as_printed_takes_the_biggest_bid_first():
    bids = np.array([[0.2, 0.2], [0.8, 0.8]])  # B_s = 0.6
    np.testing.assert_allclose(au.maxmin_fair(bids, 1.2).take_up, [1, 1])  # 0.2 joins, then 0.8 > 0.3 stops
    np.testing.assert_allclose(au.maxmin_fair(bids, 1.2, line5="biggest").take_up, [0, 0])  # 0.8 > 0.6 at once
    with pytest.raises(ValueError, match="line5"):
        au.maxmin_fair(bids, 1.2, line5="middle")


def test_pay_as_bid_mechanisms_can_be_manipulated_by_joint_high_bids():
    # Exp 5: Greedy Within Budget and GMMFair "can be manipulated if all users jointly submit high bids": with a budget
    # that still covers everyone, every user bidding 20% above its cost keeps winning and is paid more (pay as bid).
    costs = np.random.default_rng(4).random((12, 2))
    budget = 2 * 1.2 * costs.sum()
    for name in ("gmmfair", "greedy_within_budget"):
        honest = au.utility(au.run_mechanism(name, costs, budget), costs)
        joint = au.utility(au.run_mechanism(name, 1.2 * costs, budget), costs)
        assert np.all(joint > honest + 1e-12), name
