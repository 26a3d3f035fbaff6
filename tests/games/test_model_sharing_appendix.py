"""The Appendix C/D formulas, exact dual-number derivatives, and the claims grid with its errata."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from fairshare.games import model_sharing_appendix as app
from fairshare.games import model_sharing_claims as claims
from fairshare.games.model_sharing import two_type_errors


def test_dual_numbers_give_exact_derivatives():
    f = lambda x, a: x**3 / (a + x) - 2 * x  # noqa: E731
    x, a = Fraction(3, 7), Fraction(5)
    expected = (3 * x**2 * (a + x) - x**3) / (a + x) ** 2 - 2
    assert app.derivative(f, {"x": x, "a": a}, "x") == expected
    assert app.derivative(f, {"x": x, "a": a}, "a") == -(x**3) / (a + x) ** 2


def test_appendix_formulas_match_the_error_oracle():
    for s, l, n_s, n_l in ((1, 1, 3, 17), (4, 2, 5, 50), (70, 3, 11, 106)):
        args = tuple(map(Fraction, (s, l, n_s, n_l, 100, 1)))
        assert (app.err_small_uniform(*args), app.err_large_uniform(*args)) == two_type_errors(s, l, n_s, n_l, mu_e=100, sigma2=1, method="uniform")
        assert (app.err_small_coarse(*args), app.err_large_coarse(*args)) == two_type_errors(s, l, n_s, n_l, mu_e=100, sigma2=1, method="coarse")
        assert app.g_large(*args) / app.h_large_printed(*args) != app.err_large_coarse(*args)  # spec erratum 10: h_L's n_s


def test_printed_derivatives_against_exact_ones():
    p = {"s": Fraction(9, 2), "l": Fraction(7, 3), "n_s": Fraction(4), "n_l": Fraction(23), "mu_e": Fraction(10), "sigma2": Fraction(3, 2)}
    args = [p[k] for k in ("s", "l", "n_s", "n_l", "mu_e", "sigma2")]
    assert app.derivative(app.err_small_uniform, p, "s") == app.c1_derivative_printed(*args)
    assert app.derivative(app.err_large_uniform, p, "s") != app.c4_derivative_printed(*args)  # sign typo (spec erratum 8)
    assert app.derivative(app.err_large_uniform, p, "s") == app.c4_derivative_corrected(*args)
    assert app.quotient_numerator(app.g_large, app.h_large_corrected, p, "s") != app.d4_numerator_printed(*args)
    assert app.quotient_numerator(app.g_large, app.h_large_corrected, p, "s") == app.d4_numerator_corrected(*args)


def test_claims_grid_small_holds_and_records_errata():
    rows = claims.all_claims("small", np.random.default_rng(0))
    assert len(rows) > 30 and all(set(r) == set(claims.COLUMNS) for r in rows)
    checks = [r for r in rows if not r["erratum"]]
    errata = [r for r in rows if r["erratum"]]
    assert all(r["holds"] for r in checks), [r["claim"] for r in checks if not r["holds"]]
    # Every erratum is a printed statement that fails, and the row says what holds instead.
    assert errata and all(not r["holds"] and r["note"] for r in errata)
    assert all(not r["note"].endswith("False") for r in errata)
    named = {r["claim"] for r in errata}
    assert {"Lemma C.4 (derivative)", "Lemma C.5", "Lemma D.3 (h_L)", "Lemma D.2 (threshold)", "Thm 6.5 (tie)"} <= named
