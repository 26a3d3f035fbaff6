"""Learning curves of a profile's multi-model FL experiments, to choose the CPU-scale profile's rounds before any
verdict is read (issue 41: every model trained to at least the default profile's accuracy, within 60 minutes of wall
at the reference machine).

**What it runs.** The profile is read as the pipeline reads it: ``config/config.yaml``, then each ``--configfile`` in
order (``snakemake --configfile config/paper.yaml config/cpu_scale.yaml``), merged and validated by
``fairshare.pipeline.config.load_config``. For each of its multi-model FL experiments (``--experiments``: all by
default) it trains ONE probe run: the random allocation (method-neutral: no task is favoured by its losses) at the
profile's clients, samples per client, local epochs, models, fidelity and precision, for ``--max-rounds`` rounds,
through the pipeline's own ``fairshare.papers.mmfl.experiment.run_job`` (its round driver,
``fairshare.learning.rounds.run_rounds``, calls back after each round: that is where a round's CPU time is read).
Its tasks' datasets are resolved and built as the ``dataset`` rule builds them (offline stand-ins included), into
``--cache-dir`` (default: a temporary folder), never into the profile's ``data/processed`` (raw files are fetched into
``data.raw_dir`` as the pipeline fetches them).

The probe's seed key is :func:`probe_seed`: a 63-bit integer from the named stream ``"learning_curves"`` of the
profile's root seed (``fairshare.seeding``), where verdict runs use seed indices 0, 1, ...: its partitions, initial
weights, client draws and data orders are streams no verdict run reads.

**What it records.** Per round and task: test accuracy, and the round's CPU seconds (``time.process_time`` of this
process, every thread; round 1 also holds the run's set-up: partitions, models, first kernels). A tidy CSV (``--out``,
written atomically) with one row per (experiment, round, task), and progress on stderr.

**The rule** (fixed before any probe was run; docs/scale_ladder.md "Choosing the rounds from learning curves"):

1. *Target* of a task: the default profile's final accuracy on the task's dataset (after stand-ins: the CPU-scale
   profile's MNIST task trains Fashion-MNIST, so its target is the default profile's Fashion-MNIST accuracy): the mean,
   over every default-profile run (experiment, method, seed) and every task on that dataset, of the final-round test
   accuracy. Read from a default-profile ``results/mmfl/summary.csv`` (``--targets``). That file is a DVC output, not
   in git (``dvc checkout`` / ``dvc pull`` where a cache or remote holds it, or a default-profile run's folder); git
   holds only ``metrics/headline/mmfl.json`` (each run's minimum across tasks, no per-task values) and
   ``metrics/plots/mmfl_across_tasks.csv`` (minimum and mean across tasks), which give no per-dataset target. A
   dataset the default profile does not train has no target.
2. A task's *rounds*: the first round r at which its probe accuracy is at least its target. If it never gets there,
   or has no target: the *plateau round*, the first r after which accuracy rises by less than 0.005 over the next 3
   rounds (max(acc[r+1..r+3]) - acc[r] < 0.005). If neither happens within the probe: ``--max-rounds`` (the cap).
3. An experiment's rounds: the largest of its tasks' rounds, and at least 2 (``MIN_ROUNDS``): round 1 is allocated
   uniformly at random under every method (``fairshare.learning.mmfl``), so at 1 round the methods compared could not
   differ. Added after the first probes and before any verdict at these rounds was run, for that reason alone.

**The projection.** Per experiment: CPU-s = runs x (rounds x c + s) + jobs x (j + d), where c is the probe's median
CPU-s of rounds 2.. (round 1 if it ran one), s the set-up (round 1 less c), runs the experiment's runs in the profile
(methods x alphas x seeds), jobs its jobs (``runs_per_job``), j this process's CPU time before any data (interpreter
and imports: a job's start) and d the CPU time of loading its tasks' datasets from their caches. The first probe's s
also holds the process's first kernels (once per job), counted once per run: an overestimate of seconds per run. Every method is
assumed to cost per round what random does (the same clients train; FedFairMMFL and q-FFL only change which task each
trains). The sum is scaled to the reference machine (2 cores at 2,000 client-samples/s; docs/budgets.md) by
``--calibration`` (this machine's figure from ``./run calibrate``; measured here, about a minute, when not given) and
compared, as wall on 2 busy cores (CPU / 2), with 60 minutes less ``--other-minutes`` (the reference wall minutes of
the rest of the profile: Aequa, Exp 6, the closed-form papers; this tool does not probe them).

Run it once, on an idle machine, with the settings the profile will be run with (``--threads`` 1: the pipeline runs
two one-core jobs at once on 2 cores):

    python bench/learning_curves.py --configfile config/paper.yaml config/cpu_scale.yaml \\
        --targets <default-profile folder>/results/mmfl/summary.csv --out timings/learning_curves.csv \\
        [--max-rounds 40] [--experiments exp1 ...] [--calibration F] [--other-minutes M] [--fidelity corrected] \\
        [--precision fp32] [--threads 1] [--cache-dir DIR] [--summary choice.csv]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from fairshare import seeding
from fairshare.commands.data import build
from fairshare.data.datasets import load_cache, resolve_dataset
from fairshare.errors import UserError
from fairshare.io import write_csv
from fairshare.learning import mmfl as _mmfl  # noqa: F401  (run_job imports it lazily: counted in j, a job's start)
from fairshare.learning.device import bf16_warning, resolve_device
from fairshare.papers.mmfl.experiment import Run, Settings, run_job
from fairshare.pipeline.config import DEFAULT_CONFIG, dataset_mirrors, load_config

ROOT = Path(__file__).resolve().parents[1]
PROBE_METHOD = "random"
PROBE_STREAM = "learning_curves"
PLATEAU_GAIN = 0.005
PLATEAU_WINDOW = 3
MIN_ROUNDS = 2  # round 1 is allocated uniformly under every method: the methods first differ in round 2
BUDGET_MINUTES = 60.0
REFERENCE = 2000.0  # client-samples/s of the reference machine (bench/calibrate.py, docs/budgets.md)
CORES = 2
CSV_COLUMNS = ["experiment", "seed_key", "round", "task", "task_name", "dataset", "target", "accuracy", "round_cpu_s"]


# ----------------------------------------------------------------------------------------------------- the rule
def probe_seed(root: int) -> int:
    """The probe runs' seed key: a 63-bit integer of the named stream ``learning_curves`` of ``root``."""
    return seeding.integer_seed(root, PROBE_STREAM)


def plateau_round(curve: Sequence[float], gain: float = PLATEAU_GAIN, window: int = PLATEAU_WINDOW) -> int | None:
    """The first round r (1-based; ``curve[r - 1]`` is the accuracy after round r) after which accuracy rises by less
    than ``gain`` over the next ``window`` rounds; None when no such r has ``window`` rounds after it in ``curve``."""
    for i in range(len(curve) - window):
        if max(curve[i + 1 : i + 1 + window]) - curve[i] < gain:
            return i + 1
    return None


def experiment_rounds(per_task: Sequence[int]) -> int:
    """An experiment's rounds: the largest of its tasks', at least ``MIN_ROUNDS`` (round 1 allocates uniformly under
    every method, so the methods first differ in round 2)."""
    if not per_task:
        raise ValueError("an experiment needs at least one task")
    return max(MIN_ROUNDS, *per_task)


def task_rounds(curve: Sequence[float], target: float | None, cap: int) -> tuple[int, str]:
    """A task's rounds and why: ``target`` (first round at or above it), ``plateau`` or ``cap`` (the module's rule)."""
    if cap < 1:
        raise ValueError(f"cap must be >= 1, got {cap}")
    curve = list(curve)[:cap]
    if target is not None:
        for i, accuracy in enumerate(curve):
            if accuracy >= target:
                return i + 1, "target"
    plateau = plateau_round(curve)
    return (plateau, "plateau") if plateau is not None else (cap, "cap")


def default_targets(summary: pd.DataFrame) -> dict[str, float]:
    """Per dataset, the mean final-round test accuracy of every default-profile run's tasks on it, from ``mmfl
    summarize``'s tidy ``summary.csv`` (task names are ``<dataset>#<position>``)."""
    acc = summary[summary.metric == "accuracy"]
    keys = ["experiment", "method", "alpha", "seed"]
    last = acc[acc["round"] == acc.groupby(keys, dropna=False)["round"].transform("max")]
    dataset = last.task_name.str.rsplit("#", n=1).str[0]
    return {str(k): float(v) for k, v in last.value.groupby(dataset).mean().items()}


def read_targets(path: Path) -> dict[str, float]:
    """:func:`default_targets` of ``path``; refused in one line when it is not a default-profile summary."""
    marker = path.parent.parent / ".profile"  # results/.profile, written by a run's first job
    if marker.is_file() and (found := marker.read_text().strip()) != "default":
        raise UserError(
            f"{path} holds the '{found}' profile's results; pass a default-profile results/mmfl/summary.csv"
        )
    try:
        summary = pd.read_csv(path)
    except (OSError, pd.errors.ParserError) as exc:
        raise UserError(
            f"cannot read targets from {path} ({exc}); pass a default-profile results/mmfl/summary.csv"
        ) from None
    if not {"experiment", "method", "alpha", "seed", "round", "task_name", "metric", "value"} <= set(summary.columns):
        raise UserError(
            f"{path} is not an `mmfl summarize` summary.csv; pass a default-profile results/mmfl/summary.csv"
        )
    return default_targets(summary)


# ----------------------------------------------------------------------------------------------- the projection
@dataclass(frozen=True)
class Cost:
    """What one experiment of the profile costs at its chosen rounds (CPU seconds on this machine)."""

    experiment: str
    rounds: int
    runs: int
    jobs: int
    round_cpu_s: float  # c: a steady round of one run
    setup_cpu_s: float  # s: a run's set-up beyond a steady round
    job_cpu_s: float  # j + d: a job's start and its datasets' loading

    @property
    def cpu_s(self) -> float:
        return self.runs * (self.rounds * self.round_cpu_s + self.setup_cpu_s) + self.jobs * self.job_cpu_s


def round_costs(cpu: Sequence[float]) -> tuple[float, float]:
    """(c, s) of a probe's per-round CPU seconds: the median of rounds 2.. (round 1 alone if it ran one), and what
    round 1 cost beyond it (the run's set-up; never negative)."""
    steady = statistics.median(cpu[1:]) if len(cpu) > 1 else cpu[0]
    return steady, max(cpu[0] - steady, 0.0)


def reference_minutes(cpu_s: float, figure: float, cores: int = CORES) -> float:
    """Wall minutes at the reference machine of ``cpu_s`` CPU seconds measured on a machine of ``figure``
    client-samples/s, on ``cores`` busy cores (docs/budgets.md: t x F / 2,000)."""
    return cpu_s * figure / REFERENCE / cores / 60.0


def verdict(minutes: float, other: float, budget: float = BUDGET_MINUTES) -> str:
    """Whether the multi-model FL projection plus ``other`` reference minutes fits ``budget``, and by how much."""
    total = minutes + other
    if total <= budget:
        return f"fits: {total:.1f} of {budget:.0f} reference minutes ({budget - total:.1f} to spare)"
    room = budget - other
    scale = f"; multi-model FL must shrink {minutes / room:.2f}x to fit" if room > 0 else ""
    return f"does not fit: {total:.1f} of {budget:.0f} reference minutes, over by {total - budget:.1f}{scale}"


# ------------------------------------------------------------------------------------------------- the probes
def load_profile(configfiles: Sequence[str], fidelity: str | None, precision: str | None) -> dict[str, Any]:
    """config/config.yaml then ``configfiles``, merged and validated as the pipeline does; ``fidelity`` and
    ``precision`` override the mmfl block when given."""
    mmfl = {k: v for k, v in {"fidelity": fidelity, "precision": precision}.items() if v is not None}
    return load_config(ROOT / DEFAULT_CONFIG, *configfiles, overrides={"mmfl": mmfl} if mmfl else None)


def dataset_for(cfg: Mapping[str, Any], name: str) -> str:
    """The dataset a task named ``name`` trains on: itself, or its offline stand-in (workflow/rules/common.smk)."""
    data = cfg["data"]
    if name in data["stand_in"]["datasets"]:
        return name
    return resolve_dataset(
        name,
        raw_dir=data["raw_dir"],
        processed_dir=data["processed_dir"],
        mirrors=dataset_mirrors(data, name),
        allow_download=data["allow_download"],
        fallback=data["offline_fallback"],
    )


def cached_dataset(cfg: Mapping[str, Any], dataset: str, cache_dir: Path) -> tuple[Any, float]:
    """The dataset built by the pipeline's ``fairshare data build`` into ``cache_dir`` (once), and the CPU seconds of
    loading it from there (what a training job spends on it)."""
    path = cache_dir / f"{dataset}.npz"
    if not path.is_file():
        build(argparse.Namespace(name=dataset, output=str(path), cfg={"seed": cfg["seed"], "data": cfg["data"]}))
    start = time.process_time()
    loaded = load_cache(path)
    return loaded, time.process_time() - start


def probe(
    settings: Any, experiment: str, rounds: int, datasets: Mapping[str, Any], root: int, device: Any
) -> tuple[pd.DataFrame, list[float]]:
    """One probe run of ``experiment`` for ``rounds`` rounds: its per-round rows and each round's CPU seconds."""
    exp = dataclasses.replace(settings.experiment(experiment), rounds=rounds)
    settings = dataclasses.replace(
        settings, experiments=tuple(exp if e.name == experiment else e for e in settings.experiments)
    )
    run = Run(experiment, PROBE_METHOD, None, probe_seed(root), f"{PROBE_METHOD}_probe")
    ends = [time.process_time()]

    def timed(r: int) -> None:
        ends.append(time.process_time())
        print(f"learning curves: {experiment} round {r}/{rounds}: {ends[-1] - ends[-2]:.1f} CPU-s", file=sys.stderr)

    rows, _ = run_job(settings, run, datasets, root=root, device=device, checkpoint=None, on_round=timed)
    return rows, list(np.diff(ends))


def calibration_figure(seconds: float) -> float:
    """This machine's figure, measured as ``./run calibrate`` does (2 threads, median of the timed rounds)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from calibrate import measure

    rates, _ = measure(threads=2, seconds=seconds, min_repeats=5, max_repeats=40)
    return statistics.median(rates)


def jobs_of(cfg: Mapping[str, Any], runs: int) -> int:
    """Jobs an experiment of ``runs`` runs is dealt over (``runs_per_job``, workflow/run_jobs.py)."""
    sys.path.insert(0, str(ROOT / "workflow"))
    from run_jobs import runs_per_job

    per_job = runs_per_job(cfg, "mmfl")
    return 1 if per_job is None else math.ceil(runs / per_job)


def main(argv: list[str] | None = None) -> None:
    start_cpu = time.process_time()  # the interpreter and imports: what a training job spends before its data
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", nargs="+", default=[], help="profile files over config/config.yaml, in order")
    parser.add_argument("--out", required=True, help="the tidy per-round, per-task CSV")
    parser.add_argument("--max-rounds", type=int, default=40, help="rounds of each probe, and the cap (default 40)")
    parser.add_argument("--experiments", nargs="+", help="mmfl experiments to probe (default: all of the profile)")
    parser.add_argument("--targets", help="a default-profile results/mmfl/summary.csv (default: that path, if present)")
    parser.add_argument("--calibration", type=float, help="this machine's client-samples/s (default: measured here)")
    parser.add_argument("--calibration-seconds", type=float, default=45.0, help="time box when measured (default 45)")
    parser.add_argument("--other-minutes", type=float, default=0.0, help="reference wall minutes of the rest")
    parser.add_argument("--fidelity", choices=["faithful", "corrected"], help="override mmfl.fidelity")
    parser.add_argument("--precision", choices=["fp32", "bf16"], help="override mmfl.precision")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1: a pipeline job's)")
    parser.add_argument("--cache-dir", help="where the datasets are built (default: a temporary folder)")
    parser.add_argument("--summary", help="also write the chosen rounds and costs per experiment (CSV)")
    args = parser.parse_args(argv)
    if args.max_rounds < 1 or args.threads < 1 or (args.calibration is not None and args.calibration <= 0):
        parser.error("--max-rounds and --threads must be >= 1, and --calibration > 0")
    try:
        run(args, start_cpu)
    except UserError as exc:
        print(f"learning_curves: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def run(args: argparse.Namespace, start_cpu: float) -> None:
    torch.set_num_threads(args.threads)
    cfg = load_profile(args.configfile, args.fidelity, args.precision)
    settings = Settings.from_block(cfg["mmfl"])
    names = args.experiments or [e.name for e in settings.experiments]
    known = [e.name for e in settings.experiments]
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise UserError(f"no mmfl experiment {unknown} in profile '{cfg['profile']}'; choose from {known}")
    given = Path(args.targets) if args.targets else ROOT / "results/mmfl/summary.csv"
    if args.targets and not given.is_file():
        raise UserError(f"--targets {given} does not exist; pass a default-profile results/mmfl/summary.csv")
    targets = read_targets(given) if given.is_file() else {}
    shown = ", ".join(f"{d} {t:.3f}" for d, t in sorted(targets.items()))
    print(f"targets: {shown} (from {given})" if targets else "targets: none (no default-profile summary): plateau rule")
    device = resolve_device(cfg["device"])
    warning = bf16_warning(settings.training.precision, device, "mmfl.precision")
    if warning:
        print(f"{warning}; the CPU seconds below are not the profile's on a machine with native bf16", file=sys.stderr)
    root = cfg["seed"]
    frames, costs, choices = [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        cache_dir = Path(args.cache_dir or scratch)
        cache_dir.mkdir(parents=True, exist_ok=True)
        loads: dict[str, tuple[Any, float]] = {}
        for name in names:
            exp = settings.experiment(name)
            dataset = {task: dataset_for(cfg, task) for task in exp.tasks}
            for d in set(dataset.values()) - set(loads):
                loads[d] = cached_dataset(cfg, d, cache_dir)
            rows, cpu = probe(
                settings, name, args.max_rounds, {t: loads[d][0] for t, d in dataset.items()}, root, device
            )
            frame = rows[["experiment", "seed", "round", "task", "task_name", "accuracy"]].rename(
                columns={"seed": "seed_key"}
            )
            frame.insert(5, "dataset", [dataset[exp.tasks[t]] for t in frame.task])
            frame.insert(6, "target", [targets.get(d, np.nan) for d in frame.dataset])
            frame["round_cpu_s"] = [cpu[r - 1] for r in frame["round"]]
            frames.append(frame[CSV_COLUMNS])
            write_csv(args.out, pd.concat(frames, ignore_index=True))  # after each experiment: a partial curve set
            chosen = []
            for task, curve in frame.sort_values("round").groupby("task").accuracy:
                target = targets.get(dataset[exp.tasks[task]])
                r, why = task_rounds(curve.tolist(), target, args.max_rounds)
                chosen.append((r, why, task))
                final = curve.iloc[-1]
                shown = "no target" if target is None else f"target {target:.3f}"
                print(
                    f"{name} task {task} ({exp.tasks[task]} -> {dataset[exp.tasks[task]]}, {shown}): "
                    f"rounds {r} ({why}); accuracy {curve.iloc[r - 1]:.3f} there, {final:.3f} at round {len(curve)}"
                )
            rounds = experiment_rounds([r for r, _, _ in chosen])
            c, s = round_costs(cpu)
            runs = len(exp.runs())
            data_cpu = sum(loads[d][1] for d in set(dataset.values()))
            cost = Cost(name, rounds, runs, jobs_of(cfg, runs), c, s, start_cpu + data_cpu)
            costs.append(cost)
            choices.append(
                {
                    **dataclasses.asdict(cost),
                    "cpu_s": cost.cpu_s,
                    "probe_rounds": len(cpu),
                    "reasons": " ".join(f"{t}:{why}" for _, why, t in chosen),
                }
            )
            print(
                f"{name}: {rounds} rounds; {runs} runs in {cost.jobs} jobs; {c:.1f} CPU-s a round, set-up {s:.1f} "
                f"CPU-s a run, {cost.job_cpu_s:.1f} a job: {cost.cpu_s / 60:.1f} CPU-min here"
            )
    report(costs, choices, args)


def report(costs: Sequence[Cost], choices: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """Print the projection at the reference machine and whether it fits; write ``--summary`` when asked."""
    figure = args.calibration or calibration_figure(args.calibration_seconds)
    measured = "given" if args.calibration else "measured now; a median of three idle runs of ./run calibrate is firmer"
    total = sum(c.cpu_s for c in costs)
    minutes = reference_minutes(total, figure)
    print(
        f"multi-model FL at the chosen rounds: {total / 60:.1f} CPU-min here; this machine {figure:,.0f} "
        f"client-samples/s ({measured}); at the reference (2 cores at {REFERENCE:,.0f}): {minutes:.1f} min wall "
        f"on {CORES} busy cores"
    )
    print(
        f"with {args.other_minutes:g} reference minutes for the rest of the profile (--other-minutes): "
        + verdict(minutes, args.other_minutes)
    )
    if args.summary:
        frame = pd.DataFrame(choices)
        frame["reference_minutes"] = [reference_minutes(c.cpu_s, figure) for c in costs]
        frame["calibration"] = figure
        write_csv(args.summary, frame)


if __name__ == "__main__":
    main()
