"""Commands for "Model-sharing Games": Tables 1-5, Appendix C, claims, Monte Carlo validation, extra figures."""
from __future__ import annotations

import argparse
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from fairshare import seeding
from fairshare.cli import cfg_argument, section
from fairshare.games import model_sharing as ms
from fairshare.games import stability as st
from fairshare.io import read_json, write_csv, write_json

GROUP = "model-sharing"
HELP = "Model-sharing games (Donahue & Kleinberg 2021): exact errors and stable coalitions"
NAMES = "abcdefghij"
PAPER_MU, PAPER_SIGMA2 = 10, 1  # every table of §2 uses mu_e = 10, sigma2 = 1
TABLE_4_POPULATION = (3, 1)  # three small players and one large one (Tables 4-5), always drawn in the phase diagram


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("paper-numbers", help="Tables 1-5 (exact, rounded, printed, match; all coalitions; stability), Appendix C, "
                                            "and one claims row per printed number")
    p.add_argument("--reference", required=True, help="YAML of the printed values (workflow/reference/model_sharing_printed.yaml)")
    p.add_argument("--outdir", required=True, help="folder for tableN.csv, tableN_all_coalitions.csv, tableN_stability.csv")
    p.add_argument("--appendix-c", required=True, help="Appendix C report (JSON)")
    p.add_argument("--core-vs-l", required=True, help="Appendix C core check per number of large players (CSV)")
    p.add_argument("--printed-values", required=True, help="claims CSV: every printed number and §2 stability statement")
    cfg_argument(p)
    p.set_defaults(func=paper_numbers)

    p = sub.add_parser("claims", help="numerical check of every checkable lemma/theorem, errata included")
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


# ------------------------------------------------------------------------------------------------ helpers
def _decimals(printed: str) -> int:
    return max(0, -Decimal(printed).as_tuple().exponent)


def round_like(exact: Fraction, printed: str) -> str:
    """``exact`` rounded half-up to as many decimals as ``printed`` carries (computed exactly, no float)."""
    digits = _decimals(printed)
    value = Decimal(exact.numerator) / Decimal(exact.denominator)
    return str(value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def _label(players) -> str:
    return "{" + ",".join(NAMES[j] for j in players) + "}"


def _mask(block) -> int:
    return sum(1 << k for k in block)


def _partition(structure) -> st.Partition:
    return tuple(sorted(tuple(sorted(b)) for b in structure))


# ------------------------------------------------------------------------------------------------- tables
def paper_numbers(args: argparse.Namespace) -> None:
    """Every number the paper prints, in one process: tables, Appendix C, then the scorecard rows for both."""
    outdir = Path(args.outdir)
    tables(args.reference, outdir)
    appendix_c(args.reference, section(args, "model_sharing")["appendix_c_L"], args.appendix_c, args.core_vs_l)
    names = yaml.safe_load(Path(args.reference).read_text())["tables"]
    printed_values(args.reference, [outdir / f"{t}.csv" for t in names], [outdir / f"{t}_stability.csv" for t in names], args.appendix_c,
                   args.printed_values)


def tables(reference: str | Path, outdir: Path) -> None:
    """Per table: printed cells vs exact values, the full all-coalition table, and every partition's stability."""
    ref = yaml.safe_load(Path(reference).read_text())
    for name, spec in ref["tables"].items():
        n, method = spec["n"], spec["method"]
        table = st.coalition_table(n, mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=method)
        rows = []
        for entry in spec["rows"]:
            structure = _partition(entry["structure"])
            for player, printed in entry["printed"].items():
                printed = str(printed)
                exact = table[_mask(next(b for b in structure if player in b))][player]
                rounded = round_like(exact, printed)
                match = Decimal(rounded) == Decimal(printed)
                note = spec.get("known_discrepancy", "") if not match else ""
                rows.append({"table": name, "method": method, "structure": st.describe(structure), "player": NAMES[player], "n": n[player],
                             "exact": str(exact), "value": float(exact), "rounded": rounded, "printed": printed, "match": match, "note": note})
        write_csv(outdir / f"{name}.csv", pd.DataFrame(rows))
        full = [{"coalition": _label(st.mask_to_players(mask)), "player": NAMES[j], "n": n[j], "exact": str(e), "value": float(e)}
                for mask, row in table.items() for j, e in row.items()]
        write_csv(outdir / f"{name}_all_coalitions.csv", pd.DataFrame(full))
        stable = {notion: set(st.stable_partitions(n, mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=method, notion=notion)) for notion in st.NOTIONS}
        printed_rows = {_partition(entry["structure"]) for entry in spec["rows"]}
        report = []
        for part in st.set_partitions(len(n)):
            report.append({"partition": st.describe(part), **{notion: part in stable[notion] for notion in st.NOTIONS},
                           "in_printed_table": part in printed_rows,
                           "core_blocking": ";".join(_label(b) for b in st.blocking_coalitions(part, table)),
                           "strict_core_blocking": ";".join(_label(b) for b in st.blocking_coalitions(part, table, strict=True))})
        write_csv(outdir / f"{name}_stability.csv", pd.DataFrame(report))


# --------------------------------------------------------------------------------------------- appendix C
def appendix_c(reference: str | Path, large_counts: list[int], report_path: str | Path, core_path: str | Path) -> None:
    """Example C.6: printed values, inferred sample sizes, and the Thm 5.5 output's stability for each L."""
    ref = yaml.safe_load(Path(reference).read_text())["appendix_c"]
    mu, s2, S = Fraction(ref["mu_e"]), Fraction(ref["sigma2"]), ref["S"]
    printed = {r["quantity"]: Fraction(r["value"]) for r in ref["printed"]}
    # The paper never states n_s, n_l (spec §3); invert two printed values: err_L(pi(0,1)) = mu_e / n_l, and
    # err_S(pi(S,0)) = mu_e/(S n_s) + s2 (S-1)/S (uniform federation of S equal small players, Lemma 5.1).
    n_l = round(mu / printed["err_L(pi(0,1))"])
    n_s = round(mu / (S * (printed["err_S(pi(70,0))"] - s2 * (S - 1) / S)))
    game = st.TwoTypeGame(n_s, n_l, S, max(large_counts), mu_e=mu, sigma2=s2, method="uniform")
    values = []
    for r in ref["printed"]:
        es, el = game.err(r["s"], r["l"])
        exact = es if r["type"] == "S" else el
        rounded = round_like(exact, r["value"])
        values.append({"quantity": r["quantity"], "printed": r["value"], "exact": str(exact), "reproduced": rounded,
                       "match": Decimal(rounded) == Decimal(r["value"])})
    core_rows = []
    for L in large_counts:
        g = st.TwoTypeGame(n_s, n_l, S, L, mu_e=mu, sigma2=s2, method="uniform")
        p = st.theorem_5_5_partition(g)
        blockers = g.blocking(p)
        core_rows.append({"L": L, "partition": st.describe_typed(p), "l_prime": max(l for s, l in p if s == S),
                          "individually_stable": g.is_individually_stable(p), "core_stable": not blockers,
                          "blocking_coalitions": ";".join(f"pi({s},{l})" for s, l in blockers),
                          "blockers_err_S": ";".join(f"{float(g.err(s, l)[0]):.6f}" for s, l in blockers),
                          "blockers_err_L": ";".join(f"{float(g.err(s, l)[1]):.6f}" for s, l in blockers)})
    write_csv(core_path, pd.DataFrame(core_rows))
    write_json(report_path, {
        "mu_e": str(mu), "sigma2": str(s2), "S": S, "inferred_n_s": n_s, "inferred_n_l": n_l,
        "inference": "n_l = mu_e / err_L(pi(0,1)); n_s = mu_e / (S (err_S(pi(S,0)) - s2 (S-1)/S)); the paper does not print them "
                     "(the authors' notebook uses the same 11 and 106)",
        "values": values,
        "extra_values": {"err_S(pi(70,4))": f"{float(game.err(70, 4)[0]):.6f}", "err_S(pi(67,4))": f"{float(game.err(67, 4)[0]):.6f}",
                         "err_L(pi(67,4))": f"{float(game.err(67, 4)[1]):.6f}", "err_L(pi(68,3))": f"{float(game.err(68, 3)[1]):.6f}"},
        "theorem_5_5_partition_by_L": {row["L"]: row["partition"] for row in core_rows},
        "core_vs_L": core_rows,
        "errata": ["'we cannot add another large player to the pi(70, 30) coalition' should read pi(70, 3)",
                   "'pi(68, 3) >_L pi(0, 1)' should read pi(68, 4) (the printed 0.943147 is err_L(pi(68, 4)))"],
    })


# ------------------------------------------------------------------------------------------- scorecard rows
def _stability_claim(claim: dict, report: pd.DataFrame, table: dict[int, dict[int, Fraction]]) -> tuple[str, bool, str]:
    """(what the paper states, whether it reproduces, what was found) for one §2 stability statement."""
    notion = claim["notion"]
    stable = set(report.loc[report[notion], "partition"])
    if "only" in claim:
        want = {st.describe(_partition(p)) for p in claim["only"]}
        return f"{notion}: only {sorted(want)}", stable == want, f"{notion} stable: {sorted(stable)}"
    if "includes" in claim or "excludes" in claim:
        part = st.describe(_partition(claim.get("includes") or claim["excludes"]))
        inside = part in stable
        return f"{notion}: {part} is {'' if 'includes' in claim else 'not '}stable", inside == ("includes" in claim), f"{notion} stable: {sorted(stable)}"
    if "blocked_by" in claim:
        part, coalition = _partition(claim["blocked_by"]["partition"]), tuple(claim["blocked_by"]["coalition"])
        blockers = report.set_index("partition").loc[st.describe(part), "core_blocking"]
        blockers = set(str(blockers).split(";")) if isinstance(blockers, str) else set()
        return f"{st.describe(part)} is blocked by {_label(coalition)}", _label(coalition) in blockers, f"blocking coalitions: {sorted(blockers)}"
    part = _partition(claim["minimal_for_all"])
    best = all(table[_mask(next(b for b in part if j in b))][j] == min(r[j] for r in table.values() if j in r) for b in part for j in b)
    return f"every player's error is minimal in {st.describe(part)}", best, "checked on the exact all-coalition table"


def printed_values(reference: str | Path, table_files: list, stability_files: list, appendix_path: str | Path, output: str | Path) -> None:
    """One claims row per printed table cell, §2 stability statement and Example C.6 value (read back from the outputs)."""
    ref = yaml.safe_load(Path(reference).read_text())
    rows = []
    for table_csv, stability_csv in zip(table_files, stability_files):
        cells = pd.read_csv(table_csv, dtype={"printed": str, "rounded": str})
        name = cells.table.iloc[0]
        spec = ref["tables"][name]
        artifact = name.replace("table", "Table ")
        for c in cells.itertuples():
            note = c.note if isinstance(c.note, str) else ""
            rows.append({"artifact": artifact, "claim": f"err_{c.player}({c.structure})", "paper_states": c.printed,
                         "reproduced": f"{c.rounded} (exact {c.exact})", "parameters": f"{c.method}, n={spec['n']}, mu_e=10, s2=1",
                         "holds": bool(c.match), "note": note})
        report = pd.read_csv(stability_csv)
        table = st.coalition_table(spec["n"], mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=spec["method"])
        for claim in spec.get("stability_claims", []):
            states, holds, found = _stability_claim(claim, report, table)
            rows.append({"artifact": artifact, "claim": "stability (§2 text)", "paper_states": states, "reproduced": found,
                         "parameters": f"{spec['method']}, n={spec['n']}", "holds": holds, "note": ""})
    appendix = read_json(appendix_path)
    for v in appendix["values"]:
        rows.append({"artifact": "Example C.6", "claim": v["quantity"], "paper_states": v["printed"], "reproduced": f"{v['reproduced']} (exact {v['exact']})",
                     "parameters": f"uniform, mu_e=100, s2=1, n_s={appendix['inferred_n_s']}, n_l={appendix['inferred_n_l']} (inferred)",
                     "holds": bool(v["match"]), "note": ""})
    write_csv(output, pd.DataFrame(rows, columns=["artifact", "claim", "paper_states", "reproduced", "parameters", "holds", "note"]))


def claims_cmd(args: argparse.Namespace) -> None:
    from fairshare.games import model_sharing_claims as claims

    cfg = section(args, "model_sharing")
    rows = claims.all_claims(cfg["claims_grid"], seeding.generator(section(args, "seed"), "game", 1))
    write_csv(args.output, pd.DataFrame(rows, columns=claims.COLUMNS))


# ------------------------------------------------------------------------------------- simulation, curves
def monte_carlo(args: argparse.Namespace) -> None:
    from fairshare.games.model_sharing_sim import MU_E, SIGMA2, simulate

    cfg = section(args, "model_sharing")["monte_carlo"]
    n, w, v = cfg["n"], cfg["w"], np.array(cfg["v"], float)
    rows = []
    for task, sigma2_d in (("mean", None), ("regression", cfg["regression_sigma2_d"])):
        rng = seeding.generator(section(args, "seed"), "game", 2, 0 if task == "mean" else 1)
        sim = simulate(n, w, v, worlds=cfg["worlds"], rng=rng, sigma2_d=sigma2_d)
        for method, (mean, se) in sim.items():
            weights = {"coarse": w, "fine": v}.get(method)
            if task == "mean":
                exact = ms.errors(n, mu_e=MU_E, sigma2=SIGMA2, method=method, weights=weights)
            else:
                exact = ms.regression_errors(n, mu_e=MU_E, sigma2_d=sigma2_d, method=method, weights=weights)
            for j in range(len(n)):
                rows.append({"task": task, "method": method, "player": j, "n": n[j], "worlds": cfg["worlds"], "simulated": mean[j],
                             "se": se[j], "exact": exact[j], "z": (mean[j] - exact[j]) / se[j]})
    write_csv(args.output, pd.DataFrame(rows))


def _integer_grid(low: int, high: int, points: int) -> list[int]:
    """About ``points`` distinct integers from low to high, evenly spaced on a log scale."""
    return sorted({int(round(x)) for x in np.geomspace(low, high, points)})


SHAPES = ("grand", "small | large", "small | large alone", "small + some large | rest alone", "all alone", "other")


def partition_shape(partition: st.TypedPartition, S: int, L: int) -> str:
    """Name of a typed partition's shape, comparable across populations (S, L)."""
    blocks = sorted(partition, reverse=True)
    if blocks == [(S, L)]:
        return SHAPES[0]
    if blocks == sorted([(S, 0), (0, L)], reverse=True):
        return SHAPES[1]
    if all(s + l == 1 for s, l in blocks):
        return SHAPES[4]
    rest = [b for b in blocks if b != (0, 1)]  # everything but the lone large players
    if len(rest) == 1 and rest[0][0] == S:
        return SHAPES[2] if rest[0][1] == 0 else SHAPES[3]
    return SHAPES[5]


def curves(args: argparse.Namespace) -> None:
    cfg = section(args, "model_sharing")
    sizes = [{"n": n, "M": m, "method": method, "error": float(ms.errors([n] * m, mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=method)[0])}
             for n in cfg["curve_sizes"] for m in range(1, cfg["curve_max_players"] + 1) for method in ("uniform", "coarse", "fine")]
    write_csv(args.sizes, pd.DataFrame(sizes))
    ph = cfg["phase"]
    populations = dict.fromkeys([TABLE_4_POPULATION, (ph["S"], ph["L"])])  # the paper's own population first
    rows = []
    for S, L in populations:
        for method, notion in (("uniform", "core"), ("coarse", "strict_core"), ("fine", "core")):
            for n_s in range(1, ph["n_max"] + 1):
                for n_l in _integer_grid(2, ph["n_large_max"], ph["n_large_points"]):
                    if n_l <= n_s:
                        continue
                    game = st.TwoTypeGame(n_s, n_l, S, L, mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=method)
                    stable = game.stable(notion)
                    paper, paper_notion, source = st.paper_partition(game)
                    rows.append({"method": method, "notion": notion, "S": S, "L": L, "n_s": n_s, "n_l": n_l,
                                 "stable": " | ".join(st.describe_typed(p) for p in stable) or "none",
                                 "stable_shapes": " & ".join(x for x in SHAPES if x in {partition_shape(p, S, L) for p in stable}) or "none",
                                 "paper_partition": st.describe_typed(paper), "paper_notion": paper_notion, "paper_source": source,
                                 "paper_partition_in_set": paper in stable})
    write_csv(args.phases, pd.DataFrame(rows))


def figures(args: argparse.Namespace) -> None:
    from fairshare.plots import model_sharing as plots

    plots.monte_carlo(pd.read_csv(args.monte_carlo), Path(args.outdir) / "monte_carlo")
    plots.error_vs_size(pd.read_csv(args.sizes), Path(args.outdir) / "error_vs_coalition_size", threshold=PAPER_MU / PAPER_SIGMA2)
    plots.phase_diagram(pd.read_csv(args.phases), Path(args.outdir) / "phase_diagram", threshold=PAPER_MU / PAPER_SIGMA2)
