"""Metrics on hand-computed examples: balanced accuracy, Pearson, MCG/CGS, IPR, across-task summaries, times best."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairshare import metrics


def test_balanced_accuracy_is_mean_per_class_recall():
    y = np.array([0, 0, 0, 0, 1, 1])
    pred = np.array([0, 0, 0, 0, 0, 1])  # recall 1.0 and 0.5; plain accuracy 5/6
    assert metrics.balanced_accuracy(y, pred) == pytest.approx(0.75)
    assert metrics.balanced_accuracy(y, pred, n_classes=3) == pytest.approx(0.75)  # absent classes are skipped


def test_pearson_and_constant_inputs():
    assert metrics.pearson([1, 2, 3], [2, 4, 6.5]) == pytest.approx(np.corrcoef([1, 2, 3], [2, 4, 6.5])[0, 1])
    assert metrics.pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    with pytest.warns(RuntimeWarning, match="constant"):
        assert math.isnan(metrics.pearson([1, 2, 3], [0.5, 0.5, 0.5]))


def test_collaboration_gain_mean_spread_and_ipr():
    reward, alone = [0.9, 0.8, 0.6, 0.7], [0.7, 0.7, 0.7, 0.5]  # gains 0.2, 0.1, -0.1, 0.2
    assert metrics.mean_collaboration_gain(reward, alone) == pytest.approx(0.1)
    assert metrics.collaboration_gain_spread(reward, alone) == pytest.approx(math.sqrt((0.01 + 0 + 0.04 + 0.01) / 4))
    assert metrics.collaboration_gain_spread(reward, alone, ddof=1) == pytest.approx(math.sqrt(0.06 / 3))
    assert metrics.incentivized_participation_rate(reward, alone) == 0.75
    assert metrics.individual_rationality(reward, alone).tolist() == [True, True, False, True]


def test_across_task_summaries_and_rounds_to_threshold():
    acc = np.array([[0.5, 0.7, 0.9], [0.6, 0.6, 0.6]])
    assert metrics.min_across_tasks(acc).tolist() == [0.5, 0.6]
    assert metrics.mean_across_tasks(acc) == pytest.approx([0.7, 0.6])
    assert metrics.variance_across_tasks(acc) == pytest.approx([0.08 / 3, 0.0])
    assert metrics.rounds_to_threshold([0.1, 0.4, 0.6, 0.5], 0.5) == 3
    assert metrics.rounds_to_threshold([0.1, 0.2], 0.5) is None


def test_times_best_counts_ties_and_ignores_nan():
    table = np.array([[0.1, 0.3, 0.3], [np.nan, 0.2, 0.5], [0.9, 0.1, 0.2]])
    assert metrics.times_best(table).tolist() == [1, 1, 2]
    assert metrics.times_best(table, higher_is_better=False).tolist() == [1, 2, 0]


def test_collapsed_needs_a_flat_loss_at_chance_over_the_window():
    from fairshare.metrics import COLLAPSE_WINDOW, collapsed

    rounds = COLLAPSE_WINDOW + 3
    flat_loss, chance_acc = [2.37] * rounds, [0.1] * rounds
    assert collapsed(chance_acc, flat_loss, chance=0.1)
    learning_loss = [2.3 - 0.2 * r for r in range(rounds)]
    assert not collapsed([0.1 + 0.08 * r for r in range(rounds)], learning_loss, chance=0.1)
    # flat loss but a model that has learned (converged) is not a collapse
    assert not collapsed([0.9] * rounds, [0.3] * rounds, chance=0.1)
    # at chance but still moving: not (yet) a collapse
    assert not collapsed(chance_acc, learning_loss, chance=0.1)
    # fewer rounds than the window: never called collapsed
    assert not collapsed([0.1] * (COLLAPSE_WINDOW - 1), [2.37] * (COLLAPSE_WINDOW - 1), chance=0.1)


def test_a_collapsed_task_is_marked_on_every_round_of_its_rows():
    from types import SimpleNamespace

    import torch

    from fairshare.learning.mmfl import mark_collapsed

    tasks = [SimpleNamespace(y_test=torch.tensor([0, 1, 2, 3] * 5)), SimpleNamespace(y_test=torch.tensor([0, 1] * 5))]
    rows = [{"round": r, "task": 0, "accuracy": 0.25, "loss": 1.386} for r in range(1, 9)]
    rows += [{"round": r, "task": 1, "accuracy": 0.5 + 0.05 * r, "loss": 0.7 - 0.05 * r} for r in range(1, 9)]
    mark_collapsed(rows, tasks)
    assert all(r["collapsed"] for r in rows if r["task"] == 0)
    assert not any(r["collapsed"] for r in rows if r["task"] == 1)


# Ten identical rewards as a run wrote them (IAFL, digits/homogeneous, a default run): np.std reads 1.1e-16, not 0
CONSTANT = [0.9513284517602851] * 10
NEAR_CONSTANT = [0.1 + 0.2, 0.3, 0.3]  # one ulp apart: np.std reads 4.5e-17


def test_pearson_is_nan_for_rewards_constant_up_to_rounding():
    assert np.std(CONSTANT) > 0 and 0 < np.std(NEAR_CONSTANT) < 1e-16  # what an exact test of np.std == 0 misses
    with pytest.warns(RuntimeWarning, match="constant"):
        assert math.isnan(metrics.pearson(np.linspace(0.5, 0.9, 10), CONSTANT))
    with pytest.warns(RuntimeWarning, match="constant"):
        assert math.isnan(metrics.pearson([0.2, 0.5, 0.9], NEAR_CONSTANT))  # not the -0.47 that rounding gives
    # a real spread, however small (one test example in a million), is a correlation
    assert metrics.pearson([1, 2, 3], [0.5, 0.5 + 1e-6, 0.5 + 3e-6]) == pytest.approx(
        np.corrcoef([0, 1, 3], [1, 2, 3])[0, 1]
    )


def test_pearson_is_nan_for_nan_rewards():
    with pytest.warns(RuntimeWarning, match="not finite"):
        assert math.isnan(metrics.pearson([0.2, 0.5, 0.9], [0.6, np.nan, 0.7]))


def test_cgs_is_zero_for_gains_equal_up_to_rounding():
    alone = np.array([0.61, 0.73, 0.85, 0.97])
    reward = alone + 0.1  # every gain 0.1 up to rounding: np.std of the gains reads 4.8e-17
    assert np.std(reward - alone) > 0
    assert metrics.collaboration_gain_spread(reward, alone) == 0.0
    assert metrics.collaboration_gain_spread(reward, alone, ddof=1) == 0.0
    assert metrics.collaboration_gain_spread(CONSTANT, CONSTANT) == 0.0
    assert metrics.collaboration_gain_spread(reward + [0, 1e-6, 0, 0], alone) > 0  # a real spread stays
    assert math.isnan(metrics.collaboration_gain_spread([0.5, np.nan], [0.4, 0.4]))


def test_numerical_zero_is_relative_to_the_scale():
    assert not metrics.numerically_constant([1e-20, 2e-20])  # tiny values, a real spread on their own scale
    assert metrics.numerically_constant([1e-20, 2e-20], scale=1.0)
    assert metrics.numerically_constant(CONSTANT) and metrics.numerically_constant([5.0])
    assert not metrics.numerically_constant([0.5, np.nan])
    assert metrics.spread(NEAR_CONSTANT) == 0.0 and metrics.spread([0.0, 1.0]) == 0.5
    assert metrics.variance_across_tasks(np.array([NEAR_CONSTANT, [0.1, 0.2, 0.3]])).tolist() == pytest.approx(
        [0.0, 0.02 / 3]
    )
    assert metrics.variance_across_tasks(np.array([NEAR_CONSTANT]))[0] == 0.0
