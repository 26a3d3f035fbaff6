"""The closed forms of FedFairMMFL's theory (fairshare.learning.mmfl_theory): the identities and properties that hold
by construction, which the scorecard does not count as rows."""

from __future__ import annotations

import numpy as np
import pytest

from fairshare.learning import mmfl_theory as th


@pytest.mark.parametrize(("q", "k"), [(0.1, 3), (0.37, 6), (0.9, 8)])
def test_eq16_sums_to_one_over_every_selection_set(q, k):
    total = sum(th.selection_probability(q, len(sel), k) for sel in th.subsets(k))
    assert total == pytest.approx(1.0, abs=1e-12)
    assert len(th.subsets(k)) == 2**k


def test_eq5_is_uniform_at_exponent_zero_and_favours_the_worst_task():
    errors = np.array([10.0, 40.0, 70.0])
    assert th.allocation_vector(errors, 0.0) == pytest.approx(np.full(3, 1 / 3))
    p = th.allocation_vector(errors, 2.0)
    assert p.sum() == pytest.approx(1.0) and np.all(np.diff(p) > 0)


@pytest.mark.parametrize("k", [3, 5, 8])
def test_corollary5_term_is_eq29_summed_over_the_sets(k):
    """The proof's rewrite: sum over sets of B sum_{k in Sel} (1/|Sel|)^2 = sum_j (1/j) C(K,j) q^j (1-q)^(K-j)."""
    q = 0.3
    direct = sum(th.selection_probability(q, len(sel), k) / len(sel) for sel in th.subsets(k) if sel)
    assert float(th.corollary5_term(q, k)) == pytest.approx(direct, rel=1e-12)
    equal = th.Quadratic(np.zeros(k), np.full(k, 1 / k), 1.0, 0.0, q)
    assert equal.noise_term() == pytest.approx(direct, rel=1e-12)
    assert float(th.corollary5_term(1.0, k)) == pytest.approx(1 / k) and float(th.corollary5_term(0.0, k)) == 0.0


def test_corollary5_peak_is_where_the_term_turns():
    peak = th.corollary5_peak(5, grid=2001)
    assert 0.25 < peak < 0.33  # spec: q* ~ 0.29 for K = 5
    assert th.corollary5_term(peak - 0.05, 5) < th.corollary5_term(peak, 5) > th.corollary5_term(peak + 0.05, 5)


def test_corollary6_pairwise_share_is_at_most_one_half():
    """Corollary 6's proof: P^{k,2} = ((sum p)^2 - sum p^2) / (2 (sum p)^2) <= 1/2 for any weights and set."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = rng.uniform(0.0, 1.0, rng.integers(1, 9))
        pairs = sum(p[i] * p[j] for i in range(len(p)) for j in range(len(p)) if i != j) / p.sum() ** 2 / 2
        assert pairs == pytest.approx((p.sum() ** 2 - (p**2).sum()) / (2 * p.sum() ** 2)) and pairs <= 0.5


def test_coupled_optimum_is_feasible_and_optimal():
    rng = np.random.default_rng(1)
    a, b, c = rng.uniform(0.05, 0.5, 4), rng.uniform(0.5, 3.0, 4), rng.uniform(0.3, 2.0, 4)
    for alpha in (1.0, 2.0):
        n, f = th.coupled_optimum(a, b, c, 20.0, alpha)
        assert n.sum() == pytest.approx(20.0) and np.all(n >= 0)
        best = (f**alpha).sum()
        for _ in range(300):  # no random feasible split does better
            m = rng.dirichlet(np.ones(4)) * 20.0
            assert best <= ((a + b / (1 + m) ** c) ** alpha).sum() + 1e-9


def test_coupled_optimum_solves_a_batch_as_each_problem():
    rng = np.random.default_rng(2)
    a, b, c = rng.uniform(0.05, 0.5, (3, 2)), rng.uniform(0.5, 3.0, (3, 2)), rng.uniform(0.3, 2.0, (3, 2))
    batch = th.coupled_optimum(a, b, c, 5.0, 2.0)[1]
    for i in range(3):
        assert batch[i] == pytest.approx(th.coupled_optimum(a[i], b[i], c[i], 5.0, 2.0)[1], rel=1e-6)


def test_quadratic_step_is_the_exact_expectation():
    """Against a Monte Carlo run of the same round: sets drawn by Eq. 16, one noisy SGD step each, Eq. 6 averages."""
    task = th.Quadratic(np.array([-1.0, 0.5, 2.0]), np.array([0.2, 0.3, 0.5]), 1.0, 0.5, 0.4)
    w, eta = 3.0, 0.2
    m1, m2 = task.step(np.asarray(w - task.optimum), np.asarray((w - task.optimum) ** 2), eta)
    rng = np.random.default_rng(3)
    draws = 200_000
    chosen = rng.random((draws, 3)) < task.q
    local = w - eta * (task.mu * (w - task.centres) + rng.normal(0.0, np.sqrt(task.sigma2), (draws, 3)))
    weights = chosen * task.weights
    total = weights.sum(axis=1)
    new = np.where(total > 0, (weights * local).sum(axis=1) / np.where(total > 0, total, 1), w)
    d = new - task.optimum
    assert float(m1) == pytest.approx(d.mean(), abs=5e-3) and float(m2) == pytest.approx((d**2).mean(), rel=1e-2)


def test_skew_is_one_when_every_client_trains():
    task = th.Quadratic(np.array([-1.0, 0.5, 2.0]), np.array([0.2, 0.3, 0.5]), 1.0, 0.0, 1.0)
    assert task.skew(np.array([-3.0, 0.0, 4.0])) == pytest.approx(np.ones(3))


def test_eq5_sends_every_client_to_the_worst_task_as_alpha_grows():
    from fairshare.learning.mmfl import allocation_probabilities

    assert allocation_probabilities([0.9, 0.5, 0.7], 60.0) == pytest.approx([0.0, 1.0, 0.0], abs=1e-9)


def test_allocation_is_unbiased_across_clients():
    """Sec. III: for each task, every active client has the same probability of being allocated to it."""
    from fairshare.learning.mmfl import allocate, allocation_probabilities

    rng, accuracies = np.random.default_rng(4), [0.9, 0.5, 0.7]
    draws = np.stack([allocate("fedfair", np.arange(6), 6, 3, r, accuracies, 3.0, rng) for r in range(4000)])
    share = (draws == 1).mean(axis=0)  # per client: how often it trains task 1
    assert share == pytest.approx(np.full(6, allocation_probabilities(accuracies, 3.0)[1]), abs=0.03)


def test_corollary6_bound_grows_with_noise_and_distance_and_falls_with_rounds():
    """Sec. IV's reading of Corollary 6's terms: larger sigma^2, more local steps tau or a start further from w* raise
    the bound; more rounds lower it towards the skew-bias floor."""
    task = th.Quadratic(np.array([-1.0, 0.5, 2.0]), np.array([0.2, 0.3, 0.5]), 1.0, 0.0, 0.5)
    noisy = th.Quadratic(task.centres, task.weights, 1.0, 1.0, 0.5)
    w0 = task.optimum + 1.0
    assert th.corollary6_bound(noisy, w0, 4.0, 10) > th.corollary6_bound(task, w0, 4.0, 10)
    assert th.corollary6_bound(task, w0 + 2.0, 4.0, 10) > th.corollary6_bound(task, w0, 4.0, 10)
    assert th.corollary6_bound(task, w0, 4.0, 1000) < th.corollary6_bound(task, w0, 4.0, 10)
    five = th.Quadratic(task.centres, task.weights, 1.0, 0.0, 0.5, 5)  # tau^2 G^2: more local steps raise it
    assert th.corollary6_bound(five, w0, 4.0, 10) > th.corollary6_bound(task, w0, 4.0, 10)


# ---- tau local steps per round (issue 38) -----------------------------------------------------------------------

_CENTRES, _WEIGHTS = np.array([-1.0, 0.5, 2.0]), np.array([0.2, 0.3, 0.5])


def test_one_local_step_reproduces_the_one_step_harness_exactly():
    """tau = 1 (the default) gives the values the one-step harness gave before tau existed, bit for bit."""
    task = th.Quadratic(_CENTRES, _WEIGHTS, 1.0, 0.5, 0.4)
    assert task.tau == 1 and th.Quadratic(_CENTRES, _WEIGHTS, 1.0, 0.5, 0.4, 1) == task
    assert th.theorem4_sides(task, 3.0, 0.2) == (2.9125707224489803, 24.381485269908655)
    assert float(th.corollary6_error(task, np.array([3.0]), 4.0, (10,))[0, 0]) == 0.16471495158768226
    assert th.corollary6_bound(task, 3.0, 4.0, 10) == 41.703876214626746


@pytest.mark.parametrize("tau", [2, 5])
def test_a_round_of_tau_steps_is_the_exact_expectation(tau):
    """step and discrepancy against a Monte Carlo run of the same round: sets drawn by Eq. 16, tau noisy SGD steps
    per selected client from the global model, Eq. 6 averages."""
    task = th.Quadratic(_CENTRES, _WEIGHTS, 1.0, 0.5, 0.4, tau)
    w, eta = 3.0, 0.2
    m1, m2 = task.step(np.asarray(w - task.optimum), np.asarray((w - task.optimum) ** 2), eta)
    rng, draws = np.random.default_rng(5), 200_000
    chosen = rng.random((draws, 3)) < task.q
    local = np.full((draws, 3), w)
    for _ in range(tau):
        local = local - eta * (task.mu * (local - task.centres) + rng.normal(0.0, np.sqrt(task.sigma2), (draws, 3)))
    weights = chosen * task.weights
    total = weights.sum(axis=1)
    share = weights / np.where(total > 0, total, 1)[:, None]
    new = np.where(total > 0, (share * local).sum(axis=1), w)
    d = new - task.optimum
    assert float(m1) == pytest.approx(d.mean(), abs=5e-3) and float(m2) == pytest.approx((d**2).mean(), rel=1e-2)
    spread = (share * (local - new[:, None]) ** 2).sum(axis=1)  # 0 for the empty set
    assert task.discrepancy(w, eta) == pytest.approx(spread.mean(), rel=1e-2)


def _grid(tau: int):
    rng = np.random.default_rng(7)
    for k in (3, 5):
        centres, sizes = rng.normal(0.0, 1.0, k), rng.uniform(150, 250, k)
        for q in (0.3, 0.6, 0.9):
            for sigma2 in (0.0, 1.0):
                yield th.Quadratic(centres, sizes / sizes.sum(), 1.0, sigma2, q, tau)


@pytest.mark.parametrize("tau", [1, 2, 5])
def test_lemma3_theorem4_and_corollary6_bounds_hold_with_tau_local_steps(tau):
    for task in _grid(tau):
        for d in (0.1, 1.0, 5.0):
            w = task.optimum + d
            for eta in (0.25, 0.1, 0.01):
                lhs, rhs = th.lemma3_sides(task, w, eta)
                assert lhs <= rhs
                lhs, rhs = th.theorem4_sides(task, w, eta)
                assert lhs <= rhs
            errors = th.corollary6_error(task, np.array([w]), 4.0, (10, 100))[0]
            for rounds, error in zip((10, 100), errors):
                assert error <= th.corollary6_bound(task, w, 4.0, rounds)


def test_lemma3_needs_its_tau_squared_a_bound_without_it_is_caught():
    """With 5 local steps the exact discrepancy exceeds (25) with tau^2 left out (16 eta^2 G^2 sum B P^{k,2}) while
    it respects (25): the harness exercises the tau^2 G^2 term and would catch a bound that is too small."""
    task = th.Quadratic(np.array([-1.0, 1.0]), np.array([0.5, 0.5]), 1.0, 0.0, 0.9, 5)
    lhs, rhs = th.lemma3_sides(task, 0.0, 0.25)
    assert lhs <= rhs and lhs > rhs / task.tau**2
    # with one step the same setting is far inside the tau = 1 bound: the excess above comes from the 5 steps
    one = th.Quadratic(task.centres, task.weights, 1.0, 0.0, 0.9, 1)
    lhs1, rhs1 = th.lemma3_sides(one, 0.0, 0.25)
    assert lhs1 <= rhs1 and lhs > rhs1


def test_theorem4_and_corollary6_catch_a_bound_that_is_too_small():
    """With 5 local steps, (26) without its eta^2 32 tau^2 G^2 term is too small somewhere near w* (distance 0.1);
    Corollary 6's bound is loose (its 1/(T + gamma) bracket), but its floor alone, the T -> infinity limit, is below the
    exact error at T = 10 somewhere: a check of the printed bounds on this harness can fail."""
    caught4 = caught6 = 0
    for task in _grid(5):
        w = task.optimum + 0.1
        g2 = float(np.max(task.mu**2 * (w - task.centres) ** 2) + task.sigma2)
        lhs, rhs = th.theorem4_sides(task, w, 0.25)
        assert lhs <= rhs
        caught4 += lhs > rhs - 32 * 0.25**2 * task.tau**2 * g2
        error = th.corollary6_error(task, np.array([w]), 4.0, (10,))[0, 0]
        assert error <= th.corollary6_bound(task, w, 4.0, 10)
        caught6 += error > th.corollary6_bound(task, w, 4.0, 10**12)
    assert caught4 > 0 and caught6 > 0


def test_a_round_needs_at_least_one_local_step():
    with pytest.raises(ValueError, match="at least one local step"):
        th.Quadratic(_CENTRES, _WEIGHTS, 1.0, 0.0, 0.5, 0)
