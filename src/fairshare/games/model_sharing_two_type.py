"""Two-type closed forms of "Model-sharing Games" (App. C uniform, App. D optimal coarse), with exact derivatives.

Every expression is plain arithmetic in (s, l, n_s, n_l, mu_e, sigma2), so it evaluates on ints, Fractions or
:class:`Dual` numbers. A Dual carries an exact first derivative (forward-mode differentiation over Fractions), so a
derivative or a sign-change threshold can be evaluated exactly at rational points without a computer-algebra
dependency. The values agree with :func:`fairshare.games.model_sharing.two_type_errors`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = [
    "Dual",
    "derivative",
    "err_small_uniform",
    "err_large_uniform",
    "lemma_5_1_error",
    "g_small",
    "h_small",
    "g_large",
    "h_large",
    "err_small_coarse",
    "err_large_coarse",
    "quotient_numerator",
]


@dataclass(frozen=True)
class Dual:
    """a + b*eps with eps^2 = 0: ``val`` is a value, ``der`` its exact derivative along one variable."""

    val: Fraction
    der: Fraction

    @staticmethod
    def _lift(x: Any) -> Dual:
        return x if isinstance(x, Dual) else Dual(Fraction(x), Fraction(0))

    def __add__(self, other: Any) -> Dual:
        o = Dual._lift(other)
        return Dual(self.val + o.val, self.der + o.der)

    __radd__ = __add__

    def __neg__(self) -> Dual:
        return Dual(-self.val, -self.der)

    def __sub__(self, other: Any) -> Dual:
        return self + (-Dual._lift(other))

    def __rsub__(self, other: Any) -> Dual:
        return Dual._lift(other) - self

    def __mul__(self, other: Any) -> Dual:
        o = Dual._lift(other)
        return Dual(self.val * o.val, self.der * o.val + self.val * o.der)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Dual:
        o = Dual._lift(other)
        return Dual(self.val / o.val, (self.der * o.val - self.val * o.der) / (o.val * o.val))

    def __rtruediv__(self, other: Any) -> Dual:
        return Dual._lift(other) / self

    def __pow__(self, k: int) -> Dual:
        if not isinstance(k, int) or k < 0:
            raise ValueError("Dual supports non-negative integer powers only")
        out = Dual(Fraction(1), Fraction(0))
        for _ in range(k):
            out = out * self
        return out


def derivative(f: Callable[..., Any], point: dict[str, Any], wrt: str) -> Fraction:
    """Exact d f / d ``wrt`` at ``point`` (a dict of keyword arguments of f)."""
    args = {k: Fraction(v) for k, v in point.items()}
    args[wrt] = Dual(args[wrt], Fraction(1))
    out = f(**args)
    return out.der if isinstance(out, Dual) else Fraction(0)


# ---------------------------------------------------------------------------------------- App. C: uniform
def err_small_uniform(s, l, n_s, n_l, mu_e, sigma2):
    """err_S(pi(s, l)) under uniform federation (App. C, Lemma C.1)."""
    total = s * n_s + l * n_l
    return mu_e / total + sigma2 * ((s - 1) * n_s**2 + l * n_l**2 + ((s - 1) * n_s + l * n_l) ** 2) / total**2


def err_large_uniform(s, l, n_s, n_l, mu_e, sigma2):
    """err_L(pi(s, l)) under uniform federation (App. C, Lemma C.2)."""
    total = s * n_s + l * n_l
    return mu_e / total + sigma2 * (s * n_s**2 + (l - 1) * n_l**2 + (s * n_s + (l - 1) * n_l) ** 2) / total**2


def lemma_5_1_error(M, n, mu_e, sigma2):
    """Equal sizes, uniform: mu_e/(M n) + sigma2 (M - 1)/M (Lemma 5.1)."""
    return mu_e / (M * n) + sigma2 * (M - 1) / M


# ------------------------------------------------------------------ App. D: optimal coarse error as g / h (Lemma 6.3)
def _small_sums(s, l, n_s, n_l):
    """(N - n_s, B_S) for a small player: the partners' samples and App. D's heterogeneity sum."""
    rest = (s - 1) * n_s + l * n_l
    return rest, (s - 1) * n_s**2 + l * n_l**2 + rest**2


def _large_sums(s, l, n_s, n_l):
    """(N - n_l, B_L) for a large player."""
    rest = s * n_s + (l - 1) * n_l
    return rest, s * n_s**2 + (l - 1) * n_l**2 + rest**2


def g_small(s, l, n_s, n_l, mu_e, sigma2):
    """Numerator g_S of a small player's optimal coarse error (Lemma D.1)."""
    rest, b = _small_sums(s, l, n_s, n_l)
    return mu_e * rest + b * sigma2


def h_small(s, l, n_s, n_l, mu_e, sigma2):
    """Denominator h_S of a small player's optimal coarse error (Lemma D.1)."""
    rest, b = _small_sums(s, l, n_s, n_l)
    return rest**2 + n_s * rest + n_s * sigma2 / mu_e * b


def g_large(s, l, n_s, n_l, mu_e, sigma2):
    """Numerator g_L of a large player's optimal coarse error (Lemma D.3)."""
    rest, b = _large_sums(s, l, n_s, n_l)
    return mu_e * rest + b * sigma2


def h_large(s, l, n_s, n_l, mu_e, sigma2):
    """Lemma D.3's h_L with n_l in its second term (the printed n_s does not give Lemma 6.3: docs/model_sharing.md, Errata)."""
    rest, b = _large_sums(s, l, n_s, n_l)
    return rest**2 + n_l * rest + n_l * sigma2 / mu_e * b


def err_small_coarse(s, l, n_s, n_l, mu_e, sigma2):
    """g_S / h_S (Lemma D.1)."""
    return g_small(s, l, n_s, n_l, mu_e, sigma2) / h_small(s, l, n_s, n_l, mu_e, sigma2)


def err_large_coarse(s, l, n_s, n_l, mu_e, sigma2):
    """g_L / h_L (Lemma D.3, with h_L as in :func:`h_large`)."""
    return g_large(s, l, n_s, n_l, mu_e, sigma2) / h_large(s, l, n_s, n_l, mu_e, sigma2)


def quotient_numerator(g: Callable, h: Callable, point: dict[str, Any], wrt: str) -> Fraction:
    """g' h - g h' at ``point``: the sign of d(g/h) (the expression Lemmas D.1-D.4 simplify)."""
    values = {k: Fraction(v) for k, v in point.items()}
    return derivative(g, point, wrt) * h(**values) - g(**values) * derivative(h, point, wrt)
