"""The App. C/D two-type closed forms and the exact dual-number derivatives."""

from __future__ import annotations

from fractions import Fraction

from fairshare.games import model_sharing_two_type as tt
from fairshare.games.model_sharing import two_type_errors


def test_dual_numbers_give_exact_derivatives():
    f = lambda x, a: x**3 / (a + x) - 2 * x  # noqa: E731
    x, a = Fraction(3, 7), Fraction(5)
    expected = (3 * x**2 * (a + x) - x**3) / (a + x) ** 2 - 2
    assert tt.derivative(f, {"x": x, "a": a}, "x") == expected
    assert tt.derivative(f, {"x": x, "a": a}, "a") == -(x**3) / (a + x) ** 2


def test_appendix_formulas_match_the_error_oracle():
    for s, l, n_s, n_l in ((1, 1, 3, 17), (4, 2, 5, 50), (70, 3, 11, 106)):
        args = tuple(map(Fraction, (s, l, n_s, n_l, 100, 1)))
        uniform = two_type_errors(s, l, n_s, n_l, mu_e=100, sigma2=1, method="uniform")
        coarse = two_type_errors(s, l, n_s, n_l, mu_e=100, sigma2=1, method="coarse")
        assert (tt.err_small_uniform(*args), tt.err_large_uniform(*args)) == uniform
        assert (tt.err_small_coarse(*args), tt.err_large_coarse(*args)) == coarse
        assert tt.g_small(*args) / tt.h_small(*args) == coarse[0]
        assert tt.g_large(*args) / tt.h_large(*args) == coarse[1]


def test_quotient_numerator_has_the_sign_of_the_derivative():
    p = {
        "s": Fraction(3),
        "l": Fraction(2),
        "n_s": Fraction(5),
        "n_l": Fraction(50),
        "mu_e": Fraction(10),
        "sigma2": Fraction(1),
    }
    numerator = tt.quotient_numerator(tt.g_large, tt.h_large, p, "s")
    derivative = tt.derivative(tt.err_large_coarse, p, "s")
    h = tt.h_large(**p)
    assert numerator == derivative * h * h


def test_lemma_5_1_error_is_uniform_error_at_equal_sizes():
    for m in (1, 2, 5):
        assert tt.lemma_5_1_error(Fraction(m), Fraction(7), Fraction(10), Fraction(1)) == tt.err_small_uniform(
            Fraction(m), Fraction(0), Fraction(7), Fraction(9), Fraction(10), Fraction(1)
        )
