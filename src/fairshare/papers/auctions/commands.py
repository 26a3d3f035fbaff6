"""Commands for the recruitment auctions (FedFairMMFL paper, Section V): Experiment 5, recruitment files for
Experiment 6 and its training jobs, measured properties, claims, Figures 7a-7c."""

from __future__ import annotations

import argparse

import pandas as pd

from fairshare.errors import UserError
from fairshare.io import read_json, write_csv, write_json
from fairshare.papers.mmfl.experiment import TASK_ROUND_COLUMNS
from fairshare.pipeline.commands_shared import (
    cfg_argument,
    discard_checkpoints_when_done,
    section,
    warn_if_emulated_bf16,
)
from fairshare.validate import read_runs, write_checked_csv

__all__ = [
    "GROUP",
    "HELP",
    "EXP6_COLUMNS",
    "register",
    "exp5",
    "recruit",
    "properties",
    "claims",
    "figures",
    "exp6",
    "figure7c",
]

GROUP = "auctions"
HELP = "client-recruitment auctions for multi-model FL (budget-fair, max-min fair, GMMFair, baselines)"
#: The columns of an Exp 6 run's rows (``auctions exp6``) and their types, checked where ``figure7c`` reads them.
EXP6_COLUMNS = {
    "experiment": "str",
    "method": "str",
    "seed": "int",
    "budget": "float",
    "recruited": "float",
    **TASK_ROUND_COLUMNS,
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("exp5", help="take-up per task vs budget for every mechanism (Figures 7a, 7b)")
    p.add_argument(
        "--output",
        required=True,
        help="take-up per task, their difference and minimum, and spending per mechanism, budget and seed (CSV)",
    )
    cfg_argument(p)
    p.set_defaults(func=exp5)

    p = sub.add_parser(
        "recruit", help="one recruitment JSON (winners per task, participation, payments) per mechanism and seed"
    )
    p.add_argument("--budget", type=float, required=True, help="the budget B of the recruitment")
    p.add_argument("--mechanisms", nargs="+", required=True, help="one mechanism per output")
    p.add_argument("--seeds", nargs="+", type=int, required=True, help="one seed index per output")
    p.add_argument("--outputs", nargs="+", required=True, help="one recruitment JSON per mechanism and seed")
    cfg_argument(p)
    p.set_defaults(func=recruit)

    p = sub.add_parser("properties", help="misreporting gains (Theorem 8, Corollary 9) and Corollary 10 by Monte Carlo")
    p.add_argument(
        "--truthfulness",
        required=True,
        help="where to write each mechanism's misreporting gains on random bid profiles (CSV)",
    )
    p.add_argument(
        "--corollary10",
        required=True,
        help="where to write Corollary 10, the Algorithm 3 line-5 readings and Theorem 11's join probability (CSV)",
    )
    cfg_argument(p)
    p.set_defaults(func=properties)

    p = sub.add_parser(
        "claims", help="the paper's orderings, truthfulness statements and Corollary 10, from the results"
    )
    p.add_argument("--exp5", required=True, help="Experiment 5 results of `auctions exp5` (CSV)")
    p.add_argument("--truthfulness", required=True, help="misreporting gains of `auctions properties` (CSV)")
    p.add_argument(
        "--corollary10", required=True, help="Corollary 10 and Theorem 11 results of `auctions properties` (CSV)"
    )
    p.add_argument("--output", required=True, help="claims (CSV)")
    cfg_argument(p)
    p.set_defaults(func=claims)

    p = sub.add_parser("figures", help="Figures 7a and 7b")
    p.add_argument("--exp5", required=True, help="Experiment 5 results of `auctions exp5` (CSV)")
    p.add_argument("--fig7a", required=True, help="figure path without suffix (writes .png and .pdf)")
    p.add_argument("--fig7b", required=True, help="figure path without suffix (writes .png and .pdf)")
    cfg_argument(p)
    p.set_defaults(func=figures)

    p = sub.add_parser(
        "exp6", help="train two tasks with FedFairMMFL on the clients of each recruitment file in turn (Figure 7c)"
    )
    p.add_argument("--recruitment", nargs="+", required=True, help="JSONs written by 'fairshare auctions recruit'")
    p.add_argument("--datasets", nargs="+", required=True, help="name=path of the two tasks' cached datasets")
    p.add_argument("--output", nargs="+", required=True, help="per recruitment file: accuracy per task and round")
    p.add_argument("--checkpoint", nargs="+", required=True, help="per recruitment file: its training checkpoint")
    cfg_argument(p)
    p.set_defaults(func=exp6)

    p = sub.add_parser(
        "figure7c", help="minimum accuracy across the two tasks vs round, per mechanism, and the Fig. 7c claims"
    )
    p.add_argument("runs", nargs="+", help="per-round results of `auctions exp6`, one CSV per recruitment file")
    p.add_argument(
        "--summary",
        required=True,
        help="minimum accuracy across tasks and minimum recruits per mechanism, seed, round (CSV)",
    )
    p.add_argument("--claims", required=True, help="the Fig. 7c claims (CSV)")
    p.add_argument("--output", required=True, help="figure path without suffix (writes .png and .pdf)")
    cfg_argument(p)
    p.set_defaults(func=figure7c)


def _settings(args: argparse.Namespace):
    from fairshare.papers.auctions.experiment import Settings

    return Settings.from_block(section(args, "auctions"))


def exp5(args: argparse.Namespace) -> None:
    from fairshare.papers.auctions import experiment

    write_csv(args.output, experiment.exp5(_settings(args), section(args, "seed")))


def recruit(args: argparse.Namespace) -> None:
    from fairshare.games.auctions import MECHANISMS
    from fairshare.papers.auctions.experiment import recruitment_record

    if not len(args.mechanisms) == len(args.seeds) == len(args.outputs):
        raise UserError("--mechanisms, --seeds and --outputs need one entry per recruitment file each")
    unknown = sorted(set(args.mechanisms) - set(MECHANISMS))
    if unknown:
        raise UserError(f"unknown mechanisms {unknown}; choose from {', '.join(MECHANISMS)}")
    settings, root = _settings(args), section(args, "seed")
    for mechanism, seed, path in zip(args.mechanisms, args.seeds, args.outputs):
        write_json(path, recruitment_record(settings, root, mechanism, seed, args.budget))


def properties(args: argparse.Namespace) -> None:
    from fairshare.papers.auctions import experiment

    settings, root = _settings(args), section(args, "seed")
    write_csv(args.truthfulness, experiment.truthfulness(settings, root))
    write_csv(args.corollary10, experiment.properties_table(settings, root))


def claims(args: argparse.Namespace) -> None:
    from fairshare.papers.auctions import claims as paper_claims
    from fairshare.pipeline.report import write_claims

    results = {name: pd.read_csv(getattr(args, name)) for name in ("exp5", "truthfulness", "corollary10")}
    write_claims(args.output, paper_claims.claims(results, _settings(args)))


def figures(args: argparse.Namespace) -> None:
    from fairshare.papers.auctions.figures import caption, figure7

    settings = _settings(args)
    stems = {"fig7a": args.fig7a, "fig7b": args.fig7b}
    figure7(pd.read_csv(args.exp5), stems, caption(settings), settings.constrained_budget_max)


def exp6(args: argparse.Namespace) -> None:
    """Train on each recruitment file in turn, writing its output as soon as it finishes; the checkpoints go only once
    every output is written, so a rerun of a killed job skips the finished files and resumes the interrupted one."""
    from fairshare.data.datasets import load_cache
    from fairshare.learning.device import resolve_device
    from fairshare.papers.auctions.experiment import Exp6, exp6_job
    from fairshare.papers.mmfl.experiment import Training

    settings = Exp6.from_block(section(args, "auctions")["exp6"])
    training = Training.from_block(section(args, "mmfl"))
    if not len(args.recruitment) == len(args.output) == len(args.checkpoint):
        raise UserError("--recruitment, --output and --checkpoint need one entry per recruitment file")
    records = [read_json(path) for path in args.recruitment]
    for path, record in zip(args.recruitment, records):
        if record["n_tasks"] != len(settings.tasks):
            raise UserError(
                f"{path} recruits for {record['n_tasks']} tasks, but auctions.exp6.tasks names {len(settings.tasks)}"
            )
    paths = dict(item.split("=", 1) for item in args.datasets)
    missing = [name for name in settings.tasks if name not in paths]
    if missing:
        raise UserError(f"datasets {missing} of auctions.exp6.tasks were not passed with --datasets")
    datasets = {name: load_cache(paths[name]) for name in settings.tasks}
    device = resolve_device(section(args, "device"))
    warn_if_emulated_bf16(training.precision, device, "mmfl.precision")
    for k, (record, output, checkpoint) in enumerate(zip(records, args.output, args.checkpoint)):
        root, place = section(args, "seed"), (k + 1, len(records))
        frame = exp6_job(
            settings, training, record, datasets, root=root, device=device, checkpoint=checkpoint, place=place
        )
        write_checked_csv(output, frame)
    discard_checkpoints_when_done(args.checkpoint)


def figure7c(args: argparse.Namespace) -> None:
    from fairshare.papers.auctions import claims as paper_claims
    from fairshare.papers.auctions.experiment import Settings, exp6_per_round
    from fairshare.papers.auctions.figures import figure7c as draw
    from fairshare.pipeline.report import write_claims

    settings = Settings.from_block(section(args, "auctions"))
    runs = read_runs(args.runs, EXP6_COLUMNS)
    per_round = exp6_per_round(runs)
    write_csv(args.summary, per_round)
    write_claims(args.claims, paper_claims.claims({"exp6": per_round}, settings))
    draw(per_round, args.output, sorted(runs.budget.unique()))
