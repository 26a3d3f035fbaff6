"""Aequa's fair allocation: IR, Lemma 3/4 (top contributor gets a_max, Pearson 1), annealing = brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairshare.games.aequa_allocation import (
    allocation_cost,
    anneal,
    brute_force,
    closed_form_allocation,
    continuous_optimum,
    normalized_contributions,
    snap_to_grid,
    width_reward_allocation,
)


def _instance(rng, n, w):
    return rng.uniform(0.3, 0.8, n), np.sort(rng.uniform(0.5, 0.95, w))


def test_cost_is_coefficient_of_variation_of_gains_and_infinite_without_ir():
    c = np.array([0.5, 0.6, 0.7])
    a = np.array([0.7, 0.8, 0.95])  # gains 0.2, 0.2, 0.25
    g = a - c
    assert allocation_cost(a, c, tie_break=0) == pytest.approx(np.std(g) / (np.mean(g) + 1e-8))
    assert allocation_cost(a, c, tie_break=0, spread="var") == pytest.approx(np.var(g) / (np.mean(g) + 1e-8))
    assert allocation_cost([0.4, 0.8, 0.95], c) == math.inf  # client 0 worse off than alone: IR violated
    assert allocation_cost([0.4, 0.8, 0.95], c, exempt=[True, False, False]) < math.inf


def test_continuous_optimum_gives_top_contributor_a_max_and_pearson_one():
    c = np.array([0.61, 0.55, 0.7, 0.42, 0.66])
    a = continuous_optimum(c, a_min=0.3, a_max=0.9)
    assert a[np.argmax(c)] == 0.9
    assert np.allclose(a - c, 0.2)  # equal gains (zero spread), all IR
    assert np.corrcoef(a, c)[0, 1] == pytest.approx(1.0)


@pytest.mark.parametrize("trial", range(40))
def test_annealing_matches_brute_force_on_small_instances(trial):
    rng = np.random.default_rng(trial)
    c, grid = _instance(rng, int(rng.integers(2, 6)), int(rng.integers(2, 7)))
    exact = brute_force(c, grid)
    sa = anneal(c, grid, np.random.default_rng(1000 + trial), iters=5000)
    assert sa.cost == pytest.approx(exact.cost, abs=1e-12)
    assert np.all(sa.individually_rational[~sa.ir_infeasible])
    assert sa.cost <= closed_form_allocation(c, grid).cost + 1e-12


def test_dense_grid_reaches_lemma_4_top_gets_a_max_and_pearson_near_one():
    rng = np.random.default_rng(5)
    c = rng.uniform(0.3, 0.7, 30)
    grid = np.linspace(0.4, 0.9, 5001)
    sa = anneal(c, grid, np.random.default_rng(0))
    assert sa.values[np.argmax(c)] == pytest.approx(0.9)
    assert np.corrcoef(sa.values, c)[0, 1] > 0.9999
    assert np.all(sa.gains >= 0)
    assert sa.cost <= closed_form_allocation(c, grid).cost + 1e-12


def test_annealing_is_deterministic_for_a_fixed_generator():
    rng = np.random.default_rng(3)
    c, grid = _instance(rng, 8, 12)
    a1 = anneal(c, grid, np.random.default_rng(9), iters=3000)
    a2 = anneal(c, grid, np.random.default_rng(9), iters=3000)
    assert np.array_equal(a1.indices, a2.indices) and a1.cost == a2.cost


def test_ir_infeasible_client_gets_the_best_model_and_is_flagged():
    c = np.array([0.5, 0.97])
    grid = np.array([0.6, 0.7, 0.9])
    sa = anneal(c, grid, np.random.default_rng(0), iters=500)
    assert sa.ir_infeasible.tolist() == [False, True]
    assert sa.values[1] == 0.9 and sa.gains[0] >= 0


def test_snap_to_grid_rounds_up():
    assert snap_to_grid([0.55, 0.6, 0.99], [0.9, 0.5, 0.6, 0.7]).tolist() == [2, 2, 0]


def test_width_reward_variant_gives_pearson_one_with_continuous_widths():
    rng = np.random.default_rng(2)
    c = rng.uniform(0.4, 0.8, 10)
    widths = np.round(np.arange(0.25, 1.0001, 0.05), 2)
    alloc = width_reward_allocation(c, widths, np.random.default_rng(0), p_min=0.25, iters=2000)
    assert np.corrcoef(alloc.values, c)[0, 1] == pytest.approx(1.0)
    assert alloc.values.max() == 1.0 and alloc.values.min() == pytest.approx(0.25)
    discrete = width_reward_allocation(c, widths, np.random.default_rng(0), p_min=0.25, continuous=False, iters=2000)
    assert set(discrete.values) <= set(widths) and np.corrcoef(discrete.values, c)[0, 1] > 0.9
    tilde = normalized_contributions(c, 0.25, how="max")
    assert tilde.max() == 1.0 and tilde.min() >= 0.25
