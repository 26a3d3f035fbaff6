"""Expected errors of federating players (Donahue & Kleinberg, "Model-sharing Games", AAAI 2021, §3-§7).

Each player j of a coalition has n_j samples; parameters are drawn i.i.d. with noise mean mu_e = E[eps^2] and
heterogeneity sigma2 = Var(theta). A player's expected MSE under

- ``local``: its own estimate (Thm 4.1),
- ``uniform``: the sample-size-weighted coalition average (Cor 4.3),
- ``coarse``: w_j * local + (1 - w_j) * coalition average (Cor 4.4; optimal w_j from Lemma 6.1),
- ``fine``: an affine combination v_j of every member's local estimate (Thm 4.2; optimal v_j from Lemma 7.1).

Everything is written once in terms of zeta_i, the variance factor of player i's local estimate:
zeta_i = 1 / n_i for mean estimation and zeta_i = D / (n_i - D - 1) for linear regression with standard Gaussian
inputs (then the bias term is sigma2' = sum_d sigma_d^2). With ``exact=True`` every value is a
``fractions.Fraction``: exact ties occur (e.g. n = mu_e / sigma2) and decide stability.
"""
from __future__ import annotations

from fractions import Fraction
from numbers import Rational
from typing import Any, Sequence

import numpy as np

METHODS = ("local", "uniform", "coarse", "fine")


def as_fraction(x: Any) -> Fraction:
    """Exact rational value of ``x``; floats are read through their shortest decimal repr (0.1 -> 1/10)."""
    if isinstance(x, Rational):  # ints, numpy ints, Fractions: keep exact, with Python ints inside
        return Fraction(int(x.numerator), int(x.denominator))
    return Fraction(repr(float(x)))


def _check(n: Sequence[Any], mu_e: Any, sigma2: Any, method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown method '{method}'; choose one of {', '.join(METHODS)}")
    if len(n) == 0:
        raise ValueError("a coalition needs at least one player")
    if any(float(x) <= 0 for x in n):
        raise ValueError(f"sample sizes must be positive, got {list(n)}")
    if float(mu_e) <= 0 or float(sigma2) < 0:
        raise ValueError(f"need mu_e > 0 and sigma2 >= 0, got mu_e={mu_e}, sigma2={sigma2}")


def _num(values, exact: bool):
    return [as_fraction(v) for v in values] if exact else [float(v) for v in values]


def _bias_factor(n: Sequence, j: int):
    """B_j / N^2 with B_j = sum_{i != j} n_i^2 + (N - n_j)^2 (uniform federation's heterogeneity weight)."""
    total = sum(n)
    b = sum(x * x for i, x in enumerate(n) if i != j) + (total - n[j]) ** 2
    return b / (total * total)


def optimal_coarse_weight(n: Sequence, zeta: Sequence, j: int, mu_e, sigma2):
    """Player j's optimal w (Lemma 6.1 for mean estimation; its zeta-generalisation for regression). Singleton: 1."""
    if len(n) == 1:
        return type(mu_e)(1)
    total = sum(n)
    a = sum(x * x * z for x, z in zip(n, zeta)) / (total * total)
    c = _bias_factor(n, j) * sigma2
    num = mu_e * a + c - mu_e * zeta[j] * n[j] / total
    den = mu_e * a + c + mu_e * zeta[j] * (1 - 2 * n[j] / total)
    return num / den


def optimal_fine_weights(zeta: Sequence, j: int, mu_e, sigma2) -> list:
    """Player j's optimal weight vector v_j (Lemma 7.1 with V_i = sigma2 + mu_e * zeta_i)."""
    v = [sigma2 + mu_e * z for z in zeta]
    inv_others = sum(1 / v[i] for i in range(len(v)) if i != j)
    den = 1 + v[j] * inv_others
    weights = [(v[j] - sigma2) / (v[k] * den) for k in range(len(v))]
    weights[j] = (1 + sigma2 * inv_others) / den
    return weights


def _coarse_error(n, zeta, j, w, mu_e, sigma2):
    total = sum(n)
    variance = mu_e * (1 - w) ** 2 * sum(x * x * z for x, z in zip(n, zeta)) / (total * total)
    variance += mu_e * (w * w + 2 * (1 - w) * w * n[j] / total) * zeta[j]
    return variance + (1 - w) ** 2 * _bias_factor(n, j) * sigma2


def _fine_error(zeta, j, v, mu_e, sigma2):
    others = [v[i] for i in range(len(v)) if i != j]
    return mu_e * sum(x * x * z for x, z in zip(v, zeta)) + (sum(x * x for x in others) + sum(others) ** 2) * sigma2


def _optimal_error(n, zeta, j, mu_e, sigma2, method):
    """Player j's error with the method's own (or optimal) weights."""
    if method == "local" or len(n) == 1:
        return mu_e * zeta[j]
    if method == "uniform":
        return _coarse_error(n, zeta, j, 0 * mu_e, mu_e, sigma2)
    if method == "coarse":
        return _coarse_error(n, zeta, j, optimal_coarse_weight(n, zeta, j, mu_e, sigma2), mu_e, sigma2)
    return _fine_error(zeta, j, optimal_fine_weights(zeta, j, mu_e, sigma2), mu_e, sigma2)


def _errors(n, zeta, mu_e, sigma2, method, weights, exact):
    m = len(n)
    if weights is None:
        out = [_optimal_error(n, zeta, j, mu_e, sigma2, method) for j in range(m)]
    elif method == "local" or m == 1:
        out = [mu_e * z for z in zeta]
    elif method == "uniform":
        raise ValueError("uniform federation takes no weights")
    elif method == "coarse":
        w = _num(weights, exact)
        if len(w) != m:
            raise ValueError(f"coarse weights need one value per player ({m}), got {len(w)}")
        out = [_coarse_error(n, zeta, j, w[j], mu_e, sigma2) for j in range(m)]
    else:
        rows = [_num(row, exact) for row in np.asarray(weights, dtype=object).reshape(m, m)]
        if any(abs(float(sum(r)) - 1) > 1e-9 for r in rows):
            raise ValueError("fine-grained weights must be row-stochastic (each row sums to 1)")
        out = [_fine_error(zeta, j, rows[j], mu_e, sigma2) for j in range(m)]
    return np.array(out, dtype=object if exact else float)


def errors(n: Sequence[Any], *, mu_e: Any, sigma2: Any, method: str, weights: Any = None, exact: bool = False) -> np.ndarray:
    """Expected MSE of every member of one coalition, for mean estimation.

    ``n``: sample sizes of the coalition's members. ``method``: local, uniform, coarse or fine. ``weights``: None
    for the optimal weights (coarse: Lemma 6.1, fine: Lemma 7.1), a length-M vector w for coarse, or an M x M
    row-stochastic matrix V for fine. ``exact=True`` returns Fractions.
    """
    _check(n, mu_e, sigma2, method)
    ns = _num(n, exact)
    mu, s2 = (as_fraction(mu_e), as_fraction(sigma2)) if exact else (float(mu_e), float(sigma2))
    return _errors(ns, [1 / x for x in ns], mu, s2, method, weights, exact)


def regression_errors(n: Sequence[Any], *, mu_e: Any, sigma2_d: Sequence[Any], method: str, weights: Any = None,
                      exact: bool = False) -> np.ndarray:
    """Expected MSE for linear regression with D = len(sigma2_d) standard Gaussian features (Thm 4.1-4.2, Cor 4.3-4.4).

    Uses zeta_i = D / (n_i - D - 1) (inverse-Wishart mean, needs n_i > D + 1) and bias sigma2' = sum_d sigma_d^2.
    """
    d = len(sigma2_d)
    _check(n, mu_e, 1, method)
    if any(float(x) <= d + 1 for x in n):
        raise ValueError(f"regression with D={d} Gaussian features needs every n_i > D + 1, got {list(n)}")
    ns = _num(n, exact)
    mu = as_fraction(mu_e) if exact else float(mu_e)
    bias = sum(_num(sigma2_d, exact))
    return _errors(ns, [d / (x - d - 1) for x in ns], mu, bias, method, weights, exact)


def optimal_coarse_error_closed_form(n: Sequence[Any], j: int, *, mu_e: Any, sigma2: Any):
    """Lemma 6.3: (mu_e (N - n_j) + B sigma2) / ((N - n_j) N + n_j B sigma2 / mu_e); singleton -> mu_e / n_j."""
    ns = [as_fraction(x) for x in n]
    mu, s2 = as_fraction(mu_e), as_fraction(sigma2)
    if len(ns) == 1:
        return mu / ns[0]
    total = sum(ns)
    b = _bias_factor(ns, j) * total * total
    return (mu * (total - ns[j]) + b * s2) / ((total - ns[j]) * total + ns[j] * b * s2 / mu)


def equal_size_coarse_error(n: Any, m: int, *, mu_e: Any, sigma2: Any):
    """Lemma 6.4: optimal coarse error of M players of equal size n: (mu_e^2/(nM) + mu_e sigma2)/(mu_e + n sigma2)."""
    n, mu, s2 = as_fraction(n), as_fraction(mu_e), as_fraction(sigma2)
    return (mu * mu / (n * m) + mu * s2) / (mu + n * s2)


def two_type_errors(s: int, l: int, n_s: Any, n_l: Any, *, mu_e: Any, sigma2: Any, method: str) -> tuple[Fraction | None, Fraction | None]:
    """Exact (err_S, err_L) of a small and a large player in a coalition pi(s, l) (None when that type is absent)."""
    _check([1], mu_e, sigma2, method)
    sizes = [as_fraction(n_s)] * s + [as_fraction(n_l)] * l
    if not sizes:
        return None, None
    zeta = [1 / x for x in sizes]
    mu, s2 = as_fraction(mu_e), as_fraction(sigma2)
    err_s = _optimal_error(sizes, zeta, 0, mu, s2, method) if s else None
    err_l = _optimal_error(sizes, zeta, s, mu, s2, method) if l else None
    return err_s, err_l
