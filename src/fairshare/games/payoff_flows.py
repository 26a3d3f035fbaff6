"""Shapley-fair payoffs, payoff flows and budget-constrained model rewards (Sim et al., NeurIPS 2022, §3-§4).

- Payoff vector (Lemma 3.1): p_i = n phi_i - v(N): balanced, symmetric, linear, dummy pays v(N).
- Payoff flows (Lemma 3.7, Eq. 7): row i pays column j the conditional Shapley value phi_{j|i}; i's total cost
  is v(N) - v(i), its revenue n phi_i - v(i).
- Budgets (Lemma 4.1): each party scales its cost flows by lambda_i in [0, 1], the greatest lambda with every
  party's net payment within its budget (the LP (P), solved with HiGHS); party i's model is
  v(i) + lambda_i (v(N) - v(i)) (Eq. 10).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.optimize import linprog

from fairshare.games.shapley import conditional_shapley, n_players, shapley_values


@dataclass(frozen=True)
class Allocation:
    """Shapley values, payoffs, flows (row pays column), cost-scaling lambda and model values of one game."""

    shapley: np.ndarray
    payoff: np.ndarray
    flows: np.ndarray
    lam: np.ndarray
    model_value: np.ndarray

    @property
    def cost(self) -> np.ndarray:
        return self.flows.sum(axis=1)

    @property
    def revenue(self) -> np.ndarray:
        return self.flows.sum(axis=0)


def is_monotone(v: Sequence[float], tol: float = 1e-12) -> bool:
    v = np.asarray(v, float)
    n = n_players(v)
    masks = np.arange(1 << n)
    return all(np.all(v[masks | 1 << i] >= v[masks] - tol) for i in range(n))


def budget_lambda(F: np.ndarray, budgets: Sequence[float]) -> np.ndarray:
    """Greatest lambda in [0,1]^n with lambda_i c_i - sum_k lambda_k F[k,i] <= b_i (Lemma 4.1's LP, HiGHS).

    c_i = v(N) - v(i) is i's total cost. Parties with no cost get lambda = 1 (nothing to scale).
    """
    n = len(F)
    b = np.asarray(budgets, dtype=float)
    if b.shape != (n,):
        raise ValueError(f"budgets need one value per party ({n}), got shape {b.shape}")
    if np.any(b < 0) or np.any(np.isnan(b)):
        raise ValueError(f"budgets must be non-negative (inf for unlimited), got {b.tolist()}")
    c = F.sum(axis=1)
    A = np.diag(c) - F.T
    finite = np.isfinite(b)
    res = linprog(-np.maximum(c, 1e-12), A_ub=A[finite], b_ub=b[finite], bounds=[(0, 1)] * n, method="highs")
    if res.status != 0:
        raise RuntimeError(f"budget LP failed: {res.message}")
    lam = np.clip(res.x, 0, 1)
    lam[c <= 1e-15] = 1.0
    return lam


def fixed_point_lambda(F: np.ndarray, budgets: Sequence[float], tol: float = 1e-12, max_iter: int = 100_000) -> np.ndarray:
    """The authors' alternative: start at lambda = 1 and repeatedly lower the first violator to its budget."""
    b = np.asarray(budgets, float)
    c = F.sum(axis=1)
    lam = np.ones(len(F))
    for _ in range(max_iter):
        payoff = F.T @ lam - lam * c
        violators = np.flatnonzero(payoff + b < -tol)
        if len(violators) == 0:
            return lam
        i = violators[0]
        lam[i] = max(0.0, (F[:, i] @ lam + b[i]) / c[i])
    raise RuntimeError("fixed-point iteration did not converge")


def allocate(v: Sequence[float], budgets: Sequence[float] | None = None) -> Allocation:
    """Shapley-fair payoffs, flows and model rewards of the game ``v`` (bitmask table), optionally under budgets.

    ``budgets=None`` means unlimited (every party gets v(N)); otherwise one non-negative value per party
    (``inf`` allowed).
    """
    v = np.asarray(v, dtype=float)
    n = n_players(v)
    if not is_monotone(v):
        warnings.warn("value table is not monotone: the budget LP's uniqueness argument needs v(C) <= v(C') for C in C'", stacklevel=2)
    phi = shapley_values(v)
    F = conditional_shapley(v)
    lam = np.ones(n) if budgets is None else budget_lambda(F, budgets)
    flows = lam[:, None] * F
    singles = v[[1 << i for i in range(n)]]
    grand = v[-1]
    return Allocation(
        shapley=phi,
        payoff=flows.sum(axis=0) - flows.sum(axis=1),
        flows=flows,
        lam=lam,
        model_value=singles + lam * (grand - singles),
    )


def rho_shapley_fit(model_value: np.ndarray, phi: np.ndarray, grand: float) -> float:
    """Smallest max-abs error of rho-Shapley model rewards v(N) (phi_i / max phi)^rho over rho >= 0.

    rho-Shapley rewards keep the order of phi for every rho, so a positive error means no rho produces
    ``model_value`` (the paper's claim about Fig. 2d).
    """
    ratio = np.clip(phi / phi.max(), 1e-12, None)
    rhos = np.concatenate([np.linspace(0, 5, 5001), np.geomspace(5, 200, 500)])
    errors = [np.max(np.abs(grand * ratio**r - model_value)) for r in rhos]
    return float(min(errors))
