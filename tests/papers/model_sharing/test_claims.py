"""The model-sharing claim rows: the transcribed App. C/D formulas and the theorem-check grid with its errata."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fairshare.games import model_sharing_two_type as tt
from fairshare.papers.model_sharing import claims


def test_printed_derivatives_against_exact_ones():
    p = {
        "s": Fraction(9, 2),
        "l": Fraction(7, 3),
        "n_s": Fraction(4),
        "n_l": Fraction(23),
        "mu_e": Fraction(10),
        "sigma2": Fraction(3, 2),
    }
    args = [p[k] for k in ("s", "l", "n_s", "n_l", "mu_e", "sigma2")]
    assert tt.derivative(tt.err_small_uniform, p, "s") == claims.c1_derivative_printed(*args)
    # the printed C.4 derivative has a sign typo (spec erratum 8)
    assert tt.derivative(tt.err_large_uniform, p, "s") != claims.c4_derivative_printed(*args)
    assert tt.derivative(tt.err_large_uniform, p, "s") == claims.c4_derivative_corrected(*args)
    assert tt.quotient_numerator(tt.g_large, tt.h_large, p, "s") != claims.d4_numerator_printed(*args)
    assert tt.quotient_numerator(tt.g_large, tt.h_large, p, "s") == claims.d4_numerator_corrected(*args)
    assert tt.g_large(*args) / claims.h_large_printed(*args) != tt.err_large_coarse(*args)  # spec erratum 10: h_L's n_s


def test_claims_grid_small_holds_and_records_errata():
    rows = claims.theorem_checks("small", np.random.default_rng(0))
    assert len(rows) > 30 and {r.paper for r in rows} == {"model_sharing"}
    checks = [r for r in rows if r.kind != "erratum"]
    errata = [r for r in rows if r.kind == "erratum"]
    assert all(r.status == "match" for r in checks), [r.claim for r in checks if r.status != "match"]
    # Every erratum is a printed statement that fails, and the row says what holds instead.
    assert errata and all(r.status == "differs" and r.note for r in errata)
    assert all(not r.note.endswith("False") for r in errata)
    named = {r.claim for r in errata}
    assert {"Lemma C.4 (derivative)", "Lemma C.5", "Lemma D.3 (h_L)", "Lemma D.2 (threshold)", "Thm 6.5 (tie)"} <= named
