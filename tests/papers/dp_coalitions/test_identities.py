"""Data sharing with endogenous DP levels: statements that hold by algebra (unit tests, not scorecard rows)."""

from __future__ import annotations

import numpy as np
import pytest

from fairshare.games import dp_coalitions as dp


def _noise_and_privacy(c: np.ndarray, eps: np.ndarray, alpha: float) -> tuple[float, float]:
    """Def 5 summed over the members of S: the Laplace-noise part of k Var (Eq. 1) and the privacy costs."""
    k = len(c)
    return k * (dp.variance(0.0, eps)), float(np.sum(c * dp.size_scaling(k, alpha) * eps))


@pytest.mark.parametrize("alpha", [-1.0, -0.5, 0.0, 0.7, 1.0])
@pytest.mark.parametrize("k", [2, 10, 1000])
def test_section_6_accuracy_cost_is_of_the_privacy_costs_order_centralized_and_dominates_it_decentralized(alpha, k):
    """Section 6 after Theorem 4: at the designer's eps (Lemma 1) the members' noise cost is exactly half their
    privacy cost (same order); at the selfish eps (Lemma 2) it is k/2 times it (dominates as k grows). The sigma2/k
    part of the accuracy cost only adds to it."""
    c = np.sort(np.random.default_rng(k).uniform(1e-4, 5e-2, size=k))
    noise, privacy = _noise_and_privacy(c, dp.eps_centralized(c, k, alpha), alpha)
    assert noise / privacy == pytest.approx(0.5, rel=1e-12)
    noise, privacy = _noise_and_privacy(c, dp.eps_decentralized(c, k, alpha), alpha)
    assert noise / privacy == pytest.approx(k / 2, rel=1e-12)


def test_section_3_variance_decreases_in_every_eps():
    """Section 3 after Eq. (1): the estimator variance is decreasing in each eps_i."""
    eps = np.array([0.5, 1.0, 2.0, 4.0])
    for i in range(len(eps)):
        larger = eps.copy()
        larger[i] *= 1.01
        assert dp.variance(0.1, larger) < dp.variance(0.1, eps)


def test_claim_7_proof_leave_bound_increases_in_the_coalition_size():
    """App. A.5, proof of Claim 7: (x - 1) / x^((2 alpha + 1)/3) is increasing in x >= 1 for every alpha in [-1, 1]."""
    x = np.linspace(1, 200, 20000)[:, None]
    alpha = np.linspace(-1, 1, 41)[None, :]
    f = (x - 1) / x ** ((2 * alpha + 1) / 3)
    assert np.all(np.diff(f, axis=0) > 0)
