"""The two-type formulas of "Model-sharing Games" Appendices C and D, as printed and as corrected, with exact derivatives.

Every expression is plain arithmetic in (s, l, n_s, n_l, mu_e, sigma2), so it evaluates on ints, Fractions or
:class:`Dual` numbers. A Dual carries an exact first derivative (forward-mode differentiation over Fractions), which
lets the claims grid test each printed derivative and threshold against the true derivative at rational points,
exactly, without a computer-algebra dependency. Names ending in ``_printed`` transcribe the paper; ``_corrected``
are the fixed versions (spec §8, items 8-11).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable


@dataclass(frozen=True)
class Dual:
    """a + b*eps with eps^2 = 0: ``val`` is a value, ``der`` its exact derivative along one variable."""

    val: Fraction
    der: Fraction

    @staticmethod
    def _lift(x: Any) -> "Dual":
        return x if isinstance(x, Dual) else Dual(Fraction(x), Fraction(0))

    def __add__(self, other: Any) -> "Dual":
        o = Dual._lift(other)
        return Dual(self.val + o.val, self.der + o.der)

    __radd__ = __add__

    def __neg__(self) -> "Dual":
        return Dual(-self.val, -self.der)

    def __sub__(self, other: Any) -> "Dual":
        return self + (-Dual._lift(other))

    def __rsub__(self, other: Any) -> "Dual":
        return Dual._lift(other) - self

    def __mul__(self, other: Any) -> "Dual":
        o = Dual._lift(other)
        return Dual(self.val * o.val, self.der * o.val + self.val * o.der)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "Dual":
        o = Dual._lift(other)
        return Dual(self.val / o.val, (self.der * o.val - self.val * o.der) / (o.val * o.val))

    def __rtruediv__(self, other: Any) -> "Dual":
        return Dual._lift(other) / self

    def __pow__(self, k: int) -> "Dual":
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


# ------------------------------------------------------------------------------------------- App. C: uniform
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


def lemma_5_1_derivative_printed(M, n, mu_e, sigma2):
    return (sigma2 * n - mu_e) / (n * M**2)


def c1_derivative_printed(s, l, n_s, n_l, mu_e, sigma2):
    """Lemma C.1: d err_S / d s."""
    cube = (s * n_s + l * n_l) ** 3
    return n_s * (s * n_s * (n_s * sigma2 - mu_e)) / cube - n_s * (l * n_l * (mu_e + 2 * n_l * sigma2 - 3 * n_s * sigma2)) / cube


def c2_derivative_printed(s, l, n_s, n_l, mu_e, sigma2):
    """Lemma C.2: d err_L / d l."""
    return n_l * (l * n_l * (n_l * sigma2 - mu_e) - n_s * s * (mu_e - 3 * n_l * sigma2 + 2 * n_s * sigma2)) / (l * n_l + n_s * s) ** 3


def c2_threshold_printed(s, n_s, n_l, mu_e, sigma2):
    """Lemma C.2 (n_l < mu_e/sigma2): the sign of d err_L / d l changes at this l."""
    return n_s * s * (mu_e - 3 * n_l * sigma2 + 2 * n_s * sigma2) / (n_l * (n_l * sigma2 - mu_e))


def c3_derivative_printed(s, l, n_s, n_l, mu_e, sigma2):
    """Lemma C.3: d err_S / d l."""
    cube = (l * n_l + s * n_s) ** 3
    return (-n_l * (l * n_l * (mu_e - sigma2 * n_s + sigma2 * (n_l - n_s))) / cube
            - n_l * (s * n_s * (mu_e - n_l * sigma2)) / cube)


def c3_threshold_printed(s, n_s, n_l, mu_e, sigma2):
    return s * n_s * (n_l * sigma2 - mu_e) / (n_l * (mu_e - sigma2 * n_s + sigma2 * (n_l - n_s)))


def c4_derivative_printed(s, l, n_s, n_l, mu_e, sigma2):
    """Lemma C.4: d err_L / d s as printed (first term has the wrong sign)."""
    cube = (l * n_l + s * n_s) ** 3
    return (n_s * (l * n_l * (mu_e - n_s * sigma2)) / cube
            - n_s * (n_s * s * (mu_e - n_l * sigma2 + sigma2 * (n_s - n_l))) / cube)


def c4_derivative_corrected(s, l, n_s, n_l, mu_e, sigma2):
    cube = (l * n_l + s * n_s) ** 3
    return (-n_s * (l * n_l * (mu_e - n_s * sigma2)) / cube
            - n_s * (n_s * s * (mu_e - n_l * sigma2 + sigma2 * (n_s - n_l))) / cube)


def c4_threshold_printed(l, n_s, n_l, mu_e, sigma2):
    """Lemma C.4: the sign of d err_L / d s changes at this s."""
    return -l * n_l * (mu_e - n_s * sigma2) / (n_s * (mu_e - n_l * sigma2 + sigma2 * (n_s - n_l)))


# ---------------------------------------------------------------------------------- App. D: optimal coarse
def _small_sums(s, l, n_s, n_l):
    rest = (s - 1) * n_s + l * n_l
    return rest, (s - 1) * n_s**2 + l * n_l**2 + rest**2


def _large_sums(s, l, n_s, n_l):
    rest = s * n_s + (l - 1) * n_l
    return rest, s * n_s**2 + (l - 1) * n_l**2 + rest**2


def g_small(s, l, n_s, n_l, mu_e, sigma2):
    rest, b = _small_sums(s, l, n_s, n_l)
    return mu_e * rest + b * sigma2


def h_small(s, l, n_s, n_l, mu_e, sigma2):
    rest, b = _small_sums(s, l, n_s, n_l)
    return rest**2 + n_s * rest + n_s * sigma2 / mu_e * b


def g_large(s, l, n_s, n_l, mu_e, sigma2):
    rest, b = _large_sums(s, l, n_s, n_l)
    return mu_e * rest + b * sigma2


def h_large_printed(s, l, n_s, n_l, mu_e, sigma2):
    """Lemma D.3's h_L as printed: n_s in the second term."""
    rest, b = _large_sums(s, l, n_s, n_l)
    return rest**2 + n_s * rest + n_l * sigma2 / mu_e * b


def h_large_corrected(s, l, n_s, n_l, mu_e, sigma2):
    rest, b = _large_sums(s, l, n_s, n_l)
    return rest**2 + n_l * rest + n_l * sigma2 / mu_e * b


def err_small_coarse(s, l, n_s, n_l, mu_e, sigma2):
    """g_S / h_S (Lemma D.1)."""
    return g_small(s, l, n_s, n_l, mu_e, sigma2) / h_small(s, l, n_s, n_l, mu_e, sigma2)


def err_large_coarse(s, l, n_s, n_l, mu_e, sigma2):
    """g_L / h_L with the corrected h_L (Lemma D.3)."""
    return g_large(s, l, n_s, n_l, mu_e, sigma2) / h_large_corrected(s, l, n_s, n_l, mu_e, sigma2)


def quotient_numerator(g: Callable, h: Callable, point: dict[str, Any], wrt: str) -> Fraction:
    """g' h - g h' at ``point``: the sign of d(g/h) (the expression Lemmas D.1-D.4 simplify)."""
    values = {k: Fraction(v) for k, v in point.items()}
    return derivative(g, point, wrt) * h(**values) - g(**values) * derivative(h, point, wrt)


def d1_numerator_printed(s, l, n_s, n_l, mu_e, sigma2):
    rest = (s - 1) * n_s + l * n_l
    return -n_s * rest * ((s - 1) * n_s * (mu_e + n_s * sigma2) + l * n_l * (mu_e + sigma2 * (2 * n_l - n_s)))


def d2_numerator_printed(s, l, n_s, n_l, mu_e, sigma2):
    rest = (s - 1) * n_s + l * n_l
    return -n_l * rest * ((s - 1) * n_s * (mu_e + sigma2 * (2 * n_s - n_l)) + l * n_l * (mu_e + sigma2 * n_l))


def d2_threshold_printed(s, n_s, n_l, mu_e, sigma2):
    return -(mu_e + sigma2 * (2 * n_s - n_l)) / (n_l * (mu_e + sigma2 * n_l))


def d2_threshold_corrected(s, n_s, n_l, mu_e, sigma2):
    return -(s - 1) * n_s * (mu_e + sigma2 * (2 * n_s - n_l)) / (n_l * (mu_e + sigma2 * n_l))


def d3_numerator_printed(s, l, n_s, n_l, mu_e, sigma2):
    rest = s * n_s + (l - 1) * n_l
    return -n_l * rest * ((l - 1) * (mu_e + n_s * sigma2) + s * n_s * (mu_e + sigma2 * (2 * n_s - n_l)))


def d3_numerator_corrected(s, l, n_s, n_l, mu_e, sigma2):
    rest = s * n_s + (l - 1) * n_l
    return -n_l * rest * ((l - 1) * n_l * (mu_e + n_l * sigma2) + s * n_s * (mu_e + sigma2 * (2 * n_s - n_l)))


def d3_threshold_printed(s, n_s, n_l, mu_e, sigma2):
    return (-s * n_s * (mu_e + sigma2 * (2 * n_s - n_l)) + mu_e + n_s * sigma2) / (mu_e + n_s * sigma2)


def d3_threshold_corrected(s, n_s, n_l, mu_e, sigma2):
    return 1 - s * n_s * (mu_e + sigma2 * (2 * n_s - n_l)) / (n_l * (mu_e + n_l * sigma2))


def d4_numerator_printed(s, l, n_s, n_l, mu_e, sigma2):
    rest = s * n_s + (l - 1) * n_l
    return -n_s * rest * (s * n_s * (mu_e + sigma2 * n_s) + l * n_l * (mu_e + sigma2 * (2 * n_l - n_s)))


def d4_numerator_corrected(s, l, n_s, n_l, mu_e, sigma2):
    rest = s * n_s + (l - 1) * n_l
    return -n_s * rest * (s * n_s * (mu_e + sigma2 * n_s) + (l - 1) * n_l * (mu_e + sigma2 * (2 * n_l - n_s)))
