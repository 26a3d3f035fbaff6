"""The payoff paper's axioms and lemmas as numerical checks, and its Section 5 observations about Figure 2.

``check_properties(v, rng)`` yields one ``Check`` per property (spec §5, T1-T22) with the largest violation found
(the residual) and the tolerance it is held to; it applies to any monotone game. ``paper_observations(v, parties)``
yields the qualitative statements of Section 5 (spec §3.1) for one value table; statements about named parties
([0], [1-2], [0-3], [3-5], [6-9]) are made only when the table has the paper's parties.
"""
from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from math import factorial
from typing import Iterator, Sequence

import numpy as np

from fairshare.games.payoff_flows import (Allocation, NonMonotoneGameWarning, adjusted_game, allocate, fixed_point_lambda,
                                          monotonicity_violations, order_conflicts, rho_shapley_gap, rho_shapley_rewards,
                                          singletons)
from fairshare.games.shapley import conditional_shapley, n_players, shapley_values

TOL = 1e-9
PAPER_PARTIES = ("[0]", "[1-2]", "[0-3]", "[3-5]", "[6-9]")
#: Payoffs of the replication-robust scheme of Ohrimenko et al. [13] on the MNIST experiment, as printed in Sec. 5.
OHRIMENKO_PAYOFFS = (-0.41, -0.26, -0.02, 0.12, 0.58)
#: A reward vector within this max-abs distance of some rho-Shapley vector counts as producible (accuracy units).
RHO_SHAPLEY_TOL = 1e-3
#: Fig. 2 (e, f, h): only the first party has a budget, 0.3 (nu = 1 accuracy units).
FIRST_PARTY_BUDGET = 0.3


@dataclass(frozen=True)
class Check:
    """One numerical check: ``residual`` is the largest violation found, held to ``tolerance``."""

    name: str
    residual: float
    tolerance: float = TOL
    detail: str = ""
    kind: str = "property"  # or "diagnostic": reported, not required (e.g. monotonicity of a trained table)

    @property
    def holds(self) -> bool:
        return bool(self.residual <= self.tolerance)


@dataclass(frozen=True)
class Observation:
    """One qualitative statement of the paper, checked on one value table."""

    claim: str
    paper_states: str
    holds: bool
    reproduced: str


def quiet_allocate(v: np.ndarray, budgets: Sequence[float] | None = None) -> Allocation:
    """``allocate`` without the non-monotone warning (the checks report monotonicity themselves)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonMonotoneGameWarning)
        return allocate(v, budgets)


def random_monotone_game(n: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform random coalition values made monotone by a running maximum over subsets (spec §5 (a))."""
    v = rng.random(1 << n)
    v[0] = 0.0
    for k in range(n):  # after pass k, v(S) >= v(S - k) for every S; later passes keep earlier ones
        with_k = np.flatnonzero((np.arange(1 << n) >> k) & 1)
        v[with_k] = np.maximum(v[with_k], v[with_k ^ (1 << k)])
    return v


def permutation_conditional_shapley(v: np.ndarray, i: int) -> np.ndarray:
    """Remark 3.10: phi_{j|i} as the average marginal contribution of j over orders of N that start with i."""
    n = n_players(v)
    out = np.zeros(n)
    for order in itertools.permutations([k for k in range(n) if k != i]):
        mask = 1 << i
        for j in order:
            out[j] += v[mask | 1 << j] - v[mask]
            mask |= 1 << j
    return out / factorial(n - 1)


def generalised_payoff(v: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """Remark 3.6: alpha phi_i + (beta - alpha v(N)) / n, the unique payoffs with sum beta and dummy share (beta - alpha v(N)) / n."""
    return alpha * shapley_values(v) + (beta - alpha * v[-1]) / n_players(v)


def _extend(v: np.ndarray, new_value) -> np.ndarray:
    """A game with one more player n: v(S) for S without n, ``new_value(S)`` for S + n (S a mask of N)."""
    return np.concatenate([v, np.array([new_value(s) for s in range(len(v))])])


def _max_abs(x) -> float:
    return float(np.max(np.abs(x))) if np.size(x) else 0.0


def _budget_checks(v: np.ndarray, F: np.ndarray, budgets: np.ndarray, label: str, rng: np.random.Generator) -> Iterator[Check]:
    n = n_players(v)
    grand, own = v[-1], singletons(v)
    a = quiet_allocate(v, budgets)
    cost = F.sum(axis=1)
    yield Check(f"budgets respected ({label})", float(np.max(np.maximum(-a.payoff - budgets, 0.0))), detail="max over i of -p_i - b_i")
    slack = [0.0 if cost[k] <= 1e-15 else min(1.0 - a.lam[k], abs(a.payoff[k] + budgets[k])) for k in range(n)]
    yield Check(f"budget fully used when binding ({label})", max(slack), 1e-7, "each i: lambda_i = 1 or p_i = -b_i")
    ir = max(np.max(np.maximum(own - a.model_value, 0.0)), np.max(np.maximum(a.model_value - grand, 0.0)))
    yield Check(f"feasibility and individual rationality, Eq. 8 ({label})", float(ir), detail="v(i) <= model_i <= v(N)")
    yield Check(f"weak efficiency, Remark 4.2 ({label})", float(grand - a.model_value.max()), detail="some party gets v(N)")
    yield Check(f"balance under budgets ({label})", abs(float(a.payoff.sum())))
    yield Check(f"LP lambda equals the authors' fixed point ({label})", _max_abs(fixed_point_lambda(F, budgets) - a.lam), 1e-7)
    consistency = max(_max_abs(conditional_shapley(adjusted_game(v, k, a.lam[k]))[k] - a.lam[k] * F[k]) for k in range(n))
    yield Check(f"marginal contribution consistency, Eq. 9/11 ({label})", consistency,
                detail="phi_{j|i}(v'_i) = lambda_i phi_{j|i}(v), v'_i from Eq. 10")
    # random directions scaled back onto the feasible set's boundary (A (t x) = t A x <= b for t in [0, 1] as b >= 0)
    directions = rng.random((400, n))
    load = directions * cost - directions @ F
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(load > 1e-15, budgets / load, np.inf)
    feasible = directions * np.minimum(room.min(axis=1), 1.0)[:, None]
    yield Check(f"lambda* dominates sampled feasible lambdas, T20 ({label})", float(np.max(feasible - a.lam, initial=0.0)), 1e-9,
                "400 random directions scaled to the feasible boundary")


def check_properties(v: Sequence[float], rng: np.random.Generator) -> Iterator[Check]:
    """Every property of Sections 3-4 on the game ``v`` (payoffs, flows, budgets); random parts drawn from ``rng``."""
    v = np.asarray(v, dtype=float)
    n = n_players(v)
    grand, own = v[-1], singletons(v)
    drops = monotonicity_violations(v)
    F = conditional_shapley(v)
    yield Check("monotone game (the paper's assumption)", float(drops.max(initial=0.0)), 0.0,
                f"{len(drops)} drops; min phi_(j|i) = {F[~np.eye(n, dtype=bool)].min():.4g}", kind="diagnostic")
    a = quiet_allocate(v)
    phi = a.shapley
    yield Check("Shapley efficiency", abs(phi.sum() - grand))
    yield Check("balance, Lemma 3.1", abs(float(a.payoff.sum())))
    yield Check("closed form n phi - v(N) equals the flow form, Eq. 1 = Eq. 7", _max_abs(a.payoff - (n * phi - grand)))
    pair_gaps = (a.payoff[:, None] - a.payoff[None, :]) - n * (phi[:, None] - phi[None, :])
    yield Check("Shapley fairness, Cor. 3.3", _max_abs(pair_gaps))
    clear = np.abs(phi - grand / n) > TOL
    yield Check("negative payoff iff below-average Shapley value, Cor. 3.2",
                float(np.sum((a.payoff[clear] < 0) != (phi[clear] < grand / n))), 0.0, "count of sign mismatches")
    yield Check("fair cost, Eq. 4", _max_abs(F.sum(axis=1) - (grand - own)))
    yield Check("flow decomposition n phi_i = v(i) + sum_j phi_(i|j), Eq. 6", _max_abs(n * phi - own - F.sum(axis=0)))
    if n <= 6:
        yield Check("permutation form of phi_(j|i), Remark 3.10",
                    max(_max_abs(F[i] - permutation_conditional_shapley(v, i)) for i in range(n)))
    w = rng.random(1 << n)
    w[0] = 0.0
    scale = float(rng.normal())
    aw, asum, ascaled = quiet_allocate(w), quiet_allocate(v + w), quiet_allocate(scale * v)
    yield Check("linearity of payoffs and flows", max(_max_abs(asum.payoff - a.payoff - aw.payoff),
                                                       _max_abs(ascaled.payoff - scale * a.payoff),
                                                       _max_abs(asum.flows - a.flows - aw.flows),
                                                       _max_abs(ascaled.flows - scale * a.flows)))
    i = int(rng.integers(n))
    shifted = v + 0.37 * ((np.arange(1 << n) >> i) & 1)
    yield Check("translation invariance of payer i's flows, Cor. 3.8", _max_abs(conditional_shapley(shifted)[i] - F[i]), detail=f"i = {i}")
    dummy = _extend(v, lambda s: v[s])
    ad, Fd = quiet_allocate(dummy), conditional_shapley(dummy)
    yield Check("dummy party pays v(N) and is a conditional dummy", max(abs(ad.payoff[n] + grand), _max_abs(Fd[:, n])))
    twin = _extend(v, lambda s: v[s | 1])  # player n duplicates player 0: S + n is worth S + 0
    at, Ft = quiet_allocate(twin), conditional_shapley(twin)
    others = [k for k in range(n + 1) if k not in (0, n)]
    yield Check("symmetry and conditional symmetry", max(abs(at.payoff[0] - at.payoff[n]), _max_abs(Ft[others, 0] - Ft[others, n])))
    omni = _extend(v, lambda s: grand)
    yield Check("an omnipotent party has no cost, Remark 3.11", _max_abs(conditional_shapley(omni)[n]))
    alpha, beta = 1.7, 0.3
    general = generalised_payoff(v, alpha, beta)
    yield Check("Remark 3.6: generalised efficiency and dummy; reduces to phi, to Eq. 1 and to beta/n",
                max(abs(general.sum() - beta), abs(generalised_payoff(dummy, alpha, beta)[n] - (beta - alpha * grand) / (n + 1)),
                    _max_abs(generalised_payoff(v, 1.0, grand) - phi), _max_abs(generalised_payoff(v, n, 0.0) - a.payoff),
                    _max_abs(generalised_payoff(v, 0.0, beta) - beta / n)))
    for label, budgets in (("zero budgets", np.zeros(n)), ("random budgets", rng.random(n) * 0.5 * max(grand, 1e-9))):
        yield from _budget_checks(v, F, budgets, label, rng)
    unlimited = quiet_allocate(v, np.full(n, 1e9))
    yield Check("huge finite budgets give lambda = 1 and v(N) for all, T21", max(_max_abs(1 - unlimited.lam), _max_abs(unlimited.model_value - grand)))
    zero = quiet_allocate(v, np.zeros(n))
    yield Check("zero budgets give zero payoffs, T21", _max_abs(zero.payoff))
    raised = np.zeros(n)
    raised[int(rng.integers(n))] = 0.3 * grand
    yield Check("raising one budget lowers no lambda, T22", float(np.max(np.maximum(zero.lam - quiet_allocate(v, raised).lam, 0.0))))


def _names(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{x:.4f}" for x in values) + "]"


def paper_observations(v: Sequence[float], parties: Sequence[str]) -> Iterator[Observation]:
    """The Section 5 statements (spec §3.1) on value table ``v`` whose parties are named ``parties``."""
    v = np.asarray(v, dtype=float)
    n = n_players(v)
    grand, own = v[-1], singletons(v)
    free, zero = quiet_allocate(v), quiet_allocate(v, np.zeros(n))
    first = np.zeros(n)
    first[0] = FIRST_PARTY_BUDGET
    some = quiet_allocate(v, first)
    phi = free.shapley
    p0 = parties[0]

    yield Observation("b=inf: every party gets the v(N) model", "Fig. 2b: all parties receive models with the highest performance",
                      bool(np.allclose(free.model_value, grand)), f"models {_names(free.model_value)}, v(N) = {grand:.4f}")
    order_ok = all(free.payoff[i] >= free.payoff[j] - TOL for i in range(n) for j in range(n) if phi[i] > phi[j])
    yield Observation("b=inf: parties with more valuable data get higher payoffs", "desirable observation (i)",
                      order_ok, f"payoffs {_names(free.payoff)}, phi {_names(phi)}")
    yield Observation("b=0: all payoffs are zero", "Fig. 2c: no payoff is transferred when budgets are zero",
                      bool(np.allclose(zero.payoff, 0.0, atol=1e-9)), f"max |p_i| = {np.abs(zero.payoff).max():.1e}")
    gains = zero.model_value - own
    yield Observation("b=0: every party still gets a better model than its own", "Fig. 2d, desirable observation (ii)",
                      bool(np.all(gains[own < grand] > 1e-9)), f"v'_i(N) - v(i) = {_names(gains)}")
    for label, alloc in (("b=inf", free), ("b=0", zero), (f"b=0.3 for {p0}", some)):
        yield Observation(f"{label}: weak efficiency (some party gets v(N))", "Remark 4.2, desirable observation (iv)",
                          bool(np.isclose(alloc.model_value.max(), grand, atol=1e-9)), f"lambda {_names(alloc.lam)}")
    if np.all(phi > 0):
        gap, rho = rho_shapley_gap(zero.model_value, phi, grand)
        conflicts = order_conflicts(zero.model_value, phi)
        pairs = ", ".join(f"{parties[i]} < {parties[j]}" for i, j in conflicts)
        yield Observation("b=0: the model rewards cannot be produced by rho-Shapley for any rho",
                          "Sec. 5: the allocation in Fig. 2d cannot be obtained from the rho-Shapley value",
                          gap > RHO_SHAPLEY_TOL,
                          f"best max-abs error over rho in [0, 50]: {gap:.4f} at rho = {rho:.3f}; order conflicts "
                          f"(phi smaller, model larger; each rules out every rho): {pairs or 'none'}")
    w = v[[sum(1 << ((k + 1) % n) for k in range(n) if s >> k & 1) for s in range(1 << n)]]  # players relabelled
    if np.all(phi > 0) and np.all(shapley_values(w) > 0):
        rho_gap = _max_abs(rho_shapley_rewards(shapley_values(v + w), 2 * grand, 0.5)
                           - rho_shapley_rewards(phi, grand, 0.5) - rho_shapley_rewards(shapley_values(w), grand, 0.5))
        ours = _max_abs(quiet_allocate(v + w).flows - free.flows - quiet_allocate(w).flows)
        yield Observation("rho-Shapley (rho = 0.5) is not linear, the proposed flows are",
                          "Sec. 5: when rho != 1 the rho-Shapley value does not satisfy linearity",
                          rho_gap > 1e-3 and ours < 1e-9, f"rho-Shapley additivity gap {rho_gap:.4f}; flows gap {ours:.1e}")
    raised = some.model_value - zero.model_value
    if zero.model_value[0] < grand - 1e-9:  # a party that already gets v(N) at b = 0 cannot improve
        yield Observation(f"b=0.3 for {p0}: {p0}'s model improves over b=0", "Fig. 2f vs 2d, desirable observation (iii)",
                          bool(raised[0] > 1e-9), f"{zero.model_value[0]:.4f} -> {some.model_value[0]:.4f}")
    yield Observation(f"b=0.3 for {p0}: no party's model gets worse", "desirable observation (iii): it can help others",
                      bool(np.all(raised > -1e-9)), f"change {_names(raised)}")
    if tuple(parties) != PAPER_PARTIES:
        return
    yield Observation("b=inf: [6-9] gets the largest payoff", "Fig. 2a: party [6-9] receives the largest payoff reward",
                      int(np.argmax(free.payoff)) == 4, f"payoffs {_names(free.payoff)}")
    yield Observation("b=inf: [0-3] gets more than [0] and [1-2]", "Fig. 2a: [0-3]'s payoff exceeds those of [0] and [1-2]",
                      bool(free.payoff[2] > max(free.payoff[0], free.payoff[1])), f"payoffs {_names(free.payoff)}")
    yield Observation("b=inf: the payoffs differ from those of Ohrimenko et al. [13]",
                      "Sec. 5: [13] gives [-0.41, -0.26, -0.02, 0.12, 0.58]",
                      bool(_max_abs(free.payoff - np.array(OHRIMENKO_PAYOFFS)) > 0.05),
                      f"ours {_names(free.payoff)}; [13] not reimplemented (its formula is not in the paper)")
    yield Observation("b=0: [6-9] gets v(N)", "Fig. 2d: party [6-9] obtains the model of value v(N)",
                      bool(np.isclose(zero.model_value[4], grand, atol=1e-9)), f"models {_names(zero.model_value)}")
    yield Observation("b=0.3 for [0]: [1-2], [0-3] and [3-5] also get better models", "Fig. 2f vs 2d",
                      bool(np.all(raised[1:4] > 1e-9)), f"{_names(zero.model_value[1:4])} -> {_names(some.model_value[1:4])}")
    yield Observation("b=0.3 for [0]: [0]'s payments to the others increase", "first row of Fig. 2h vs 2g",
                      bool(np.all(some.flows[0, 1:] > zero.flows[0, 1:] + 1e-9)), f"{_names(zero.flows[0])} -> {_names(some.flows[0])}")
    yield Observation("b=0.3 for [0]: [1-2], [0-3] and [3-5] pay [6-9] more", "last column of Fig. 2h vs 2g",
                      bool(np.all(some.flows[1:4, 4] > zero.flows[1:4, 4] + 1e-9)), f"{_names(zero.flows[1:4, 4])} -> {_names(some.flows[1:4, 4])}")
    yield Observation("b=0.3 for [0]: [6-9] gets v(N) and a positive payoff", "Fig. 2e, 2f",
                      bool(np.isclose(some.model_value[4], grand, atol=1e-9) and some.payoff[4] > 1e-9),
                      f"model {some.model_value[4]:.4f}, payoff {some.payoff[4]:.4f}")
    yield Observation("b=0.3 for [0]: [6-9]'s cost flows are unchanged", "last row of Fig. 2g and 2h",
                      _max_abs(some.flows[4] - zero.flows[4]) < 1e-9, f"{_names(some.flows[4])}")
