"""Commands for Aequa (fair model rewards via slimmable networks): training jobs that write one JSON per (dataset,
partition, method, seed), then the paper's tables, claims and figures. Every output path comes from the rule."""

from __future__ import annotations

import argparse

from fairshare.errors import UserError
from fairshare.io import read_json, write_csv, write_json, write_text
from fairshare.pipeline.commands_shared import cfg_argument, discard_checkpoints_when_done, section

__all__ = [
    "GROUP",
    "HELP",
    "TABLES",
    "register",
    "runs_argument",
    "parse_runs",
    "write_runs",
    "settings",
    "job_inputs",
    "run",
    "summarize",
    "figures",
]

GROUP = "aequa"
HELP = "Aequa: slimmable collaborative training, fair post-training allocation, FedAvg-FT / CGSV / IAFL baselines"
TABLES = ("table1", "table2", "table7", "table8", "table9")


def register(sub: argparse._SubParsersAction) -> None:
    from fairshare.papers.aequa.experiment import MAIN_METHODS

    p = sub.add_parser(
        "run", help="train runs of one (dataset, partition): seeds and methods, each writing its per-client rewards"
    )
    p.add_argument("--dataset", required=True, help="the setting's dataset name as configured")
    p.add_argument("--dataset-file", required=True, help="cached .npz (after the offline fallback)")
    p.add_argument("--partition", required=True, help="name of an aequa.partitions entry")
    runs_argument(p, MAIN_METHODS, "each seed's methods need the seed's standalone run (the contributions) in the job")
    cfg_argument(p)
    p.set_defaults(func=run)

    p = sub.add_parser("summarize", help="tidy metrics, Tables 1, 2, 7, 8, 9 (CSV + Markdown) and the claims")
    p.add_argument("runs", nargs="+", help="run JSONs written by `aequa run`")
    p.add_argument("--summary", required=True, help="tidy metrics (CSV)")
    p.add_argument("--per-client", required=True, help="per-client contributions and rewards (CSV)")
    p.add_argument("--curves", required=True, help="Aequa's a(p) curves (CSV)")
    p.add_argument("--claims", required=True, help="claims (CSV)")
    tables = {
        "table1": "Table 1: balanced accuracy of the global model",
        "table2": "Table 2: Pearson correlation of standalone and reward accuracies",
        "table7": "Table 7: mean collaboration gain (MCG) and its spread (CGS)",
        "table8": "Table 8: MCG and CGS under quantity skew with p_min lowered",
        "table9": "Table 9: width as the reward, its correlation with the contribution",
    }
    for name in TABLES:
        p.add_argument(
            f"--{name}", nargs=2, required=True, metavar=("CSV", "MD"), help=f"{tables[name]} (CSV and Markdown)"
        )
    cfg_argument(p)
    p.set_defaults(func=summarize)

    p = sub.add_parser(
        "figures", help="accuracy vs width (Aequa vs FedAvg-FT) and reward-vs-contribution scatter plots"
    )
    p.add_argument("--summary", required=True, help="summary.csv of `aequa summarize`")
    p.add_argument("--per-client", required=True, help="per_client.csv of `aequa summarize`")
    p.add_argument("--curves", required=True, help="width_curves.csv of `aequa summarize`")
    p.add_argument("--width-figure", required=True, help="stem of the accuracy-vs-width figure (.png and .pdf)")
    p.add_argument("--scatter-figure", required=True, help="stem of the reward-vs-contribution figure (.png and .pdf)")
    cfg_argument(p)
    p.set_defaults(func=figures)


def runs_argument(p: argparse.ArgumentParser, methods: tuple[str, ...], note: str = "") -> None:
    """``--run SEED METHOD OUTPUT CHECKPOINT``, repeatable: the runs one training job trains."""
    p.add_argument(
        "--run",
        nargs=4,
        action="append",
        required=True,
        dest="runs",
        metavar=("SEED", "METHOD", "OUTPUT", "CHECKPOINT"),
        help=f"one run: seed index, method ({', '.join(methods)}), its JSON and its round checkpoint (resumed when "
        "its settings match; the job's checkpoints are removed once all its outputs are written)"
        + (f"; {note}" if note else ""),
    )


def parse_runs(args: argparse.Namespace, methods: tuple[str, ...]) -> list:
    """The ``--run`` values as ``experiment.Run`` records."""
    from fairshare.papers.aequa.experiment import Run

    runs = []
    for seed, method, output, checkpoint in args.runs:
        if method not in methods or not seed.isdigit():
            raise UserError(f"--run {seed} {method}: need a seed index and one of {', '.join(methods)}")
        runs.append(Run(int(seed), method, output, checkpoint))
    return runs


def write_runs(runs: list, trained) -> None:
    """Write each run's JSON as soon as it is trained; its checkpoint goes once every command of the process has
    succeeded (:func:`fairshare.pipeline.commands_shared.when_all_done`), so a job killed after some runs resumes
    each of them from its last round (finished ones from their final round)."""

    for done, out in trained:
        write_json(done.output, out)
    discard_checkpoints_when_done(done.checkpoint for done in runs)


def settings(args: argparse.Namespace):
    """The ``aequa`` block of ``--cfg`` as typed settings."""
    from fairshare.papers.aequa.settings import AequaSettings

    return AequaSettings.from_block(section(args, "aequa"))


def job_inputs(args: argparse.Namespace):
    """A training command's root seed, device, dataset (``--dataset``, ``--dataset-file``) and config id (``--cfg``)."""
    from fairshare.papers.aequa.experiment import JobInputs

    return JobInputs(section(args, "seed"), section(args, "device"), args.dataset, args.dataset_file, args.cfg)


def run(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa.experiment import MAIN_METHODS, train_runs

    runs = parse_runs(args, MAIN_METHODS)
    write_runs(runs, train_runs(settings(args), job_inputs(args), args.partition, runs))


def summarize(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa import tables
    from fairshare.papers.aequa.claims import claims
    from fairshare.pipeline.report import write_claims

    aequa = settings(args)
    runs = [read_json(p) for p in args.runs]
    tidy = tables.tidy_metrics(runs, cgs_ddof=aequa.cgs_ddof)
    write_csv(args.summary, tidy)
    write_csv(args.per_client, tables.per_client(runs))
    curves = tables.width_curves(runs)
    write_csv(args.curves, curves)
    for name, (frame, markdown) in tables.paper_tables(tidy, aequa).items():
        csv_path, md_path = getattr(args, name)
        write_csv(csv_path, frame)
        write_text(md_path, markdown)
    write_claims(args.claims, claims({"tidy": tidy, "curves": curves}, aequa))


def figures(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.papers.aequa.figures import draw

    draw(
        pd.read_csv(args.summary),
        pd.read_csv(args.per_client),
        pd.read_csv(args.curves),
        settings(args).tables.curve_partition,
        args.width_figure,
        args.scatter_figure,
    )
