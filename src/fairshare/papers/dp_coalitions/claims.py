"""Data sharing with endogenous DP levels: every scorecard row, judged from this run's results (spec §6).

One entry point, :func:`claims`; each private function below takes computed values (the worked-example and Figure 1
tables, the price-of-stability table, or the evidence of :func:`.experiment.claim_evidence`) and returns Claim
records; none computes what it judges. ``claim``
rows test a statement as the paper states it, ``printed`` rows a printed number at its printed precision, and an
``erratum`` row matches only when, on this run, the printed statement fails and the corrected one holds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairshare.games import dp_coalitions as dp
from fairshare.papers.dp_coalitions import claims_sentences as sentences
from fairshare.papers.dp_coalitions.experiment import PAPER, Settings
from fairshare.pipeline.report import Claim, erratum_outcome

__all__ = ["SLOPE_TOLERANCE", "Z_MAX", "claims"]

SLOPE_TOLERANCE = 0.06  # log-log slopes between the two largest n (spec §6: about ±0.05 in the asymptotic regime)
Z_MAX = 4.0  # |z| of a Monte Carlo variance against Eq. (1) (two-sided normal tail 6e-5 per value)
# Relative agreement with a numerical optimum: Nelder-Mead (fatol 1e-15) pins the social cost far below 1e-6, its
# argmin only to about 1e-3 (the cost is flat there); bounded Brent pins a burden's minimiser to about 1e-6.
OPTIMUM_SC, OPTIMUM_EPS, MINIMISER_EPS, EXACT = 1e-6, 1e-3, 1e-6, 1e-12


def _relative(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a, float) / np.asarray(b, float) - 1)))


# ------------------------------------------------------------------------------------ model (Sections 2-5)
def _equation_1(evidence: Sequence[Mapping[str, float]]) -> Claim:
    """Eq. (1) against the simulated variance of the Laplace mean estimator (per k: simulated, s.e., formula)."""
    z = [abs(e["simulated"] - e["formula"]) / e["se"] for e in evidence]
    return Claim.statement(
        paper=PAPER,
        artifact="Eq. (1)",
        claim="Eq. (1)",
        paper_states="Var(mean of x_i + Lap(1/eps_i)) = sigma2/k + (2/k^2) sum 1/eps_i^2",
        reproduced=f"Monte Carlo, k in {[e['k'] for e in evidence]}, Beta(2,3) data; largest |z| = {max(z):.2f}",
        holds=bool(z) and max(z) <= Z_MAX,
    )


def _lemma_1(evidence: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Lemma 1 and Eqs. (2)-(3) against the designer's numerical optimum (per instance and size k)."""
    cheapest = [e["best_set"] == tuple(range(e["k"])) for e in evidence]
    closed_sc = max(abs(e["sc_closed"] / e["best_sc"] - 1) for e in evidence)
    closed_eps = max(_relative(e["best_eps"], e["eps_closed"]) for e in evidence)
    printed_sc = max(e["sc_printed"] / e["best_sc"] - 1 for e in evidence)
    var = max(abs(e["var_closed"] / e["var_at_eps"] - 1) for e in evidence)
    grid = f"{len(evidence)} (instance, k), Nelder-Mead over log eps for every subset"
    printed_fails, corrected_holds = printed_sc > OPTIMUM_SC, closed_eps <= OPTIMUM_EPS and closed_sc <= OPTIMUM_SC
    return [
        Claim.statement(
            paper=PAPER,
            artifact="Lemma 1",
            claim="cheapest players",
            paper_states="the designer's best size-k coalition is the k cheapest players",
            reproduced=f"{grid}; the k cheapest in {sum(cheapest)} of {len(cheapest)}",
            holds=bool(cheapest) and all(cheapest),
        ),
        Claim.erratum(
            paper=PAPER,
            artifact="Lemma 1",
            claim="designer's eps",
            paper_states="designer's eps_i = (4/(k (1+alpha) c_i))^(1/3)",
            reproduced=f"{erratum_outcome(printed_fails, corrected_holds)}; "
            f"{grid}; social cost above the optimum: printed eps {printed_sc:.1e}, corrected {closed_sc:.1e}; "
            f"corrected eps vs the optimiser's {closed_eps:.1e} (relative)",
            holds=printed_fails and corrected_holds,
            note="corrected: eps_i = (4/(k^(1+alpha) c_i))^(1/3), as App. C.1 derives",
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Eqs. (2)-(3)",
            claim="designer's Var and SC",
            paper_states="Var_c(k) and SC_c(k) closed forms (k cheapest players at the designer's eps)",
            reproduced=f"{grid}; SC_c vs the optimum {closed_sc:.1e}, Var_c vs Eq. (1) at the designer's eps {var:.1e} (relative)",
            holds=closed_sc <= OPTIMUM_SC and var <= OPTIMUM_SC,
        ),
    ]


def _eps_remarks(evidence: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Section 4.1's remarks on the designer's eps and Section 5's comparison with the selfish eps (per (instance,
    k): both eps vectors over the sorted players, at k and k + 1, and both estimator variances)."""
    costly = all(np.all(np.diff(e["designer"]) <= 0) for e in evidence)
    larger_k = all(np.all(e["designer_next"] < e["designer"]) for e in evidence if e["alpha"] > -1)
    flat = all(_relative(e["designer_minus1_next"], e["designer_minus1"]) <= EXACT for e in evidence)
    ratios = [(e["selfish"] / e["designer"], e["k"]) for e in evidence]
    not_larger = sum(int(np.sum(r <= 1)) for r, _ in ratios)
    exact = all(_relative(r, np.full(len(r), k ** (-1 / 3))) <= EXACT for r, k in ratios)
    smaller = all(np.all(r < 1) for r, _ in ratios)
    worse = sum(e["var_selfish"] > e["var_designer"] for e in evidence)
    grid = f"{len(evidence)} (instance, k)"
    printed_fails, corrected_holds = not_larger > 0, bool(ratios) and exact
    return [
        Claim.statement(
            paper=PAPER,
            artifact="Section 4.1",
            claim="remarks",
            paper_states="the designer gives costlier players smaller eps; larger coalitions get smaller eps for alpha in (-1, 1]; "
            "eps does not depend on k at alpha = -1",
            reproduced=f"{grid}; costlier smaller {costly}, larger k smaller {larger_k}, flat at alpha = -1 {flat}",
            holds=bool(evidence) and costly and larger_k and flat,
        ),
        Claim.erratum(
            paper=PAPER,
            artifact="Section 5",
            claim="eps comparison",
            paper_states="selfish eps (Lemma 2) is larger than the designer's (Lemma 1) by a factor ~ k^(1/3)",
            reproduced=f"{erratum_outcome(printed_fails, corrected_holds)}; "
            f"{grid}; players whose selfish eps is not larger: {not_larger}; ratio = k^(-1/3) to 1e-12: {exact}",
            holds=printed_fails and corrected_holds,
            note="corrected: selfish eps is smaller by exactly the factor k^(1/3) (ratio k^(-1/3)), as the next sentence says",
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Section 5",
            claim="more stringent privacy",
            paper_states="under decentralization everyone picks smaller eps, and for the same coalition the estimator variance is "
            "worse than the designer's",
            reproduced=f"{grid}; every selfish eps smaller {smaller}; variance worse in {worse} of {len(evidence)}",
            holds=bool(evidence) and smaller and worse == len(evidence),
        ),
    ]


def _lemma_2(evidence: Sequence[Mapping[str, Any]]) -> Claim:
    """Lemma 2's eps against a numerical minimiser of each member's burden and the root of its derivative, and
    Eqs. (5)-(6) against Eq. (1) and Def 6 at those eps."""
    numeric = max(_relative(e["numeric"], e["eps"]) for e in evidence)
    root = max(_relative(e["root"], e["eps"]) for e in evidence)
    eqs = max(max(abs(e["var_eq5"] / e["var_eq1"] - 1), abs(e["sc_eq6"] / e["sc_def6"] - 1)) for e in evidence)
    return Claim.statement(
        paper=PAPER,
        artifact="Lemma 2",
        claim="selfish eps and Eqs. (5)-(6)",
        paper_states="selfish eps_i = (4/(k^(2+alpha) c_i))^(1/3) minimises the member's burden; Var_d, SC_d closed forms",
        reproduced=f"{len(evidence)} random coalitions, every member; relative error: numerical minimiser {numeric:.1e}, "
        f"root of the derivative {root:.1e}, Eqs. (5)-(6) vs Eq. (1)/Def 6 {eqs:.1e}",
        holds=bool(evidence) and numeric <= MINIMISER_EPS and root <= EXACT and eqs <= EXACT,
    )


# ------------------------------------------------------------------------------------ stability (Section 5.1)
def _claims_5_6(evidence: Sequence[Mapping[str, set]]) -> Claim:
    """Claims 5 and 6 against Defs 7 and 8 applied literally (stable coalitions per (instance, sigma2, notion))."""
    differ = sum(e["closed"] != e["direct"] for e in evidence)
    return Claim.statement(
        paper=PAPER,
        artifact="Claims 5, 6",
        claim="closed form vs definitions",
        paper_states="the closed-form Nash / robust conditions are equivalent to Defs 7 and 8",
        reproduced=f"{len(evidence)} (instance, sigma2, notion), every coalition; differing sets of stable coalitions: {differ}",
        holds=bool(evidence) and differ == 0,
    )


def _claim_1(evidence: Sequence[Mapping[str, Any]]) -> Claim:
    """Every Nash-stable coalition is robust-stable: each Nash window lies in the same coalition's robust window
    (U_N(S) <= U_R(S)), and Def 8 holds inside it."""
    outside = [e for e in evidence if e["robust"] is None or e["robust"][1] < e["nash"][1] * (1 - EXACT)]
    not_robust = sum(not e["robust_by_definition"] for e in evidence)
    return Claim.statement(
        paper=PAPER,
        artifact="Claim 1",
        claim="Nash implies robust",
        paper_states="every Nash-stable coalition is robust-stable",
        reproduced=f"{len(evidence)} Nash windows; ending after the robust window: {len(outside)}; not robust by Def 8 inside: "
        f"{not_robust}",
        holds=bool(evidence) and not outside and not_robust == 0,
    )


def _claim_2(evidence: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Claim 2's sufficient conditions for a stable grand coalition, as printed (with a ceiling) and as its proof
    D.2 starts (without), on random instances and the spec's counterexample."""
    above = [e for e in evidence if e["alpha"] > -0.5]
    unceiled = [e for e in above if 2 <= e["n"] <= (e["sigma2"] / (4 * e["phi_n"])) ** (3 / (2 * e["alpha"] + 1))]
    ceiled = [
        e for e in above if 2 <= e["n"] <= math.ceil(e["sigma2"] / (4 * e["phi_n"])) ** (3 / (2 * e["alpha"] + 1))
    ]
    unceiled_bad = sum(not e["grand_stable"] for e in unceiled)
    ceiled_bad = sum(not e["grand_stable"] for e in ceiled)
    below = [e for e in evidence if e["alpha"] < -0.5]
    covered = [
        e for e in below if e["n"] >= max(2, math.ceil(4 * e["phi_n"] / e["sigma2"]) ** (-3 / (2 * e["alpha"] + 1)))
    ]
    below_bad = sum(not e["grand_stable"] for e in covered)
    printed_fails, corrected_holds = ceiled_bad > 0, bool(unceiled) and unceiled_bad == 0
    return [
        Claim.erratum(
            paper=PAPER,
            artifact="Claim 2",
            claim="alpha > -1/2",
            paper_states="2 <= n <= ceil(sigma2 / (4 phi_n))^(3/(2 alpha+1)) implies a stable grand coalition",
            reproduced=f"{erratum_outcome(printed_fails, corrected_holds)}; "
            f"{len(above)} instances with alpha > -1/2 (incl. the counterexample n=2, alpha=1, c=(1e-3,1e-3), "
            f"sigma2=4.04 phi); ceiled premise met by {len(ceiled)}, grand coalition unstable in {ceiled_bad}; "
            f"un-ceiled premise met by {len(unceiled)}, unstable in {unceiled_bad}",
            holds=printed_fails and corrected_holds,
            note="corrected: without the ceiling: 2 <= n <= (sigma2 / (4 phi_n))^(3/(2 alpha+1)), where the proof D.2 starts",
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Claim 2",
            claim="alpha < -1/2",
            paper_states="n >= max(2, ceil(4 phi_n / sigma2)^(-3/(2 alpha+1))) implies a stable grand coalition",
            reproduced=f"{len(below)} instances with alpha < -1/2, premise met by {len(covered)}; grand coalition unstable in "
            f"{below_bad}",
            holds=bool(covered) and below_bad == 0,
        ),
    ]


def _worked_examples(examples: pd.DataFrame) -> list[Claim]:
    """One row per printed quantity of the Lemma 3-5 examples (worked_examples.csv): numbers at their printed
    precision, sets as text, and Lemma 5's "some"/"none"."""
    rows = []
    for r in examples.to_dict("records"):
        printed, reproduced = str(r["printed"]), str(r["reproduced"])
        if r["compare"] == "number":
            digits = max(0, len(printed.split(".")[1]) if "." in printed else 0)
            shown = f"{float(reproduced):.{digits}f}"
            holds, found = shown == printed, f"{shown} ({reproduced})"
        elif r["compare"] == "contains":
            holds, found = printed in reproduced.split("; "), reproduced
        elif r["compare"] == "exists":
            holds, found = (reproduced != "none") == (printed == "some"), reproduced
        else:
            holds, found = reproduced == printed, reproduced
        kind = Claim.printed if r["compare"] == "number" else Claim.statement
        rows.append(
            kind(
                paper=PAPER,
                artifact=r["example"].split(",")[0],
                claim=f"{r['example']}: {r['quantity']}",
                paper_states=printed,
                reproduced=found,
                holds=holds,
            )
        )
    return rows


def _figure_1(intervals: pd.DataFrame) -> list[Claim]:
    """Figure 1's caption, read off the exact step functions (fig1_intervals.csv)."""
    nash = intervals[intervals.notion == "nash"].sort_values("sigma_lo")
    robust = intervals[intervals.notion == "robust"].sort_values("sigma_lo")
    exists = (nash.max_size > 0).to_numpy()
    lost = int(np.sum(exists[:-1] & ~exists[1:]))
    sizes = [int(s) for s in robust.max_size]

    def size_at(df: pd.DataFrame, sigma: np.ndarray) -> np.ndarray:
        return df.max_size.to_numpy()[np.searchsorted(df.sigma_lo.to_numpy(), sigma, side="right") - 1]

    cuts = np.union1d(nash.sigma_lo, robust.sigma_lo)
    probes = np.append((cuts[:-1] + cuts[1:]) / 2, cuts[-1] + 1)  # one point inside every piece of both functions
    smaller = int(np.sum(size_at(robust, probes) < size_at(nash, probes)))
    instance = "alpha=1, the paper's 9 costs, exact pieces"
    return [
        Claim.statement(
            paper=PAPER,
            artifact="Figure 1",
            claim="Nash",
            paper_states="Nash equilibrium existence is non-monotone in sigma",
            reproduced=f"{instance}; existence is lost {lost} times as sigma grows",
            holds=lost > 0,
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Figure 1",
            claim="robust",
            paper_states="robust existence and maximum equilibrium size are monotone in sigma",
            reproduced=f"{instance}; sizes in order {sizes}",
            holds=sizes == sorted(sizes),
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Figure 1",
            claim="robust vs Nash (Claim 1)",
            paper_states="the largest robust coalition is never smaller than the largest Nash coalition",
            reproduced=f"{instance}; smaller in {smaller} of {len(probes)} common pieces",
            holds=smaller == 0,
        ),
    ]


def _lemma_6_claim_8(evidence: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Lemma 6 and Claim 8 on exact robust step functions (per instance: sizes in sigma order; per piece: whether
    S_k is robust-stable there and Claim 8's O(n) size)."""
    monotone = sum(e["sizes"] != sorted(e["sizes"]) for e in evidence)
    pieces = [p for e in evidence for p in e["pieces"]]
    downward = sum(not p["downward_stable"] for p in pieces)
    linear = sum(p["linear"] != p["size"] for p in pieces)
    grid = f"{len(evidence)} random instances, {len(pieces)} pieces"
    return [
        Claim.statement(
            paper=PAPER,
            artifact="Lemma 6",
            claim="monotone",
            paper_states="robust existence and the largest robust size never decrease as sigma grows",
            reproduced=f"{grid}; decreasing somewhere in {monotone}",
            holds=bool(evidence) and monotone == 0,
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Claim 8",
            claim="downward-closed",
            paper_states="the largest robust-stable size is attained by the downward-closed coalition S_k",
            reproduced=f"{grid}; S_k not robust-stable in {downward}",
            holds=bool(pieces) and downward == 0,
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Claim 8",
            claim="linear time",
            paper_states="the largest robust size is max{k : T(S_k) <= sigma2}, found in O(n)",
            reproduced=f"{grid}; O(n) size differs in {linear}",
            holds=bool(pieces) and linear == 0,
        ),
    ]


def _claims_3_4(evidence: Mapping[str, Any]) -> list[Claim]:
    """Claims 3 and 4 with identical costs: the proof's g < h, Nash window sizes, and n = 8 robust windows."""
    intermediate = sum(size < n for n, size in evidence["nash"])
    n, robust = evidence["robust_n"], evidence["robust"]
    low = sum(len(w) for alpha, w in robust.items() if alpha <= -0.5)
    overlapping = sum(
        1
        for alpha, windows in robust.items()
        if alpha > -0.5
        for p in windows
        for q in windows
        if p[0] != q[0] and p[2] > q[1] * (1 + EXACT) and q[2] > p[1] * (1 + EXACT)
    )
    interval = evidence["interval"]
    wrong = sum(
        i["exists"] != (i["lower"] <= i["ratio"] < i["upper"])
        and min(abs(i["ratio"] - i["lower"]), abs(i["ratio"] - i["upper"])) >= 1e-9
        for i in interval
    )
    return [
        Claim.statement(
            paper=PAPER,
            artifact="Claim 3",
            claim="no intermediate Nash",
            paper_states="identical costs: no Nash-stable coalition of intermediate size 2 <= k < n",
            reproduced=f"min(h - g) = {evidence['h_minus_g']:.2e} on x in [2, 2000] x 81 alphas; {len(evidence['nash'])} Nash "
            f"windows for n = 3..9, 9 alphas, of intermediate size: {intermediate}",
            holds=evidence["h_minus_g"] > 0 and intermediate == 0,
            note="h - g is positive but closes as x grows",
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Claim 4",
            claim="alpha <= -1/2",
            paper_states="identical costs: no robust equilibrium of intermediate size for alpha <= -1/2",
            reproduced=f"n = {n}, {sum(a <= -0.5 for a in robust)} alphas; intermediate robust windows: {low}",
            holds=any(a <= -0.5 for a in robust) and low == 0,
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Claim 4",
            claim="alpha > -1/2",
            paper_states="identical costs: at any sigma2 at most one intermediate robust size for alpha in (-1/2, 1]",
            reproduced=f"n = {n}, {sum(a > -0.5 for a in robust)} alphas; overlapping windows of different sizes: {overlapping}",
            holds=any(a > -0.5 for a in robust) and overlapping == 0,
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Claim 4",
            claim="proof D.5",
            paper_states="a size-k robust equilibrium exists iff ((k+2)/(k-1)) k^beta <= 2^(1/3) sigma2/c^(2/3) < ((k+3)/k)(k+1)^beta",
            reproduced=f"n = {n}, every k < n, {len(interval)} (alpha, k, sigma2); disagreeing: {wrong}",
            holds=bool(interval) and wrong == 0,
        ),
    ]


def _claim_7(evidence: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Claim 7 for well-separated costs (per Nash window: its members; inside it the S_k chain by Def 7 and every
    Nash-stable coalition)."""
    not_downward = sum(e["members"] != tuple(range(len(e["members"]))) for e in evidence)
    missed = sum(e["chain"] != e["stable"] for e in evidence)
    return [
        Claim.statement(
            paper=PAPER,
            artifact="Claim 7",
            claim="downward-closed",
            paper_states="well-separated costs (c_i >= 2 c_{i-1}): every Nash-stable coalition is downward-closed",
            reproduced=f"{len(evidence)} Nash windows; not downward-closed: {not_downward}",
            holds=bool(evidence) and not_downward == 0,
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Claim 7",
            claim="linear time",
            paper_states="well-separated costs: checking S_2, ..., S_n finds every Nash-stable coalition",
            reproduced=f"{len(evidence)} sigma2 values; the chain differs from every stable coalition in {missed}",
            holds=bool(evidence) and missed == 0,
        ),
    ]


# ------------------------------------------------------------------------------------------ PoS (Section 6)
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


_THEOREMS = {
    "Theorem 1": (
        ("var_centralized", "sc_centralized"),
        "centralized Var_c = Theta(n^((2a-1)/3)), SC_c = Theta(n^(2(a+1)/3)) and k* = n for a < 1/2; "
        "Var_c = Theta(1), SC_c = Theta(n) and k* = 0 or Theta(1) for a >= 1/2",
    ),
    "Theorem 2": (
        ("var_decentralized", "sc_decentralized"),
        "optimal stable coalition: grand coalition stable with Var_d = Theta(n^((2a+1)/3)), "
        "SC_d = Theta(n^((2a+4)/3)) for a < -1/2; Var_d = Theta(1), SC_d = Theta(n) otherwise, grand coalition "
        "unstable for a > -1/2",
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


def _theorems_1_to_4(pos_table: pd.DataFrame) -> list[Claim]:
    """Large-n orders (log-log slope between the two largest n) and the structural parts of Theorems 1 and 2.

    Checked on the first (asymptotic-regime) cost of the table only; the other costs are displayed, not checked,
    because their constants put the largest n still before the asymptotic regime (spec §6 warning).
    """
    table = pos_table[pos_table.cost == pos_table.cost.iloc[0]]
    n_max = int(table.n.max())
    rows = []
    for name, (columns, states) in _THEOREMS.items():
        for alpha, g in table.groupby("alpha"):
            notes, ok = [], True
            expected = _expected_orders(float(alpha))
            # Theorem 1 is about the designer, whose optimum does not depend on the notion
            groups = [("designer", g[g.notion == "robust"])] if name == "Theorem 1" else list(g.groupby("notion"))
            for notion, gn in groups:
                for column in columns:
                    slope = _slope(gn, column)
                    ok &= abs(slope - expected[column]) <= SLOPE_TOLERANCE
                    notes.append(f"{notion} {column} slope {slope:.3f} (expected {expected[column]:.3f})")
                top = gn[gn.n == n_max].iloc[0]
                prev = gn[gn.n < n_max].sort_values("n").iloc[-1]
                if name == "Theorem 1":
                    if alpha < 0.5:
                        ok &= bool(top.k_centralized == n_max)
                    else:  # k* = 0 or Theta(1): the same size at the two largest n
                        ok &= bool(top.k_centralized == prev.k_centralized)
                    notes.append(f"k* = {int(top.k_centralized)} at n = {n_max}")
                if name == "Theorem 2" and alpha != -0.5:  # alpha = -1/2 has its own row
                    beta = (2 * alpha + 1) / 3
                    grand_stable = (n_max + 2) * float(dp.phi(top.cost)) * n_max**beta / (n_max - 1) <= top.sigma2
                    ok &= bool(top.k_decentralized == n_max) if alpha < -0.5 else not grand_stable
                    notes.append(f"{notion} optimal stable size {int(top.k_decentralized)} at n = {n_max}")
            ns = sorted(g.n.unique())
            parameters = f"alpha={alpha:g}, identical c={table.cost.iloc[0]:g}, sigma2={g.sigma2.iloc[0]:g}"
            rows.append(
                Claim.statement(
                    paper=PAPER,
                    artifact=name,
                    claim=f"alpha = {alpha:g}",
                    paper_states=states,
                    reproduced=f"{parameters}, n={ns[-2]}..{ns[-1]}; " + "; ".join(notes),
                    holds=ok,
                )
            )
    return rows


def _theorem_2_boundary(evidence: Mapping[str, Any]) -> Claim:
    """Theorem 2 at alpha = -1/2: the grand coalition may be unstable; sigma2 >= 4 phi makes it stable and the only
    stable coalition (optimal stable sizes per n and notion at 4 phi and 0.99 phi; stable sizes for n = 6)."""
    n_values = [n for n in evidence["n"] for _ in dp.NOTIONS]
    stable = all(k == n for k, n in zip(evidence["at_4phi"], n_values))
    unstable = all(k == 0 for k in evidence["at_099phi"])
    only = bool(evidence["sizes_at_4phi_n6"]) and all(s == 6 for s in evidence["sizes_at_4phi_n6"])
    return Claim.statement(
        paper=PAPER,
        artifact="Theorem 2",
        claim="alpha = -1/2",
        paper_states="the grand coalition may not be stable; identical costs with sigma2 >= 4 (c^2/2)^(1/3) make it stable and "
        "the only stable coalition",
        reproduced=f"identical c={evidence['c']}, n in {evidence['n']}: grand at 4 phi {stable}, none at 0.99 phi {unstable}; "
        f"n = 6 stable sizes at 4 phi {evidence['sizes_at_4phi_n6']}",
        holds=stable and unstable and only,
    )


def _theorem_3_bound(evidence: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Theorem 3 for alpha in (1/2, 1]: the explicit bound and the three cases of its proof E.1 (per instance:
    n, c_min, alpha, sigma2, x' and PoS(SC))."""
    bound = [max(4 / 3, 2 ** (1 / 3) * e["sigma2"] / (3 * e["c_min"] ** (2 / 3))) for e in evidence]
    outside = sum(not (1 - EXACT <= e["pos_sc"] < b) for e, b in zip(evidence, bound))
    cases = [0, 0, 0]
    wrong = 0
    for e in evidence:
        if e["x_prime"] <= 2:
            cases[0] += 1
            wrong += abs(e["pos_sc"] - 1) >= EXACT
        elif e["x_prime"] <= e["n"]:
            cases[1] += 1
            wrong += not e["pos_sc"] < 2 * (1 + e["alpha"]) / 3
        else:
            cases[2] += 1
            limit = 2 ** (1 / 3) * e["sigma2"] / (3 * e["c_min"] ** (2 / 3)) * e["n"] ** ((1 - 2 * e["alpha"]) / 3)
            wrong += not e["pos_sc"] < limit
    worst = max(e["pos_sc"] / b for e, b in zip(evidence, bound)) if evidence else float("nan")
    return [
        Claim.statement(
            paper=PAPER,
            artifact="Theorem 3",
            claim="alpha in (1/2, 1]",
            paper_states="1 <= PoS(SC) < max(4/3, 2^(1/3) sigma2 / (3 c_min^(2/3)))",
            reproduced=f"{len(evidence)} (instance, notion), n 3-7; outside the bounds: {outside}; largest PoS/bound {worst:.3f}",
            holds=bool(evidence) and outside == 0,
        ),
        Claim.statement(
            paper=PAPER,
            artifact="Theorem 3",
            claim="proof E.1 cases",
            paper_states="x' <= 2: PoS = 1; 2 < x' <= n: PoS < 2(1+alpha)/3; x' > n: PoS < 2^(1/3) sigma2 n^((1-2 alpha)/3) / "
            "(3 c_min^(2/3))",
            reproduced=f"(instance, notion) per case {cases}; violating their case's bound: {wrong}",
            holds=all(cases) and wrong == 0,
        ),
    ]


def claims(results: Mapping[str, Any], settings: Settings) -> list[Claim]:
    """Every row, in the paper's order. ``results``: ``evidence`` (:func:`.experiment.claim_evidence` of
    ``settings``) and the tables ``fig1_intervals``, ``worked_examples`` and ``price_of_stability``."""
    evidence, examples = results["evidence"], results["worked_examples"]
    return [
        _equation_1(evidence["equation_1"]),
        *_lemma_1(evidence["lemma_1"]),
        *_eps_remarks(evidence["eps"]),
        _lemma_2(evidence["lemma_2"]),
        _claims_5_6(evidence["claims_5_6"]),
        _claim_1(evidence["claim_1"]),
        *_claim_2(evidence["claim_2"]),
        sentences.claim_2_not_necessary(evidence["claim_2"]),
        *_worked_examples(examples),
        *_figure_1(results["fig1_intervals"]),
        *_lemma_6_claim_8(evidence["lemma_6_claim_8"]),
        *_claims_3_4(evidence["claims_3_4"]),
        *_claim_7(evidence["claim_7"]),
        *_theorems_1_to_4(results["price_of_stability"]),
        _theorem_2_boundary(evidence["theorem_2_boundary"]),
        *_theorem_3_bound(evidence["theorem_3"]),
        sentences.k_star_half(evidence["theorem_1_half"]),
        sentences.d6_condition(evidence["d6"]),
    ]
