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

from collections.abc import Sequence
from fractions import Fraction
from numbers import Rational
from typing import Any

import numpy as np

__all__ = [
    "METHODS",
    "as_fraction",
    "optimal_coarse_weight",
    "optimal_fine_weights",
    "errors",
    "regression_errors",
    "optimal_coarse_error_closed_form",
    "equal_size_coarse_error",
    "two_type_errors",
    "coalition_errors",
]

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


def _num(values, exact: bool) -> list:
    return [as_fraction(v) for v in values] if exact else [float(v) for v in values]


class _Coalition:
    """Sums over one coalition that every player's error needs, computed once (so each player costs O(1) or O(M))."""

    def __init__(self, n: Sequence, zeta: Sequence, mu_e, sigma2):
        self.n, self.zeta, self.mu_e, self.sigma2 = n, zeta, mu_e, sigma2
        self.total = sum(n)
        self.sum_sq = sum(x * x for x in n)
        # mu_e * a is the variance of the coalition average: sum_i n_i^2 zeta_i / N^2 (= 1/N for mean estimation)
        self.a = sum(x * x * z for x, z in zip(n, zeta)) / (self.total * self.total)

    def bias_factor(self, j: int):
        """B_j / N^2 with B_j = sum_{i != j} n_i^2 + (N - n_j)^2: the heterogeneity weight of the average (App. B)."""
        rest = self.total - self.n[j]
        return (self.sum_sq - self.n[j] ** 2 + rest * rest) / (self.total * self.total)

    def coarse_error(self, j: int, w):
        """Cor 4.4 (w = 0: uniform, Cor 4.3; w = 1: local, Thm 4.1), with zeta_j in the cross term (docs/model_sharing.md, Errata)."""
        variance = (
            self.mu_e * (1 - w) ** 2 * self.a
            + self.mu_e * (w * w + 2 * (1 - w) * w * self.n[j] / self.total) * self.zeta[j]
        )
        return variance + (1 - w) ** 2 * self.bias_factor(j) * self.sigma2

    def optimal_coarse_weight(self, j: int):
        """Lemma 6.1 (its zeta generalisation for regression): the w that zeroes d err / d w; 1 for a singleton."""
        if len(self.n) == 1:
            return self.mu_e * 0 + 1
        c = self.bias_factor(j) * self.sigma2
        share = self.n[j] / self.total
        num = self.mu_e * self.a + c - self.mu_e * self.zeta[j] * share
        return num / (self.mu_e * self.a + c + self.mu_e * self.zeta[j] * (1 - 2 * share))

    def fine_error(self, j: int, v: Sequence):
        """Thm 4.2: mu_e sum_i v_i^2 zeta_i + (sum_{i != j} v_i^2 + (sum_{i != j} v_i)^2) sigma2."""
        others = [v[i] for i in range(len(v)) if i != j]
        return (
            self.mu_e * sum(x * x * z for x, z in zip(v, self.zeta))
            + (sum(x * x for x in others) + sum(others) ** 2) * self.sigma2
        )

    def optimal_fine_weights(self, j: int) -> list:
        return optimal_fine_weights(self.zeta, j, self.mu_e, self.sigma2)


def optimal_coarse_weight(n: Sequence, zeta: Sequence, j: int, mu_e, sigma2):
    """Player j's optimal coarse weight w* (Lemma 6.1; zeta-generalised for regression). Singleton: 1 (local)."""
    return _Coalition(n, zeta, mu_e, sigma2).optimal_coarse_weight(j)


def optimal_fine_weights(zeta: Sequence, j: int, mu_e, sigma2) -> list:
    """Player j's optimal weight vector v_j (Lemma 7.1 with V_i = sigma2 + mu_e * zeta_i)."""
    v = [sigma2 + mu_e * z for z in zeta]
    inv_others = sum(1 / v[i] for i in range(len(v)) if i != j)
    den = 1 + v[j] * inv_others
    weights = [(v[j] - sigma2) / (v[k] * den) for k in range(len(v))]
    weights[j] = (1 + sigma2 * inv_others) / den
    return weights


def _player_error(c: _Coalition, j: int, method: str):
    """Player j's error with the method's own weights (optimal ones for coarse and fine)."""
    if method == "local" or len(c.n) == 1:
        return c.mu_e * c.zeta[j]
    if method == "uniform":
        return c.coarse_error(j, 0 * c.mu_e)
    if method == "coarse":
        return c.coarse_error(j, c.optimal_coarse_weight(j))
    return c.fine_error(j, c.optimal_fine_weights(j))


def _errors(n, zeta, mu_e, sigma2, method, weights, exact) -> np.ndarray:
    m = len(n)
    c = _Coalition(n, zeta, mu_e, sigma2)
    if weights is None:
        out = [_player_error(c, j, method) for j in range(m)]
    elif method == "local" or m == 1:
        out = [mu_e * z for z in zeta]
    elif method == "uniform":
        raise ValueError("uniform federation takes no weights")
    elif method == "coarse":
        w = _num(np.ravel(np.asarray(weights, dtype=object)), exact)
        if len(w) != m:
            raise ValueError(f"coarse weights need one value per player ({m}), got {len(w)}")
        out = [c.coarse_error(j, w[j]) for j in range(m)]
    else:
        matrix = np.asarray(weights, dtype=object)
        if matrix.shape != (m, m):
            raise ValueError(f"fine-grained weights need an {m} x {m} matrix, got shape {matrix.shape}")
        rows = [_num(row, exact) for row in matrix]
        if any(abs(float(sum(r)) - 1) > 1e-9 for r in rows):
            raise ValueError("fine-grained weights must be row-stochastic (each row sums to 1)")
        out = [c.fine_error(j, rows[j]) for j in range(m)]
    return np.array(out, dtype=object if exact else float)


def errors(
    n: Sequence[Any], *, mu_e: Any, sigma2: Any, method: str, weights: Any = None, exact: bool = False
) -> np.ndarray:
    """Expected MSE of every member of one coalition, for mean estimation (Thm 4.1-4.2, Cor 4.3-4.4).

    ``n``: sample sizes of the coalition's members. ``method``: local, uniform, coarse or fine. ``weights``: None
    for the optimal weights (coarse: Lemma 6.1, fine: Lemma 7.1), a length-M vector w for coarse, or an M x M
    row-stochastic matrix V for fine. ``exact=True`` returns Fractions (floats are read as their decimal repr).
    """
    _check(n, mu_e, sigma2, method)
    ns = _num(n, exact)
    mu, s2 = (as_fraction(mu_e), as_fraction(sigma2)) if exact else (float(mu_e), float(sigma2))
    return _errors(ns, [1 / x for x in ns], mu, s2, method, weights, exact)


def regression_errors(
    n: Sequence[Any], *, mu_e: Any, sigma2_d: Sequence[Any], method: str, weights: Any = None, exact: bool = False
) -> np.ndarray:
    """Expected MSE for linear regression with D = len(sigma2_d) standard Gaussian features (Thm 4.1-4.2, Cor 4.3-4.4).

    Uses zeta_i = D / (n_i - D - 1) (inverse-Wishart mean, needs n_i > D + 1) and bias sigma2' = sum_d sigma_d^2
    (E[(x^d)^2] = 1). Every player has the same input covariance, as the paper's Gaussian displays assume.
    """
    d = len(sigma2_d)
    _check(n, mu_e, 1, method)
    if any(float(x) <= d + 1 for x in n):
        raise ValueError(f"regression with D={d} Gaussian features needs every n_i > D + 1, got {list(n)}")
    ns = _num(n, exact)
    mu = as_fraction(mu_e) if exact else float(mu_e)
    return _errors(ns, [d / (x - d - 1) for x in ns], mu, sum(_num(sigma2_d, exact)), method, weights, exact)


def optimal_coarse_error_closed_form(n: Sequence[Any], j: int, *, mu_e: Any, sigma2: Any) -> Fraction:
    """Lemma 6.3: (mu_e (N - n_j) + B sigma2) / ((N - n_j) N + n_j B sigma2 / mu_e); singleton -> mu_e / n_j."""
    ns = [as_fraction(x) for x in n]
    mu, s2 = as_fraction(mu_e), as_fraction(sigma2)
    if len(ns) == 1:
        return mu / ns[0]
    total = sum(ns)
    b = sum(x * x for x in ns) - ns[j] ** 2 + (total - ns[j]) ** 2
    return (mu * (total - ns[j]) + b * s2) / ((total - ns[j]) * total + ns[j] * b * s2 / mu)


def equal_size_coarse_error(n: Any, m: int, *, mu_e: Any, sigma2: Any) -> Fraction:
    """Lemma 6.4: optimal coarse error of M players of equal size n: (mu_e^2/(nM) + mu_e sigma2)/(mu_e + n sigma2)."""
    n, mu, s2 = as_fraction(n), as_fraction(mu_e), as_fraction(sigma2)
    return (mu * mu / (n * m) + mu * s2) / (mu + n * s2)


# ------------------------------------------------------------------------------------------ counted coalitions
def _grouped_error(own, others: Sequence[tuple[Any, int]], mu_e, sigma2, method: str):
    """Error of a player with ``own`` samples whose partners are ``count`` players of each size (O(groups)).

    Uses the paper's closed forms directly (App. C uniform errors, Lemma 6.3, Lemma 7.1 + Thm 4.2), not the
    per-player code path above, so the two checkers cross-validate each other.
    """
    rest = sum(c * x for x, c in others)
    if method == "local" or rest == 0:
        return mu_e / own
    total = own + rest
    b = sum(c * x * x for x, c in others) + rest * rest  # B_j of App. C / D
    if method == "uniform":
        return mu_e / total + b * sigma2 / (total * total)
    if method == "coarse":
        return (mu_e * rest + b * sigma2) / (rest * total + own * b * sigma2 / mu_e)
    v_own = sigma2 + mu_e / own
    inv = sum(c / (sigma2 + mu_e / x) for x, c in others)
    den = 1 + v_own * inv
    v_jj = (1 + sigma2 * inv) / den
    lead = (v_own - sigma2) / den  # v_jk = lead / V_k for every partner k (Lemma 7.1)
    sq_others = sum(c * (lead / (sigma2 + mu_e / x)) ** 2 for x, c in others)
    var_others = sum(c * (lead / (sigma2 + mu_e / x)) ** 2 / x for x, c in others)
    return mu_e * (v_jj * v_jj / own + var_others) + (sq_others + (1 - v_jj) ** 2) * sigma2


def two_type_errors(
    s: int, l: int, n_s: Any, n_l: Any, *, mu_e: Any, sigma2: Any, method: str
) -> tuple[Fraction | None, Fraction | None]:
    """Exact (err_S, err_L) of a small and a large player in a coalition pi(s, l) (None when that type is absent)."""
    _check([n_s, n_l], mu_e, sigma2, method)
    if s < 0 or l < 0:
        raise ValueError(f"need s, l >= 0, got ({s}, {l})")
    ns, nl, mu, s2 = as_fraction(n_s), as_fraction(n_l), as_fraction(mu_e), as_fraction(sigma2)
    err_s = _grouped_error(ns, [(ns, s - 1), (nl, l)], mu, s2, method) if s else None
    err_l = _grouped_error(nl, [(ns, s), (nl, l - 1)], mu, s2, method) if l else None
    return err_s, err_l


# ------------------------------------------------------------------------------------------- all coalitions
def coalition_errors(n: Sequence[Any], *, mu_e: Any, sigma2: Any, method: str) -> np.ndarray:
    """Float error of every member of every coalition at once: E[mask, j], NaN where j is not in ``mask``.

    Vectorised over the 2^M bitmask coalitions from per-coalition sums (N, sum n_i^2, sum 1/V_i, ...), so the
    whole table costs O(2^M M); ``errors`` gives the same numbers one coalition at a time.
    """
    _check(n, mu_e, sigma2, method)
    m = len(n)
    sizes = np.asarray(n, dtype=float)
    mu, s2 = float(mu_e), float(sigma2)
    member = ((np.arange(1 << m)[:, None] >> np.arange(m)[None, :]) & 1).astype(bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        local = np.broadcast_to(mu / sizes, member.shape)
        total = member @ sizes
        rest = total[:, None] - sizes[None, :]
        b = (member @ sizes**2)[:, None] - sizes[None, :] ** 2 + rest**2
        if method == "local":
            out = local.copy()
        elif method == "uniform":
            out = mu / total[:, None] + b * s2 / total[:, None] ** 2
        elif method == "coarse":
            out = (mu * rest + b * s2) / (rest * total[:, None] + sizes[None, :] * b * s2 / mu)  # Lemma 6.3
        else:
            v = s2 + mu / sizes
            inv = (member @ (1 / v))[:, None] - 1 / v[None, :]
            den = 1 + v[None, :] * inv
            v_jj = (1 + s2 * inv) / den
            lead = (v[None, :] - s2) / den
            sq_others = lead**2 * ((member @ (1 / v**2))[:, None] - 1 / v[None, :] ** 2)
            var_others = lead**2 * ((member @ (1 / (v**2 * sizes)))[:, None] - 1 / (v**2 * sizes)[None, :])
            out = mu * (v_jj**2 / sizes[None, :] + var_others) + (sq_others + (1 - v_jj) ** 2) * s2
    alone = member & (member.sum(axis=1, keepdims=True) == 1)
    out = np.where(alone, local, out)
    return np.where(member, out, np.nan)
