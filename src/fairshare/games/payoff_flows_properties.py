"""The payoff paper's axioms and lemmas as executable checks, and its qualitative observations about Figure 2.

``check_all`` returns (property, holds, detail) rows for one game (spec §5, T1-T22); ``paper_observations``
returns the observations of §5 of the paper (spec §3.1) for a value table with the paper's five parties
[0], [1-2], [0-3], [3-5], [6-9] in that order (only the party-independent ones for other tables).
"""
from __future__ import annotations

import itertools
import warnings
from math import factorial
from typing import Iterator

import numpy as np

from fairshare.games.payoff_flows import allocate, budget_lambda, fixed_point_lambda, rho_shapley_fit
from fairshare.games.shapley import conditional_shapley, n_players, shapley_values

TOL = 1e-9


def _allocate(v, budgets=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return allocate(v, budgets)


def _permutation_conditional(v: np.ndarray, i: int) -> np.ndarray:
    """Remark 3.10: phi_{j|i} as the average marginal contribution over permutations that start with i."""
    n = n_players(v)
    out = np.zeros(n)
    others = [k for k in range(n) if k != i]
    for perm in itertools.permutations(others):
        mask = 1 << i
        for j in perm:
            out[j] += v[mask | 1 << j] - v[mask]
            mask |= 1 << j
    return out / factorial(n - 1)


def check_all(v: np.ndarray, rng: np.random.Generator) -> Iterator[tuple[str, bool, str]]:
    v = np.asarray(v, float)
    n = n_players(v)
    grand = v[-1]
    singles = v[[1 << i for i in range(n)]]
    a = _allocate(v)
    F = conditional_shapley(v)
    yield "efficiency of the Shapley value", abs(a.shapley.sum() - grand) < TOL, ""
    yield "balance (Lemma 3.1)", abs(a.payoff.sum()) < TOL, ""
    yield "closed form n phi - v(N) equals flow form (Eq. 7)", np.allclose(a.payoff, n * a.shapley - grand, atol=TOL), ""
    yield "Shapley fairness (Cor 3.3)", all(abs((a.payoff[i] - a.payoff[j]) - n * (a.shapley[i] - a.shapley[j])) < TOL for i in range(n) for j in range(n)), ""
    yield "negative payoff iff below-average Shapley value (Cor 3.2)", all((a.payoff[i] < -TOL) == (a.shapley[i] < grand / n - TOL) for i in range(n) if abs(a.shapley[i] - grand / n) > TOL), ""
    yield "fair cost (Eq. 4)", np.allclose(F.sum(axis=1), grand - singles, atol=TOL), ""
    yield "decomposition n phi_i = v(i) + sum_j phi_{i|j} (Eq. 6)", np.allclose(n * a.shapley, singles + F.sum(axis=0), atol=TOL), ""
    if n <= 6:
        yield "permutation form of phi_{j|i} (Remark 3.10)", all(np.allclose(F[i], _permutation_conditional(v, i), atol=TOL) for i in range(n)), ""
    w = rng.random(1 << n)
    w[0] = 0
    s = float(rng.normal())
    aw, asum, ascaled = _allocate(w), _allocate(v + w), _allocate(s * v)
    yield "linearity of payoffs and flows", (np.allclose(asum.payoff, a.payoff + aw.payoff, atol=TOL) and np.allclose(ascaled.payoff, s * a.payoff, atol=TOL)
                                               and np.allclose(conditional_shapley(v + w), F + conditional_shapley(w), atol=TOL)), ""
    i = int(rng.integers(n))
    shifted = v.copy()
    masks = np.arange(1 << n)
    shifted[(masks >> i & 1) == 1] += 0.37
    yield "translation invariance (Cor 3.8)", np.allclose(conditional_shapley(shifted)[i], F[i], atol=TOL), f"party {i}"
    # Dummy and symmetry on a game extended by a dummy party and a twin of party 0.
    dummy = np.concatenate([v, v])  # party n adds nothing
    ad = _allocate(dummy)
    yield "dummy party pays v(N) (Lemma 3.1)", abs(ad.payoff[n] + grand) < TOL and np.allclose(conditional_shapley(dummy)[:, n], 0, atol=TOL), ""
    twin = np.array([v[m & ((1 << n) - 1) | ((m >> n & 1) << 0)] for m in range(1 << (n + 1))])  # party n is a copy of party 0
    at = _allocate(twin)
    yield "symmetry (Lemma 3.1)", abs(at.payoff[0] - at.payoff[n]) < TOL, ""
    for name, budgets in (("zero budgets", np.zeros(n)), ("random budgets", rng.random(n) * max(grand, 1e-9) * 0.5)):
        ab = _allocate(v, budgets)
        feasible = np.all(-ab.payoff <= budgets + 1e-9)
        efficient = all(ab.lam[k] > 1 - 1e-9 or abs(ab.payoff[k] + budgets[k]) < 1e-7 or F[k].sum() < 1e-12 for k in range(n))
        ir = np.all(ab.model_value >= singles - 1e-12) and np.all(ab.model_value <= grand + 1e-12)
        fixed = np.allclose(fixed_point_lambda(F, budgets), ab.lam, atol=1e-7)
        yield f"budgets respected ({name})", bool(feasible), ""
        yield f"budget fully used when binding ({name})", bool(efficient), ""
        yield f"feasibility and individual rationality (Eq. 8, {name})", bool(ir), ""
        yield f"weak efficiency: some party gets v(N) (Remark 4.2, {name})", bool(np.isclose(ab.model_value.max(), grand, atol=1e-9)), ""
        yield f"LP lambda equals the authors' fixed point ({name})", bool(fixed), ""
        yield f"balance under budgets ({name})", abs(ab.payoff.sum()) < TOL, ""
        adjusted = [ab.lam[k] * v + (1 - ab.lam[k]) * singles[k] * (v != 0) for k in range(n)]
        consistent = all(np.allclose(conditional_shapley(np.where(masks >> k & 1, adjusted[k], 0.0))[k], ab.lam[k] * F[k], atol=1e-9) for k in range(n))
        yield f"marginal contribution consistency (Eq. 9/11, {name})", bool(consistent), ""
    zero = _allocate(v, np.zeros(n))
    yield "zero budgets give zero payoffs", np.allclose(zero.payoff, 0, atol=1e-9), ""
    yield "unlimited budgets give everyone v(N)", np.allclose(a.model_value, grand), ""
    raised = np.zeros(n)
    raised[0] = 0.3 * grand
    yield "raising one budget never lowers any lambda", bool(np.all(_allocate(v, raised).lam >= zero.lam - 1e-9)), ""


def paper_observations(v: np.ndarray) -> Iterator[tuple[str, bool, str]]:
    v = np.asarray(v, float)
    n = n_players(v)
    grand = v[-1]
    singles = v[[1 << i for i in range(n)]]
    free, zero = _allocate(v), _allocate(v, np.zeros(n))
    b03 = np.zeros(n)
    b03[0] = 0.3
    some = _allocate(v, b03)
    yield "b=inf: every party gets the v(N) model", bool(np.allclose(free.model_value, grand)), ""
    yield "b=0: all payoffs are zero", bool(np.allclose(zero.payoff, 0, atol=1e-9)), f"max |payoff| = {np.abs(zero.payoff).max():.2e}"
    better = zero.model_value >= singles - 1e-12
    yield "b=0: every party still gets a model at least as good as its own", bool(better.all()), f"model - v(i) = {np.round(zero.model_value - singles, 4).tolist()}"
    for label, alloc in (("b=inf", free), ("b=0", zero), ("b=0.3 for party 1", some)):
        yield f"{label}: weak efficiency (some party gets v(N))", bool(np.isclose(alloc.model_value.max(), grand)), ""
    fit = rho_shapley_fit(zero.model_value, zero.shapley, grand)
    yield "b=0 model rewards cannot be produced by rho-Shapley for any rho", fit > 1e-3, f"best max-abs error over rho = {fit:.4f}"
    if n != 5:
        return
    note = f"payoffs {np.round(free.payoff, 3).tolist()}"
    yield "b=inf: [6-9] gets the largest payoff", int(np.argmax(free.payoff)) == 4, note
    yield "b=inf: [0-3] gets more than [0] and [1-2]", bool(free.payoff[2] > free.payoff[0] and free.payoff[2] > free.payoff[1]), note
    yield "b=0: [6-9] gets v(N)", bool(np.isclose(zero.model_value[4], grand)), f"models {np.round(zero.model_value, 4).tolist()}"
    yield "b=0.3 for [0]: [0]'s model improves over b=0", bool(some.model_value[0] > zero.model_value[0] + 1e-12), ""
    yield "b=0.3 for [0]: [1-2], [0-3], [3-5] also improve", bool(np.all(some.model_value[1:4] > zero.model_value[1:4] + 1e-12)), f"{np.round(zero.model_value[1:4], 4).tolist()} -> {np.round(some.model_value[1:4], 4).tolist()}"
    yield "b=0.3 for [0]: row [0] of the flows increases", bool(np.all(some.flows[0] >= zero.flows[0] - 1e-12) and some.flows[0].sum() > zero.flows[0].sum()), ""
    yield "b=0.3 for [0]: flows to [6-9] increase from [1-2], [0-3], [3-5]", bool(np.all(some.flows[1:4, 4] > zero.flows[1:4, 4] + 1e-12)), ""
    yield "b=0.3 for [0]: [6-9] still gets v(N) and a positive payoff", bool(np.isclose(some.model_value[4], grand) and some.payoff[4] > 0), f"payoff {some.payoff[4]:.4f}"
    yield "b=0.3 for [0]: [6-9]'s cost flows are unchanged", bool(np.allclose(some.flows[4], zero.flows[4])), ""
