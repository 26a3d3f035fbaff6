"""Aequa's post-training fair allocation (Sec. 4.2, Lemmas 3-4, Theorem 2, App. D.6), in pure numpy.

Every client i with contribution c_i (standalone accuracy by default) receives one model out of a finite family
with performance values ``grid`` (the accuracies a(p) of the width-p sub-networks, or the widths themselves in the
width-as-reward variant). With gains g_i = a_{A(i)} - c_i (eq. 2), the allocation minimises

    J(A) = spread(g) / (mean(g) + eps) - tie_break * mean(g)          (eq. 3 / eq. 7, reconstructed)

subject to individual rationality g_i >= 0 (Definition 1). ``spread`` is the population standard deviation
(coefficient of variation, default) or the variance; the tiny ``tie_break`` prefers the higher mean among
allocations with equal spread ratio (otherwise every zero-variance allocation costs 0 and Lemma 3 "the top contributor
gets a_max" is not enforced). The paper's formula was lost in extraction: both ingredients are reconstructions.

IR is imposed by restricting each client to the models with value >= c_i; a client whose contribution exceeds every
model (IR infeasible) may only receive the best model and is reported in ``Allocation.ir_infeasible``.

Solvers: :func:`anneal` (simulated annealing, Metropolis acceptance, geometric or logarithmic cooling, best state
kept; a fixed ``numpy.random.Generator`` makes it deterministic), :func:`brute_force` (exact, small instances) and
:func:`continuous_optimum` (Lemma 4: a_i = c_i + a_max - c_1, whose Pearson correlation with c is exactly 1).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "SPREADS",
    "SCHEDULES",
    "NORMALIZATIONS",
    "Allocation",
    "gains",
    "allocation_cost",
    "continuous_optimum",
    "snap_to_grid",
    "closed_form_allocation",
    "anneal",
    "brute_force",
    "normalized_contributions",
    "width_reward_allocation",
]

SPREADS = ("std", "var")
SCHEDULES = ("geometric", "log")
NORMALIZATIONS = ("minmax", "max")


@dataclass
class Allocation:
    """One model per client: grid ``indices``, their ``values``, the cost J, gains, and IR bookkeeping."""

    indices: np.ndarray
    values: np.ndarray
    cost: float
    gains: np.ndarray
    ir_infeasible: np.ndarray  # clients whose contribution exceeds every model's value

    @property
    def individually_rational(self) -> np.ndarray:
        return self.gains >= 0


def gains(values: Sequence[float], contributions: Sequence[float]) -> np.ndarray:
    """g_i = a_{A(i)} - c_i (eq. 2)."""
    return np.asarray(values, float) - np.asarray(contributions, float)


def _cost_from_sums(s1: float, s2: float, n: int, eps: float, tie_break: float, spread: str) -> float:
    mean = s1 / n
    var = max(s2 / n - mean * mean, 0.0)
    numerator = math.sqrt(var) if spread == "std" else var
    return numerator / (max(mean, 0.0) + eps) - tie_break * mean


def allocation_cost(
    values: Sequence[float],
    contributions: Sequence[float],
    *,
    eps: float = 1e-8,
    tie_break: float = 1e-9,
    spread: str = "std",
    exempt: Sequence[bool] | None = None,
) -> float:
    """J(A); +inf when a client (not in ``exempt``, the IR-infeasible ones) has a negative gain."""
    if spread not in SPREADS:
        raise ValueError(f"spread must be one of {SPREADS}, got {spread!r}")
    g = gains(values, contributions)
    bound = g if exempt is None else g[~np.asarray(exempt, bool)]
    if np.any(bound < -1e-12):
        return math.inf
    return _cost_from_sums(float(g.sum()), float((g * g).sum()), len(g), eps, tie_break, spread)


def _feasible(grid: np.ndarray, contributions: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Per client, the grid indices satisfying IR sorted by value (only the best model when none does)."""
    order = np.argsort(grid, kind="stable")
    sets, infeasible = [], np.zeros(len(contributions), bool)
    for i, c in enumerate(contributions):
        ok = order[grid[order] >= c - 1e-12]
        if len(ok) == 0:
            infeasible[i] = True
            ok = order[grid[order] == grid.max()]
        sets.append(ok)
    return sets, infeasible


def _result(
    grid: np.ndarray,
    contributions: np.ndarray,
    idx: np.ndarray,
    infeasible: np.ndarray,
    eps: float,
    tie_break: float,
    spread: str,
) -> Allocation:
    values = grid[idx]
    cost = allocation_cost(values, contributions, eps=eps, tie_break=tie_break, spread=spread, exempt=infeasible)
    return Allocation(idx.copy(), values, cost, gains(values, contributions), infeasible)


def _check_inputs(contributions: Sequence[float], grid: Sequence[float], spread: str) -> tuple[np.ndarray, np.ndarray]:
    c, a = np.asarray(contributions, float), np.asarray(grid, float)
    if c.ndim != 1 or a.ndim != 1 or len(c) == 0 or len(a) == 0:
        raise ValueError("contributions and grid must be non-empty 1-D sequences")
    if not (np.all(np.isfinite(c)) and np.all(np.isfinite(a))):
        raise ValueError("contributions and grid must be finite")
    if spread not in SPREADS:
        raise ValueError(f"spread must be one of {SPREADS}, got {spread!r}")
    return c, a


def continuous_optimum(contributions: Sequence[float], a_min: float, a_max: float) -> np.ndarray:
    """Lemma 4: with every accuracy in [a_min, a_max] available, a_i = c_i + (a_max - max_j c_j), clipped.

    Without clipping all gains equal a_max - c_1 (zero spread, largest mean), the top contributor gets a_max
    (Lemma 3) and the Pearson correlation between a and c is exactly 1.
    """
    c = np.asarray(contributions, float)
    return np.clip(c + (a_max - c.max()), a_min, a_max)


def snap_to_grid(targets: Sequence[float], grid: Sequence[float]) -> np.ndarray:
    """Per target, the index of the smallest grid value >= target (the largest grid value when none is)."""
    a = np.asarray(grid, float)
    out = []
    for t in np.asarray(targets, float):
        above = np.flatnonzero(a >= t - 1e-12)
        out.append(above[np.argmin(a[above])] if len(above) else int(np.argmax(a)))
    return np.asarray(out, dtype=np.int64)


def closed_form_allocation(
    contributions: Sequence[float],
    grid: Sequence[float],
    *,
    eps: float = 1e-8,
    tie_break: float = 1e-9,
    spread: str = "std",
) -> Allocation:
    """Lemma 4's optimum snapped up to the grid (IR-preserving): the annealer's starting state and a test oracle."""
    c, a = _check_inputs(contributions, grid, spread)
    _, infeasible = _feasible(a, c)
    idx = snap_to_grid(continuous_optimum(c, a.min(), a.max()), a)
    idx = np.where(a[idx] >= c - 1e-12, idx, snap_to_grid(c, a))  # clipping at a_min can break IR: lift those clients
    return _result(a, c, idx, infeasible, eps, tie_break, spread)


def anneal(
    contributions: Sequence[float],
    grid: Sequence[float],
    rng: np.random.Generator,
    *,
    iters: int = 20000,
    t_start: float = 1.0,
    t_end: float = 1e-5,
    schedule: str = "geometric",
    eps: float = 1e-8,
    tie_break: float = 1e-9,
    spread: str = "std",
    neighbour_prob: float = 0.5,
) -> Allocation:
    """Simulated annealing over allocations (Sec. 4.2; convergence in Theorem 2).

    State: one grid index per client, restricted to the IR-feasible models. Move: a random client steps to the
    neighbouring value of its feasible list (probability ``neighbour_prob``) or jumps to a random feasible model.
    Acceptance: Metropolis, min(1, exp(-(J' - J) / T_k)). Cooling: ``geometric`` from ``t_start`` to ``t_end`` over
    ``iters`` moves, or ``log`` T_k = t_start / log(k + 2) (Assumption 9's classic schedule). Starts from
    :func:`closed_form_allocation` and returns the best state visited.
    """
    c, a = _check_inputs(contributions, grid, spread)
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    if not (t_start > 0 and t_end > 0 and iters >= 0):
        raise ValueError("need t_start > 0, t_end > 0 and iters >= 0")
    sets, infeasible = _feasible(a, c)
    start = closed_form_allocation(c, a, eps=eps, tie_break=tie_break, spread=spread).indices
    pos = [int(np.flatnonzero(s == k)[0]) for s, k in zip(sets, start)]
    g = a[start] - c
    s1, s2 = float(g.sum()), float((g * g).sum())
    n = len(c)
    cost = _cost_from_sums(s1, s2, n, eps, tie_break, spread)
    best_cost = cost
    movable = np.flatnonzero([len(s) > 1 for s in sets])
    if len(movable) == 0 or iters == 0:
        return _result(a, c, np.array([s[p] for s, p in zip(sets, pos)]), infeasible, eps, tie_break, spread)
    clients = rng.choice(movable, size=iters).tolist()
    u_kind, u_accept, u_jump = rng.random(iters).tolist(), rng.random(iters).tolist(), rng.random(iters).tolist()
    ratio = (t_end / t_start) ** (1.0 / max(iters - 1, 1))
    # the loop runs on Python floats and lists (the same IEEE arithmetic as numpy's scalars, without their overhead)
    gain_lists = [(a[s] - ci).tolist() for s, ci in zip(sets, c.tolist())]
    at, best_at = list(pos), list(pos)
    for k in range(iters):
        temp = t_start * ratio**k if schedule == "geometric" else t_start / math.log(k + 2)
        i = clients[k]
        here, options = at[i], gain_lists[i]
        m = len(options)
        if u_kind[k] < neighbour_prob:
            new = here + (1 if u_jump[k] < 0.5 else -1)
            new = min(max(new, 0), m - 1)
        else:
            new = int(u_jump[k] * m)
        if new == here:
            continue
        g_old, g_new = options[here], options[new]
        t1, t2 = s1 - g_old + g_new, s2 - g_old * g_old + g_new * g_new
        new_cost = _cost_from_sums(t1, t2, n, eps, tie_break, spread)
        delta = new_cost - cost
        if delta <= 0 or u_accept[k] < math.exp(-delta / temp):
            at[i], s1, s2, cost = new, t1, t2, new_cost
            if cost < best_cost - 1e-15:
                best_cost, best_at = cost, list(at)
    return _result(a, c, np.array([s[p] for s, p in zip(sets, best_at)]), infeasible, eps, tie_break, spread)


def brute_force(
    contributions: Sequence[float],
    grid: Sequence[float],
    *,
    eps: float = 1e-8,
    tie_break: float = 1e-9,
    spread: str = "std",
    max_states: int = 2_000_000,
) -> Allocation:
    """Exact minimiser of J over every IR-feasible allocation (small instances only)."""
    c, a = _check_inputs(contributions, grid, spread)
    sets, infeasible = _feasible(a, c)
    total = math.prod(len(s) for s in sets)
    if total > max_states:
        raise ValueError(f"{total} allocations exceed max_states={max_states}; use anneal()")
    combos = np.array(list(itertools.product(*sets)), dtype=np.int64)
    g = a[combos] - c
    mean = g.mean(axis=1)
    var = g.var(axis=1)
    numerator = np.sqrt(var) if spread == "std" else var
    costs = numerator / (np.maximum(mean, 0.0) + eps) - tie_break * mean
    return _result(a, c, combos[int(np.argmin(costs))], infeasible, eps, tie_break, spread)


def normalized_contributions(
    contributions: Sequence[float], p_min: float, p_max: float = 1.0, how: str = "minmax"
) -> np.ndarray:
    """Contributions mapped onto the width range for the width-as-reward variant (App. D.6; formula lost, reconstructed).

    ``minmax``: p_min + (p_max - p_min) (c - c_min) / (c_max - c_min) (every client p_max when all are equal);
    ``max``: clip(p_max c / c_max, p_min, p_max).
    """
    c = np.asarray(contributions, float)
    if how not in NORMALIZATIONS:
        raise ValueError(f"normalisation must be one of {NORMALIZATIONS}, got {how!r}")
    if how == "max":
        return np.clip(p_max * c / c.max(), p_min, p_max)
    span = c.max() - c.min()
    if span <= 0:
        return np.full_like(c, p_max)
    return np.clip(p_min + (p_max - p_min) * (c - c.min()) / span, p_min, p_max)  # clip: rounding may overshoot p_max


def width_reward_allocation(
    contributions: Sequence[float],
    widths: Sequence[float],
    rng: np.random.Generator,
    *,
    p_min: float,
    p_max: float = 1.0,
    continuous: bool = True,
    how: str = "minmax",
    **anneal_options,
) -> Allocation:
    """Width as the reward (App. D.6): allocate widths to normalised contributions with the same annealer.

    ``continuous`` (models without batch norm accept any width in [p_min, p_max]): the normalised contributions
    themselves join the candidate widths, so Lemma 4's optimum p_i = c~_i is reachable exactly. Otherwise only the
    discrete ``widths`` (the switchable-BN bucket) can be allocated.
    """
    target = normalized_contributions(contributions, p_min, p_max, how)
    candidates = np.asarray(widths, float)
    if continuous:
        candidates = np.unique(np.concatenate([candidates, target]))
    return anneal(target, candidates, rng, **anneal_options)
