"""Theorem 11's bound on auction-recruited quadratic clients: the harness's exact error, the bound, and the row."""

from __future__ import annotations

import numpy as np
import pytest

from fairshare.games import auctions as au
from fairshare.learning import mmfl_theory as th
from fairshare.papers.auctions import claims_theorem11 as t11

CENTRES, WEIGHTS = np.array([-1.0, 0.0, 1.0]), np.full(3, 1 / 3)


def test_the_training_sets_follow_the_winner_set_law():
    join = np.array([0.5, 0.9, 0.3])
    task = t11.recruited_task(CENTRES, WEIGHTS, 1.0, 1.0, join)
    prob, agg = task.sets()
    laws = au.winner_set_probabilities(join)
    assert prob == pytest.approx([laws[w] for w in th.subsets(3)[1:]])
    assert task.recruited == pytest.approx(1 - 0.5 * 0.1 * 0.7) == pytest.approx(prob.sum())
    np.testing.assert_allclose(agg.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="join"):
        t11.recruited_task(CENTRES, WEIGHTS, 1.0, 1.0, np.array([0.5, 1.2, 0.3]))


@pytest.mark.parametrize("tau", [1, 5])
def test_with_every_user_recruited_the_exact_error_is_corollary6s_with_everyone_selected(tau):
    task = t11.recruited_task(CENTRES, WEIGHTS, 1.0, 1.0, np.ones(3), tau)
    everyone = th.Quadratic(centres=CENTRES, weights=WEIGHTS, mu=1.0, sigma2=1.0, q=1.0, tau=tau)
    starts, rounds = np.array([0.3, 2.0]), (10, 100)
    expected = th.corollary6_error(everyone, starts, 4.0, rounds)
    np.testing.assert_allclose(th.corollary6_error(task, starts, 4.0, rounds), expected)
    assert task.recruited == 1.0


def test_a_bound_without_the_skew_term_fails_where_a_user_never_joins():
    # User 2 (centre 1) never joins: the iterates go to the winners' optimum -1/2, not w* = 0, and the error stays near
    # (1/2)(1/2)^2 = 0.125. Theorem 11's bound covers it through its skew term; without that term it falls below.
    task = t11.recruited_task(CENTRES, WEIGHTS, 1.0, 0.0, np.array([1.0, 1.0, 0.0]))
    rounds = (10, 100, 1000, 10_000)
    errors = th.corollary6_error(task, np.array([1.0]), 4.0, rounds)[0]
    assert errors[-1] == pytest.approx(0.125, abs=0.002)
    assert all(e <= t11.theorem11_bound(task, 1.0, 4.0, r) for e, r in zip(errors, rounds))
    head, floor = th.corollary6_terms(task, 1.0, 4.0, recruited=task.recruited)
    assert floor > 0 and errors[-1] > head / (rounds[-1] + 4.0)  # the bound without its skew term


def _rows(error: float) -> list[dict[str, float]]:
    base = dict(clients=3, budget=1.0, sigma2=0.0, recruited=0.9, distance=1.0, gamma=4.0, rounds=10, tau=5)
    return [dict(base, error=0.1, bound=0.5), dict(base, error=error, bound=0.2), dict(base, error=0.3, bound=np.inf)]


def test_the_row_differs_when_an_exact_error_exceeds_its_bound():
    assert t11.theorem11_row(_rows(0.19)).status == "match"
    row = t11.theorem11_row(_rows(0.25))
    assert row.status == "differs" and "error 0.25 > bound 0.2" in row.reproduced
    assert "2 with a finite bound" in row.reproduced and "tau = 5: 2 of 3" in row.reproduced


def test_the_grid_exercises_the_winner_set_factor():
    rows = t11.theorem11_results()
    assert len(rows) == 3 * 3 * 2 * 3 * 2 * 3 * 2
    assert any(r["recruited"] < 1 for r in rows)  # the J_W factor is exercised
    assert {r["tau"] for r in rows} == {1, 5}  # and the tau^2 G^2 term
    assert t11.theorem11_row(rows).artifact == "Theorem 11"
