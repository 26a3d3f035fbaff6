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
