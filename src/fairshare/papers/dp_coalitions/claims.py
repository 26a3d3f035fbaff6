"""Data sharing with endogenous DP levels: every scorecard row, from this run's results and exact checks (spec §6).

Figure 1, Lemma 5 and the worked examples are judged on this run's result tables (:mod:`.experiment`); the other
statements are checked on random instances from a seeded Generator (``count`` scales the grids); Theorems 1-4 on
the identical-cost price-of-stability table because their statements are about large n. A printed statement that
fails is an ``erratum`` row whose note says what holds instead.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import minimize, minimize_scalar

from fairshare import seeding
from fairshare.games import dp_coalitions as dp
from fairshare.papers.dp_coalitions.experiment import PAPER, Settings
from fairshare.report import Claim

SLOPE_TOLERANCE = 0.06  # log-log slopes between the two largest n (spec §6: about ±0.05 in the asymptotic regime)


def _row(
    artifact: str, claim: str, states: str, reproduced: str, holds: bool, note: str = "", erratum: bool = False
) -> Claim:
    """One scorecard row; ``erratum`` marks a statement checked as printed that the paper's own proof corrects."""
    return Claim.verdict(
        holds,
        paper=PAPER,
        artifact=artifact,
        claim=claim,
        kind="erratum" if erratum else "claim",
        paper_states=states,
        reproduced=reproduced,
        note=note,
    )


def _instance(rng: np.random.Generator, n_lo: int = 3, n_hi: int = 7) -> tuple[np.ndarray, float]:
    n = int(rng.integers(n_lo, n_hi + 1))
    return np.sort(rng.uniform(1e-4, 5e-3, size=n)), float(rng.uniform(-1, 1))


# ------------------------------------------------------------------------------------------- model (Sections 2-5)
def equation_1(rng: np.random.Generator, repetitions: int) -> Iterator[Claim]:
    """Monte Carlo of the Laplace mean estimator against Eq. (1)."""
    worst = 0.0
    for k in (2, 5, 9):
        eps = rng.uniform(0.5, 5.0, size=k)
        a, b = 2.0, 3.0  # Beta(2, 3) data on [0, 1]
        sigma2 = a * b / ((a + b) ** 2 * (a + b + 1))
        estimates = dp.laplace_mean(rng.beta(a, b, size=(repetitions, k)), eps, rng)
        centred = estimates - estimates.mean()
        sample_var = float(np.mean(centred**2))
        se = float(np.sqrt((np.mean(centred**4) - sample_var**2) / repetitions))
        worst = max(worst, abs(sample_var - dp.variance(sigma2, eps)) / se)
    yield _row(
        "Eq. (1)",
        "Eq. (1)",
        "Var(mean of x_i + Lap(1/eps_i)) = sigma2/k + (2/k^2) sum 1/eps_i^2",
        f"Monte Carlo, k in (2, 5, 9), {repetitions} repetitions each, Beta(2,3) data",
        worst < 4,
        f"largest |z| = {worst:.2f}",
    )


def lemma_1(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    """Designer's optimum at each size is the cheapest k players with the closed-form eps, SC (Eq. 3), Var (Eq. 2)."""
    downward = values = True
    worst = 0.0
    for _ in range(count):
        c, alpha = _instance(rng, 3, 5)
        sigma2 = float(rng.uniform(0.01, 0.5))
        n = len(c)
        for k in range(2, n + 1):
            best_sc, best_set, best_eps = np.inf, None, None
            for members in itertools.combinations(range(n), k):
                cc = c[list(members)]
                res = minimize(
                    lambda le: dp.social_cost(cc, np.exp(le), n, sigma2, alpha),
                    np.log(dp.eps_centralized(cc, k, alpha)) + 0.3,
                    method="Nelder-Mead",
                    options={"xatol": 1e-10, "fatol": 1e-15, "maxiter": 6000},
                )
                if res.fun < best_sc:
                    best_sc, best_set, best_eps = res.fun, members, np.exp(res.x)
            downward &= best_set == tuple(range(k))
            closed = dp.social_cost_centralized(c, k, sigma2, alpha)
            eps_c = dp.eps_centralized(c[:k], k, alpha)
            err = max(
                abs(best_sc - closed) / closed,
                float(np.max(np.abs(best_eps / eps_c - 1))) / 1e3,
                abs(dp.variance(sigma2, eps_c) - dp.variance_centralized(c, k, sigma2, alpha))
                / dp.variance_centralized(c, k, sigma2, alpha),
            )
            worst = max(worst, err)
            values &= err < 1e-6
    yield _row(
        "Lemma 1",
        "Lemma 1",
        "the designer's best size-k coalition is the k cheapest players",
        f"{count} random instances, Nelder-Mead over log eps for every subset",
        downward,
    )
    yield _row(
        "Lemma 1",
        "Lemma 1 / Eqs. (2)-(3)",
        "designer's eps = (4/(k^(1+alpha) c_i))^(1/3); Var_c and SC_c closed forms",
        f"{count} random instances",
        values,
        f"largest relative error {worst:.1e} (eps errors scaled by 1e-3: Nelder-Mead tolerance)",
    )
    yield _row(
        "Lemma 1",
        "Lemma 1 (as printed)",
        "designer's eps = (4/(k(1+alpha) c_i))^(1/3)",
        "n=4, alpha=0.5, k=3",
        _printed_lemma1_is_optimal(),
        "erratum: App. C.1 derives the exponent k^(1+alpha); the printed product is not optimal",
        erratum=True,
    )


def _printed_lemma1_is_optimal() -> bool:
    c, alpha, k, sigma2 = np.array([1e-3, 2e-3, 3e-3, 4e-3]), 0.5, 3, 0.1
    printed = (4 / (k * (1 + alpha) * c[:k])) ** (1 / 3)
    best = dp.social_cost(c[:k], dp.eps_centralized(c[:k], k, alpha), len(c), sigma2, alpha)
    return dp.social_cost(c[:k], printed, len(c), sigma2, alpha) <= best * (1 + 1e-12)


def lemma_1_remarks(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    """Section 4.1 remarks on the designer's eps, and the Section 5 comparison with the selfish eps."""
    costly_smaller = larger_k_smaller = flat_at_minus1 = ratio_ok = dec_smaller = var_worse = True
    for _ in range(count):
        c, alpha = _instance(rng, 3, 8)
        alpha = max(alpha, -0.99)
        for k in range(2, len(c) + 1):
            e_c, e_d = dp.eps_centralized(c, k, alpha), dp.eps_centralized(c, k + 1, alpha)
            costly_smaller &= bool(np.all(np.diff(e_c) <= 0))
            larger_k_smaller &= bool(np.all(e_d < e_c))
            flat_at_minus1 &= bool(
                np.allclose(dp.eps_centralized(c, k, -1), dp.eps_centralized(c, k + 1, -1), rtol=1e-14)
            )
            ratio = dp.eps_decentralized(c, k, alpha) / dp.eps_centralized(c, k, alpha)
            ratio_ok &= bool(np.allclose(ratio, k ** (-1 / 3), rtol=1e-12))
            dec_smaller &= bool(np.all(ratio < 1))
            sigma2 = float(rng.uniform(0.01, 0.5))
            cc = c[:k]
            var_worse &= dp.variance_decentralized(cc, sigma2, alpha) > dp.variance(
                sigma2, dp.eps_centralized(cc, k, alpha)
            )
    yield _row(
        "Section 4.1 remarks",
        "Section 4.1 remarks",
        "the designer gives costlier players smaller eps; larger coalitions get smaller eps for alpha in (-1, 1]; "
        "eps independent of k at alpha = -1",
        f"{count} random instances, every k",
        costly_smaller and larger_k_smaller and flat_at_minus1,
    )
    yield _row(
        "Section 5",
        "Section 5 (eps comparison, as printed)",
        "selfish eps (Lemma 2) is larger than the designer's (Lemma 1) by a factor ~ k^(1/3)",
        f"{count} random instances",
        not dec_smaller,
        f"erratum: the ratio is exactly k^(-1/3) ({ratio_ok}): selfish eps is smaller, as the next sentence of the paper says",
        erratum=True,
    )
    yield _row(
        "Section 5",
        "Section 5",
        "under decentralization everyone picks more stringent privacy (smaller eps), and for the same coalition the "
        "estimator variance is worse than the designer's",
        f"{count} random instances, every k",
        dec_smaller and var_worse,
    )


def lemma_2(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    """Selfish eps minimises Def 5's burden; Eqs. (5) and (6) equal Eq. (1) and Def 6 at those eps."""
    worst_eps = worst_root = worst_eq = 0.0
    for _ in range(count):
        c, alpha = _instance(rng, 2, 8)
        sigma2 = float(rng.uniform(0.01, 0.5))
        k = len(c)
        eps = dp.eps_decentralized(c, k, alpha)
        for i in range(k):

            def own(log_e: float) -> float:
                trial = eps.copy()
                trial[i] = math.exp(log_e)
                return float(dp.burdens(c, trial, sigma2, alpha)[i])

            res = minimize_scalar(
                own, bounds=(math.log(eps[i]) - 5, math.log(eps[i]) + 5), method="bounded", options={"xatol": 1e-10}
            )
            worst_eps = max(worst_eps, abs(math.exp(res.x) / eps[i] - 1))
            worst_root = max(worst_root, abs(dp.best_response_eps(float(c[i]), k, alpha) / eps[i] - 1))
        n = k + int(rng.integers(0, 4))
        worst_eq = max(
            worst_eq,
            abs(dp.variance_decentralized(c, sigma2, alpha) / dp.variance(sigma2, eps) - 1),
            abs(dp.social_cost_decentralized(c, n, sigma2, alpha) / dp.social_cost(c, eps, n, sigma2, alpha) - 1),
        )
    yield _row(
        "Lemma 2",
        "Lemma 2",
        "selfish eps_i = (4/(k^(2+alpha) c_i))^(1/3) minimises the member's burden; Eqs. (5), (6)",
        f"{count} random coalitions, every member",
        worst_eps < 1e-6 and worst_root < 1e-12 and worst_eq < 1e-12,
        f"numerical minimiser rel. err {worst_eps:.1e}, root of the derivative {worst_root:.1e}; Eqs. (5)-(6) vs Eq. (1)/Def 6 {worst_eq:.1e}",
    )


# --------------------------------------------------------------------------------------------- stability (Section 5.1)
def claims_5_6_vs_definitions(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    mismatches = checks = 0
    for _ in range(count):
        c, alpha = _instance(rng, 3, 5)
        top = max(dp.leave_threshold(dp.phi(c), alpha) * 1.3, 1e-3)
        for sigma2 in rng.uniform(0, top, size=6):
            for notion in dp.NOTIONS:
                closed = set(dp.stable_coalitions(c, alpha, sigma2, notion))
                direct = {
                    s
                    for k in range(2, len(c) + 1)
                    for s in itertools.combinations(range(len(c)), k)
                    if dp.is_stable_direct(c, alpha, sigma2, s, notion)
                }
                mismatches += closed != direct
                checks += 1
    yield _row(
        "Claims 5, 6",
        "Claims 5, 6",
        "closed-form Nash / robust conditions are equivalent to Defs 7 and 8",
        f"{count} random instances x 6 sigma2 x 2 notions, every coalition",
        mismatches == 0,
        f"{mismatches} mismatching sets of stable coalitions out of {checks}",
    )


def claim_1(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    ok, windows = True, 0
    for _ in range(count):
        c, alpha = _instance(rng, 3, 8)
        robust = {w.members: w for w in dp.stability_windows(c, alpha, "robust")}
        for w in dp.stability_windows(c, alpha, "nash"):
            windows += 1
            ok &= w.members in robust and robust[w.members].lo == w.lo and robust[w.members].hi >= w.hi * (1 - 1e-12)
    yield _row(
        "Claim 1",
        "Claim 1",
        "every Nash-stable coalition is robust-stable (U_N(S) <= U_R(S))",
        f"{count} random instances, {windows} Nash windows",
        ok,
    )


def claim_2(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    """Sufficient conditions for a stable grand coalition, with and without the printed ceiling."""
    unceiled_ok, below_ok, ceiled_fail, tested_above, tested_below = True, True, 0, 0, 0
    for _ in range(count):
        n = int(rng.integers(2, 30))
        alpha = float(rng.uniform(-1, -0.55)) if rng.random() < 0.5 else float(rng.uniform(-0.45, 1))
        c = np.sort(rng.uniform(1e-4, 5e-3, size=n))
        ph = float(dp.phi(c)[-1])
        sigma2 = float(ph * rng.uniform(1, 40))
        grand_stable = dp.leave_threshold(dp.phi(c), alpha) <= sigma2
        if alpha > -0.5:
            tested_above += 1
            if n <= (sigma2 / (4 * ph)) ** (3 / (2 * alpha + 1)):
                unceiled_ok &= grand_stable
            ceiled_fail += (n <= math.ceil(sigma2 / (4 * ph)) ** (3 / (2 * alpha + 1))) and not grand_stable
        else:
            tested_below += 1
            if n >= max(2, math.ceil(4 * ph / sigma2) ** (-3 / (2 * alpha + 1))):
                below_ok &= grand_stable
    c = np.array([1e-3, 1e-3])  # the spec's counterexample to the ceiled form
    sigma2 = 4.04 * float(dp.phi(c)[-1])
    example_fails = 2 <= math.ceil(sigma2 / (4 * dp.phi(c)[-1])) and dp.leave_threshold(dp.phi(c), 1.0) > sigma2
    ceiled_fail += example_fails
    yield _row(
        "Claim 2",
        "Claim 2 (alpha > -1/2, as in the proof D.2)",
        "2 <= n <= (sigma2 / (4 phi_n))^(3/(2 alpha+1)) implies a stable grand coalition",
        f"{tested_above} random instances",
        unceiled_ok,
    )
    yield _row(
        "Claim 2",
        "Claim 2 (alpha > -1/2, as printed)",
        "2 <= n <= ceil(sigma2 / (4 phi_n))^(3/(2 alpha+1)) implies a stable grand coalition",
        f"{tested_above} random instances + the counterexample n=2, alpha=1, c=(1e-3,1e-3), sigma2=4.04 phi",
        ceiled_fail == 0,
        f"erratum: {ceiled_fail} cases satisfy the ceiled bound with an unstable grand coalition (counterexample fails: {example_fails}); "
        "the proof starts from the un-ceiled bound",
        erratum=True,
    )
    yield _row(
        "Claim 2",
        "Claim 2 (alpha < -1/2, as printed)",
        "n >= max(2, ceil(4 phi_n / sigma2)^(-3/(2 alpha+1))) implies a stable grand coalition",
        f"{tested_below} random instances",
        below_ok,
        "the ceiling is conservative in this regime",
    )


def claims_3_4() -> Iterator[Claim]:
    x = np.linspace(2, 2000, 4000)[:, None]
    a = np.linspace(-1, 1, 81)[None, :]
    g = (x - 1) / ((x + 2) * x ** ((2 * a + 1) / 3))
    h = x * (x + 1) / (3 * (x + 1) ** ((2 * a + 4) / 3) + x ** ((2 * a + 7) / 3))
    no_intermediate_nash = True
    for n in range(3, 10):
        for alpha in np.linspace(-1, 1, 9):
            no_intermediate_nash &= all(w.size == n for w in dp.stability_windows([0.01] * n, alpha, "nash"))
    yield _row(
        "Claim 3",
        "Claim 3",
        "identical costs: no Nash-stable coalition of intermediate size 2 <= k < n",
        "g(x) < h(x) on x in [2, 2000] x 81 alphas; every coalition's Nash window for n = 3..9, 9 alphas",
        bool((h - g).min() > 0) and no_intermediate_nash,
        f"min(h - g) = {(h - g).min():.2e} (positive but closing as x grows)",
    )

    n, c = 8, 0.01
    none_low, one_size, iff = True, True, True
    for alpha in np.linspace(-1, 1, 41):
        windows = [w for w in dp.stability_windows([c] * n, alpha, "robust") if w.size < n]
        if alpha <= -0.5:
            none_low &= not windows
        one_size &= all(
            p.size == q.size or p.hi <= q.lo * (1 + 1e-12) or q.hi <= p.lo * (1 + 1e-12)
            for p in windows
            for q in windows
        )
        beta = (2 * alpha + 1) / 3
        for k in range(2, n):
            lower, upper = (k + 2) / (k - 1) * k**beta, (k + 3) / k * (k + 1) ** beta
            for ratio in np.linspace(0.5, 12, 60):  # ratio = 2^(1/3) sigma2 / c^(2/3)
                sigma2 = ratio * c ** (2 / 3) / 2 ** (1 / 3)
                exists = any(w.size == k and w.lo <= sigma2 < w.hi for w in windows)
                iff &= exists == (lower <= ratio < upper) or min(abs(ratio - lower), abs(ratio - upper)) < 1e-9
    yield _row(
        "Claim 4",
        "Claim 4",
        "identical costs: no robust equilibrium of intermediate size for alpha <= -1/2",
        f"n = {n}, 41 alphas, every coalition",
        none_low,
    )
    yield _row(
        "Claim 4",
        "Claim 4",
        "identical costs: at any sigma2 at most one intermediate robust size for alpha in (-1/2, 1]",
        f"n = {n}, 41 alphas, every pair of windows",
        one_size,
    )
    yield _row(
        "Claim 4",
        "Claim 4 (proof D.5)",
        "a size-k robust equilibrium exists iff ((k+2)/(k-1)) k^beta <= 2^(1/3) sigma2/c^(2/3) < ((k+3)/k)(k+1)^beta",
        f"n = {n}, 41 alphas, every k < n, 60 sigma2 values",
        iff,
    )


def lemma_6_and_claim_8(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    monotone = downward = linear = True
    for _ in range(count):
        c, alpha = _instance(rng, 3, 8)
        pieces = dp.max_equilibrium_size(c, alpha, "robust")
        sizes = [p[2] for p in pieces]
        monotone &= all(a <= b for a, b in zip(sizes, sizes[1:]))
        for lo, hi, size in pieces:
            s = (lo + hi) / 2 if math.isfinite(hi) else 2 * lo + 1e-3
            downward &= size == 0 or tuple(range(size)) in dp.stable_coalitions(c, alpha, s * s, "robust")
            linear &= dp.max_robust_size_linear(c, alpha, s * s) == size
    yield _row(
        "Lemma 6",
        "Lemma 6",
        "robust existence and the largest robust size never decrease as sigma grows",
        f"{count} random instances, exact step functions",
        monotone,
    )
    yield _row(
        "Claim 8",
        "Claim 8",
        "the largest robust-stable size is attained by the downward-closed coalition S_k",
        f"{count} random instances, every piece",
        downward,
    )
    yield _row(
        "Claim 8",
        "Claim 8 (linear time)",
        "the largest robust size is max{k : T(S_k) <= sigma2}, found in O(n)",
        f"{count} random instances, every piece",
        linear,
    )


def claim_7(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    ok, linear, windows = True, True, 0
    for _ in range(count):
        n = int(rng.integers(3, 8))
        c = np.cumprod(np.append(rng.uniform(1e-5, 1e-4), rng.uniform(2, 4, size=n - 1)))
        alpha = float(rng.uniform(-1, 1))
        for w in dp.stability_windows(c, alpha, "nash"):
            windows += 1
            ok &= w.members == tuple(range(w.size))
            s2 = 2 * w.lo if math.isinf(w.hi) else (w.lo + w.hi) / 2  # inside the window, away from its rounded ends
            chain = [
                tuple(range(k)) for k in range(2, n + 1) if dp.is_stable_direct(c, alpha, s2, tuple(range(k)), "nash")
            ]
            linear &= chain == sorted(dp.stable_coalitions(c, alpha, s2, "nash"), key=len)
    yield _row(
        "Claim 7",
        "Claim 7",
        "well-separated costs (c_i >= 2 c_{i-1}): every Nash-stable coalition is downward-closed",
        f"{count} instances, {windows} Nash windows",
        ok,
    )
    yield _row(
        "Claim 7",
        "Claim 7 (linear time)",
        "well-separated costs: checking S_2, ..., S_n finds every Nash-stable coalition",
        f"{count} instances, {windows} sigma2 values",
        linear,
    )


# -------------------------------------------------------------------------------------- Figure 1 and worked examples
def figure_1(intervals: pd.DataFrame) -> Iterator[Claim]:
    """The caption's statements, read off the exact step functions."""
    nash = intervals[intervals.notion == "nash"].sort_values("sigma_lo")
    robust = intervals[intervals.notion == "robust"].sort_values("sigma_lo")
    exists = (nash.max_size > 0).to_numpy()
    lost = int(np.sum(exists[:-1] & ~exists[1:]))
    yield _row(
        "Figure 1",
        "Figure 1 (Nash)",
        "Nash equilibrium existence is non-monotone in sigma",
        "alpha=1, the paper's 9 costs, exact pieces",
        lost > 0,
        f"existence is lost {lost} times as sigma grows; {int(np.sum(~exists))} no-equilibrium regions",
    )
    sizes = [int(s) for s in robust.max_size]
    yield _row(
        "Figure 1",
        "Figure 1 (robust)",
        "robust existence and maximum equilibrium size are monotone in sigma",
        "alpha=1, the paper's 9 costs, exact pieces",
        sizes == sorted(sizes),
        f"no equilibrium below sigma = {robust.sigma_hi.iloc[0]:.6f}; sizes in order {sizes}",
    )

    def size_at(df: pd.DataFrame, sigma: np.ndarray) -> np.ndarray:
        return df.max_size.to_numpy()[np.searchsorted(df.sigma_lo.to_numpy(), sigma, side="right") - 1]

    cuts = np.union1d(nash.sigma_lo, robust.sigma_lo)
    probes = np.append((cuts[:-1] + cuts[1:]) / 2, cuts[-1] + 1)  # one point inside every piece of both step functions
    dominated = bool(np.all(size_at(robust, probes) >= size_at(nash, probes)))
    yield _row(
        "Figure 1",
        "Claim 1 on Figure 1",
        "the largest robust coalition is never smaller than the largest Nash coalition",
        f"alpha=1, the paper's 9 costs, all {len(probes)} common pieces",
        dominated,
    )


def lemma_5(intervals: pd.DataFrame, sigma: float, sigma_prime: float) -> Iterator[Claim]:
    nash = intervals[intervals.notion == "nash"]
    at = lambda s: int(nash[(nash.sigma_lo <= s) & (s < nash.sigma_hi)].max_size.iloc[0])  # noqa: E731
    yield _row(
        "Lemma 5",
        "Lemma 5 (via Figure 1)",
        f"a Nash equilibrium exists at sigma = {sigma} but none at sigma' = {sigma_prime}",
        "alpha=1, the paper's 9 costs",
        at(sigma) > 0 and at(sigma_prime) == 0,
        f"largest Nash size {at(sigma)} at sigma, {at(sigma_prime)} at sigma'",
    )


def worked_examples(examples: pd.DataFrame) -> Iterator[Claim]:
    for example, group in examples.groupby("example", sort=False):
        bad = group[~group["match"].astype(bool)]
        yield _row(
            example,
            example,
            "worked-example numbers and sets as printed",
            f"{len(group)} quantities (worked_examples.csv)",
            bad.empty,
            "" if bad.empty else "mismatch: " + "; ".join(bad.quantity),
        )


# ------------------------------------------------------------------------------------------------ PoS (Section 6)
def theorem_3_bound(rng: np.random.Generator, count: int) -> Iterator[Claim]:
    """The explicit alpha > 1/2 bound of Theorem 3, its three proof cases, and PoS(SC) >= 1."""
    bound_ok = pos_ok = cases_ok = True
    worst = 0.0
    cases = [0, 0, 0]
    for _ in range(count):
        n = int(rng.integers(3, 8))
        c = np.sort(rng.uniform(1e-4, 5e-2, size=n))
        sigma2 = float(rng.uniform(0.005, 0.5))
        for alpha in (float(rng.uniform(0.51, 1)), float(rng.uniform(-1, 1))):
            for notion in dp.NOTIONS:
                pos_sc, _ = dp.price_of_stability(c, sigma2, alpha, notion)
                pos_ok &= pos_sc >= 1 - 1e-12
                if alpha > 0.5:
                    bound = max(4 / 3, 2 ** (1 / 3) * sigma2 / (3 * c[0] ** (2 / 3)))
                    bound_ok &= pos_sc < bound
                    worst = max(worst, pos_sc / bound)
                    x_prime = (sigma2 / ((1 + alpha) * (2 * c[0]) ** (2 / 3))) ** (3 / (2 * alpha - 1))
                    if x_prime <= 2:
                        cases[0] += 1
                        cases_ok &= abs(pos_sc - 1) < 1e-12
                    elif x_prime <= n:
                        cases[1] += 1
                        cases_ok &= pos_sc < 2 * (1 + alpha) / 3
                    else:
                        cases[2] += 1
                        cases_ok &= pos_sc < 2 ** (1 / 3) * sigma2 / (3 * c[0] ** (2 / 3)) * n ** ((1 - 2 * alpha) / 3)
    yield _row(
        "Theorem 3",
        "Theorem 3 (alpha in (1/2, 1])",
        "1 <= PoS(SC) < max(4/3, 2^(1/3) sigma2 / (3 c_min^(2/3)))",
        f"{count} random instances (n 3-7), both notions, c_min = min_i c_i",
        bound_ok,
        f"largest PoS/bound = {worst:.3f}",
    )
    yield _row(
        "Theorem 3",
        "Theorem 3 (proof E.1 cases)",
        "x' <= 2: PoS = 1; 2 < x' <= n: PoS < 2(1+alpha)/3 < 4/3 (so the second term matters only when n < x'); "
        "x' > n: PoS < 2^(1/3) sigma2 n^((1-2 alpha)/3) / (3 c_min^(2/3))",
        f"{count} random instances, both notions",
        cases_ok,
        f"instances per case: {cases}",
    )
    yield _row(
        "Section 6",
        "PoS(SC) >= 1",
        "decentralization never beats the designer in social cost",
        f"{count} random instances, random alpha, both notions",
        pos_ok,
    )


def _slope(g: pd.DataFrame, column: str) -> float:
    g = g.sort_values("n").tail(2)
    return float(np.diff(np.log(g[column].to_numpy(float)))[0] / np.diff(np.log(g.n.to_numpy(float)))[0])


def _expected_orders(alpha: float) -> dict[str, float]:
    """Log-log slopes in n that Theorems 1-4 state for each quantity."""
    return {
        "var_centralized": (2 * alpha - 1) / 3 if alpha < 0.5 else 0.0,
        "sc_centralized": 2 * (alpha + 1) / 3 if alpha < 0.5 else 1.0,
        "var_decentralized": (2 * alpha + 1) / 3 if alpha < -0.5 else 0.0,
        "sc_decentralized": (2 * alpha + 4) / 3 if alpha < -0.5 else 1.0,
        "pos_sc": 2 / 3 if alpha <= -0.5 else (1 - 2 * alpha) / 3 if alpha <= 0.5 else 0.0,
        "pos_var": 2 / 3 if alpha <= -0.5 else (1 - 2 * alpha) / 3 if alpha <= 0.5 else 0.0,
    }


THEOREMS = {
    "Theorem 1": (
        ("var_centralized", "sc_centralized"),
        "centralized Var_c = Theta(n^((2a-1)/3)), SC_c = Theta(n^(2(a+1)/3)) and k* = n for a < 1/2; "
        "Var_c = Theta(1), SC_c = Theta(n) and k* = 0 or Theta(1) for a >= 1/2",
    ),
    "Theorem 2": (
        ("var_decentralized", "sc_decentralized"),
        "optimal stable coalition: grand coalition stable with Var_d = Theta(n^((2a+1)/3)), "
        "SC_d = Theta(n^((2a+4)/3)) for a < -1/2; Var_d = Theta(1), SC_d = Theta(n) otherwise, grand coalition unstable for a > -1/2",
    ),
    "Theorem 3": (
        ("pos_sc",),
        "PoS(SC) = Theta(n^(2/3)) for a <= -1/2, Theta(n^((1-2a)/3)) for a in (-1/2, 1/2], Theta(1) for a > 1/2",
    ),
    "Theorem 4": (
        ("pos_var",),
        "PoS(Var) = Theta(n^(2/3)) for a <= -1/2, Theta(n^((1-2a)/3)) for a in (-1/2, 1/2], Theta(1) for a > 1/2",
    ),
}


def theorems_1_to_4(pos_table: pd.DataFrame) -> Iterator[Claim]:
    """Large-n orders (log-log slope between the two largest n) and the structural parts of Theorems 1 and 2.

    Checked on the first (asymptotic-regime) cost of the table only; the other costs are displayed, not checked,
    because their constants put the largest n still before the asymptotic regime (spec §6 warning).
    """
    table = pos_table[pos_table.cost == pos_table.cost.iloc[0]]
    n_max = int(table.n.max())
    for name, (columns, states) in THEOREMS.items():
        for alpha, g in table.groupby("alpha"):
            notes, ok = [], True
            expected = _expected_orders(float(alpha))
            groups = (
                [("designer", g[g.notion == "robust"])] if name == "Theorem 1" else list(g.groupby("notion"))
            )  # Thm 1 has no notion
            for notion, gn in groups:
                for column in columns:
                    slope = _slope(gn, column)
                    ok &= abs(slope - expected[column]) <= SLOPE_TOLERANCE
                    notes.append(f"{notion} {column} slope {slope:.3f} (expected {expected[column]:.3f})")
                top = gn[gn.n == n_max].iloc[0]
                prev = gn[gn.n < n_max].sort_values("n").iloc[-1]
                if name == "Theorem 1":
                    structural = (
                        top.k_centralized == n_max
                        if alpha < 0.5
                        else (top.k_centralized == prev.k_centralized if alpha > 0.5 else True)
                    )
                    notes.append(f"k* = {int(top.k_centralized)} at n = {n_max}")
                    ok &= bool(structural)
                if name == "Theorem 2":
                    beta = (2 * alpha + 1) / 3
                    grand_stable = (n_max + 2) * float(dp.phi(top.cost)) * n_max**beta / (
                        n_max - 1
                    ) <= top.sigma2  # Claim 5 for S = [n]
                    structural = (
                        top.k_decentralized == n_max if alpha < -0.5 else (not grand_stable if alpha > -0.5 else True)
                    )
                    notes.append(f"{notion} optimal stable size {int(top.k_decentralized)} at n = {n_max}")
                    ok &= bool(structural)
            ns = sorted(g.n.unique())
            yield _row(
                name,
                name,
                states,
                f"alpha={alpha:g}, identical c={table.cost.iloc[0]:g}, sigma2={g.sigma2.iloc[0]:g}, n={ns[-2]}..{ns[-1]}",
                ok,
                "; ".join(notes),
            )


def theorem_2_boundary(count_n: tuple[int, ...] = (10, 100, 1000, 10000)) -> Iterator[Claim]:
    """alpha = -1/2: the grand coalition may or may not be stable; with sigma2 >= 4 phi it is the unique stable one."""
    c = 0.05
    ph = float(dp.phi(c))
    stable_instance = all(
        dp.identical_cost_outcome(n, c, 4 * ph, -0.5, notion).k_decentralized == n
        for n in count_n
        for notion in dp.NOTIONS
    )
    unstable_instance = all(
        dp.identical_cost_outcome(n, c, 0.99 * ph, -0.5, notion).k_decentralized == 0
        for n in count_n
        for notion in dp.NOTIONS
    )
    unique = all(
        w.size == 6
        for notion in dp.NOTIONS
        for w in dp.stability_windows([c] * 6, -0.5, notion)
        if w.lo <= 4 * ph < w.hi
    )
    yield _row(
        "Theorem 2",
        "Theorem 2 (alpha = -1/2)",
        "the grand coalition may not be stable; identical costs with sigma2 >= 4 (c^2/2)^(1/3) make it stable and the only stable coalition",
        f"identical c={c}, n in {list(count_n)}, sigma2 = 4 phi and 0.99 phi",
        stable_instance and unstable_instance and unique,
    )


def all_claims(
    settings: Settings, ref: Mapping[str, Any], intervals: pd.DataFrame, examples: pd.DataFrame, pos: pd.DataFrame
) -> list[Claim]:
    """Every row, in the paper's order (``ref``: the reference YAML; the tables: this run's results)."""
    count = settings.claims_instances
    rng = seeding.generator(settings.seed, "game", 4)
    sampling = seeding.generator(settings.seed, "sampling", 4)
    l5 = ref["lemma5"]
    blocks = (
        equation_1(sampling, settings.monte_carlo_repetitions),
        lemma_1(rng, max(2, count // 10)),
        lemma_1_remarks(rng, count),
        lemma_2(rng, count),
        claims_5_6_vs_definitions(rng, max(2, count // 10)),
        claim_1(rng, count),
        claim_2(rng, count * 5),
        worked_examples(examples),
        lemma_5(intervals, l5["nash_exists_at_sigma"], l5["no_nash_at_sigma"]),
        figure_1(intervals),
        lemma_6_and_claim_8(rng, count),
        claims_3_4(),
        claim_7(rng, count),
        theorems_1_to_4(pos),
        theorem_2_boundary(),
        theorem_3_bound(rng, count),
    )
    return [row for block in blocks for row in block]
