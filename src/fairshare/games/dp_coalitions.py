"""Data sharing with endogenous privacy levels (Bassily, Donahue, Sen, Zhao, Ziani 2026): exact equilibria.

n players with privacy-cost coefficients c_i (sorted c_1 <= ... <= c_n inside this module; coalition members are
0-based indices into the sorted profile) decide whether to join one coalition S and which Laplace-DP level eps_i to
use. With k = |S| and f(k) = k^alpha the member burden is (Def 5, Eq. 1)
    B_i = sigma2/k + (2/k^2) sum_{j in S} 1/eps_j^2 + c_i f(k) eps_i,      non-member burden = sigma2.
Members best-respond with eps_i = (4 / (k^(2+alpha) c_i))^(1/3) (Lemma 2). With phi_i = (c_i^2/2)^(1/3),
beta = (2 alpha + 1)/3 and gamma = (2 alpha + 4)/3, each coalition is stable on an interval of sigma2 (Claims 5, 6):
    no member leaves       <=> sigma2 >= T(S)   = (sum phi_S + 2 max phi_S) k^beta / (k - 1)
    no outsider joins      <=> sigma2 <  U_N(S) = (3 min phi_out (k+1)^gamma + sum phi_S k^gamma) / (k (k+1))
    no valid entry         <=> sigma2 <  U_R(S) = T(S + cheapest outsider)
so S is Nash-stable on [T, U_N) and robust-stable on [T, U_R). The definitions themselves (Defs 7, 8) are
implemented separately from burdens and numerically solved best responses (`is_stable_direct`): the test oracle.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq

__all__ = [
    "NOTIONS",
    "MAX_EXACT_PLAYERS",
    "sorted_costs",
    "size_scaling",
    "phi",
    "eps_decentralized",
    "eps_centralized",
    "laplace_mean",
    "variance",
    "burdens",
    "social_cost",
    "variance_decentralized",
    "social_cost_decentralized",
    "variance_centralized",
    "social_cost_centralized",
    "centralized_optimum",
    "leave_threshold",
    "StabilityWindow",
    "stability_interval",
    "stability_windows",
    "max_equilibrium_size",
    "stable_coalitions",
    "max_robust_size_linear",
    "best_response_eps",
    "entrant_burden",
    "is_stable_direct",
    "max_size_direct",
    "decentralized_optimum",
    "price_of_stability",
    "IdenticalCostOutcome",
    "identical_cost_outcome",
    "identical_cost_pos",
]

NOTIONS = ("nash", "robust")
MAX_EXACT_PLAYERS = 20  # the exact windows enumerate all 2^n coalitions


# ------------------------------------------------------------------------------------------------------ the model
def sorted_costs(costs: Sequence[float]) -> np.ndarray:
    """The cost profile as a sorted float array (the paper's WLOG c_1 <= ... <= c_n), validated."""
    c = np.sort(np.asarray(costs, dtype=float))
    if c.ndim != 1 or len(c) < 2:
        raise ValueError("need a one-dimensional cost profile of at least two players")
    if not np.all(np.isfinite(c)) or np.any(c <= 0):
        raise ValueError(f"privacy costs must be positive and finite, got {list(costs)}")
    return c


def _check_alpha(alpha: float) -> None:
    if not -1 <= alpha <= 1:
        raise ValueError(f"alpha must lie in [-1, 1], got {alpha}")


def _check_notion(notion: str) -> None:
    if notion not in NOTIONS:
        raise ValueError(f"unknown notion '{notion}'; choose one of {', '.join(NOTIONS)}")


def size_scaling(k: int, alpha: float) -> float:
    """f(k) = k^alpha: how a member's privacy cost scales with the coalition size (Section 3)."""
    return float(k) ** alpha


def phi(c) -> np.ndarray:
    """(c^2/2)^(1/3), the unit in which every closed-form stability condition is written (App. A)."""
    return (np.asarray(c, dtype=float) ** 2 / 2) ** (1 / 3)


def eps_decentralized(c, k: int, alpha: float) -> np.ndarray:
    """Selfish privacy level of a member of a size-k coalition (Lemma 2)."""
    return (4 / (k ** (2 + alpha) * np.asarray(c, dtype=float))) ** (1 / 3)


def eps_centralized(c, k: int, alpha: float) -> np.ndarray:
    """Designer's privacy level at size k (Lemma 1 as derived in App. C.1: exponent 1 + alpha, not a product)."""
    return (4 / (k ** (1 + alpha) * np.asarray(c, dtype=float))) ** (1 / 3)


def laplace_mean(x: np.ndarray, eps: Sequence[float], rng: np.random.Generator) -> np.ndarray:
    """The coalition's estimator (Section 3): mean of x_i + Lap(1/eps_i) over the last axis.

    Each x_i lies in [0, 1], so one player's sensitivity is 1 and Lap(1/eps_i) noise makes its report eps_i-DP
    (Def 4); averaging is post-processing. Leading axes of ``x`` are independent repetitions.
    """
    x = np.asarray(x, dtype=float)
    scale = 1 / np.asarray(eps, dtype=float)
    return np.mean(x + rng.laplace(0.0, 1.0, size=x.shape) * scale, axis=-1)


def variance(sigma2: float, eps: Sequence[float]) -> float:
    """Eq. (1): variance of the coalition's noisy mean."""
    eps = np.asarray(eps, dtype=float)
    k = len(eps)
    return sigma2 / k + 2 / k**2 * float(np.sum(1 / eps**2))


def burdens(c_members: Sequence[float], eps: Sequence[float], sigma2: float, alpha: float) -> np.ndarray:
    """Def 5: each member's burden given everyone's eps (estimator variance plus own privacy cost)."""
    c, e = np.asarray(c_members, float), np.asarray(eps, float)
    return variance(sigma2, e) + c * size_scaling(len(c), alpha) * e


def social_cost(c_members: Sequence[float], eps: Sequence[float], n: int, sigma2: float, alpha: float) -> float:
    """Def 6: sum of all n burdens (members at ``eps``, the n - |S| outsiders at sigma2)."""
    return float(np.sum(burdens(c_members, eps, sigma2, alpha))) + (n - len(c_members)) * sigma2


def variance_decentralized(c_members: Sequence[float], sigma2: float, alpha: float) -> float:
    """Eq. (5): estimator variance of coalition S with its members at their selfish eps."""
    c = np.asarray(c_members, float)
    k = len(c)
    return float((sigma2 + k ** (2 * (alpha + 2) / 3) / 2 ** (1 / 3) * np.sum(c ** (2 / 3)) / k) / k)


def social_cost_decentralized(c_members: Sequence[float], n: int, sigma2: float, alpha: float) -> float:
    """Eq. (6): SC_d(S) with members at their selfish eps."""
    c = np.asarray(c_members, float)
    k = len(c)
    return float(
        (n + 1) * sigma2
        - (k * sigma2 - 2 ** (-1 / 3) * (k + 2) * k ** ((2 * alpha + 1) / 3) * np.sum(c ** (2 / 3)) / k)
    )


def variance_centralized(costs: Sequence[float], k: int, sigma2: float, alpha: float) -> float:
    """Eq. (2): variance of the designer's optimal size-k coalition S_k (the k cheapest players)."""
    c = sorted_costs(costs)[:k]
    return float((sigma2 + k ** (2 * (alpha + 1) / 3) / 2 ** (1 / 3) * np.sum(c ** (2 / 3)) / k) / k)


def social_cost_centralized(costs: Sequence[float], k: int, sigma2: float, alpha: float) -> float:
    """Eq. (3): the designer's best social cost at size k."""
    c = sorted_costs(costs)
    n = len(c)
    return float(
        (n + 1) * sigma2 - (k * sigma2 - 3 * 2 ** (-1 / 3) * k ** (2 * (alpha + 1) / 3) * np.sum(c[:k] ** (2 / 3)) / k)
    )


def centralized_optimum(costs: Sequence[float], sigma2: float, alpha: float) -> tuple[int, float, float]:
    """Eq. (4): (k*, SC_c(k*), Var_c(k*)); k* = 0 means no sharing (SC = n sigma2, Var = sigma2).

    Ties at n sigma2 go to the coalition (Eq. 4 uses <=).
    """
    c = sorted_costs(costs)
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


# ------------------------------------------------------------------------------------- closed-form sigma2 windows
def leave_threshold(phis: np.ndarray, alpha: float) -> float:
    """T(S): smallest sigma2 at which no member of S wants to leave (Claim 5, first condition)."""
    return float(_leave_thresholds(np.asarray(phis, float)[None, :], alpha)[0])


def _leave_thresholds(weighted: np.ndarray, alpha: float) -> np.ndarray:
    """T(S) for many coalitions at once; row r holds phi_j for members and 0 for non-members.

    One function computes every T, and each row is sorted first so the floating-point sum depends only on the
    multiset of members' costs: U_R(S) = T(S + l) is then bit-identical to the T of that bigger coalition (or of
    any coalition with the same costs), and adjacent robust windows meet exactly, with no spurious 1e-17 pieces.
    """
    weighted = np.sort(weighted, axis=1)
    k = np.count_nonzero(weighted, axis=1)
    return (weighted.sum(axis=1) + 2 * weighted[:, -1]) * k ** ((2 * alpha + 1) / 3) / (k - 1)


def _all_coalitions(n: int) -> np.ndarray:
    """Boolean membership rows of every coalition of size >= 2 (bit i of the row number = player i), by size."""
    if n > MAX_EXACT_PLAYERS:
        raise ValueError(f"exact enumeration needs n <= {MAX_EXACT_PLAYERS} players, got {n}")
    masks = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
    sizes = masks.sum(axis=1)
    order = np.argsort(sizes, kind="stable")
    return masks[order[sizes[order] >= 2]]


def _window_bounds(c: np.ndarray, masks: np.ndarray, alpha: float, notion: str) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi) sigma2 bounds of each coalition's stability window (Claims 5 and 6), vectorised over rows."""
    ph = phi(c)
    lo = _leave_thresholds(masks * ph, alpha)
    hi = np.full(len(masks), math.inf)
    outside = ~masks
    has_out = outside.any(axis=1)
    cheapest = np.argmax(outside, axis=1)  # costs are sorted, so the first non-member is the cheapest outsider
    rows = np.flatnonzero(has_out)
    if notion == "nash":
        k = masks[rows].sum(axis=1)
        g = (2 * alpha + 4) / 3
        sum_in = (masks[rows] * ph).sum(axis=1)
        hi[rows] = (3 * ph[cheapest[rows]] * (k + 1) ** g + sum_in * k**g) / (k * (k + 1))
    else:
        grown = masks[rows].copy()
        grown[np.arange(len(rows)), cheapest[rows]] = True
        hi[rows] = _leave_thresholds(grown * ph, alpha)
    return lo, hi


@dataclass(frozen=True)
class StabilityWindow:
    """Coalition ``members`` (0-based indices into the sorted costs) is stable for sigma2 in [lo, hi)."""

    members: tuple[int, ...]
    lo: float
    hi: float

    @property
    def size(self) -> int:
        return len(self.members)


def stability_interval(
    costs: Sequence[float], members: Sequence[int], alpha: float, notion: str
) -> tuple[float, float]:
    """The sigma2 interval [lo, hi) on which one coalition is stable (empty when lo >= hi); Claims 5/6."""
    _check_notion(notion)
    _check_alpha(alpha)
    c = sorted_costs(costs)
    mask = np.isin(np.arange(len(c)), list(members))[None, :]
    if mask.sum() < 2:
        raise ValueError("a coalition has at least two members")
    lo, hi = _window_bounds(c, mask, alpha, notion)
    return float(lo[0]), float(hi[0])


def stability_windows(costs: Sequence[float], alpha: float, notion: str) -> list[StabilityWindow]:
    """The sigma2 window of every coalition of size >= 2 (empty windows dropped), from Claims 5 and 6."""
    _check_notion(notion)
    _check_alpha(alpha)
    c = sorted_costs(costs)
    masks = _all_coalitions(len(c))
    lo, hi = _window_bounds(c, masks, alpha, notion)
    keep = np.flatnonzero(lo < hi)
    return [StabilityWindow(tuple(int(i) for i in np.flatnonzero(masks[r])), float(lo[r]), float(hi[r])) for r in keep]


def max_equilibrium_size(costs: Sequence[float], alpha: float, notion: str) -> list[tuple[float, float, int]]:
    """Exact largest stable coalition size as a function of sigma (not sigma2).

    Returns pieces ``(sigma_lo, sigma_hi, max_size)`` covering [0, inf) in order, adjacent pieces with different
    sizes; ``max_size`` is 0 where no equilibrium exists and the last piece has ``sigma_hi = inf``. Each piece is
    closed on the left and open on the right, like the windows [T, U) it is made of.
    """
    windows = stability_windows(costs, alpha, notion)
    lo = np.array([w.lo for w in windows])
    hi = np.array([w.hi for w in windows])
    size = np.array([w.size for w in windows])
    points = np.unique(np.concatenate([[0.0], lo, hi[np.isfinite(hi)]]))
    starts, ends = points, np.append(points[1:], math.inf)
    covers = (lo[None, :] <= starts[:, None]) & (ends[:, None] <= hi[None, :])
    best = np.where(covers, size[None, :], 0).max(axis=1, initial=0)
    pieces: list[tuple[float, float, int]] = []
    for a, b, s in zip(starts, ends, best):
        if pieces and pieces[-1][2] == s:
            pieces[-1] = (pieces[-1][0], float(b), int(s))
        else:
            pieces.append((float(a), float(b), int(s)))
    return [(math.sqrt(a), math.sqrt(b), s) for a, b, s in pieces]


def stable_coalitions(costs: Sequence[float], alpha: float, sigma2: float, notion: str) -> list[tuple[int, ...]]:
    """Every stable coalition at sigma2 (0-based indices into the sorted costs), from the closed form."""
    return [w.members for w in stability_windows(costs, alpha, notion) if w.lo <= sigma2 < w.hi]


def max_robust_size_linear(costs: Sequence[float], alpha: float, sigma2: float) -> int:
    """Largest robust-stable size in O(n) (Claim 8 with Lemma 6): max{k : T(S_k) <= sigma2}, 0 if none.

    Claim 8 says the largest robust size is attained by a downward-closed S_k; T(S_k) <= T(S) for |S| = k, and
    the greedy chain of Lemma 6's proof shows that S_K with the largest feasible K cannot be validly entered.
    """
    _check_alpha(alpha)
    c = sorted_costs(costs)
    ph = phi(c)
    k = np.arange(2, len(c) + 1)
    t = (np.cumsum(ph)[1:] + 2 * ph[1:]) * k ** ((2 * alpha + 1) / 3) / (k - 1)
    feasible = np.flatnonzero(t <= sigma2)
    return int(k[feasible[-1]]) if len(feasible) else 0


# --------------------------------------------------------------------------------- the definitions, applied literally
@lru_cache(maxsize=65536)
def best_response_eps(c_i: float, k: int, alpha: float) -> float:
    """A member's burden-minimising eps at size k, found numerically from Def 5 (independent of Lemma 2's formula).

    Only two terms of B_i depend on eps_i: 2/(k^2 eps_i^2) + c_i k^alpha eps_i, strictly convex; its minimiser is the
    root of the derivative, solved by Brent's method on log eps to machine precision.
    """
    slope = lambda t: -4 / (k**2 * math.exp(3 * t)) + c_i * size_scaling(k, alpha)  # noqa: E731
    return math.exp(brentq(slope, -60.0, 60.0, xtol=1e-15, rtol=4 * np.finfo(float).eps))


def _selfish_profile(c_members: np.ndarray, k: int, alpha: float) -> np.ndarray:
    return np.array([best_response_eps(float(ci), k, alpha) for ci in c_members])


def entrant_burden(c_in: Sequence[float], c_j: float, sigma2: float, alpha: float) -> float:
    """Def 7: an outsider's best burden after joining alone, insiders keeping their size-k eps."""
    c_in = np.asarray(c_in, float)
    k = len(c_in)
    eps = np.append(_selfish_profile(c_in, k, alpha), best_response_eps(float(c_j), k + 1, alpha))
    return float(burdens(np.append(c_in, c_j), eps, sigma2, alpha)[-1])


def is_stable_direct(costs: Sequence[float], alpha: float, sigma2: float, members: Sequence[int], notion: str) -> bool:
    """Defs 7 (Nash) and 8 (robust to valid entry) applied literally: try every exit and every entry."""
    _check_notion(notion)
    c = sorted_costs(costs)
    idx = np.array(sorted(members))
    if len(idx) < 2:
        return False
    k = len(idx)
    if np.any(burdens(c[idx], _selfish_profile(c[idx], k, alpha), sigma2, alpha) > sigma2):
        return False  # some member prefers to leave (burden above the outside option)
    for j in np.setdiff1d(np.arange(len(c)), idx):
        if notion == "nash":
            if entrant_burden(c[idx], c[j], sigma2, alpha) <= sigma2:
                return False  # j gains (weakly) by joining unilaterally
        else:
            grown = np.append(c[idx], c[j])
            if np.all(burdens(grown, _selfish_profile(grown, k + 1, alpha), sigma2, alpha) <= sigma2):
                return False  # valid entry: after everyone re-optimises, nobody in S + j wants out
    return True


def max_size_direct(costs: Sequence[float], alpha: float, sigma2: float, notion: str) -> int:
    """Largest stable coalition at sigma2 by testing every coalition against the definitions (0 if none)."""
    n = len(costs)
    for k in range(n, 1, -1):
        if any(is_stable_direct(costs, alpha, sigma2, s, notion) for s in itertools.combinations(range(n), k)):
            return k
    return 0


# ------------------------------------------------------------------------------------------- welfare and PoS
def decentralized_optimum(
    costs: Sequence[float], sigma2: float, alpha: float, notion: str
) -> tuple[tuple[int, ...], float, float]:
    """Social-cost-minimising stable coalition, or no sharing if none is stable: (members, SC_d, Var_d)."""
    c = sorted_costs(costs)
    n = len(c)
    best: tuple[tuple[int, ...], float, float] = ((), n * sigma2, sigma2)
    for members in stable_coalitions(c, alpha, sigma2, notion):
        sc = social_cost_decentralized(c[list(members)], n, sigma2, alpha)
        if sc < best[1]:
            best = (members, sc, variance_decentralized(c[list(members)], sigma2, alpha))
    return best


def price_of_stability(costs: Sequence[float], sigma2: float, alpha: float, notion: str) -> tuple[float, float]:
    """(PoS(SC), PoS(Var)) of Section 3.2: the SC-optimal stable coalition against the designer's optimum."""
    _, sc_d, var_d = decentralized_optimum(costs, sigma2, alpha, notion)
    _, sc_c, var_c = centralized_optimum(costs, sigma2, alpha)
    return sc_d / sc_c, var_d / var_c


@dataclass(frozen=True)
class IdenticalCostOutcome:
    """Optima for n players with one common cost: sizes (0 = no sharing), social costs, variances."""

    k_centralized: int
    sc_centralized: float
    var_centralized: float
    k_decentralized: int
    sc_decentralized: float
    var_decentralized: float

    @property
    def pos_sc(self) -> float:
        return self.sc_decentralized / self.sc_centralized

    @property
    def pos_var(self) -> float:
        return self.var_decentralized / self.var_centralized


def identical_cost_outcome(n: int, c: float, sigma2: float, alpha: float, notion: str) -> IdenticalCostOutcome:
    """Centralized and decentralized optima for identical costs in O(n), for large n (Claims 3 and 4).

    With one cost, T(S_k) = (k+2) phi k^beta / (k-1) and U_R(S_k) = T(S_{k+1}); by Claim 3 only the grand coalition
    can be Nash-stable, and robust-stable sizes are those with T_k <= sigma2 < T_{k+1} (plus n if T_n <= sigma2).
    """
    _check_notion(notion)
    _check_alpha(alpha)
    k = np.arange(2, n + 1, dtype=float)
    c23 = c ** (2 / 3)
    T = (k + 2) * phi(c) * k ** ((2 * alpha + 1) / 3) / (k - 1)
    if notion == "nash":
        stable = np.zeros_like(k, dtype=bool)
        stable[-1] = T[-1] <= sigma2
    else:
        stable = (T <= sigma2) & (sigma2 < np.append(T[1:], np.inf))
    sc_d = (n + 1) * sigma2 - (k * sigma2 - 2 ** (-1 / 3) * (k + 2) * k ** ((2 * alpha + 1) / 3) * c23)
    var_d = (sigma2 + k ** (2 * (alpha + 2) / 3) / 2 ** (1 / 3) * c23) / k
    if stable.any():
        i = np.flatnonzero(stable)[np.argmin(sc_d[stable])]
        dec = (int(k[i]), float(sc_d[i]), float(var_d[i]))
    else:
        dec = (0, n * sigma2, sigma2)
    sc_c = (n + 1) * sigma2 - (k * sigma2 - 3 * 2 ** (-1 / 3) * k ** (2 * (alpha + 1) / 3) * c23)
    j = int(np.argmin(sc_c))
    if sc_c[j] > n * sigma2:
        cen = (0, n * sigma2, sigma2)
    else:
        cen = (int(k[j]), float(sc_c[j]), float((sigma2 + k[j] ** (2 * (alpha + 1) / 3) / 2 ** (1 / 3) * c23) / k[j]))
    return IdenticalCostOutcome(*cen, *dec)


def identical_cost_pos(n: int, c: float, sigma2: float, alpha: float, notion: str) -> tuple[float, float]:
    """(PoS(SC), PoS(Var)) for n players with identical cost c, in O(n)."""
    out = identical_cost_outcome(n, c, sigma2, alpha, notion)
    return out.pos_sc, out.pos_var
