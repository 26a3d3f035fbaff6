"""Shapley values, payoff flows and budgets: pinned examples, the axioms on random games, and the paper's observations."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fairshare.games import payoff_flows as pf
from fairshare.games import shapley as sh
from fairshare.games.payoff_flows_properties import check_all, paper_observations
from tests.conftest import REPO

REFERENCE = np.array(json.loads((REPO / "workflow" / "reference" / "payoff_mnist_5parties_v.json").read_text())["v"])


def _game_from_sets(n: int, values: dict[frozenset, float], default: float) -> np.ndarray:
    v = np.zeros(1 << n)
    for mask in range(1, 1 << n):
        members = frozenset(k for k in range(n) if mask >> k & 1)
        v[mask] = values.get(members, default)
    return v


def test_conditional_shapley_pinned_three_player_example():
    # conventions.md: v({0}) = v({1}) = 1, v({0,1}) = 2, every other non-empty coalition 3.
    v = _game_from_sets(3, {frozenset({0}): 1, frozenset({1}): 1, frozenset({0, 1}): 2}, 3)
    F = sh.conditional_shapley(v)
    assert np.allclose(F[0], [0, 0.5, 1.5]) and np.allclose(F[1], [0.5, 0, 1.5]) and np.allclose(F[2], [0, 0, 0])


def test_shapley_of_a_known_game():
    # Glove game: player 0 holds a left glove, players 1 and 2 right gloves; a pair is worth 1.
    v = _game_from_sets(3, {frozenset({0, 1}): 1, frozenset({0, 2}): 1, frozenset({0, 1, 2}): 1}, 0)
    assert np.allclose(sh.shapley_values(v), [2 / 3, 1 / 6, 1 / 6])


def test_monte_carlo_converges_with_honest_standard_error():
    mean, se = sh.monte_carlo_shapley(REFERENCE, 5, 4000, np.random.default_rng(1))
    exact = sh.shapley_values(REFERENCE)
    assert np.all(np.abs(mean - exact) < 4 * se + 1e-12) and np.all(se < 0.01)
    mean_fn, _ = sh.monte_carlo_shapley(lambda m: REFERENCE[m], 5, 50, np.random.default_rng(2))
    assert mean_fn.shape == (5,)


def test_reference_table_payoffs_and_budget_scenarios():
    free = pf.allocate(REFERENCE)
    assert np.allclose(free.payoff, 5 * free.shapley - REFERENCE[-1])
    assert np.allclose(free.model_value, REFERENCE[-1])
    zero = pf.allocate(REFERENCE, [0] * 5)
    assert np.allclose(zero.payoff, 0, atol=1e-9) and zero.lam[4] == pytest.approx(1.0)
    some = pf.allocate(REFERENCE, [0.3, 0, 0, 0, 0])
    assert some.payoff[0] == pytest.approx(-0.3) and np.all(some.model_value >= zero.model_value - 1e-12)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_every_property_on_random_monotone_games(n):
    rng = np.random.default_rng(100 + n)
    v = rng.random(1 << n)
    v[0] = 0
    for i in range(n):
        for m in range(1 << n):
            if m >> i & 1:
                v[m] = max(v[m], v[m ^ 1 << i])
    failed = [(p, d) for p, ok, d in check_all(v, rng) if not ok]
    assert not failed


def test_every_property_and_observation_on_the_reference_table():
    assert not [p for p, ok, _ in check_all(REFERENCE, np.random.default_rng(0)) if not ok]
    failed = [c for c, ok, _ in paper_observations(REFERENCE) if not ok]
    assert not failed, failed


def test_lp_and_fixed_point_agree_and_dominate_feasible_points():
    F = sh.conditional_shapley(REFERENCE)
    b = np.array([0.05, 0.0, 0.1, 0.0, 0.02])
    lam = pf.budget_lambda(F, b)
    assert np.allclose(lam, pf.fixed_point_lambda(F, b), atol=1e-7)
    rng = np.random.default_rng(3)
    c = F.sum(axis=1)
    for _ in range(200):
        x = rng.random(5)
        if np.all(x * c - F.T @ x <= b):
            assert np.all(x <= lam + 1e-9)


def test_rho_shapley_cannot_produce_zero_budget_rewards():
    zero = pf.allocate(REFERENCE, [0] * 5)
    assert pf.rho_shapley_fit(zero.model_value, zero.shapley, REFERENCE[-1]) > 0.05
    # but it can reproduce rewards that are themselves rho-Shapley (sanity check of the fitting)
    fake = REFERENCE[-1] * (zero.shapley / zero.shapley.max()) ** 0.7
    assert pf.rho_shapley_fit(fake, zero.shapley, REFERENCE[-1]) < 1e-3


@pytest.mark.parametrize("v, budgets, match", [
    ([0.0, 1.0, 1.0], None, "2\\^n"),
    ([0.5, 1.0], None, "empty coalition"),
    ([0.0, 1.0, 1.0, 2.0], [0.0], "one value per party"),
    ([0.0, 1.0, 1.0, 2.0], [-1.0, 0.0], "non-negative"),
])
def test_bad_input(v, budgets, match):
    with pytest.raises(ValueError, match=match):
        pf.allocate(v, budgets)
