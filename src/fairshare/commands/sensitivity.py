"""Commands of the sensitivity reruns (workflow/rules/sensitivity.smk): retrain a few of Aequa's main runs with a
tuned setting put back, reusing the main run's standalone runs as the contributions."""

from __future__ import annotations

import argparse

from fairshare.errors import UserError
from fairshare.pipeline.commands_shared import cfg_argument

__all__ = ["GROUP", "HELP", "aequa_run", "join_claims", "register"]

GROUP = "sensitivity"
HELP = "reruns of the claims a tuned setting affects, with the paper's (or the untuned) value"


def register(sub: argparse._SubParsersAction) -> None:
    from fairshare.papers.aequa.commands import runs_argument
    from fairshare.papers.aequa.experiment import MAIN_METHODS

    p = sub.add_parser("aequa-run", help="train Aequa main-experiment runs, contributions from standalone run files")
    p.add_argument("--dataset", required=True, help="the setting's dataset name as configured")
    p.add_argument("--dataset-file", required=True, help="cached .npz (after the offline fallback)")
    p.add_argument("--partition", required=True, help="name of an aequa.partitions entry")
    runs_argument(p, MAIN_METHODS)
    p.add_argument(
        "--standalone",
        nargs=2,
        action="append",
        default=[],
        metavar=("SEED", "FILE"),
        help="the main run's standalone result of a seed (its contributions); none: the job trains standalone first",
    )
    cfg_argument(p)
    p.set_defaults(func=aequa_run)

    p = sub.add_parser("join-claims", help="one claims CSV from several (a rerun that recomputes two claims files)")
    p.add_argument("claims", nargs="+", help="claims CSVs, in order")
    p.add_argument("--output", required=True, help="the joined claims (CSV, with its check file)")
    p.set_defaults(func=join_claims)


def join_claims(args: argparse.Namespace) -> None:
    """Every row of the ``claims`` files, in order, as one claims CSV (checked on read and on write)."""
    from fairshare.pipeline.report import collect_claims
    from fairshare.validate import write_checked_csv

    write_checked_csv(args.output, collect_claims(args.claims))


def aequa_run(args: argparse.Namespace) -> None:
    """Train the ``--run`` runs as `aequa run` does (same seeds, same code), with the contributions of the main
    run's standalone files when given (the tuned setting does not change them)."""
    from fairshare.papers.aequa.commands import job_inputs, parse_runs, settings, write_runs
    from fairshare.papers.aequa.experiment import MAIN, MAIN_METHODS, run_job

    runs = parse_runs(args, MAIN_METHODS)
    files = {int(seed): path for seed, path in args.standalone}
    if files and any(r.method == "standalone" for r in runs):
        raise UserError("--standalone and a standalone --run exclude each other")
    source = "files" if files else "job"
    trained = run_job(
        MAIN,
        settings(args),
        job_inputs(args),
        runs,
        partition=args.partition,
        contributions=source,
        standalone_files=files or None,
    )
    write_runs(runs, trained)
