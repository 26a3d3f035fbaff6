"""Closed-form quantities of FedFairMMFL's theory (Sec. IV of "Fair concurrent training of multiple models in FL").

Eq. 5 (allocation vector) and Eq. 16 (probability of a selection set); the optima of a resource-coupled toy problem
on which Lemmas 1-2 are checked; Corollary 5's term (Eq. 27 with p_k = 1/K); and Lemma 3's discrepancy bound (25),
Theorem 4's one-round bound (26) and Corollary 6's T-round bound on one-dimensional quadratic clients that take tau
local SGD steps per round, whose expectations are exact sums over the 2^K selection sets. Plain numpy.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import comb

import numpy as np

__all__ = [
    "Quadratic",
    "allocation_vector",
    "corollary5_term",
    "corollary5_peak",
    "corollary6_bound",
    "corollary6_error",
    "coupled_optimum",
    "lemma3_sides",
    "cosine_ratio",
    "selection_probability",
    "subsets",
    "theorem4_sides",
]


def allocation_vector(losses: np.ndarray, exponent: float) -> np.ndarray:
    """f_s^e / sum f^e: Eq. 5 with e = alpha - 1, Eq. 16's binomial parameter with e = alpha."""
    f = np.asarray(losses, dtype=float) ** exponent
    return f / f.sum()


def selection_probability(q: float, size: int, clients: int) -> float:
    """Eq. 16: B = q^|Sel| (1 - q)^(K - |Sel|), the probability that exactly a given set of ``size`` of the
    ``clients`` clients trains the task when each picks it independently with probability q."""
    return float(q**size * (1.0 - q) ** (clients - size))


def subsets(clients: int) -> list[tuple[int, ...]]:
    """Every selection set of K clients (the empty one included), the range of Eq. 16's sums."""
    return [s for r in range(clients + 1) for s in itertools.combinations(range(clients), r)]


# ---- Lemmas 1-2: a resource-coupled toy problem --------------------------------------------------------------


def _losses(n: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return a + b / (1.0 + n) ** c


def _marginal(n: np.ndarray, alpha: float, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """-(d/dn) f_s(n)^alpha: the objective's decrease per unit of clients given to task s (decreasing in n)."""
    return alpha * _losses(n, a, b, c) ** (alpha - 1) * b * c * (1.0 + n) ** (-c - 1)


def coupled_optimum(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, clients: float, alpha: float, iterations: int = 60
) -> tuple[np.ndarray, np.ndarray]:
    """The minimiser of sum_s f_s(n_s)^alpha over n >= 0 with sum_s n_s = K, for f_s(n) = a_s + b_s (1 + n)^-c_s
    (a, b, c > 0; arrays of shape (..., S): one problem per leading index): the tasks share K clients, as Eq. 7's
    one-task-per-client constraint makes them. The problem is convex, so the KKT point (equal marginals on the
    tasks that get clients), found by nested bisection, is the optimum. Returns (n, losses)."""
    a, b, c = (np.asarray(x, dtype=float) for x in (a, b, c))

    def split(lam: np.ndarray) -> np.ndarray:
        lo, hi = np.zeros_like(a), np.full_like(a, float(clients))
        for _ in range(iterations):
            mid = (lo + hi) / 2
            above = _marginal(mid, alpha, a, b, c) > lam[..., None]
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        return (lo + hi) / 2

    lam_lo = np.zeros(a.shape[:-1])
    lam_hi = _marginal(np.zeros_like(a), alpha, a, b, c).max(axis=-1)
    for _ in range(iterations):
        lam = (lam_lo + lam_hi) / 2
        over = split(lam).sum(axis=-1) > clients
        lam_lo, lam_hi = np.where(over, lam, lam_lo), np.where(over, lam_hi, lam)
    n = split((lam_lo + lam_hi) / 2)
    n = n * (clients / n.sum(axis=-1, keepdims=True))
    return n, _losses(n, a, b, c)


def cosine_ratio(losses: np.ndarray) -> float:
    """Lemma 2's sum f / sqrt(sum f^2): the cosine similarity of the losses with the all-ones vector, times sqrt(S)."""
    f = np.asarray(losses, dtype=float)
    return float(f.sum() / np.sqrt((f**2).sum()))


# ---- Corollary 5 ---------------------------------------------------------------------------------------------


def corollary5_term(q: np.ndarray | float, clients: int) -> np.ndarray:
    """Eq. 29 with p_k = 1/K: sum_{j=1..K} (1/j) C(K, j) q^j (1 - q)^(K - j) (a set of j clients adds j (1/j)^2),
    for each q."""
    j = np.arange(1, clients + 1)
    weights = np.array([comb(clients, int(x)) / x for x in j], dtype=float)
    q = np.asarray(q, dtype=float)[..., None]
    return np.sum(weights * q**j * (1.0 - q) ** (clients - j), axis=-1)


def corollary5_peak(clients: int, grid: int = 20001) -> float:
    """The q at which Corollary 5's term is largest: it rises in q below this point and falls above it."""
    qs = np.linspace(0.0, 1.0, grid)
    return float(qs[int(np.argmax(corollary5_term(qs, clients)))])


# ---- Theorem 4 and Corollary 6 on one-dimensional quadratic clients --------------------------------------------


@dataclass(frozen=True)
class Quadratic:
    """One task of K clients with F_k(w) = (mu/2)(w - c_k)^2 (so L = mu and F_k* = 0), data weights p_k, stochastic
    gradients with noise variance sigma2, selection sets drawn by Eq. 16 with binomial parameter q, and tau local SGD
    steps per round at the round's step size (Algorithm 1, line 8). After tau steps from w at step size eta a client's
    model is c_k + r^tau (w - c_k) plus noise of variance eta^2 sigma2 sum_{j<tau} r^(2j), r = 1 - eta mu."""

    centres: np.ndarray
    weights: np.ndarray
    mu: float
    sigma2: float
    q: float
    tau: int = 1

    def __post_init__(self) -> None:
        if self.tau < 1:
            raise ValueError(f"tau = {self.tau}: a round takes at least one local step")
        object.__setattr__(self, "_sets", self._selection_sets())

    @property
    def optimum(self) -> float:
        return float(self.weights @ self.centres)

    @property
    def gap(self) -> float:
        """Gamma_s (Eq. 17): f* - sum_k p_k F_k* = f(w*)."""
        return float(self.weights @ (self.mu / 2 * (self.optimum - self.centres) ** 2))

    def sets(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_selection_sets`, computed once."""
        return self._sets

    def _selection_sets(self) -> tuple[np.ndarray, np.ndarray]:
        """Every non-empty selection set's probability B (Eq. 16) and its aggregation weights p_{k,Sel} (Eq. 6) as a
        sets x clients matrix (0 outside the set)."""
        k = len(self.centres)
        chosen = subsets(k)[1:]
        member = np.zeros((len(chosen), k))
        for row, sel in enumerate(chosen):
            member[row, list(sel)] = 1.0
        agg = member * self.weights
        return self.set_law(chosen), agg / agg.sum(axis=1, keepdims=True)

    def set_law(self, chosen: list[tuple[int, ...]]) -> np.ndarray:
        """The probability of each selection set in ``chosen``: Eq. 16 with binomial parameter q."""
        k = len(self.centres)
        return np.array([selection_probability(self.q, len(sel), k) for sel in chosen])

    def skew(self, w: np.ndarray | float) -> np.ndarray:
        """Eq. 18's selection skew at each w (the empty set contributes nothing to the numerator)."""
        local = self.mu / 2 * (np.asarray(w, dtype=float)[..., None] - self.centres) ** 2
        prob, agg = self.sets()
        return (local @ agg.T) @ prob / (local @ self.weights)

    def local(self, eta: float) -> tuple[float, float, float]:
        """A round's tau steps at step size eta: (r^tau, 1 - r^tau, sum_{j<tau} r^(2j)), the factor on w - c_k, the
        pull towards c_k and the noise variance in units of eta^2 sigma2 (1 - r^tau as eta mu sum_{j<tau} r^j)."""
        r = 1.0 - eta * self.mu
        powers = r ** np.arange(self.tau)
        return r**self.tau, eta * self.mu * float(powers.sum()), float((powers**2).sum())

    def step(self, m1: np.ndarray, m2: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray]:
        """Exact E[w' - w*] and E[(w' - w*)^2] after one round from states with those moments (arrays): a selected
        set takes tau SGD steps each from the global model and averages with Eq. 6's weights; the empty set leaves
        the model as it is."""
        prob, agg = self.sets()
        empty = 1.0 - prob.sum()
        r, pull, spread = self.local(eta)
        shift = pull * (agg @ self.centres - self.optimum)
        noise = eta**2 * self.sigma2 * spread * (prob @ (agg**2).sum(axis=1))
        n1 = m1 * (empty + r * prob.sum()) + prob @ shift
        n2 = m2 * (empty + r * r * prob.sum()) + 2 * r * m1 * (prob @ shift) + prob @ shift**2 + noise
        return n1, n2

    def discrepancy(self, w: float, eta: float) -> float:
        """Lemma 3's left side (24) at the end of a round's local training from a global model at w: the exact
        E[sum_{k in Sel} p_{k,Sel} (wbar - w_k)^2], wbar = sum_{k in Sel} p_{k,Sel} w_k the selected clients' average
        (the empty set contributes nothing)."""
        prob, agg = self.sets()
        r, _, spread = self.local(eta)
        means = self.centres + r * (w - self.centres)
        drift = agg @ means**2 - (agg @ means) ** 2  # the weighted spread of the local models' means, per set
        noise = eta**2 * self.sigma2 * spread * (1.0 - (agg**2).sum(axis=1))
        return float(prob @ (drift + noise))

    def noise_term(self) -> float:
        """sum_Sel B sum_{k in Sel} p_{k,Sel}^2: the factor of eta^2 sigma^2 in (26) (Corollary 5's term (27))."""
        prob, agg = self.sets()
        return float(prob @ (agg**2).sum(axis=1))

    def pair_term(self) -> float:
        """sum_Sel B P^{k,2}_Sel of (25), with P^{k,2} = ((sum_Sel p)^2 - sum_Sel p^2) / (2 (sum_Sel p)^2) as
        Corollary 6's proof writes it (the unordered pairs of the set: at most 1/2)."""
        prob, agg = self.sets()
        return float(prob @ ((1.0 - (agg**2).sum(axis=1)) / 2))


def _gradient_bound(task: Quadratic, w: float) -> float:
    """G^2 for a round from w: the largest expected squared stochastic gradient at w. The noiseless local iterates
    move from w towards c_k, so no larger gradient mean occurs in the round; their noise, left out, would only raise
    G^2 (a smaller bound: a stricter check)."""
    return float(np.max(task.mu**2 * (w - task.centres) ** 2) + task.sigma2)


def lemma3_sides(task: Quadratic, w: float, eta: float) -> tuple[float, float]:
    """Both sides of (25) for one round of tau local steps at eta from a global model at w: the exact discrepancy
    (:meth:`Quadratic.discrepancy`) and 16 eta^2 tau^2 G^2 sum_Sel B P^{k,2}."""
    bound = 16 * eta**2 * task.tau**2 * _gradient_bound(task, w) * task.pair_term()
    return task.discrepancy(w, eta), float(bound)


def theorem4_sides(task: Quadratic, w: float, eta: float) -> tuple[float, float]:
    """Both sides of (26) for one round (tau local steps at eta) from a global model at w, local models equal to it:
    the exact E||w_{t+1} - w*||^2 and the bound, with the skew bounds the smaller and larger skew at w and at w* (the
    two points where the proof evaluates it) and G^2 as :func:`_gradient_bound`."""
    d = w - task.optimum
    _, lhs = task.step(np.asarray(d), np.asarray(d * d), eta)
    low, high = sorted(float(x) for x in task.skew(np.array([w, task.optimum])))
    g2 = _gradient_bound(task, w)
    gap, mu = task.gap, task.mu
    rhs = (
        (1 - eta * mu * (1 + 3 * low / 8)) * d * d
        + 2 * eta * gap * (high - low)
        + eta**2 * task.sigma2 * task.noise_term()
        + eta**2 * (32 * task.tau**2 * g2 + 6 * low * mu * gap)
    )
    return float(lhs), float(rhs)


def corollary6_error(task: Quadratic, w0: np.ndarray, gamma: float, rounds: tuple[int, ...]) -> np.ndarray:
    """The exact E[f(w_T)] - f* for each start in ``w0`` (rows) and each T in ``rounds`` (columns), with
    eta_t = 1/(mu (t + gamma)) in round t (each of its tau local steps)."""
    m1 = np.asarray(w0, dtype=float) - task.optimum
    m2, out = m1**2, []
    for t in range(max(rounds)):
        m1, m2 = task.step(m1, m2, 1.0 / (task.mu * (t + gamma)))
        if t + 1 in rounds:
            out.append(task.mu / 2 * m2)
    return np.stack(out, axis=-1)


def corollary6_terms(
    task: Quadratic, w0: float, gamma: float, grid: int = 201, recruited: float = 1.0
) -> tuple[float, float]:
    """Corollary 6's bound (L = mu, the task's tau) as (numerator, floor): the bound after T rounds is
    numerator / (T + gamma) + floor, the floor being its skew term (8 L Gamma / (3 mu)) (rho~/rho_ - 1). The skew bounds
    and G^2 are taken over every w between the clients' optima and w0 (the noiseless iterates stay there: each step
    moves w towards a convex combination of optima). ``recruited`` weighs the tau^2 G^2 term: Theorem 11 of the auctions
    paper multiplies it by the probability that some user is recruited. A smallest skew of 0 gives an infinite bound."""
    lo, hi = min(task.centres.min(), w0), max(task.centres.max(), w0)
    skews = task.skew(np.linspace(lo, hi, grid))
    low, high = float(skews.min()), float(skews.max())
    if low <= 0:
        return float("inf"), float("inf")
    far = np.maximum(np.abs(lo - task.centres), np.abs(hi - task.centres)).max()
    g2 = float(task.mu**2 * far**2 + task.sigma2)
    mu, gap = task.mu, task.gap
    head = 4 * (16 * task.tau**2 * g2 * recruited + task.sigma2) / (3 * low * mu**2) + 8 * mu**2 * gap / mu**2
    head += mu * gamma * (w0 - task.optimum) ** 2 / 2
    return float(head), float(8 * mu * gap / (3 * mu) * (high / low - 1))


def corollary6_bound(
    task: Quadratic, w0: float, gamma: float, rounds: int, grid: int = 201, recruited: float = 1.0
) -> float:
    """Corollary 6's bound after ``rounds`` rounds (:func:`corollary6_terms`)."""
    head, floor = corollary6_terms(task, w0, gamma, grid, recruited)
    return head / (rounds + gamma) + floor
