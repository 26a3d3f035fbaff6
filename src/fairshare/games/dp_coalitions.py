"""Data sharing with endogenous privacy levels (Bassily, Donahue, Sen, Zhao, Ziani 2026): exact equilibria.

n players with privacy-cost coefficients c_i (sorted c_1 <= ... <= c_n inside this module) decide whether to join
one coalition S and which Laplace-DP level eps_i to use. Member burden (Def 5, Eq. 1):
    B_i = sigma2/k + (2/k^2) sum_{j in S} 1/eps_j^2 + c_i k^alpha eps_i,     non-member burden = sigma2.
Members best-respond with eps_i = (4 / (k^(2+alpha) c_i))^(1/3) (Lemma 2). With phi_i = (c_i^2/2)^(1/3),
beta = (2 alpha + 1)/3 and gamma = (2 alpha + 4)/3, each coalition's stability is an interval in sigma2 (Claims 5, 6):
    no member leaves       <=> sigma2 >= T(S)   = (sum phi_S + 2 max phi_S) k^beta / (k - 1)
    no outsider joins      <=> sigma2 <  U_N(S) = (3 min phi_out (k+1)^gamma + sum phi_S k^gamma) / (k (k+1))
    no valid entry         <=> sigma2 <  U_R(S) = T(S + cheapest outsider)
so S is Nash-stable on [T, U_N) and robust-stable on [T, U_R). The direct definitions (Defs 7, 8) are implemented
separately (numerical best response of an entrant) and serve as the test oracle.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.optimize import minimize_scalar

NOTIONS = ("nash", "robust")


def _costs(costs: Sequence[float]) -> np.ndarray:
    c = np.sort(np.asarray(costs, dtype=float))
    if c.ndim != 1 or len(c) < 2:
        raise ValueError("need a one-dimensional cost profile of at least two players")
    if not np.all(np.isfinite(c)) or np.any(c <= 0):
        raise ValueError(f"privacy costs must be positive and finite, got {list(costs)}")
    return c


def _check_alpha(alpha: float) -> None:
    if not -1 <= alpha <= 1:
        raise ValueError(f"alpha must lie in [-1, 1], got {alpha}")


def phi(c) -> np.ndarray:
    return (np.asarray(c, dtype=float) ** 2 / 2) ** (1 / 3)


def eps_decentralized(c, k: int, alpha: float) -> np.ndarray:
    """Selfish privacy level of a member of a size-k coalition (Lemma 2)."""
    return (4 / (k ** (2 + alpha) * np.asarray(c, dtype=float))) ** (1 / 3)


def eps_centralized(c, k: int, alpha: float) -> np.ndarray:
    """Designer's privacy level (Lemma 1 as derived in App. C.1: exponent 1 + alpha, not a product)."""
    return (4 / (k ** (1 + alpha) * np.asarray(c, dtype=float))) ** (1 / 3)


def variance(sigma2: float, eps: Sequence[float]) -> float:
    """Eq. (1): variance of the coalition's noisy mean."""
    eps = np.asarray(eps, dtype=float)
    k = len(eps)
    return sigma2 / k + 2 / k**2 * float(np.sum(1 / eps**2))


def burdens(c_members: Sequence[float], eps: Sequence[float], sigma2: float, alpha: float) -> np.ndarray:
    """Def 5: each member's burden given everyone's eps."""
    c, e = np.asarray(c_members, float), np.asarray(eps, float)
    return variance(sigma2, e) + c * len(c) ** alpha * e


# ------------------------------------------------------------------------------------------- closed-form intervals
def leave_threshold(phis: np.ndarray, alpha: float) -> float:
    """T(S): smallest sigma2 at which no member of S wants to leave (Claim 5, first condition)."""
    k = len(phis)
    return float((phis.sum() + 2 * phis.max()) * k ** ((2 * alpha + 1) / 3) / (k - 1))


def nash_entry_threshold(phis: np.ndarray, phi_out_min: float, alpha: float) -> float:
    """U_N(S): sigma2 below which the cheapest outsider does not want to join (Claim 5, second condition)."""
    k = len(phis)
    g = (2 * alpha + 4) / 3
    return float((3 * phi_out_min * (k + 1) ** g + phis.sum() * k**g) / (k * (k + 1)))


@dataclass(frozen=True)
class StabilityWindow:
    """Coalition S (indices into the sorted costs) is stable for sigma2 in [lo, hi)."""

    members: tuple[int, ...]
    lo: float
    hi: float

    @property
    def size(self) -> int:
        return len(self.members)


def stability_windows(costs: Sequence[float], alpha: float, notion: str) -> list[StabilityWindow]:
    """The sigma2 window of every coalition of size >= 2 (empty windows dropped), from Claims 5 and 6."""
    if notion not in NOTIONS:
        raise ValueError(f"unknown notion '{notion}'; choose one of {', '.join(NOTIONS)}")
    _check_alpha(alpha)
    c = _costs(costs)
    n = len(c)
    ph = phi(c)
    windows = []
    for k in range(2, n + 1):
        for members in itertools.combinations(range(n), k):
            idx = np.array(members)
            lo = leave_threshold(ph[idx], alpha)
            outside = np.setdiff1d(np.arange(n), idx)
            if len(outside) == 0:
                hi = math.inf
            elif notion == "nash":
                hi = nash_entry_threshold(ph[idx], ph[outside].min(), alpha)
            else:
                cheapest = outside[np.argmin(c[outside])]
                hi = leave_threshold(ph[np.append(idx, cheapest)], alpha)
            if lo < hi:
                windows.append(StabilityWindow(members, lo, hi))
    return windows


def max_equilibrium_size(costs: Sequence[float], alpha: float, notion: str) -> list[tuple[float, float, int]]:
    """Exact largest stable coalition size as a function of sigma (not sigma2).

    Returns pieces ``(sigma_lo, sigma_hi, max_size)`` covering [0, inf) in order; ``max_size`` is 0 where no
    equilibrium exists and the last piece has ``sigma_hi = inf``. Pieces are closed on the left, open on the right.
    """
    windows = stability_windows(costs, alpha, notion)
    points = sorted({0.0, *(w.lo for w in windows), *(w.hi for w in windows if math.isfinite(w.hi))})
    pieces: list[tuple[float, float, int]] = []
    for lo, hi in zip(points, points[1:] + [math.inf]):
        size = max((w.size for w in windows if w.lo <= lo and hi <= w.hi), default=0)
        if pieces and pieces[-1][2] == size:
            pieces[-1] = (pieces[-1][0], hi, size)
        else:
            pieces.append((lo, hi, size))
    return [(math.sqrt(lo), math.sqrt(hi) if math.isfinite(hi) else math.inf, size) for lo, hi, size in pieces]


def stable_coalitions(costs: Sequence[float], alpha: float, sigma2: float, notion: str) -> list[tuple[int, ...]]:
    """Every stable coalition at sigma2 (indices into the sorted costs, 0-based)."""
    return [w.members for w in stability_windows(costs, alpha, notion) if w.lo <= sigma2 < w.hi]


# ------------------------------------------------------------------------------------------ direct definitions
def _entrant_burden(c_in: np.ndarray, c_j: float, sigma2: float, alpha: float) -> float:
    """Def 7: an outsider's best burden when joining, insiders keeping their size-k eps (numerical minimisation)."""
    k = len(c_in)
    noise_in = float(np.sum(1 / eps_decentralized(c_in, k, alpha) ** 2))

    def burden(log_eps: float) -> float:
        e = math.exp(log_eps)
        return sigma2 / (k + 1) + 2 / (k + 1) ** 2 * (1 / e**2 + noise_in) + c_j * (k + 1) ** alpha * e

    res = minimize_scalar(burden, bounds=(-30.0, 30.0), method="bounded", options={"xatol": 1e-12})
    return float(res.fun)


def is_stable_direct(costs: Sequence[float], alpha: float, sigma2: float, members: Sequence[int], notion: str) -> bool:
    """Defs 7 (Nash) and 8 (robust to valid entry) applied literally."""
    c = _costs(costs)
    idx = np.array(sorted(members))
    if len(idx) < 2:
        return False
    k = len(idx)
    if np.any(burdens(c[idx], eps_decentralized(c[idx], k, alpha), sigma2, alpha) > sigma2):
        return False
    for j in np.setdiff1d(np.arange(len(c)), idx):
        if notion == "nash":
            if _entrant_burden(c[idx], c[j], sigma2, alpha) <= sigma2:
                return False
        else:
            grown = np.append(c[idx], c[j])
            if np.all(burdens(grown, eps_decentralized(grown, k + 1, alpha), sigma2, alpha) <= sigma2):
                return False
    return True


def max_size_direct(costs: Sequence[float], alpha: float, sigma2: float, notion: str) -> int:
    """Largest stable coalition at sigma2 by enumerating every coalition against the definitions."""
    n = len(costs)
    for k in range(n, 1, -1):
        if any(is_stable_direct(costs, alpha, sigma2, s, notion) for s in itertools.combinations(range(n), k)):
            return k
    return 0


# ------------------------------------------------------------------------------------------ welfare and PoS
def social_cost_decentralized(c_members: Sequence[float], n: int, sigma2: float, alpha: float) -> float:
    """Eq. (6): SC_d(S) with members at their selfish eps."""
    c = np.asarray(c_members, float)
    k = len(c)
    return (n + 1) * sigma2 - (k * sigma2 - 2 ** (-1 / 3) * (k + 2) * k ** ((2 * alpha + 1) / 3) * np.sum(c ** (2 / 3)) / k)


def variance_decentralized(c_members: Sequence[float], sigma2: float, alpha: float) -> float:
    """Eq. (5)."""
    c = np.asarray(c_members, float)
    k = len(c)
    return (sigma2 + k ** (2 * (alpha + 2) / 3) / 2 ** (1 / 3) * np.sum(c ** (2 / 3)) / k) / k


def centralized_optimum(costs: Sequence[float], sigma2: float, alpha: float) -> tuple[int, float, float]:
    """Eq. (2)-(4): (k*, SC_c(k*), Var_c(k*)); k* = 0 means no sharing (SC = n sigma2, Var = sigma2)."""
    c = _costs(costs)
    n = len(c)
    k = np.arange(2, n + 1)
    mean_c23 = np.cumsum(c ** (2 / 3))[1:] / k
    sc = (n + 1) * sigma2 - (k * sigma2 - 3 * 2 ** (-1 / 3) * k ** (2 * (alpha + 1) / 3) * mean_c23)
    best = int(np.argmin(sc))
    if sc[best] > n * sigma2:
        return 0, n * sigma2, sigma2
    kk = int(k[best])
    var = (sigma2 + kk ** (2 * (alpha + 1) / 3) / 2 ** (1 / 3) * mean_c23[best]) / kk
    return kk, float(sc[best]), float(var)


def decentralized_optimum(costs: Sequence[float], sigma2: float, alpha: float, notion: str) -> tuple[tuple[int, ...], float, float]:
    """Social-cost-minimising stable coalition (empty if none): (members, SC_d, Var_d)."""
    c = _costs(costs)
    n = len(c)
    best: tuple[tuple[int, ...], float, float] = ((), n * sigma2, sigma2)
    for members in stable_coalitions(c, alpha, sigma2, notion):
        sc = social_cost_decentralized(c[list(members)], n, sigma2, alpha)
        if sc < best[1]:
            best = (members, sc, variance_decentralized(c[list(members)], sigma2, alpha))
    return best


def price_of_stability(costs: Sequence[float], sigma2: float, alpha: float, notion: str) -> tuple[float, float]:
    """(PoS(SC), PoS(Var)) of Section 3.2, by enumeration of stable coalitions."""
    _, sc_d, var_d = decentralized_optimum(costs, sigma2, alpha, notion)
    _, sc_c, var_c = centralized_optimum(costs, sigma2, alpha)
    return sc_d / sc_c, var_d / var_c


def identical_cost_pos(n: int, c: float, sigma2: float, alpha: float, notion: str) -> tuple[float, float]:
    """PoS(SC), PoS(Var) for n players with identical cost c, in O(n) (spec algorithm I; Claims 3 and 4)."""
    k = np.arange(2, n + 1, dtype=float)
    ph = (c**2 / 2) ** (1 / 3)
    T = (k + 2) * ph * k ** ((2 * alpha + 1) / 3) / (k - 1)
    if notion == "nash":
        stable = np.zeros_like(k, dtype=bool)
        stable[-1] = T[-1] <= sigma2
    else:
        upper = np.append(T[1:], np.inf)
        stable = (T <= sigma2) & (sigma2 < upper)
    sc_d_all = (n + 1) * sigma2 - (k * sigma2 - 2 ** (-1 / 3) * (k + 2) * k ** ((2 * alpha + 1) / 3) * c ** (2 / 3))
    var_d_all = (sigma2 + k ** (2 * (alpha + 2) / 3) / 2 ** (1 / 3) * c ** (2 / 3)) / k
    if stable.any():
        i = np.flatnonzero(stable)[np.argmin(sc_d_all[stable])]
        sc_d, var_d = sc_d_all[i], var_d_all[i]
    else:
        sc_d, var_d = n * sigma2, sigma2
    sc_c_all = (n + 1) * sigma2 - (k * sigma2 - 3 * 2 ** (-1 / 3) * k ** (2 * (alpha + 1) / 3) * c ** (2 / 3))
    j = int(np.argmin(sc_c_all))
    if sc_c_all[j] > n * sigma2:
        sc_c, var_c = n * sigma2, sigma2
    else:
        sc_c, var_c = sc_c_all[j], (sigma2 + k[j] ** (2 * (alpha + 1) / 3) / 2 ** (1 / 3) * c ** (2 / 3)) / k[j]
    return float(sc_d / sc_c), float(var_d / var_c)
