"""Data sharing with endogenous DP levels: evidence for Theorem 1 at alpha = 1/2 and the grand-coalition condition
in the proof of Theorem 2 (App. D.6), judged by :mod:`.claims_sentences`.

Every value comes from the definitions (Defs 6-8) at the privacy levels of Lemmas 1 and 2, never from the closed forms
the statements are about.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairshare.games import dp_coalitions as dp

__all__ = ["d6_evidence", "k_star_half_evidence"]

# Theorem 1 (ii) is an existence statement ("k* can take any value"): the instance that exhibits it has costs a factor
# 4 apart (reconstruction, fixed before the check: at alpha = 1/2 player i is worth adding while
# sigma2 > 3 (c_i^2/2)^(1/3), so well-spread costs make every size optimal for some sigma2).
K_STAR_COSTS = 1e-4 * 4.0 ** np.arange(6)
K_STAR_GRID = 4000  # sigma2 values, log-spaced over [0.1, 10] x the extreme per-player thresholds


def _k_star_by_definition(c: np.ndarray, sigma2: float, alpha: float) -> int:
    """Eq. (4) with SC from Def 6 at the designer's eps (Lemma 1): the best size, 0 when no size beats n sigma2."""
    n = len(c)
    sc = [dp.social_cost(c[:k], dp.eps_centralized(c[:k], k, alpha), n, sigma2, alpha) for k in range(2, n + 1)]
    best = int(np.argmin(sc))
    return best + 2 if sc[best] <= n * sigma2 else 0


def k_star_half_evidence() -> dict[str, Any]:
    """Theorem 1 (ii): the designer's k* at alpha = 1/2 over a sigma2 sweep of :data:`K_STAR_COSTS`."""
    c = K_STAR_COSTS
    lo, hi = 0.1 * 3 * float(dp.phi(c[0])), 10 * 3 * float(dp.phi(c[-1]))
    sizes = sorted({_k_star_by_definition(c, float(s2), 0.5) for s2 in np.geomspace(lo, hi, K_STAR_GRID)})
    return {"n": len(c), "costs": c.tolist(), "sigma2": (lo, hi), "sizes": sizes}


def d6_evidence(rng: np.random.Generator, count: int) -> list[dict[str, Any]]:
    """App. D.6 (alpha = -1/2): the grand coalition's stability by Defs 7 and 8 beside the printed condition
    sigma2 >= sum(phi)/(n-1) + 2 phi_n and the one the algebra gives, (sum(phi) + 2 phi_n)/(n-1); sigma2 is drawn
    between half the smaller and 1.5 times the larger of the two thresholds."""
    out = []
    for _ in range(count):
        n = int(rng.integers(3, 9))
        c = np.sort(rng.uniform(1e-4, 5e-3, size=n))
        ph = dp.phi(c)
        printed = float(ph.sum() / (n - 1) + 2 * ph[-1])
        corrected = float((ph.sum() + 2 * ph[-1]) / (n - 1))
        sigma2 = float(rng.uniform(0.5 * min(printed, corrected), 1.5 * max(printed, corrected)))
        stable = [dp.is_stable_direct(c, -0.5, sigma2, tuple(range(n)), notion) for notion in dp.NOTIONS]
        out.append({"n": n, "sigma2": sigma2, "printed": printed, "corrected": corrected, "stable": stable})
    return out
