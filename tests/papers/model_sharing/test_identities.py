"""Model-sharing Games: identities the paper states that hold by algebra (unit tests, not scorecard rows)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fairshare.games import model_sharing as ms
from fairshare.games import model_sharing_two_type as tt


@pytest.mark.parametrize("w", [Fraction(0), Fraction(1, 3), Fraction(1)])
def test_section_3_fine_weights_recover_coarse_federation(w):
    """§3: v_jj = w + (1 - w) n_j / N and v_ji = (1 - w) n_i / N give the coarse-grained model with weight w."""
    n = [Fraction(x) for x in (4, 9, 13, 30)]
    total = sum(n)
    v = [[(w if i == j else 0) + (1 - w) * n[i] / total for i in range(len(n))] for j in range(len(n))]
    fine = ms.errors(n, mu_e=5, sigma2=Fraction(3, 2), method="fine", weights=v, exact=True)
    coarse = ms.errors(n, mu_e=5, sigma2=Fraction(3, 2), method="coarse", weights=[w] * len(n), exact=True)
    assert list(fine) == list(coarse)


@pytest.mark.parametrize("method", ["local", "uniform", "coarse", "fine"])
def test_section_4_regression_approaches_mean_estimation_with_d_times_mu_e_when_n_is_much_larger_than_d(method):
    """§4: with n_j >> D the Gaussian-regression error is the mean-estimation one at mu_e' = D mu_e and
    s2' = sum_d s2_d; the relative gap shrinks with n and is at most (D + 1) / (n_min - D - 1)."""
    sigma2_d, mu_e = [1, 3], 10
    d = len(sigma2_d)
    gaps = []
    for scale in (10, 100, 1000, 10000):
        n = [scale, 2 * scale, 3 * scale]
        reg = ms.regression_errors(n, mu_e=mu_e, sigma2_d=sigma2_d, method=method, exact=True)
        mean = ms.errors(n, mu_e=d * mu_e, sigma2=sum(sigma2_d), method=method, exact=True)
        gap = max(abs(r / m - 1) for r, m in zip(reg, mean))
        assert gap <= Fraction(d + 1, scale - d - 1)
        gaps.append(gap)
    assert gaps == sorted(gaps, reverse=True) and gaps[-1] < Fraction(1, 1000)


@pytest.mark.parametrize(("s", "l", "n_s", "n_l"), [(1, 1, 3, 7), (4, 2, 5, 9), (7, 5, 2, 30), (3, 8, 11, 12)])
def test_theorem_5_4_proof_reduces_the_comparison_to_two_terms(s, l, n_s, n_l):
    """App. C, proof of Thm 5.4: (err_L(pi(0, l)) - err_L(pi(s, l))) N^2 (l n_l)^2 equals
    mu_e l n_l N s n_s - s2 l n_l^2 n_s^2 s (l + s), with N = s n_s + l n_l."""
    mu_e, s2 = Fraction(10), Fraction(3, 2)
    s, l, n_s, n_l = (Fraction(x) for x in (s, l, n_s, n_l))
    total = s * n_s + l * n_l
    gap = tt.err_large_uniform(0, l, n_s, n_l, mu_e, s2) - tt.err_large_uniform(s, l, n_s, n_l, mu_e, s2)
    reduced = mu_e * l * n_l * total * s * n_s - s2 * l * n_l**2 * n_s**2 * s * (l + s)
    assert gap * total**2 * (l * n_l) ** 2 == reduced
