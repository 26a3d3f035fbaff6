"""Shapley-fair payoffs, payoff flows and budget-constrained model rewards.

"Trade-off between Payoff and Model Rewards in Shapley-Fair Collaborative Machine Learning" (Nguyen, Low & Jaillet,
NeurIPS 2022), Sections 3-4, for a game given as a bitmask value table ``v`` (see ``fairshare.games.shapley``):

- payoff vector (Lemma 3.1, Eq. 1): p_i = n phi_i - v(N); balanced, symmetric, linear, a dummy pays v(N);
- payoff flows (Lemma 3.7, Eq. 7): payer i (row) pays payee j (column) phi_{j|i}; i's cost is v(N) - v(i), its
  revenue n phi_i - v(i);
- budgets (Lemma 4.1): party i scales its cost flows by lambda_i in [0, 1]; lambda* solves the linear program (P)
  (HiGHS), and i's model reward is v(i) + lambda_i (v(N) - v(i)) (Eq. 10).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fairshare.games.shapley import conditional_shapley, membership, n_players, shapley_values

__all__ = [
    "NO_COST",
    "NonMonotoneGameWarning",
    "Allocation",
    "singletons",
    "monotonicity_violations",
    "payoff_vector",
    "payoff_flow_matrix",
    "budget_lambda",
    "fixed_point_lambda",
    "allocate",
    "adjusted_game",
    "rho_shapley_rewards",
    "rho_shapley_gap",
    "order_conflicts",
]

#: lambda for a party whose cost v(N) - v(i) is zero: its flows are zero whatever lambda is (docs/payoff_flows.md).
NO_COST = 1e-15


class NonMonotoneGameWarning(UserWarning):
    """The value table is not monotone (e.g. trained accuracies with SGD noise): Lemma 4.1's uniqueness argument
    needs phi_{j|i} >= 0, which monotone games guarantee."""


@dataclass(frozen=True)
class Allocation:
    """One game's allocation: Shapley values, payoffs, flows (row i pays column j), cost scaling lambda, models."""

    shapley: np.ndarray
    payoff: np.ndarray
    flows: np.ndarray
    lam: np.ndarray
    model_value: np.ndarray

    @property
    def cost(self) -> np.ndarray:
        """p_{i,-}: what each party pays (row sums of the flows)."""
        return self.flows.sum(axis=1)

    @property
    def revenue(self) -> np.ndarray:
        """p_{i,+}: what each party receives (column sums of the flows)."""
        return self.flows.sum(axis=0)


def singletons(v: np.ndarray) -> np.ndarray:
    """v(i) for every party i."""
    return np.asarray(v, float)[[1 << i for i in range(n_players(v))]]


def monotonicity_violations(v: Sequence[float]) -> np.ndarray:
    """Sizes v(S) - v(S + j) of every strict drop when a player joins (empty for a monotone game)."""
    v = np.asarray(v, dtype=float)
    member = membership(n_players(v))
    masks = np.arange(len(v), dtype=np.int64)
    drops = v[masks][:, None] - v[masks[:, None] | (np.int64(1) << np.arange(member.shape[1]))]
    return drops[~member & (drops > 0)]


def payoff_vector(v: Sequence[float]) -> np.ndarray:
    """p_i(v) = n phi_i(v) - v(N): the unique payoffs under unlimited budgets (Lemma 3.1)."""
    v = np.asarray(v, dtype=float)
    return n_players(v) * shapley_values(v) - v[-1]


def payoff_flow_matrix(v: Sequence[float]) -> np.ndarray:
    """Unconstrained payoff flows P[i, j] = phi_{j|i}(v): what payer i pays payee j (Lemma 3.7)."""
    return conditional_shapley(v)


def budget_lambda(F: np.ndarray, budgets: Sequence[float]) -> np.ndarray:
    """lambda* of Lemma 4.1: maximise sum_i lambda_i c_i s.t. lambda_i c_i - sum_k lambda_k F[k, i] <= b_i, 0 <= lambda <= 1.

    c_i = sum_j F[i, j] = v(N) - v(i). The objective is the paper's sum over ordered pairs i != j of lambda_i phi_{j|i}
    (ambiguity A6). Infinite budgets drop their constraint. A party with no cost gets lambda = 1 (its flows are
    zero anyway). Solved with scipy's HiGHS.
    """
    from scipy.optimize import linprog  # here, not at the top: the coalition-valuation jobs import this package too

    F = np.asarray(F, dtype=float)
    n = len(F)
    b = np.asarray(budgets, dtype=float)
    if b.shape != (n,):
        raise ValueError(f"budgets need one value per party ({n}), got shape {b.shape}")
    if np.any(np.isnan(b)) or np.any(b < 0):
        raise ValueError(f"budgets must be non-negative (inf for unlimited), got {b.tolist()}")
    cost = F.sum(axis=1)
    A = np.diag(cost) - F.T
    finite = np.isfinite(b)
    if not finite.any():
        return np.ones(n)
    res = linprog(-cost, A_ub=A[finite], b_ub=b[finite], bounds=[(0.0, 1.0)] * n, method="highs")
    if res.status != 0:
        raise RuntimeError(f"budget LP (Lemma 4.1) failed: {res.message}")
    lam = np.clip(res.x, 0.0, 1.0)
    lam[np.abs(cost) <= NO_COST] = 1.0
    return lam


def fixed_point_lambda(
    F: np.ndarray, budgets: Sequence[float], tol: float = 1e-12, max_iter: int = 100_000
) -> np.ndarray:
    """lambda* by the fixed-point iteration of the authors' code (reimplemented here from its description; docs/payoff_flows.md):
    start at 1, repeatedly lower the first over-budget party to its budget.

    A second algorithm to cross-check ``budget_lambda`` in the tests (both give the greatest feasible lambda when
    F >= 0); it is this project's code, not the authors'.
    """
    F = np.asarray(F, dtype=float)
    b = np.asarray(budgets, dtype=float)
    cost = F.sum(axis=1)
    lam = np.ones(len(F))
    for _ in range(max_iter):
        payoff = F.T @ lam - lam * cost
        violators = np.flatnonzero(payoff + b < -tol)
        if len(violators) == 0:
            return lam
        i = violators[0]
        lam[i] = max(0.0, (F[:, i] @ lam + b[i]) / cost[i])
    raise RuntimeError("fixed-point iteration for lambda did not converge")


def allocate(v: Sequence[float], budgets: Sequence[float] | None = None) -> Allocation:
    """Shapley-fair payoffs, payoff flows and model rewards of the bitmask game ``v`` under ``budgets``.

    ``budgets=None`` means unlimited (lambda = 1: every party gets the v(N) model and pays n phi_i - v(N));
    otherwise one non-negative budget per party (``inf`` allowed). Warns (``NonMonotoneGameWarning``) when v is
    not monotone, as trained accuracies may be.
    """
    v = np.asarray(v, dtype=float)
    n = n_players(v)
    drops = monotonicity_violations(v)
    if len(drops):
        warnings.warn(
            f"value table is not monotone ({len(drops)} drops, largest {drops.max():.3g})",
            NonMonotoneGameWarning,
            stacklevel=2,
        )
    F = conditional_shapley(v)
    lam = np.ones(n) if budgets is None else budget_lambda(F, budgets)
    flows = lam[:, None] * F
    own = singletons(v)
    return Allocation(
        shapley=shapley_values(v),
        payoff=flows.sum(axis=0) - flows.sum(axis=1),
        flows=flows,
        lam=lam,
        model_value=own + lam * (v[-1] - own),
    )


def adjusted_game(v: Sequence[float], i: int, lam: float) -> np.ndarray:
    """Party i's adjusted value function (Eq. 10): v'_i(C + i) = lam v(C + i) + (1 - lam) v(i); 0 where i is absent.

    Only coalitions that contain i matter for i's flows (footnote 1 of the paper).
    """
    v = np.asarray(v, dtype=float)
    has_i = (np.arange(len(v)) >> i) & 1 == 1
    return np.where(has_i, lam * v + (1.0 - lam) * v[1 << i], 0.0)


def rho_shapley_rewards(phi: np.ndarray, grand: float, rho: float) -> np.ndarray:
    """rho-Shapley model rewards of Sim et al. (ICML 2020): r_i = v(N) (phi_i / max_k phi_k)^rho (needs phi > 0)."""
    phi = np.asarray(phi, dtype=float)
    return grand * (phi / phi.max()) ** rho


def rho_shapley_gap(model_value: np.ndarray, phi: np.ndarray, grand: float) -> tuple[float, float]:
    """How far ``model_value`` is from every rho-Shapley reward vector: (best max-abs error, its rho).

    rho-Shapley rewards are ordered like phi for every rho >= 0, so rewards ordered differently from phi have a
    positive gap for all rho; the search covers rho in [0, 50] on a fine grid (the error is continuous in rho).
    """
    rhos = np.concatenate([np.linspace(0.0, 5.0, 5001), np.linspace(5.0, 50.0, 4501)[1:]])
    ratio = np.asarray(phi, float) / np.max(phi)
    if np.any(ratio <= 0):
        raise ValueError("rho-Shapley rewards need positive Shapley values")
    errors = np.abs(grand * ratio[None, :] ** rhos[:, None] - np.asarray(model_value, float)[None, :]).max(axis=1)
    best = int(np.argmin(errors))
    return float(errors[best]), float(rhos[best])


def order_conflicts(model_value: np.ndarray, phi: np.ndarray, tol: float = 1e-12) -> list[tuple[int, int]]:
    """Pairs (i, j) with phi_i < phi_j but model_i > model_j: each rules out every rho-Shapley reward vector."""
    n = len(phi)
    return [
        (i, j) for i in range(n) for j in range(n) if phi[i] < phi[j] - tol and model_value[i] > model_value[j] + tol
    ]
