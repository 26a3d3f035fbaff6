"""Commands for the endogenous-privacy data-sharing paper: Figure 1, worked examples, price of stability, claims."""
from __future__ import annotations

import argparse
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from fairshare import seeding
from fairshare.cli import cfg_argument, section
from fairshare.games import dp_coalitions as dp
from fairshare.games import dp_coalitions_claims as claims
from fairshare.io import write_csv

GROUP = "dp-coalitions"
HELP = "data sharing with endogenous DP levels: Nash and robust equilibria as exact sigma intervals"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fig1", help="exact max-equilibrium-size step functions (Figure 1) and every stability window")
    p.add_argument("--reference", required=True, help="YAML of the paper's printed instances")
    p.add_argument("--intervals", required=True)
    p.add_argument("--windows", required=True)
    p.set_defaults(func=fig1)

    p = sub.add_parser("examples", help="the Lemma 3/4/5 worked examples, recomputed beside the printed numbers")
    p.add_argument("--reference", required=True)
    p.add_argument("--output", required=True)
    p.set_defaults(func=examples)

    p = sub.add_parser("pos", help="price of stability vs n for identical costs, per alpha regime")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=pos)

    p = sub.add_parser("claims", help="numerical checks of every checkable statement")
    p.add_argument("--reference", required=True)
    p.add_argument("--intervals", required=True)
    p.add_argument("--examples", required=True)
    p.add_argument("--pos", required=True)
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=claims_cmd)

    p = sub.add_parser("plot-fig1", help="draw Figure 1 from fig1_intervals.csv")
    p.add_argument("--intervals", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--stem", required=True, help="output path without extension (.png and .pdf are written)")
    cfg_argument(p)
    p.set_defaults(func=plot_fig1)

    p = sub.add_parser("plot-pos", help="draw the price-of-stability curves from price_of_stability.csv")
    p.add_argument("--pos", required=True)
    p.add_argument("--stem", required=True)
    p.set_defaults(func=plot_pos)


def _ref(path: str) -> dict:
    return yaml.safe_load(Path(path).read_text())


def _sets(coalitions) -> str:
    """Coalitions as the paper writes them: 1-based players, e.g. {1,2,3,4};{1,2,3,5}; 'none' if empty."""
    return ";".join("{" + ",".join(str(i + 1) for i in s) + "}" for s in sorted(coalitions)) or "none"


def fig1(args: argparse.Namespace) -> None:
    ref = _ref(args.reference)["figure1"]
    rows, windows = [], []
    for notion in dp.NOTIONS:
        for lo, hi, size in dp.max_equilibrium_size(ref["costs"], ref["alpha"], notion):
            rows.append({"notion": notion, "sigma_lo": lo, "sigma_hi": hi, "max_size": size})
        for w in dp.stability_windows(ref["costs"], ref["alpha"], notion):
            windows.append({"notion": notion, "members": _sets([w.members]), "size": w.size,
                            "sigma2_lo": w.lo, "sigma2_hi": w.hi, "sigma_lo": np.sqrt(w.lo), "sigma_hi": np.sqrt(w.hi)})
    write_csv(args.intervals, pd.DataFrame(rows))
    write_csv(args.windows, pd.DataFrame(windows))


def _match(value: float, printed: str) -> bool:
    """True when ``value`` rounds to the printed decimal string (same number of decimals)."""
    digits = -Decimal(printed).as_tuple().exponent
    return f"{value:.{digits}f}" == printed


def examples(args: argparse.Namespace) -> None:
    ref = _ref(args.reference)
    l4 = ref["lemma4"]
    c = dp.sorted_costs(l4["costs"])
    alpha, sigma2 = l4["alpha"], l4["sigma2"]
    rows = []
    for u in l4["coalitions"]:
        idx = [m - 1 for m in u["members"]]
        k = len(idx)
        eps = dp.eps_decentralized(c[idx], k, alpha)
        var = dp.variance(sigma2, eps)
        b_in = dp.burdens(c[idx], eps, sigma2, alpha)
        outsiders = [j for j in range(len(c)) if j not in idx]
        b_out = [dp.entrant_burden(c[idx], c[j], sigma2, alpha) for j in outsiders]
        items = [(f"eps_{i + 1}", e, p) for i, e, p in zip(idx, eps, u["eps"])] + [("Var", var, u["variance"])]
        items += [(f"B_{i + 1}", b, p) for i, b, p in zip(idx, b_in, u["burden_members"])]
        items += [(f"B_{j + 1} if joining", b, p) for j, b, p in zip(outsiders, b_out, u["burden_outsiders_joining"])]
        rows += [{"example": f"Lemma 4, {u['name']}", "quantity": q, "printed": p, "reproduced": f"{v:.4f}", "match": _match(v, p)} for q, v, p in items]
    printed_sets = _sets([tuple(m - 1 for m in u["members"]) for u in l4["coalitions"]])
    for notion in dp.NOTIONS:
        text = _sets(dp.stable_coalitions(c, alpha, sigma2, notion))
        rows.append({"example": "Lemma 3", "quantity": f"{notion}-stable coalitions at sigma2={sigma2}", "printed": printed_sets,
                     "reproduced": text, "match": text == printed_sets})
    u2 = [m - 1 for m in l4["coalitions"][1]["members"]]
    out_cheaper = [(i, j) for i in range(len(c)) if i not in u2 for j in u2 if c[i] <= c[j]]
    stable = all(dp.is_stable_direct(c, alpha, sigma2, u2, notion) for notion in dp.NOTIONS)
    rows.append({"example": "Lemma 4", "quantity": "U_2 stable (Defs 7, 8) with an outsider cheaper than a member",
                 "printed": "player 4 out, player 5 in", "reproduced": ", ".join(f"player {i + 1} out, player {j + 1} in" for i, j in out_cheaper),
                 "match": stable and (3, 4) in out_cheaper})
    l5 = ref["lemma5"]
    for sigma, expect in ((l5["nash_exists_at_sigma"], True), (l5["no_nash_at_sigma"], False)):
        stable_sets = dp.stable_coalitions(l5["costs"], l5["alpha"], sigma**2, "nash")
        rows.append({"example": "Lemma 5", "quantity": f"Nash-stable coalitions at sigma={sigma}", "printed": "some" if expect else "none",
                     "reproduced": _sets(stable_sets), "match": bool(stable_sets) == expect})
    write_csv(args.output, pd.DataFrame(rows))


def pos(args: argparse.Namespace) -> None:
    cfg = section(args, "dp_coalitions")["pos"]
    rows = []
    for cost in cfg["costs"]:
        for alpha in cfg["alphas"]:
            for n in cfg["n_values"]:
                for notion in dp.NOTIONS:
                    out = dp.identical_cost_outcome(int(n), cost, cfg["sigma2"], alpha, notion)
                    rows.append({"cost": cost, "sigma2": cfg["sigma2"], "alpha": alpha, "n": int(n), "notion": notion,
                                 "k_centralized": out.k_centralized, "sc_centralized": out.sc_centralized, "var_centralized": out.var_centralized,
                                 "k_decentralized": out.k_decentralized, "sc_decentralized": out.sc_decentralized,
                                 "var_decentralized": out.var_decentralized, "pos_sc": out.pos_sc, "pos_var": out.pos_var})
    write_csv(args.output, pd.DataFrame(rows))


def claims_cmd(args: argparse.Namespace) -> None:
    cfg = section(args, "dp_coalitions")
    count = cfg["claims_instances"]
    rng = seeding.generator(section(args, "seed"), "game", 4)
    sampling = seeding.generator(section(args, "seed"), "sampling", 4)
    intervals = pd.read_csv(args.intervals)
    l5 = _ref(args.reference)["lemma5"]
    blocks = (
        claims.equation_1(sampling, cfg["monte_carlo_repetitions"]),
        claims.lemma_1(rng, max(2, count // 10)),
        claims.lemma_1_remarks(rng, count),
        claims.lemma_2(rng, count),
        claims.claims_5_6_vs_definitions(rng, max(2, count // 10)),
        claims.claim_1(rng, count),
        claims.claim_2(rng, count * 5),
        claims.worked_examples(pd.read_csv(args.examples)),
        claims.lemma_5(intervals, l5["nash_exists_at_sigma"], l5["no_nash_at_sigma"]),
        claims.figure_1(intervals),
        claims.lemma_6_and_claim_8(rng, count),
        claims.claims_3_4(),
        claims.claim_7(rng, count),
        claims.theorems_1_to_4(pd.read_csv(args.pos)),
        claims.theorem_2_boundary(),
        claims.theorem_3_bound(rng, count),
    )
    rows = [row for block in blocks for row in block]
    write_csv(args.output, pd.DataFrame(rows, columns=["claim", "paper_states", "parameters", "holds", "erratum", "note"]))


def plot_fig1(args: argparse.Namespace) -> None:
    from fairshare.plots import dp_coalitions as plots

    cfg = section(args, "dp_coalitions")["figure1"]
    n = len(_ref(args.reference)["figure1"]["costs"])
    plots.figure1(pd.read_csv(args.intervals), cfg["sigma_range"], n, cfg["narrow_window"], Path(args.stem))


def plot_pos(args: argparse.Namespace) -> None:
    from fairshare.plots import dp_coalitions as plots

    plots.pos_curves(pd.read_csv(args.pos), Path(args.stem))
