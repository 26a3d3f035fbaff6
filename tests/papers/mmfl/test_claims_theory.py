"""The theory rows (papers.mmfl.claims_theory) fed generated grid results: each matches when the statement holds on
the grid and differs when it is false somewhere (an erratum row: when the printed statement holds, or the corrected
one fails)."""

from __future__ import annotations

import numpy as np

from fairshare.papers.mmfl import claims_theory as ct

LEMMAS = [dict(tasks=3, clients=5, var1=0.02, var2=0.01, cos1=1.6, cos2=1.7) for _ in range(3)]


def test_lemma_rows_match_when_alpha_2_is_fairer_everywhere():
    assert ct.lemma1_row(LEMMAS).status == "match" and ct.lemma2_row(LEMMAS).status == "match"


def test_lemma1_differs_when_alpha_2_has_a_larger_variance_once():
    rows = [*LEMMAS, dict(LEMMAS[0], var2=0.03)]
    assert ct.lemma1_row(rows).status == "differs" and "3 of 4" in ct.lemma1_row(rows).reproduced


def test_lemma2_differs_when_alpha_2_has_a_lower_cosine_once():
    assert ct.lemma2_row([*LEMMAS, dict(LEMMAS[0], cos2=1.5)]).status == "differs"


def _path(k: int, q: list[float], term: list[float], peak: float = 0.29) -> dict:
    return dict(clients=k, tasks=5, peak=peak, q=np.array(q), term=np.array(term))


def test_corollary5_erratum_holds_when_the_term_rises_only_below_the_peak():
    paths = [_path(5, [0.2, 0.25, 0.3, 0.5], [0.10, 0.11, 0.10, 0.08])]
    assert ct.corollary5_row(paths).status == "match"


def test_corollary5_differs_when_the_printed_statement_holds():
    assert ct.corollary5_row([_path(5, [0.3, 0.5, 0.7], [0.1, 0.08, 0.06])]).status == "differs"


def test_corollary5_differs_when_the_term_rises_above_the_peak():
    paths = [_path(5, [0.2, 0.25], [0.10, 0.11]), _path(5, [0.4, 0.5], [0.08, 0.09])]
    assert ct.corollary5_row(paths).status == "differs"


def test_corollary5_differs_when_q_falls_with_alpha():
    paths = [_path(5, [0.2, 0.25], [0.10, 0.11]), _path(5, [0.5, 0.4], [0.08, 0.07])]
    assert ct.corollary5_row(paths).status == "differs"


def _eq16(freq: list[float], printed: list[float], fixed: list[float]) -> dict:
    return dict(errors=(10.0, 50.0), alpha=2, freq=np.array(freq), printed=np.array(printed), fixed=np.array(fixed))


def test_eq16_erratum_holds_when_only_the_corrected_exponent_agrees():
    assert ct.eq16_row([_eq16([0.3, 0.7], [0.1, 0.9], [0.3, 0.7])]).status == "match"


def test_eq16_differs_when_the_printed_formula_agrees():
    assert ct.eq16_row([_eq16([0.3, 0.7], [0.3, 0.7], [0.3, 0.7])]).status == "differs"


def test_eq16_differs_when_the_corrected_formula_disagrees():
    assert ct.eq16_row([_eq16([0.3, 0.7], [0.1, 0.9], [0.5, 0.5])]).status == "differs"


def _bound(lhs: float, rhs: float) -> dict:
    return dict(clients=3, q=0.5, sigma2=0.0, distance=1.0, steps=4.0, lhs=lhs, rhs=rhs)


def test_theorem4_matches_when_the_bound_holds_and_differs_when_it_fails_once():
    assert ct.theorem4_row([_bound(0.5, 0.7)]).status == "match"
    failed = ct.theorem4_row([_bound(0.5, 0.7), _bound(0.9, 0.7)])
    assert failed.status == "differs" and "fails at K=3, q=0.5" in failed.reproduced


def test_corollary6_matches_when_the_bound_holds_and_differs_when_it_fails_once():
    ok = dict(clients=3, q=0.5, sigma2=0.0, distance=1.0, gamma=4.0, rounds=10, error=0.1, bound=0.2)
    assert ct.corollary6_row([ok]).status == "match"
    assert ct.corollary6_row([ok, dict(ok, error=0.3)]).status == "differs"


def test_every_theory_row_is_emitted_in_the_papers_order():
    results = dict(
        lemmas=LEMMAS,
        cor5=[_path(5, [0.2, 0.25], [0.10, 0.11])],
        eq16=[_eq16([0.3, 0.7], [0.1, 0.9], [0.3, 0.7])],
        thm4=[_bound(0.5, 0.7)],
        cor6=[dict(clients=3, q=0.5, sigma2=0.0, distance=1.0, gamma=4.0, rounds=10, error=0.1, bound=0.2)],
    )
    arts = [r.artifact for r in ct.theory_claims(results)]
    assert arts == ["Lemma 1", "Lemma 2", "Eq. 16", "Theorem 4", "Corollary 5", "Corollary 6"]
