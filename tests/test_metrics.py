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
