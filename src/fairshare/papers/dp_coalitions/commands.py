"""Commands for the endogenous-privacy data-sharing paper: Figure 1, worked examples, price of stability, claims."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import yaml

from fairshare.io import save_figure_paths, write_csv
from fairshare.papers.dp_coalitions import claims, experiment
from fairshare.pipeline.commands_shared import cfg_argument, section
from fairshare.pipeline.report import write_claims

__all__ = ["GROUP", "HELP", "register", "fig1", "examples", "pos", "claims_cmd", "plot_fig1", "plot_pos"]

GROUP = "dp-coalitions"
HELP = (
    "data sharing with endogenous DP levels: Nash and robust equilibria as exact sigma intervals, worked examples, "
    "price of stability"
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fig1", help="exact max-equilibrium-size step functions (Figure 1) and every stability window")
    p.add_argument("--reference", required=True, help="YAML of the paper's printed instances")
    p.add_argument("--intervals", required=True, help="largest equilibrium size per sigma interval and notion (CSV)")
    p.add_argument("--windows", required=True, help="every coalition's stability window in sigma, per notion (CSV)")
    p.set_defaults(func=fig1)

    p = sub.add_parser("examples", help="the Lemma 3/4/5 worked examples, recomputed beside the printed numbers")
    p.add_argument("--reference", required=True, help="YAML of the paper's printed instances")
    p.add_argument("--output", required=True, help="one row per printed quantity, printed and reproduced (CSV)")
    p.set_defaults(func=examples)

    p = sub.add_parser("pos", help="price of stability vs n for identical costs, per alpha regime")
    p.add_argument(
        "--output", required=True, help="centralized and decentralized optima and PoS per cost, alpha, n, notion (CSV)"
    )
    cfg_argument(p)
    p.set_defaults(func=pos)

    p = sub.add_parser("claims", help="numerical checks of every checkable statement")
    p.add_argument("--intervals", required=True, help="fig1_intervals.csv of `dp-coalitions fig1`")
    p.add_argument("--examples", required=True, help="worked examples of `dp-coalitions examples` (CSV)")
    p.add_argument("--pos", required=True, help="price_of_stability.csv of `dp-coalitions pos`")
    p.add_argument("--output", required=True, help="claims (CSV)")
    cfg_argument(p)
    p.set_defaults(func=claims_cmd)

    p = sub.add_parser("plot-fig1", help="draw Figure 1 from fig1_intervals.csv")
    p.add_argument("--intervals", required=True, help="fig1_intervals.csv of `dp-coalitions fig1`")
    p.add_argument(
        "--reference", required=True, help="YAML of the paper's printed instances (for the number of players)"
    )
    p.add_argument("--output", nargs="+", required=True, help="figure files (format from the suffix)")
    cfg_argument(p)
    p.set_defaults(func=plot_fig1)

    p = sub.add_parser("plot-pos", help="draw the price-of-stability curves from price_of_stability.csv")
    p.add_argument("--pos", required=True, help="price_of_stability.csv of `dp-coalitions pos`")
    p.add_argument("--output", nargs="+", required=True, help="figure files (format from the suffix)")
    p.set_defaults(func=plot_pos)


def _ref(path: str) -> dict:
    return yaml.safe_load(Path(path).read_text())


def _settings(args: argparse.Namespace) -> experiment.Settings:
    return experiment.Settings.from_config(section(args, "dp_coalitions"), section(args, "seed"))


def fig1(args: argparse.Namespace) -> None:
    intervals, windows = experiment.figure1(_ref(args.reference)["figure1"])
    write_csv(args.intervals, intervals)
    write_csv(args.windows, windows)


def examples(args: argparse.Namespace) -> None:
    write_csv(args.output, experiment.worked_examples(_ref(args.reference)))


def pos(args: argparse.Namespace) -> None:
    write_csv(args.output, experiment.price_of_stability(_settings(args)))


def claims_cmd(args: argparse.Namespace) -> None:
    settings = _settings(args)
    results = {
        "evidence": experiment.claim_evidence(settings),
        "fig1_intervals": pd.read_csv(args.intervals),
        "worked_examples": pd.read_csv(args.examples, dtype={"printed": str, "reproduced": str}),
        "price_of_stability": pd.read_csv(args.pos),
    }
    write_claims(args.output, claims.claims(results, settings))


def plot_fig1(args: argparse.Namespace) -> None:
    import matplotlib.pyplot as plt

    from fairshare.papers.dp_coalitions import figures  # matplotlib only for the drawing commands

    settings = _settings(args)
    n = len(_ref(args.reference)["figure1"]["costs"])
    fig = figures.figure1(pd.read_csv(args.intervals), list(settings.sigma_range), n, settings.narrow_window)
    save_figure_paths(fig, args.output)
    plt.close(fig)


def plot_pos(args: argparse.Namespace) -> None:
    import matplotlib.pyplot as plt

    from fairshare.papers.dp_coalitions import figures

    fig = figures.pos_curves(pd.read_csv(args.pos))
    save_figure_paths(fig, args.output)
    plt.close(fig)
