"""The theory rows (papers.mmfl.claims_theory) fed generated grid results: each matches when the statement holds on
the grid and differs when it is false somewhere (an erratum row: when the printed statement holds, or the corrected
one fails); and the statements that hold by construction (Lemmas 1-2, the Eq. 16 erratum) as unit tests."""

from __future__ import annotations

import numpy as np

from fairshare.learning import mmfl_theory as th
from fairshare.papers.mmfl import claims_theory as ct


def test_lemma1_and_lemma2_hold_at_the_coupled_optimum():
    # Lemmas 1-2 as unit tests, not rows: both follow in two lines from the optimality conditions of (7), so a grid of
    # instances cannot refute them; checked on coupled toy instances f_s(n) = a + b (1 + n)^-c (S tasks sharing K).
    rng = np.random.default_rng(2026)
    for tasks in (2, 3, 5):
        for clients in (5, 20, 120):
            shape = (20, tasks)
            a, b, c = rng.uniform(0.05, 0.5, shape), rng.uniform(0.5, 3.0, shape), rng.uniform(0.3, 2.0, shape)
            f1 = th.coupled_optimum(a, b, c, clients, 1.0)[1]
            f2 = th.coupled_optimum(a, b, c, clients, 2.0)[1]
            for x1, x2 in zip(f1, f2):
                assert np.var(x2) <= np.var(x1) + 1e-9  # Lemma 1
                assert th.cosine_ratio(x2) >= th.cosine_ratio(x1) - 1e-9  # Lemma 2


def test_eq16_is_algorithm1s_law_with_eq5s_exponent_not_the_printed_one():
    # The Eq. 16 erratum as a unit test, not a row: Algorithm 1's sampler draws task s with Eq. 5's exponent alpha - 1
    # by its definition, so Eq. 16 with alpha - 1 is its law and Eq. 16 as printed (exponent alpha) is not. Each
    # selection set's frequency for task 0 over 20,000 draws against both, within 5 binomial standard errors.
    from fairshare.learning.mmfl import allocate

    clients, draws, rng = 4, 20_000, np.random.default_rng(2028)
    sizes = np.array([bin(code).count("1") for code in range(2**clients)])
    for errors in ((10.0, 40.0, 70.0), (5.0, 5.0, 60.0)):
        accuracies = [1.0 - e / 100.0 for e in errors]
        for alpha in (2, 3):
            n = clients * draws
            tasks = allocate("fedfair", np.arange(n), n, len(errors), 1, accuracies, alpha, rng)
            codes = (tasks.reshape(draws, clients) == 0) @ (1 << np.arange(clients))
            freq = np.bincount(codes, minlength=2**clients) / draws

            def law(exponent: float) -> np.ndarray:
                q = th.allocation_vector(errors, exponent)[0]
                return np.array([th.selection_probability(q, j, clients) for j in sizes])

            def agrees(prob: np.ndarray) -> bool:
                return bool(np.all(np.abs(freq - prob) <= 5 * np.sqrt(np.maximum(prob * (1 - prob), 1e-12) / draws)))

            assert agrees(law(alpha - 1)) and not agrees(law(alpha)), (errors, alpha)


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


def _bound(lhs: float, rhs: float, tau: int = 1) -> dict:
    return dict(clients=3, q=0.5, sigma2=0.0, distance=1.0, steps=4.0, tau=tau, lhs=lhs, rhs=rhs)


def test_theorem4_matches_when_the_bound_holds_and_differs_when_it_fails_once():
    assert ct.theorem4_row([_bound(0.5, 0.7)]).status == "match"
    failed = ct.theorem4_row([_bound(0.5, 0.7), _bound(0.9, 0.7)])
    assert failed.status == "differs" and "fails at K=3, q=0.5" in failed.reproduced


def test_theorem4_differs_when_the_bound_fails_only_with_tau_local_steps():
    failed = ct.theorem4_row([_bound(0.5, 0.7, 1), _bound(0.5, 0.7, 5), _bound(0.9, 0.7, 5)])
    assert failed.status == "differs"
    assert "tau = 1: 1 of 1; tau = 5: 1 of 2" in failed.reproduced and "tau=5" in failed.reproduced


def test_lemma3_matches_when_the_bound_holds_and_differs_when_it_fails_at_one_tau():
    assert ct.lemma3_row([_bound(0.05, 0.5, 1), _bound(0.1, 0.5, 5)]).status == "match"
    failed = ct.lemma3_row([_bound(0.05, 0.5, 1), _bound(0.6, 0.5, 5)])
    assert failed.status == "differs" and "tau = 5: 0 of 1" in failed.reproduced
    assert ct.lemma3_row([_bound(0.1, 0.0, 1)]).status == "differs"  # a positive discrepancy against a zero bound


def test_corollary6_matches_when_the_bound_holds_and_differs_when_it_fails_once():
    ok = dict(clients=3, q=0.5, sigma2=0.0, distance=1.0, gamma=4.0, rounds=10, tau=1, error=0.1, bound=0.2)
    assert ct.corollary6_row([ok]).status == "match"
    assert ct.corollary6_row([ok, dict(ok, error=0.3)]).status == "differs"
    failed = ct.corollary6_row([ok, dict(ok, tau=5), dict(ok, tau=5, rounds=100, error=0.3)])
    assert failed.status == "differs" and "tau = 5: 1 of 2" in failed.reproduced


def test_the_grids_run_every_tau_on_the_same_instances():
    keys = [k for k, _ in ct._quadratic_tasks()]
    assert {k["tau"] for k in keys} == set(ct.TAUS) and 1 in ct.TAUS and max(ct.TAUS) > 1
    first = {(k["clients"], k["q"], k["sigma2"]): t.centres for k, t in ct._quadratic_tasks() if k["tau"] == 1}
    for k, t in ct._quadratic_tasks():
        assert np.array_equal(t.centres, first[(k["clients"], k["q"], k["sigma2"])]) and t.tau == k["tau"]


def test_every_theory_row_is_emitted_in_the_papers_order():
    results = dict(
        cor5=[_path(5, [0.2, 0.25], [0.10, 0.11])],
        lem3=[_bound(0.05, 0.5)],
        thm4=[_bound(0.5, 0.7)],
        cor6=[dict(clients=3, q=0.5, sigma2=0.0, distance=1.0, gamma=4.0, rounds=10, tau=1, error=0.1, bound=0.2)],
    )
    arts = [r.artifact for r in ct.theory_claims(results)]
    assert arts == ["Lemma 3", "Theorem 4", "Corollary 5", "Corollary 6"]
