"""Commands for "Model-sharing Games": Tables 1-5, Appendix C, claims, Monte Carlo validation, extra figures."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import yaml

from fairshare import seeding
from fairshare.errors import UserError
from fairshare.io import save_figure_paths, write_csv, write_json
from fairshare.papers.model_sharing import claims, evidence, experiment
from fairshare.papers.model_sharing.claims_printed import matches_printed
from fairshare.pipeline.commands_shared import cfg_argument, section
from fairshare.pipeline.report import Claim, write_claims

__all__ = ["GROUP", "HELP", "register", "paper_numbers", "claims_cmd", "monte_carlo", "curves", "draw"]

GROUP = "model-sharing"
HELP = "Model-sharing games (Donahue & Kleinberg 2021): exact errors and stable coalitions"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "paper-numbers",
        help="Tables 1-5 (exact, rounded, printed, match; all coalitions; stability), Appendix C, "
        "and one claims row per printed number",
    )
    p.add_argument("--reference", required=True, help="YAML of the printed values (model_sharing_printed.yaml)")
    p.add_argument("--tables", nargs="+", required=True, help="names of the reference's tables, in output order")
    p.add_argument("--cells", nargs="+", required=True, help="per table: printed cells vs exact values (CSV)")
    p.add_argument("--all-coalitions", nargs="+", required=True, help="per table: every coalition's errors (CSV)")
    p.add_argument("--stability", nargs="+", required=True, help="per table: every partition's stability (CSV)")
    p.add_argument("--appendix-c", required=True, help="Appendix C report (JSON)")
    p.add_argument("--core-vs-l", required=True, help="Appendix C core check per number of large players (CSV)")
    p.add_argument(
        "--printed-values", required=True, help="claims CSV: every printed number and §2 stability statement"
    )
    cfg_argument(p)
    p.set_defaults(func=paper_numbers)

    p = sub.add_parser("claims", help="numerical check of every checkable lemma/theorem, errata included")
    p.add_argument("--monte-carlo", required=True, help="monte_carlo.csv (Thms 4.1-4.2, Cors 4.3-4.4 vs simulation)")
    p.add_argument("--output", required=True, help="claims (CSV)")
    cfg_argument(p)
    p.set_defaults(func=claims_cmd)

    p = sub.add_parser("monte-carlo", help="simulated vs exact errors (mean estimation and regression)")
    p.add_argument("--output", required=True, help="simulated vs closed-form error per task, method and player (CSV)")
    cfg_argument(p)
    p.set_defaults(func=monte_carlo)

    p = sub.add_parser("curves", help="error vs coalition size, and the (n_small, n_large) phase diagram")
    p.add_argument("--sizes", required=True, help="error of one of M equal players per federation method (CSV)")
    p.add_argument("--phases", required=True, help="stable typed partitions over (n_small, n_large), per method (CSV)")
    cfg_argument(p)
    p.set_defaults(func=curves)

    p = sub.add_parser("figures", help="draw the model-sharing figures from the result files")
    p.add_argument("--monte-carlo", required=True, help="monte_carlo.csv")
    p.add_argument("--sizes", required=True, help="error_vs_coalition_size.csv")
    p.add_argument("--phases", required=True, help="phase_diagram.csv")
    p.add_argument("--monte-carlo-figure", nargs="+", required=True, help="output files (format from the suffix)")
    p.add_argument("--sizes-figure", nargs="+", required=True, help="output files (format from the suffix)")
    p.add_argument("--phases-figure", nargs="+", required=True, help="output files (format from the suffix)")
    p.set_defaults(func=draw)


def _settings(args: argparse.Namespace) -> experiment.Settings:
    return experiment.Settings.from_config(section(args, "model_sharing"), section(args, "seed"))


def paper_numbers(args: argparse.Namespace) -> None:
    """Every number the paper prints, in one process: tables, Appendix C, then the scorecard rows for both."""
    ref = yaml.safe_load(Path(args.reference).read_text())
    names = args.tables
    if not len(names) == len(args.cells) == len(args.all_coalitions) == len(args.stability):
        raise UserError("--tables, --cells, --all-coalitions and --stability need one entry per table each")
    unknown = sorted(set(names) - set(ref["tables"]))
    if unknown:
        raise UserError(f"tables {unknown} are not in {args.reference}")
    settings = _settings(args)
    tables = [experiment.table(name, ref["tables"][name]) for name in names]
    report, core = experiment.appendix_c(ref["appendix_c"], settings.appendix_c_L)
    rows = claims.claims({"reference": ref, "tables": tables, "appendix_c": report, "core_vs_l": core}, settings)
    for result, cells, full, stability in zip(tables, args.cells, args.all_coalitions, args.stability):
        write_csv(cells, _with_verdicts(result, rows))
        write_csv(full, result.all_coalitions)
        write_csv(stability, result.stability)
    for value in report["values"]:
        value["match"] = matches_printed(value["reproduced"], value["printed"])
    write_csv(args.core_vs_l, core)
    write_json(args.appendix_c, report)
    write_claims(args.printed_values, rows)


def _with_verdicts(result: experiment.TableResult, rows: list[Claim]) -> pd.DataFrame:
    """A table's printed cells with their scorecard rows' verdicts: ``match``, and ``note`` (the known discrepancy
    of a cell that differs)."""
    artifact = result.name.replace("table", "Table ")
    verdicts = [r for r in rows if r.kind == "printed" and r.artifact == artifact]
    return result.cells.assign(match=[r.holds for r in verdicts], note=[r.note for r in verdicts])


def claims_cmd(args: argparse.Namespace) -> None:
    settings = _settings(args)
    theorems = evidence.theorem_evidence(settings.claims_grid, seeding.generator(settings.seed, "game", 1))
    results = {"monte_carlo": pd.read_csv(args.monte_carlo), "theorems": theorems}
    write_claims(args.output, claims.claims(results, settings))


def monte_carlo(args: argparse.Namespace) -> None:
    write_csv(args.output, experiment.monte_carlo(_settings(args)))


def curves(args: argparse.Namespace) -> None:
    settings = _settings(args)
    write_csv(args.sizes, experiment.error_vs_size(settings))
    write_csv(args.phases, experiment.phase_diagram(settings))


def draw(args: argparse.Namespace) -> None:
    import matplotlib.pyplot as plt

    from fairshare.papers.model_sharing import figures  # matplotlib only for this command

    threshold = experiment.PAPER_MU / experiment.PAPER_SIGMA2
    drawn = (
        (figures.monte_carlo(pd.read_csv(args.monte_carlo)), args.monte_carlo_figure),
        (figures.error_vs_size(pd.read_csv(args.sizes), threshold=threshold), args.sizes_figure),
        (figures.phase_diagram(pd.read_csv(args.phases), threshold=threshold), args.phases_figure),
    )
    for fig, paths in drawn:
        save_figure_paths(fig, paths)
        plt.close(fig)
