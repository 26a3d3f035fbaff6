"""Commands for the endogenous-privacy data-sharing paper: Figure 1, worked examples, claims, price of stability."""
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
    p.add_argument("--reference", required=True)
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
    p.add_argument("--pos", required=True)
    p.add_argument("--examples", required=True)
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=claims_cmd)

    p = sub.add_parser("figures", help="draw Figure 1 and the price-of-stability curves")
    p.add_argument("--reference", required=True)
    p.add_argument("--intervals", required=True)
    p.add_argument("--pos", required=True)
    p.add_argument("--outdir", required=True)
    p.set_defaults(func=figures)


def _ref(path: str) -> dict:
    return yaml.safe_load(Path(path).read_text())


def fig1(args: argparse.Namespace) -> None:
    ref = _ref(args.reference)["figure1"]
    rows, windows = [], []
    for notion in dp.NOTIONS:
        for lo, hi, size in dp.max_equilibrium_size(ref["costs"], ref["alpha"], notion):
            rows.append({"notion": notion, "sigma_lo": lo, "sigma_hi": hi, "max_size": size})
        for w in dp.stability_windows(ref["costs"], ref["alpha"], notion):
            windows.append({"notion": notion, "members": "{" + ",".join(str(i + 1) for i in w.members) + "}", "size": w.size,
                            "sigma2_lo": w.lo, "sigma2_hi": w.hi, "sigma_lo": np.sqrt(w.lo), "sigma_hi": np.sqrt(w.hi)})
    write_csv(args.intervals, pd.DataFrame(rows))
    write_csv(args.windows, pd.DataFrame(windows))


def _match(value: float, printed: str) -> bool:
    digits = -Decimal(printed).as_tuple().exponent
    return abs(value - float(printed)) <= 0.5 * 10**-digits + 1e-12


def examples(args: argparse.Namespace) -> None:
    ref = _ref(args.reference)
    l4 = ref["lemma4"]
    c = np.sort(np.array(l4["costs"], float))
    alpha, sigma2 = l4["alpha"], l4["sigma2"]
    rows = []
    for u in l4["coalitions"]:
        idx = [m - 1 for m in u["members"]]
        k = len(idx)
        eps = dp.eps_decentralized(c[idx], k, alpha)
        var = dp.variance(sigma2, eps)
        b_in = dp.burdens(c[idx], eps, sigma2, alpha)
        outsiders = [j for j in range(len(c)) if j not in idx]
        b_out = [dp._entrant_burden(c[idx], c[j], sigma2, alpha) for j in outsiders]
        items = [(f"eps_{i + 1}", e, p) for i, e, p in zip(idx, eps, u["eps"])] + [("Var", var, u["variance"])]
        items += [(f"B_{i + 1}", b, p) for i, b, p in zip(idx, b_in, u["burden_members"])]
        items += [(f"B_{j + 1} joining", b, p) for j, b, p in zip(outsiders, b_out, u["burden_outsiders_joining"])]
        rows += [{"example": f"Lemma 4, {u['name']}", "quantity": q, "printed": p, "reproduced": f"{v:.4f}", "match": _match(v, p)} for q, v, p in items]
    for notion in dp.NOTIONS:
        stable = sorted(dp.stable_coalitions(c, alpha, sigma2, notion))
        text = ";".join("{" + ",".join(str(i + 1) for i in s) + "}" for s in stable)
        rows.append({"example": "Lemma 3", "quantity": f"{notion}-stable coalitions at sigma2=0.25", "printed": "{1,2,3,4};{1,2,3,5}",
                     "reproduced": text, "match": text == "{1,2,3,4};{1,2,3,5}"})
    l5 = ref["lemma5"]
    for sigma, expect in ((l5["nash_exists_at_sigma"], True), (l5["no_nash_at_sigma"], False)):
        stable = dp.stable_coalitions(l5["costs"], l5["alpha"], sigma**2, "nash")
        text = ";".join("{" + ",".join(str(i + 1) for i in s) + "}" for s in stable) or "none"
        rows.append({"example": "Lemma 5", "quantity": f"Nash-stable coalitions at sigma={sigma}", "printed": "exists" if expect else "none",
                     "reproduced": text, "match": bool(stable) == expect})
    write_csv(args.output, pd.DataFrame(rows))


def pos(args: argparse.Namespace) -> None:
    cfg = section(args, "dp_coalitions")["pos"]
    rows = []
    for alpha in cfg["alphas"]:
        for n in cfg["n_values"]:
            for notion in dp.NOTIONS:
                pos_sc, pos_var = dp.identical_cost_pos(int(n), cfg["cost"], cfg["sigma2"], alpha, notion)
                rows.append({"alpha": alpha, "n": int(n), "notion": notion, "pos_sc": pos_sc, "pos_var": pos_var})
    write_csv(args.output, pd.DataFrame(rows))


def claims_cmd(args: argparse.Namespace) -> None:
    cfg = section(args, "dp_coalitions")
    count = cfg["claims_instances"]
    rng = seeding.generator(section(args, "seed"), "game", 4)
    rows = []
    for block in (claims.lemma_1(rng, max(2, count // 10)), claims.claims_5_6_vs_definitions(rng, max(2, count // 10)), claims.claim_1(rng, count),
                  claims.claim_2(rng, count * 5), claims.claims_3_4(), claims.lemma_6_and_claim_8(rng, count), claims.claim_7(rng, count),
                  claims.theorem_3_and_pos(rng, count), claims.slopes(pd.read_csv(args.pos).to_dict("records"))):
        rows.extend(block)
    ex = pd.read_csv(args.examples)
    for example, group in ex.groupby("example", sort=False):
        rows.append({"claim": example, "paper_states": "worked example numbers as printed", "parameters": f"{len(group)} quantities",
                     "holds": bool(group["match"].all()), "note": ""})
    write_csv(args.output, pd.DataFrame(rows, columns=["claim", "paper_states", "parameters", "holds", "note"]))


def figures(args: argparse.Namespace) -> None:
    from fairshare.plots import dp_coalitions as plots

    ref = _ref(args.reference)["figure1"]
    plots.figure1(pd.read_csv(args.intervals), ref["sigma_range"], len(ref["costs"]), Path(args.outdir) / "fig1")
    plots.pos_curves(pd.read_csv(args.pos), Path(args.outdir) / "price_of_stability")
