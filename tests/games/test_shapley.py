"""Exact, conditional and Monte Carlo Shapley values on bitmask tables, against independent slow computations."""

from __future__ import annotations

import itertools
import json
from math import factorial

import numpy as np
import pytest

from fairshare.games import shapley as sh
from tests.conftest import REPO

REFERENCE = np.array(json.loads((REPO / "workflow" / "reference" / "payoff_mnist_5parties_v.json").read_text())["v"])


def game_from_sets(n: int, values: dict[frozenset, float], default: float) -> np.ndarray:
    v = np.zeros(1 << n)
    for mask in range(1, 1 << n):
        v[mask] = values.get(frozenset(k for k in range(n) if mask >> k & 1), default)
    return v


def shapley_by_permutations(v: np.ndarray, players: list[int], start: int = 0) -> dict[int, float]:
    """Average marginal contribution of each player over every order of ``players`` joining coalition ``start``."""
    total = dict.fromkeys(players, 0.0)
    for order in itertools.permutations(players):
        mask = start
        for j in order:
            total[j] += v[mask | 1 << j] - v[mask]
            mask |= 1 << j
    return {j: t / factorial(len(players)) for j, t in total.items()}


def test_pinned_three_player_conditional_example():
    # conventions.md, "Lessons" item 1: v({0}) = v({1}) = 1, v({0,1}) = 2, every other non-empty coalition 3.
    v = game_from_sets(3, {frozenset({0}): 1, frozenset({1}): 1, frozenset({0, 1}): 2}, 3)
    F = sh.conditional_shapley(v)
    np.testing.assert_allclose(F[0], [0, 0.5, 1.5], atol=1e-12)
    np.testing.assert_allclose(F[1], [0.5, 0, 1.5], atol=1e-12)
    np.testing.assert_allclose(F[2], [0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(sh.shapley_values(v), [0.5, 0.5, 2.0])  # by hand: phi_2 = 3/3 + (2 + 2)/6 + 1/3


def test_glove_game():
    # player 0 holds a left glove, players 1 and 2 right gloves; a pair is worth 1
    v = game_from_sets(3, {frozenset({0, 1}): 1, frozenset({0, 2}): 1, frozenset({0, 1, 2}): 1}, 0)
    np.testing.assert_allclose(sh.shapley_values(v), [2 / 3, 1 / 6, 1 / 6])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_exact_values_match_permutation_averages(n):
    rng = np.random.default_rng(n)
    v = rng.normal(size=1 << n)  # any game, monotone or not
    v[0] = 0.0
    slow = shapley_by_permutations(v, list(range(n)))
    np.testing.assert_allclose(sh.shapley_values(v), [slow[i] for i in range(n)], atol=1e-12)
    F = sh.conditional_shapley(v)
    for i in range(n):  # Remark 3.10: orders of N that start with i
        others = [k for k in range(n) if k != i]
        slow_i = shapley_by_permutations(v, others, start=1 << i)
        np.testing.assert_allclose(F[i, others], [slow_i[j] for j in others], atol=1e-12)
        assert F[i, i] == 0.0


def test_conditional_equals_shapley_of_the_game_given_i(monotone_game):
    # phi_{j|i}(v) is j's Shapley value in u_i(S) = v(S + i) - v(i) on the other n - 1 players (spec §2.3)
    v = monotone_game(5, np.random.default_rng(7))
    F = sh.conditional_shapley(v)
    for i in range(5):
        others = [k for k in range(5) if k != i]
        u = np.array([v[(1 << i) | sum(1 << others[b] for b in range(4) if s >> b & 1)] - v[1 << i] for s in range(16)])
        np.testing.assert_allclose(F[i, others], sh.shapley_values(u), atol=1e-12)


def test_symmetric_game_with_many_players():
    n = 14  # 16384 coalitions: the vectorised routines stay exact at this size
    size = np.array([bin(m).count("1") for m in range(1 << n)], dtype=float)
    v = size**2  # v(S) = |S|^2: everyone is symmetric, phi_i = n; given i, j's share is (n^2 - 1) / (n - 1) = n + 1
    np.testing.assert_allclose(sh.shapley_values(v), np.full(n, float(n)))
    F = sh.conditional_shapley(v)
    np.testing.assert_allclose(F[~np.eye(n, dtype=bool)], n + 1.0)


def test_monte_carlo_shapley_is_within_its_standard_error():
    exact = sh.shapley_values(REFERENCE)
    small = sh.monte_carlo_shapley(REFERENCE, 5, 500, np.random.default_rng(1))
    large = sh.monte_carlo_shapley(REFERENCE, 5, 8000, np.random.default_rng(2))
    assert np.all(np.abs(large.mean - exact) < 4 * large.stderr + 1e-12)
    assert np.all(large.stderr < small.stderr / 3)  # 16x the samples: about a quarter of the error
    assert abs(small.mean.sum() - REFERENCE[-1]) < 1e-12  # every permutation's contributions sum to v(N)


def test_monte_carlo_conditional_shapley():
    exact = sh.conditional_shapley(REFERENCE)
    est = sh.monte_carlo_conditional_shapley(REFERENCE, 5, 4000, np.random.default_rng(3))
    assert np.all(np.abs(est.mean - exact) <= 4 * est.stderr + 1e-12)
    own = REFERENCE[[1, 2, 4, 8, 16]]
    np.testing.assert_allclose(est.mean.sum(axis=1), REFERENCE[-1] - own, atol=1e-12)  # fair cost holds per sample
    assert np.all(np.diag(est.stderr) == 0) and np.all(est.stderr[~np.eye(5, dtype=bool)] > 0)


def test_monte_carlo_calls_an_expensive_value_function_once_per_coalition():
    calls = []

    def value(mask: int) -> float:
        calls.append(mask)
        return float(REFERENCE[mask])

    est = sh.monte_carlo_shapley(value, 5, 300, np.random.default_rng(4))
    assert len(calls) == len(set(calls)) <= 32
    np.testing.assert_allclose(est.mean, sh.monte_carlo_shapley(REFERENCE, 5, 300, np.random.default_rng(4)).mean)


@pytest.mark.parametrize("v, match", [([0.0, 1.0, 1.0], "2\\^n"), ([0.5, 1.0], "empty coalition"), ([0.0], "2\\^n")])
def test_bad_tables(v, match):
    with pytest.raises(ValueError, match=match):
        sh.shapley_values(v)


def test_monte_carlo_needs_two_samples():
    with pytest.raises(ValueError, match="two sampled"):
        sh.monte_carlo_shapley(REFERENCE, 5, 1, np.random.default_rng(0))
