"""Monte Carlo check of the closed-form errors (the authors' notebooks 01/02 setup, vectorised over worlds).

Each world draws theta_j ~ N(0, 1) and eps_j^2 ~ 12.5 * Beta(8, 2) (so mu_e = 10, sigma2 = 1) per player, then
the player's data; the error of an estimator is its squared distance to theta_j (mean estimation) or
E_x[(x^T (theta_hat - theta_j))^2] = ||theta_hat - theta_j||^2 for standard Gaussian inputs (regression).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["MU_E", "SIGMA2", "simulate"]

NOISE_SCALE, BETA_A, BETA_B = 12.5, 8.0, 2.0  # eps^2 ~ 12.5 Beta(8, 2): E = 10 (authors' notebooks 01/02)
MU_E = NOISE_SCALE * BETA_A / (BETA_A + BETA_B)
SIGMA2 = 1.0  # theta_j ~ N(0, 1) for mean estimation (per coordinate, scaled by sigma2_d, for regression)


def _combine(local: np.ndarray, n: np.ndarray, w: Sequence[float], v: np.ndarray) -> dict[str, np.ndarray]:
    """Local, uniform, coarse(w) and fine(V) estimates from local ones; local has shape (worlds, M, D)."""
    avg = np.einsum("m,wmd->wd", n / n.sum(), local)[:, None, :]
    w = np.asarray(w, float)[None, :, None]
    return {
        "local": local,
        "uniform": np.broadcast_to(avg, local.shape),
        "coarse": w * local + (1 - w) * avg,
        "fine": np.einsum("jk,wkd->wjd", v, local),
    }


def simulate(
    n: Sequence[int],
    w: Sequence[float],
    v: np.ndarray,
    *,
    worlds: int,
    rng: np.random.Generator,
    sigma2_d: Sequence[float] | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Mean and standard error of each player's squared error per method, over ``worlds`` simulated worlds.

    ``sigma2_d=None`` simulates mean estimation; otherwise linear regression with D = len(sigma2_d) features.
    """
    n_arr = np.asarray(n, float)
    m = len(n)
    eps = np.sqrt(NOISE_SCALE * rng.beta(BETA_A, BETA_B, size=(worlds, m)))
    if sigma2_d is None:
        theta = rng.normal(size=(worlds, m, 1)) * np.sqrt(SIGMA2)
        local = theta + (eps / np.sqrt(n_arr))[:, :, None] * rng.normal(size=(worlds, m, 1))
    else:
        d = len(sigma2_d)
        theta = rng.normal(size=(worlds, m, d)) * np.sqrt(np.asarray(sigma2_d, float))
        local = np.empty_like(theta)
        for j, nj in enumerate(n):
            x = rng.normal(size=(worlds, nj, d))
            y = np.einsum("wnd,wd->wn", x, theta[:, j]) + eps[:, j, None] * rng.normal(size=(worlds, nj))
            local[:, j] = np.linalg.solve(np.einsum("wnd,wne->wde", x, x), np.einsum("wnd,wn->wd", x, y)[..., None])[
                ..., 0
            ]
    out = {}
    for method, est in _combine(local, n_arr, w, np.asarray(v, float)).items():
        sq = ((est - theta) ** 2).sum(axis=2)
        out[method] = (sq.mean(axis=0), sq.std(axis=0, ddof=1) / np.sqrt(worlds))
    return out
