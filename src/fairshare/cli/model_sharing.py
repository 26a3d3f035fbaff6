"""Commands for "Model-sharing Games": Tables 1-5, Appendix C, claims, Monte Carlo validation, extra figures."""
from __future__ import annotations

import argparse
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from fairshare import seeding
from fairshare.cli import cfg_argument, section
from fairshare.games import model_sharing as ms
from fairshare.games import model_sharing_claims as claims
from fairshare.games import stability as st
from fairshare.io import write_csv, write_json

GROUP = "model-sharing"
HELP = "Model-sharing games (Donahue & Kleinberg 2021): exact errors and stable coalitions"
NAMES = "abcdefghij"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tables", help="Tables 1-5 with exact values, all-coalition tables and stability reports")
    p.add_argument("--reference", required=True, help="YAML of the printed values")
    p.add_argument("--outdir", required=True)
    p.set_defaults(func=tables)

    p = sub.add_parser("appendix-c", help="Appendix C example: printed values, inferred sizes, IS and core vs L")
    p.add_argument("--reference", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--core-vs-l", required=True)
    cfg_argument(p)
    p.set_defaults(func=appendix_c)

    p = sub.add_parser("claims", help="numerical check of every checkable lemma/theorem")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=claims_cmd)

    p = sub.add_parser("monte-carlo", help="simulated vs exact errors (mean estimation and regression)")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=monte_carlo)

    p = sub.add_parser("curves", help="error vs coalition size, and the (n_small, n_large) phase diagram")
    p.add_argument("--sizes", required=True)
    p.add_argument("--phases", required=True)
    cfg_argument(p)
    p.set_defaults(func=curves)

    p = sub.add_parser("figures", help="draw the model-sharing figures from the result files")
    p.add_argument("--monte-carlo", required=True)
    p.add_argument("--sizes", required=True)
    p.add_argument("--phases", required=True)
    p.add_argument("--outdir", required=True)
    p.set_defaults(func=figures)


def _decimals(printed: str) -> int:
    return -Decimal(printed).as_tuple().exponent


def _matches(exact: Fraction, printed: str) -> bool:
    """Within half a unit of the last printed digit."""
    return abs(exact - Fraction(printed)) <= Fraction(1, 2 * 10 ** _decimals(printed))


def tables(args: argparse.Namespace) -> None:
    ref = yaml.safe_load(Path(args.reference).read_text())
    outdir = Path(args.outdir)
    for name, spec in ref["tables"].items():
        n, method = spec["n"], spec["method"]
        table = st.coalition_table(n, mu_e=10, sigma2=1, method=method)
        rows = []
        for entry in spec["rows"]:
            structure = tuple(tuple(b) for b in entry["structure"])
            for player, printed in entry["printed"].items():
                block = next(b for b in structure if player in b)
                exact = table[sum(1 << k for k in block)][player]
                digits = _decimals(str(printed))
                rows.append({"table": name, "structure": st.describe(structure), "player": NAMES[player], "exact": str(exact),
                             "value": float(exact), "rounded": f"{float(exact):.{digits}f}", "printed": str(printed),
                             "match": _matches(exact, str(printed))})
        write_csv(outdir / f"{name}.csv", pd.DataFrame(rows))
        full = [{"coalition": "{" + ",".join(NAMES[j] for j in st.mask_to_players(mask)) + "}", "player": NAMES[j],
                 "n": n[j], "exact": str(e), "value": float(e)} for mask, row in table.items() for j, e in row.items()]
        write_csv(outdir / f"{name}_all_coalitions.csv", pd.DataFrame(full))
        stable = {notion: set(st.stable_partitions(n, mu_e=10, sigma2=1, method=method, notion=notion)) for notion in st.NOTIONS}
        stability = []
        for part in st.set_partitions(len(n)):
            flags = {notion: part in stable[notion] for notion in st.NOTIONS}
            blockers = st.blocking_coalitions(part, table)
            stability.append({"partition": st.describe(part), **flags,
                              "blocking_coalitions": ";".join("{" + ",".join(NAMES[j] for j in b) + "}" for b in blockers)})
        write_csv(outdir / f"{name}_stability.csv", pd.DataFrame(stability))


def appendix_c(args: argparse.Namespace) -> None:
    ref = yaml.safe_load(Path(args.reference).read_text())["appendix_c"]
    cfg = section(args, "model_sharing")
    mu, s2, S = ref["mu_e"], ref["sigma2"], ref["S"]
    by_name = {r["quantity"]: Fraction(r["value"]) for r in ref["printed"]}
    # Inference of the unstated sample sizes from the printed numbers (spec §3): err_L(pi(0,1)) = mu_e / n_l and
    # err_S(pi(70,0)) = mu_e/(70 n_s) + s2 * 69/70 (uniform, equal small players).
    n_l = round(mu / float(by_name["err_L(pi(0,1))"]))
    n_s = round(mu / (S * (float(by_name["err_S(pi(70,0))"]) - s2 * (S - 1) / S)))
    values = []
    game = st.TwoTypeGame(n_s, n_l, S, max(cfg["appendix_c_L"]), mu_e=mu, sigma2=s2, method="uniform")
    for r in ref["printed"]:
        es, el = game.err(r["s"], r["l"])
        exact = es if r["type"] == "S" else el
        values.append({"quantity": r["quantity"], "printed": r["value"], "reproduced": f"{float(exact):.6f}", "match": _matches(exact, r["value"])})
    core_rows = []
    for L in cfg["appendix_c_L"]:
        g = st.TwoTypeGame(n_s, n_l, S, L, mu_e=mu, sigma2=s2, method="uniform")
        p = st.theorem_5_5_partition(g)
        blockers = g.blocking(p)
        core_rows.append({"L": L, "partition": str(p), "individually_stable": g.is_individually_stable(p), "core_stable": not blockers,
                          "blocking_coalitions": ";".join(f"pi({s},{l})" for s, l in blockers)})
    write_csv(args.core_vs_l, pd.DataFrame(core_rows))
    write_json(args.output, {"mu_e": mu, "sigma2": s2, "S": S, "inferred_n_s": n_s, "inferred_n_l": n_l, "values": values,
                             "note": "n_s and n_l are not printed in the paper; inferred from err_L(pi(0,1)) and err_S(pi(70,0))"})


def claims_cmd(args: argparse.Namespace) -> None:
    cfg = section(args, "model_sharing")
    rows = claims.all_claims(cfg["claims_grid"], seeding.generator(section(args, "seed"), "game", 1))
    write_csv(args.output, pd.DataFrame(rows, columns=["claim", "paper_states", "parameters", "holds", "note"]))


def monte_carlo(args: argparse.Namespace) -> None:
    from fairshare.games.model_sharing_sim import MU_E, simulate

    cfg = section(args, "model_sharing")["monte_carlo"]
    n, w, v = cfg["n"], cfg["w"], np.array(cfg["v"], float)
    rows = []
    for task, sigma2_d in (("mean", None), ("regression", cfg["regression_sigma2_d"])):
        rng = seeding.generator(section(args, "seed"), "game", 2, 0 if task == "mean" else 1)
        sim = simulate(n, w, v, worlds=cfg["worlds"], rng=rng, sigma2_d=sigma2_d)
        for method, (mean, se) in sim.items():
            weights = {"coarse": w, "fine": v}.get(method)
            if task == "mean":
                exact = ms.errors(n, mu_e=MU_E, sigma2=1, method=method, weights=weights)
            else:
                exact = ms.regression_errors(n, mu_e=MU_E, sigma2_d=sigma2_d, method=method, weights=weights)
            for j in range(len(n)):
                rows.append({"task": task, "method": method, "player": j, "n": n[j], "simulated": mean[j], "se": se[j], "exact": exact[j],
                             "z": (mean[j] - exact[j]) / se[j]})
    write_csv(args.output, pd.DataFrame(rows))


def curves(args: argparse.Namespace) -> None:
    cfg = section(args, "model_sharing")
    write_csv(args.sizes, pd.DataFrame(claims.equal_size_curves(cfg["curve_sizes"], cfg["curve_max_players"])))
    ph = cfg["phase"]
    rows = []
    for method, notion in (("uniform", "core"), ("coarse", "strict_core"), ("fine", "core")):
        for n_s in range(1, ph["n_max"] + 1):
            for n_l in range(n_s + 1, ph["n_max"] + 1):
                game = st.TwoTypeGame(n_s, n_l, ph["S"], ph["L"], mu_e=10, sigma2=1, method=method)
                rows.append({"method": method, "notion": notion, "n_s": n_s, "n_l": n_l, "stable": claims.phase_label(game, notion)})
    write_csv(args.phases, pd.DataFrame(rows))


def figures(args: argparse.Namespace) -> None:
    from fairshare.plots import model_sharing as plots

    plots.monte_carlo(pd.read_csv(args.monte_carlo), Path(args.outdir) / "monte_carlo")
    plots.error_vs_size(pd.read_csv(args.sizes), Path(args.outdir) / "error_vs_coalition_size")
    plots.phase_diagram(pd.read_csv(args.phases), Path(args.outdir) / "phase_diagram")
