"""Metrics shared by the training papers: fairness across tasks (multi-model FL) and reward fairness (Aequa)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

__all__ = [
    "min_across_tasks",
    "mean_across_tasks",
    "variance_across_tasks",
    "rounds_to_threshold",
    "collapsed",
    "balanced_accuracy",
    "CONSTANT_RTOL",
    "numerically_constant",
    "spread",
    "pearson",
    "collaboration_gains",
    "mean_collaboration_gain",
    "collaboration_gain_spread",
    "individual_rationality",
    "incentivized_participation_rate",
    "times_best",
]


#: Numerical zero of a spread (issue 42), relative to the data's scale: a vector is numerically constant when its
#: standard deviation is at most ``CONSTANT_RTOL`` times the largest magnitude among its values (or a given scale).
#: Identical values come back from a float64 mean with a rounding error of at most about n * 2.2e-16 of their
#: magnitude (2e-12 for n = 10^4 values: their spread then reads 1e-17, not 0), while rewards, contributions and
#: accuracies that really differ do so by at least one test example in a million (1e-6): 1e-10 lies between both by
#: four orders of magnitude. Fixed before any verdict was recomputed with it.
CONSTANT_RTOL = 1e-10


def numerically_constant(x: Sequence[float], scale: float | None = None) -> bool:
    """Whether ``x`` is constant up to rounding: its population standard deviation is at most
    :data:`CONSTANT_RTOL` times ``scale`` (default: max |x|). Fewer than two values are constant; a NaN makes a
    vector non-constant (NaN has its own rule)."""
    x = np.asarray(x, float)
    if x.size < 2:
        return True
    ref = float(np.max(np.abs(x))) if scale is None else float(scale)
    return bool(np.std(x) <= CONSTANT_RTOL * ref)


def spread(x: Sequence[float], ddof: int = 0, scale: float | None = None) -> float:
    """Standard deviation of ``x`` (``ddof`` as numpy's), exactly 0 for a numerically constant vector
    (:func:`numerically_constant` with ``scale``), NaN when a value is NaN."""
    x = np.asarray(x, float)
    if x.size > ddof and numerically_constant(x, scale):
        return 0.0
    return float(np.std(x, ddof=ddof))


def min_across_tasks(acc: np.ndarray) -> np.ndarray:
    """Minimum accuracy over tasks; ``acc`` has tasks on the last axis."""
    return np.min(acc, axis=-1)


def mean_across_tasks(acc: np.ndarray) -> np.ndarray:
    return np.mean(acc, axis=-1)


def variance_across_tasks(acc: np.ndarray) -> np.ndarray:
    """Population variance over tasks (np.var, ddof = 0, as the multi-model FL authors' code); 0 where the tasks'
    accuracies are numerically constant (:func:`numerically_constant`)."""
    acc = np.asarray(acc, float)
    var = np.var(acc, axis=-1)
    floor = (CONSTANT_RTOL * np.max(np.abs(acc), axis=-1)) ** 2
    return np.where(var <= floor, 0.0, var)


def rounds_to_threshold(curve: Sequence[float], threshold: float) -> int | None:
    """First round (1-based) at which ``curve`` reaches ``threshold``; None if never."""
    hits = np.flatnonzero(np.asarray(curve) >= threshold)
    return int(hits[0]) + 1 if len(hits) else None


#: A collapsed training curve (issue 26): over its last COLLAPSE_WINDOW rounds the loss moves by less than
#: COLLAPSE_FLAT of its value and the accuracy stays within COLLAPSE_MARGIN of chance. Fixed before any run.
COLLAPSE_WINDOW, COLLAPSE_FLAT, COLLAPSE_MARGIN = 5, 1e-3, 0.05


def collapsed(accuracy: Sequence[float], loss: Sequence[float], chance: float) -> bool:
    """Whether a task's per-round curve has collapsed: its loss flat (relative change below ``COLLAPSE_FLAT``) over
    the last ``COLLAPSE_WINDOW`` rounds while its accuracy stays at or below ``chance + COLLAPSE_MARGIN`` (the
    majority-class share of its test set). Such a run learns nothing (the authors' double-softmax CNN does this,
    docs/mmfl.md); it is named in its log and in the scorecard note, never scored silently. Shorter runs than the
    window are never called collapsed."""
    acc, lss = np.asarray(accuracy, dtype=float), np.asarray(loss, dtype=float)
    if len(acc) < COLLAPSE_WINDOW or not np.isfinite(lss[-COLLAPSE_WINDOW:]).all():
        return False
    tail = lss[-COLLAPSE_WINDOW:]
    flat = float(np.ptp(tail)) <= COLLAPSE_FLAT * max(float(np.abs(tail).max()), 1e-12)
    return bool(flat and (acc[-COLLAPSE_WINDOW:] <= chance + COLLAPSE_MARGIN).all())


def balanced_accuracy(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int | None = None) -> float:
    """Mean per-class recall over the classes present in ``y_true``."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    classes = np.unique(y_true) if n_classes is None else [c for c in range(n_classes) if np.any(y_true == c)]
    return float(np.mean([np.mean(y_pred[y_true == c] == c) for c in classes]))


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson correlation; NaN with a warning when it is undefined: either side numerically constant
    (:func:`numerically_constant`: identical rewards whose spread reads 1e-17 give NaN, not a correlation of
    1e-16) or holding a NaN or infinity."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        warnings.warn("Pearson correlation undefined: an input is not finite", RuntimeWarning, stacklevel=2)
        return float("nan")
    if numerically_constant(x) or numerically_constant(y):
        warnings.warn("Pearson correlation undefined: one of the inputs is constant", RuntimeWarning, stacklevel=2)
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def collaboration_gains(reward_acc: Sequence[float], standalone_acc: Sequence[float]) -> np.ndarray:
    return np.asarray(reward_acc, float) - np.asarray(standalone_acc, float)


def mean_collaboration_gain(reward_acc: Sequence[float], standalone_acc: Sequence[float]) -> float:
    """MCG: average improvement of the reward model over standalone training (Aequa App. B)."""
    return float(np.mean(collaboration_gains(reward_acc, standalone_acc)))


def collaboration_gain_spread(reward_acc: Sequence[float], standalone_acc: Sequence[float], ddof: int = 0) -> float:
    """CGS: standard deviation of the collaboration gains (Aequa App. B; population std by default, ``ddof=1``
    for the sample std: the paper does not say which); exactly 0 when the gains are equal up to the rounding of
    the accuracies they are differences of (:func:`spread` on the scale of both accuracy vectors)."""
    reward, alone = np.asarray(reward_acc, float), np.asarray(standalone_acc, float)
    scale = float(np.max(np.abs(np.concatenate([reward.ravel(), alone.ravel()])), initial=0.0))
    return spread(reward - alone, ddof=ddof, scale=scale)


def individual_rationality(
    reward_acc: Sequence[float], standalone_acc: Sequence[float], tol: float = 0.0
) -> np.ndarray:
    """Per client: the reward is at least as good as training alone."""
    return collaboration_gains(reward_acc, standalone_acc) >= -tol


def incentivized_participation_rate(
    reward_acc: Sequence[float], standalone_acc: Sequence[float], tol: float = 0.0
) -> float:
    """IPR (Cho et al. 2022): fraction of clients whose reward is at least their standalone accuracy."""
    return float(np.mean(individual_rationality(reward_acc, standalone_acc, tol)))


def times_best(table: np.ndarray, higher_is_better: bool = True, atol: float = 1e-12) -> np.ndarray:
    """Per column (method), in how many rows (settings) it is best; ties count for every tied method; NaN never wins.

    The "Number of times that [method] performs the best" row of Aequa's tables.
    """
    t = np.asarray(table, float)
    if not higher_is_better:
        t = -t
    filled = np.where(np.isnan(t), -np.inf, t)
    best = filled.max(axis=1, keepdims=True)
    wins = (filled >= best - atol) & np.isfinite(filled)
    return wins.sum(axis=0)
