"""Commands for fair multi-model FL (FedFairMMFL): one training run per job, then tables, claims and figures."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from fairshare.errors import UserError
from fairshare.io import write_csv, write_npz, write_text
from fairshare.papers.mmfl.experiment import TASK_ROUND_COLUMNS
from fairshare.pipeline.commands_shared import (
    cfg_argument,
    discard_checkpoints_when_done,
    section,
    warn_if_emulated_bf16,
)
from fairshare.validate import read_runs, write_checked_csv

__all__ = ["GROUP", "HELP", "RUN_COLUMNS", "register", "run", "summarize", "figures"]

GROUP = "mmfl"
HELP = "fair multi-model federated learning (FedFairMMFL, random, round robin, task-level q-FFL)"
#: The columns of a run's rows (``mmfl run``) and their types, checked where ``mmfl summarize`` reads them.
RUN_COLUMNS = {
    "experiment": "str",
    "method": "str",
    "alpha": "float",
    "seed": "int",
    **TASK_ROUND_COLUMNS,
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="train runs of one experiment (methods, alphas, seeds), one after another")
    p.add_argument("--experiment", required=True, help="name of an mmfl.experiments entry")
    p.add_argument("--method", nargs="+", required=True, help="per run (or one for all): fedfair, random, ...")
    p.add_argument(
        "--alpha", type=_alpha, nargs="+", default=[None], help="per run (or one for all): alpha, or none (no alpha)"
    )
    p.add_argument("--seed-index", type=int, nargs="+", required=True, help="per run: its seed")
    p.add_argument("--datasets", nargs="+", required=True, help="name=path of every cached dataset the tasks use")
    p.add_argument("--output", nargs="+", required=True, help="per run: accuracy, loss and clients per task and round")
    p.add_argument(
        "--allocation", nargs="+", required=True, help="per run: its allocation map with the run's keys (NPZ)"
    )
    p.add_argument("--checkpoint", nargs="+", required=True, help="per run: its round-by-round checkpoint")
    cfg_argument(p)
    p.set_defaults(func=run)

    p = sub.add_parser("summarize", help="tidy summary, Table II, rounds-to-threshold table, claims")
    p.add_argument("runs", nargs="+", help="per-round results of `mmfl run`, one CSV per run")
    p.add_argument("--summary", required=True, help="tidy accuracy, loss and clients per task and round (CSV)")
    p.add_argument(
        "--across-tasks", required=True, help="minimum, mean and variance of accuracy across tasks per round (CSV)"
    )
    p.add_argument("--table2", required=True, help="Table II (CSV)")
    p.add_argument("--table2-md", required=True, help="Table II (Markdown)")
    p.add_argument(
        "--rounds-to-threshold", required=True, help="first round the minimum accuracy reaches each threshold (CSV)"
    )
    p.add_argument("--claims", required=True, help="claims (CSV)")
    cfg_argument(p)
    p.set_defaults(func=summarize)

    p = sub.add_parser("figures", help="min-accuracy curves, per-task curves, variance bars, allocation maps")
    p.add_argument("--summary", required=True, help="summary.csv of `mmfl summarize`")
    p.add_argument("--allocations", nargs="+", required=True, help="allocation maps written by `mmfl run` (NPZ)")
    for name in ("min-accuracy", "per-task", "variance", "allocation-maps"):
        p.add_argument(f"--{name}", required=True, help="figure path without suffix (writes .png and .pdf)")
    cfg_argument(p)
    p.set_defaults(func=figures)


def _alpha(text: str) -> float | None:
    return None if text == "none" else float(text)


def _per_run(values: list, count: int, flag: str) -> list:
    """One value per run: ``values`` as given, or its single value repeated."""
    if len(values) == 1:
        return values * count
    if len(values) != count:
        raise UserError(f"{flag} needs one value, or one per run ({count})")
    return values


def run(args: argparse.Namespace) -> None:
    """Train each run in turn, writing its outputs as soon as it finishes; the checkpoints go only once every command
    of the process has succeeded (:func:`fairshare.pipeline.commands_shared.when_all_done`), so a rerun of a killed
    job skips the finished runs (their last checkpoint) and resumes the interrupted one."""
    from fairshare.data.datasets import load_cache
    from fairshare.learning.device import resolve_device
    from fairshare.papers.mmfl.experiment import Settings, run_job

    settings = Settings.from_block(section(args, "mmfl"))
    count = len(args.seed_index)
    if not count == len(args.output) == len(args.allocation) == len(args.checkpoint):
        raise UserError("--seed-index, --output, --allocation and --checkpoint need one entry per run")
    methods = _per_run(args.method, count, "--method")
    alphas = _per_run(args.alpha, count, "--alpha")
    try:
        jobs = [settings.run(args.experiment, *key) for key in zip(methods, alphas, args.seed_index)]
    except KeyError as exc:
        raise UserError(exc.args[0]) from None
    tasks = settings.experiment(args.experiment).tasks
    paths = dict(item.split("=", 1) for item in args.datasets)
    missing = [name for name in tasks if name not in paths]
    if missing:
        raise UserError(f"datasets {missing} of experiment '{args.experiment}' were not passed with --datasets")
    datasets = {name: load_cache(paths[name]) for name in tasks}
    device = resolve_device(section(args, "device"))
    warn_if_emulated_bf16(settings.training.precision, device, "mmfl.precision")
    for k, (job, output, allocation, checkpoint) in enumerate(zip(jobs, args.output, args.allocation, args.checkpoint)):
        place = (k + 1, len(jobs))
        rows, alloc = run_job(
            settings, job, datasets, root=section(args, "seed"), device=device, checkpoint=checkpoint, place=place
        )
        alpha = np.nan if job.alpha is None else job.alpha
        write_npz(
            allocation,
            allocation=alloc,
            experiment=np.array(job.experiment),
            method=np.array(job.method),
            alpha=np.array(alpha),
            seed=np.array(job.seed),
        )
        write_checked_csv(output, rows)
    discard_checkpoints_when_done(args.checkpoint)


def summarize(args: argparse.Namespace) -> None:
    from fairshare.papers.mmfl.claims import claims
    from fairshare.papers.mmfl.claims_theory import theory_results
    from fairshare.papers.mmfl.experiment import Settings, summaries, table2_markdown
    from fairshare.pipeline.report import write_claims

    settings = Settings.from_block(section(args, "mmfl"))
    runs = read_runs(args.runs, RUN_COLUMNS)
    tables = summaries(runs, settings)
    write_csv(args.summary, tables["summary"])
    write_csv(args.across_tasks, tables["across_tasks"])
    write_csv(args.table2, tables["table2"])
    write_text(args.table2_md, table2_markdown(tables["table2"]))
    write_csv(args.rounds_to_threshold, tables["rounds_to_threshold"])
    results = {"runs": runs, "across_tasks": tables["across_tasks"], "theory": theory_results()}
    write_claims(args.claims, claims(results, settings))


def figures(args: argparse.Namespace) -> None:
    from fairshare.papers.mmfl import figures as draw
    from fairshare.papers.mmfl.experiment import Settings

    settings = Settings.from_block(section(args, "mmfl"))
    summary = pd.read_csv(args.summary)
    acc = summary[summary.metric == "accuracy"].rename(columns={"value": "accuracy"})
    titles = draw.experiment_titles(settings.experiments)
    draw.min_accuracy_curves(acc, titles, args.min_accuracy)
    per_task = settings.per_task_experiment
    draw.per_task_curves(
        acc[acc.experiment == per_task], settings.experiment(per_task).tasks, titles[per_task], args.per_task
    )
    draw.variance_bars(acc[acc.experiment.isin(settings.table2_experiments)], titles, args.variance)
    maps = []
    for path in args.allocations:
        with np.load(path) as z:
            alpha = float(z["alpha"])
            maps.append((str(z["method"]), None if np.isnan(alpha) else alpha, z["allocation"]))
    sweep = settings.alpha_sweep_experiment
    draw.allocation_maps(maps, settings.experiment(sweep).tasks, titles[sweep], args.allocation_maps)
