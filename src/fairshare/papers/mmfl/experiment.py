"""Fair multi-model FL (FedFairMMFL, Section IV of the paper): the ``mmfl`` config block as typed settings, one
training job per (experiment, method, alpha, seed), and the tidy tables every figure and claim is computed from.

alpha is a run's parameter and a result column: it acts on ``fedfair`` (Eq. 5's exponent) and ``qffl`` (q = alpha - 1);
``random`` and ``round_robin`` runs have no alpha (an empty cell).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairshare import seeding
from fairshare.learning.mmfl_policies import ALPHA_POLICIES

__all__ = [
    "TASK_ROUND_COLUMNS",
    "KEYS",
    "Training",
    "Run",
    "Experiment",
    "Settings",
    "run_job",
    "report_collapse",
    "final_rounds",
    "summaries",
    "table2_markdown",
]

#: The per-round, per-task columns of a training run's rows (multi-model FL runs and Exp 6 runs) and their types.
TASK_ROUND_COLUMNS = {
    "round": "int",
    "task": "int",
    "task_name": "str",
    "accuracy": "float",
    "loss": "float",
    "clients": "int",
    "collapsed": "bool",  # the task's curve collapsed (fairshare.metrics.collapsed): named in the log and the scorecard
}
KEYS = ["experiment", "method", "alpha", "seed"]  # what identifies one training run


@dataclass(frozen=True)
class Training:
    """The block's local-training and aggregation settings (Exp 6 of the auctions trains with them too).

    ``fidelity`` names a preset of ``fairshare.learning.mmfl.FIDELITY`` (the authors' code quirks, or none of them);
    ``lr_decay`` is the per-round learning-rate factor per dataset, inert in the faithful preset; ``precision``,
    ``client_threads`` and ``chunk`` go to the engine (``chunk`` only bounds memory, so it is left out of
    :meth:`job_settings`)."""

    alpha: float
    models: Mapping[str, str]
    fidelity: str
    local_epochs: int
    batch_size: int
    lr: float
    lr_decay: Mapping[str, float]
    momentum: float
    weight_decay: Mapping[str, float]
    weighted_aggregation: Mapping[str, bool]
    qffl_lipschitz: float
    test_subset: int
    executor: str
    precision: str
    client_threads: int
    chunk: int | None

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> Training:
        return cls(**{f.name: block[f.name] for f in dataclasses.fields(cls)})

    def job_settings(self) -> dict[str, Any]:
        """The keys a training job's result depends on (for its checkpoint's settings hash)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "chunk"}

    def task(
        self,
        name: str,
        dataset: Any,
        partition: Any,
        *,
        position: int,
        root: int,
        init_key: int,
        test_key: int,
        device: Any,
        mask_absent: bool,
    ) -> Any:
        """Task ``position`` of a run (``fairshare.learning.mmfl.Task``): its test subset drawn from (root, test_key),
        its model initialised from (root, init_key, position); model and weight decay looked up by dataset."""
        from fairshare.learning.engine import TrainSettings
        from fairshare.learning.mmfl import FIDELITY, build_task

        n_test = self.test_subset or len(dataset.y_test)
        test_indices = seeding.generator(root, "sampling", test_key).permutation(len(dataset.y_test))[:n_test]
        settings = TrainSettings(
            epochs=self.local_epochs,
            batch_size=self.batch_size,
            lr=self.lr,
            momentum=self.momentum,
            weight_decay=self.weight_decay.get(dataset.name, self.weight_decay["default"]),
            precision=self.precision,
            client_threads=self.client_threads,
        )
        return build_task(
            f"{name}#{position}",
            dataset,
            partition,
            model=self.models[dataset.name],
            fidelity=FIDELITY[self.fidelity],
            settings=settings,
            test_indices=test_indices,
            init_seed=seeding.torch_seed(root, "init", init_key, position),
            mask_absent=mask_absent,
            lr_decay=self.lr_decay.get(dataset.name, self.lr_decay["default"]),
            device=device,
        )


@dataclass(frozen=True)
class Run:
    """One training job. ``label`` names its folder (``fedfair_a4`` in an alpha sweep); nothing reads it back."""

    experiment: str
    method: str
    alpha: float | None
    seed: int
    label: str


@dataclass(frozen=True)
class Experiment:
    """One entry of ``mmfl.experiments``: tasks, clients, data and the runs it holds."""

    name: str
    reproduces: str | None  # the paper's experiment (exp1, exp2, fig4, exp3, exp4): which statements apply
    tasks: tuple[str, ...]
    clients: int
    active_rate: float
    size_range: tuple[int, int]
    partition: str
    class_ratio: float
    rounds: int
    methods: tuple[str, ...]
    alphas: tuple[float, ...]
    seeds: int

    def runs(self) -> list[Run]:
        """Every (method, alpha, seed): one run per alpha for the methods alpha acts on, one for the others."""
        out = []
        for method in self.methods:
            alphas = self.alphas if method in ALPHA_POLICIES else (None,)
            for alpha in alphas:
                label = method if alpha is None or len(self.alphas) == 1 else f"{method}_a{alpha:g}"
                out += [Run(self.name, method, alpha, s, label) for s in range(self.seeds)]
        return out

    def job_settings(self) -> dict[str, Any]:
        """The entry's keys one training job reads (not the lists of methods, alphas and seeds)."""
        skip = {"reproduces", "methods", "alphas", "seeds"}
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in skip}


@dataclass(frozen=True)
class Settings:
    """The whole ``mmfl`` block, read once."""

    training: Training
    experiments: tuple[Experiment, ...]
    thresholds: tuple[float, ...]
    table2_experiments: tuple[str, ...]
    per_task_experiment: str
    alpha_sweep_experiment: str
    comparable_tolerance: float  # accuracy gap read as "comparable" / "the same" in the claims
    table2_printed: tuple[str, ...]  # experiments run at Table II's setting: compared with its printed cells
    printed_tolerance: float  # a Table II cell "reproduced" when the per-seed values are within this of it
    fig3_learned: float  # a Fig. 3 checkpoint needs every method's minimum accuracy (seed mean) at least this

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> Settings:
        experiments = tuple(
            Experiment(
                name=e["name"],
                reproduces=e.get("reproduces"),
                tasks=tuple(e["tasks"]),
                clients=e["clients"],
                active_rate=e["active_rate"],
                size_range=tuple(e["size_range"]),
                partition=e["partition"],
                class_ratio=e.get("class_ratio", 0.5),
                rounds=e["rounds"],
                methods=tuple(e["methods"]),
                alphas=tuple(float(a) for a in e.get("alphas", [block["alpha"]])),
                seeds=e.get("seeds", block["seeds"]),
            )
            for e in block["experiments"]
        )
        return cls(
            training=Training.from_block(block),
            experiments=experiments,
            thresholds=tuple(block["thresholds"]),
            table2_experiments=tuple(block["table2_experiments"]),
            per_task_experiment=block["per_task_experiment"],
            alpha_sweep_experiment=block["alpha_sweep_experiment"],
            comparable_tolerance=block["comparable_tolerance"],
            table2_printed=tuple(block["table2_printed"]),
            printed_tolerance=block["printed_tolerance"],
            fig3_learned=block["fig3_learned"],
        )

    def experiment(self, name: str) -> Experiment:
        for e in self.experiments:
            if e.name == name:
                return e
        raise KeyError(f"experiment '{name}' is not in the mmfl config")

    def runs(self) -> list[Run]:
        return [r for e in self.experiments for r in e.runs()]

    def run(self, experiment: str, method: str, alpha: float | None, seed: int) -> Run:
        """The configured run with these parameters (KeyError when the config has none)."""
        for r in self.experiment(experiment).runs():
            if (r.method, r.alpha, r.seed) == (method, alpha, seed):
                return r
        raise KeyError(f"experiment '{experiment}' has no run with method {method}, alpha {alpha}, seed {seed}")


def run_job(
    settings: Settings,
    run: Run,
    datasets: Mapping[str, Any],
    *,
    root: int,
    device: Any,
    checkpoint: str | Path | None,
    progress: bool = True,
    place: tuple[int, int] = (1, 1),
    on_round: Callable[[int], None] | None = None,
) -> tuple[pd.DataFrame, np.ndarray]:
    """Train one run: partition every task's dataset (``datasets``: task name -> cached arrays), train, and return
    the per-round rows (experiment, method, alpha, seed, round, task, task_name, accuracy, loss, clients) and the
    allocation map (clients x rounds). ``place``: (k, N), the job's k-th run of N, named in progress lines;
    ``on_round(r)``: called after round r (``bench/learning_curves.py`` times rounds with it; it changes nothing)."""
    from fairshare.data.partition import mmfl_iid, mmfl_noniid
    from fairshare.learning.device import seed_run
    from fairshare.learning.mmfl import run_mmfl
    from fairshare.learning.progress import numbered
    from fairshare.learning.rounds import settings_hash

    exp, train = settings.experiment(run.experiment), settings.training
    seed_run(root, "mmfl", run.seed)
    tasks = []
    for s, name in enumerate(exp.tasks):
        ds = datasets[name]
        prng = seeding.generator(root, "partition", run.seed, s)
        if exp.partition == "iid":
            part = mmfl_iid(ds.y_train, exp.clients, exp.size_range, prng)
        else:
            part = mmfl_noniid(ds.y_train, exp.clients, exp.size_range, exp.class_ratio, prng)
        mask = exp.partition != "iid"  # the authors mask absent classes in their non-iid experiments
        tasks.append(
            train.task(
                name,
                ds,
                part,
                position=s,
                root=root,
                init_key=run.seed,
                test_key=10_000 + s,
                device=device,
                mask_absent=mask,
            )
        )
    alpha = train.alpha if run.alpha is None else run.alpha  # unused by the policies without alpha
    rows, alloc = run_mmfl(
        tasks,
        n_clients=exp.clients,
        active_rate=exp.active_rate,
        rounds=exp.rounds,
        policy=run.method,
        alpha=alpha,
        weighted_aggregation=train.weighted_aggregation[run.method],
        executor=train.executor,
        sampling_rng=lambda r: seeding.generator(root, "sampling", run.seed, r),
        order_rng=lambda r, s, c: seeding.generator(root, "data_order", run.seed, r, s, c),
        settings=settings_hash(train.job_settings(), exp.job_settings(), run.method, run.alpha, run.seed, root),
        checkpoint=checkpoint,
        lipschitz=train.qffl_lipschitz,
        progress=progress,
        chunk=train.chunk,
        label=numbered(run_label(run), *place),
        on_round=on_round,
    )
    frame = pd.DataFrame(rows)
    for i, key in enumerate(KEYS):
        frame.insert(i, key, getattr(run, key))
    report_collapse(frame, f"mmfl {run.experiment} {run.method} alpha={run.alpha} seed={run.seed}")
    return frame, alloc


def run_label(run: Run) -> str:
    """How progress lines name a run: paper, experiment, method, alpha (where it has one) and seed."""
    alpha = "" if run.alpha is None else f" alpha={run.alpha:g}"
    return f"mmfl {run.experiment} {run.method}{alpha} seed={run.seed}"


def report_collapse(frame: pd.DataFrame, run: str) -> None:
    """One log line per task of ``run`` whose curve collapsed (the ``collapsed`` column of the run's rows)."""
    for (task, name), rows in frame[frame.collapsed].groupby(["task", "task_name"]):
        last = rows.sort_values("round").iloc[-1]
        print(
            f"COLLAPSED {run}: task {task} ({name}) loss flat at {last.loss:.4f} over the last rounds, accuracy "
            f"{last.accuracy:.3f} at chance; its rows are scored with this noted",
            file=sys.stderr,
            flush=True,
        )


def _by(frame: pd.DataFrame, keys: list[str]):
    """groupby that keeps runs without alpha (NaN) as their own group."""
    return frame.groupby(keys, dropna=False)


def final_rounds(per_round: pd.DataFrame) -> pd.DataFrame:
    """Each run's last round."""
    return per_round[per_round["round"] == _by(per_round, KEYS)["round"].transform("max")]


def summaries(runs: pd.DataFrame, settings: Settings) -> dict[str, pd.DataFrame]:
    """The tidy tables of the runs: ``summary`` (long format), ``across_tasks`` (min, mean and variance of accuracy
    across tasks per round), ``table2`` (final-round means over seeds for Table II's experiments) and
    ``rounds_to_threshold`` (first round the minimum accuracy reaches each threshold)."""
    from fairshare.metrics import rounds_to_threshold

    ids = KEYS + ["round", "task", "task_name"]
    tidy = runs.melt(id_vars=ids, value_vars=["accuracy", "loss", "clients"], var_name="metric", value_name="value")
    tidy.insert(0, "paper", "mmfl")
    per_round = (
        _by(runs, KEYS + ["round"])
        .accuracy.agg(min_acc="min", avg_acc="mean", var_acc=lambda a: float(np.var(a)))
        .reset_index()
    )
    table = (
        _by(final_rounds(per_round), ["experiment", "method", "alpha"])
        .agg(avg_final=("avg_acc", "mean"), min_final=("min_acc", "mean"), seeds=("seed", "nunique"))
        .reset_index()
    )
    thresholds = []
    for (e, m, a, s), g in _by(per_round, KEYS):
        curve = g.sort_values("round").min_acc
        for thr in settings.thresholds:
            thresholds.append(
                {
                    "experiment": e,
                    "method": m,
                    "alpha": a,
                    "seed": s,
                    "threshold": thr,
                    "rounds_to_min_acc": rounds_to_threshold(curve, thr),
                }
            )
    return {
        "summary": tidy,
        "across_tasks": per_round,
        "table2": table[table.experiment.isin(settings.table2_experiments)],
        "rounds_to_threshold": pd.DataFrame(thresholds),
    }


def table2_markdown(table2: pd.DataFrame) -> str:
    """Table II as Markdown (final-round accuracy across tasks, mean over seeds)."""
    md = ["| experiment | method | alpha | average accuracy | minimum accuracy | seeds |", "|---|---|---|---|---|---|"]
    for r in table2.itertuples():
        alpha = "" if pd.isna(r.alpha) else f"{r.alpha:g}"
        md.append(f"| {r.experiment} | {r.method} | {alpha} | {r.avg_final:.3f} | {r.min_final:.3f} | {r.seeds} |")
    title = "Table II (reproduction; final-round accuracy across tasks, mean over seeds)"
    return title + "\n\n" + "\n".join(md) + "\n"
