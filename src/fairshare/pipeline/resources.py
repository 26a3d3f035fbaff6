"""Memory, checkpoint disk and time of one training run, estimated from the config before any job starts.

One formula (:func:`estimate`) for every training step; the adapters below read a config block into its inputs. A
*run* is one (setting, seed) of a step; a job of several runs (``runs_per_job``) needs the largest run's memory and
the sum of their disk and time (:func:`job`). The estimate feeds the training rules' Snakemake resources
(``mem_mb``, ``disk_mb``, ``runtime``, which the SLURM profile requests) and :func:`check_limits`, which the config
validation calls: a config whose run would exceed the machine (or the ``limits`` its profile declares) is refused
before any job starts, naming the key that makes it big.

What it counts, with P the model's parameters (:data:`PARAMS`, at the paper's input size: an upper bound for smaller
inputs), C the clients held in memory (every client for Aequa; the active clients of a round for multi-model FL), S the samples trained on per round (all clients, every local epoch), R the rounds:

    memory  = BASE_MB + DATA_COPIES x dataset bytes + CLIENT_MB x C + MODEL_COPIES x tasks x 4P bytes
    disk    = CHECKPOINT_COPIES x tasks x 4P bytes + CLIENT_MB x K   (the round checkpoint: the models with their
                                                       momentum, and the state of the K clients it keeps: Aequa's C)
    time    = START_S + SECONDS_PER_SAMPLE_MPARAM x R x S x P / 1e6 / speed-up of the device

Calibrated on this machine (AMD EPYC, 2 cores, 24 GB), test-profile jobs under ``/usr/bin/time -v``: a command that
imports torch, pandas and the paper's modules peaks at 760 MB, a multi-model FL run of the test profile's exp1
(fedfair) at 1,016 MB, about 100 MB of which the other terms count: BASE_MB is 920 MB; an Aequa job on digits (aequa_cnn1, 68k
parameters at 8x8) peaks at 819 MB with 4 clients and 949 MB with 200, 0.66 MB per client (CLIENT_MB); a multi-model FL
run on digits (mnist_cnn, 6 active clients of about 110 samples, two tasks) takes 3.1 CPU-s more for 10 more rounds: 4.7e-4 s per sample, 2.9e-4 per million table parameters
(SECONDS_PER_SAMPLE_MPARAM; the same slope for an Aequa run is 6 times smaller, so the constant is the conservative
one). On CUDA the time is divided by :data:`GPU_SPEEDUP`, measured on one H100 (issue 37: the paper profile's commands
on stand-in data): multi-model FL's Exp 1 at paper scale trained 9,553 samples/s, 4.4 s a round where the formula
gives 136 CPU-s (31x); an Aequa CIFAR-10 run of all six methods took 321 s a round (standalone 3,070, FedAvg-FT
3,000, CGSV 2,350, IAFL 1,560 and Aequa 426 samples/s, the last before its step was brought to a plain step's
operation count) where the formula gives 976 s (3x). Aequa's step now dispatches as many operations as a plain
step at its two widths (bench/aequa_step_ops.py), so its rate is projected at half standalone's (1,500 samples/s: two
forward and backward passes a minibatch, each bound by dispatch, not arithmetic): 153 s a round, 6x, until
bench/gpu_check.py measures it. At the measured 3x a CIFAR-10 Aequa run of 150 rounds would take about 14 hours, over
the cluster's 12 per job; the job's checkpoint would then let a rerun finish it. The checkpoint copies are counted,
not measured. The estimate is
meant to refuse a config that is orders of magnitude too big, not to predict a run's time to the minute.

Counts that multiply work are bounded too (:func:`counted_work`). Seeds multiply the training runs Snakemake plans,
one output each: planning :data:`PLANNED_RUNS_MAX` runs takes minutes (the test profile's 42 jobs with 400 seeds per
training step, about 8,000 runs: 143 s and 270 MB here, against 10 s and 136 MB with one seed; the time grows faster
than the count), so a config planning more is refused before Snakemake starts. The closed-form papers' counts (Monte
Carlo worlds, Corollary 10's draws, Theorem 11's draws, Exp 5's seeds, the DP paper's random instances) run inside one
job each: :data:`SECONDS_PER_UNIT` is that job's time in the default profile's run here divided by the count (an upper
bound per unit: the whole job is put on each count), checked against the job's hours; Corollary 10's draws are drawn
at once, :data:`BYTES_PER_UNIT` each, checked against the memory.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BASE_MB",
    "DATA_COPIES",
    "CLIENT_MB",
    "MODEL_COPIES",
    "CHECKPOINT_COPIES",
    "START_S",
    "SECONDS_PER_SAMPLE_MPARAM",
    "GPU_SPEEDUP",
    "MB",
    "PARAMS",
    "DATASETS",
    "Estimate",
    "estimate",
    "job",
    "mmfl_run",
    "aequa_run",
    "aequa_scale_run",
    "exp6_run",
    "experiment_block",
    "Limits",
    "machine_mem_mb",
    "limits",
    "sized_runs",
    "PLANNED_RUNS_MAX",
    "SECONDS_PER_UNIT",
    "BYTES_PER_UNIT",
    "planned_runs",
    "counted_work",
    "check_limits",
]

BASE_MB = 920
DATA_COPIES = 5  # the cache's uint8 arrays, their float32 copy for training (x4)
CLIENT_MB = 0.66
MODEL_COPIES = 4  # the global model, its gradient, momentum and an evaluation copy
CHECKPOINT_COPIES = 2  # weights and momentum
START_S = 30
SECONDS_PER_SAMPLE_MPARAM = 2.9e-4
#: How many times faster than the CPU formula a step trains on one H100 (mmfl measured, aequa projected, see above): the time estimate of
#: a CUDA run, and the ``runtime`` its SLURM job requests.
GPU_SPEEDUP = {"mmfl": 31.0, "aequa": 6.0}
MB = 1e6

#: Parameters of each architecture at the input size the papers use it on (28x28 grey, 32x32 colour, 784 features
#: for the MLPs): counted from ``fairshare.learning.models.build_model`` (pinned by tests/faults/test_sizes.py). The
#: LSTM's count depends on the SST training vocabulary: its entry is an upper bound (about 20k words).
PARAMS = {
    "mnist_cnn": 1_630_090,
    "emnist_cnn": 1_649_071,
    "preact_resnet18": 11_172_170,
    "small_cnn": 105_866,
    "mlp": 55_050,
    "aequa_cnn1": 805_066,
    "aequa_cnn2": 2_156_490,
    "aequa_resnet18": 11_220_132,
    "aequa_lstm": 6_500_000,
    "aequa_mlp": 118_282,
}
#: Training samples and bytes per sample of each dataset (synthetic's come from the config).
DATASETS = {
    "digits": (1_437, 64),
    "mnist": (60_000, 784),
    "fashion_mnist": (60_000, 784),
    "emnist": (112_800, 784),
    "femnist": (805_263, 784),
    "cifar10": (50_000, 3_072),
    "cifar100": (50_000, 3_072),
    "svhn": (73_257, 3_072),
    "sst": (8_544, 480),
}


@dataclass(frozen=True)
class Estimate:
    """One run's (or job's) peak memory and checkpoint disk in MB, and its time in minutes."""

    mem_mb: int
    disk_mb: int
    minutes: int


def estimate(
    *,
    params: int,
    tasks: int,
    clients: int,
    kept_clients: int,
    samples_per_round: float,
    rounds: int,
    data_bytes: float,
    device: str,
    gpu_speedup: float = 1.0,
) -> Estimate:
    """The formula of the module docstring for one run (``gpu_speedup``: the step's :data:`GPU_SPEEDUP`)."""
    model = 4 * params
    mem = BASE_MB + CLIENT_MB * clients + (DATA_COPIES * data_bytes + MODEL_COPIES * tasks * model) / MB
    disk = CHECKPOINT_COPIES * tasks * model / MB + CLIENT_MB * kept_clients
    speed = gpu_speedup if device == "cuda" else 1
    seconds = START_S + SECONDS_PER_SAMPLE_MPARAM * rounds * samples_per_round * params / MB / speed
    return Estimate(int(mem) + 1, int(disk) + 1, int(seconds / 60) + 1)


def job(runs: Iterable[Estimate]) -> Estimate:
    """A job of several runs, one after another in one process: the largest memory, the summed disk and time."""
    runs = list(runs)
    return Estimate(max(r.mem_mb for r in runs), sum(r.disk_mb for r in runs), sum(r.minutes for r in runs))


def _dataset(cfg: Mapping[str, Any], name: str) -> tuple[int, int]:
    if name == "synthetic":
        synthetic = cfg["data"]["synthetic"]
        return synthetic["n_train"], 4 * synthetic["n_features"]
    return DATASETS.get(name, DATASETS["mnist"])


def _device(cfg: Mapping[str, Any]) -> str:
    return "cuda" if cfg["device"] == "cuda" else "cpu"


def mmfl_run(cfg: Mapping[str, Any], experiment: Mapping[str, Any], local_epochs: int | None = None) -> Estimate:
    """One multi-model FL run of ``experiment`` (an ``mmfl.experiments`` entry, or Exp 6's block with its tasks)."""
    models = cfg["mmfl"]["models"]
    params = max(PARAMS[models.get(task, "mnist_cnn")] for task in experiment["tasks"])
    active = max(1, round(experiment["clients"] * experiment["active_rate"]))
    epochs = local_epochs or cfg["mmfl"]["local_epochs"]
    return estimate(
        params=params,
        tasks=len(experiment["tasks"]),
        clients=active,
        kept_clients=0,
        samples_per_round=active * sum(experiment["size_range"]) / 2 * epochs,
        rounds=experiment["rounds"],
        data_bytes=sum(_dataset(cfg, t)[0] * _dataset(cfg, t)[1] for t in set(experiment["tasks"])),
        device=_device(cfg),
        gpu_speedup=GPU_SPEEDUP["mmfl"],
    )


def aequa_run(cfg: Mapping[str, Any], dataset: str, methods: int = 6) -> Estimate:
    """One Aequa run (every method of one dataset, partition and seed): each client keeps its own model."""
    aequa = cfg["aequa"]
    n_train, sample_bytes = _dataset(cfg, dataset)
    cap = aequa["max_train_samples"].get(dataset, aequa["max_train_samples"]["default"])
    samples = min(n_train, cap) if cap else n_train
    rounds = aequa["train"]["rounds"].get(dataset, aequa["train"]["rounds"]["default"])
    model = aequa["models"].get(dataset, "aequa_cnn1")
    return estimate(
        params=PARAMS[model],
        tasks=1,
        clients=aequa["clients"],
        kept_clients=aequa["clients"],
        samples_per_round=methods * samples * aequa["train"]["local_epochs"],
        rounds=rounds,
        data_bytes=n_train * sample_bytes,
        device=_device(cfg),
        gpu_speedup=GPU_SPEEDUP["aequa"],
    )


def aequa_scale_run(cfg: Mapping[str, Any]) -> Estimate:
    """One run of the writer-scale experiment (FedAvg-FT and Aequa on ``aequa.scale.clients`` writers)."""
    scale = cfg["aequa"]["scale"]
    n_train, sample_bytes = _dataset(cfg, scale["dataset"])
    samples = min(n_train, scale["max_train_samples"]) if scale["max_train_samples"] else n_train
    return estimate(
        params=PARAMS[scale["model"]],
        tasks=1,
        clients=scale["clients"],
        kept_clients=scale["clients"],
        samples_per_round=3 * samples * scale["participation_fraction"],
        rounds=scale["rounds"],
        data_bytes=n_train * sample_bytes,
        device=_device(cfg),
        gpu_speedup=GPU_SPEEDUP["aequa"],
    )


def exp6_run(cfg: Mapping[str, Any]) -> Estimate:
    """One run of the auctions' Exp 6: multi-model FL on the recruits of one (mechanism, seed), at most the auctions'
    100 users."""
    exp6 = cfg["auctions"]["exp6"]
    return mmfl_run(cfg, {**exp6, "clients": 100}, exp6.get("local_epochs"))


def experiment_block(cfg: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The ``mmfl.experiments`` entry called ``name``."""
    return next(e for e in cfg["mmfl"]["experiments"] if e["name"] == name)


@dataclass(frozen=True)
class Limits:
    """What one job may use: memory and disk in MB, time in hours."""

    mem_mb: float
    disk_mb: float
    job_hours: float


def machine_mem_mb() -> float:
    """Total memory of this machine (``/proc/meminfo``; the POSIX page count elsewhere)."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024 / MB
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / MB


def limits(cfg: Mapping[str, Any]) -> Limits:
    """The config's ``limits``, a null one meaning this machine: its total memory, the free disk of this folder."""
    given = cfg["limits"]
    mem = given["mem_mb"] if given["mem_mb"] is not None else machine_mem_mb()
    disk = given["disk_mb"] if given["disk_mb"] is not None else shutil.disk_usage(".").free / MB
    return Limits(mem, disk, given["job_hours"])


def sized_runs(cfg: Mapping[str, Any]) -> Iterable[tuple[Sequence[str | int], Sequence[str | int], Estimate]]:
    """Every training run's estimate with the config keys that make its memory and its time big:
    (memory key, time key, estimate)."""
    for i, experiment in enumerate(cfg["mmfl"]["experiments"]):
        where = ("mmfl", "experiments", i)
        yield (*where, "clients"), (*where, "rounds"), mmfl_run(cfg, experiment)
    yield ("auctions", "exp6", "tasks"), ("auctions", "exp6", "rounds"), exp6_run(cfg)
    aequa = cfg["aequa"]
    for dataset in dict.fromkeys(
        [*aequa["datasets"], *aequa["participation"]["datasets"], *aequa["training_time"]["datasets"]]
    ):
        yield ("aequa", "clients"), ("aequa", "train", "rounds"), aequa_run(cfg, dataset)
    yield ("aequa", "scale", "clients"), ("aequa", "scale", "rounds"), aequa_scale_run(cfg)


PLANNED_RUNS_MAX = 10_000
#: Seconds per unit of each count a closed-form job loops over (default profile, this machine: model_sharing 48 s for
#: 100,000 worlds, dp_coalitions 21 s for 100 instances, auctions 23 s for 5 seeds, 200,000 + 3,000 + 2,000 draws).
SECONDS_PER_UNIT = {
    ("model_sharing", "monte_carlo", "worlds"): 48 / 100_000,
    ("dp_coalitions", "claims_instances"): 21 / 100,
    ("auctions", "seeds"): 23 / 5,
    ("auctions", "corollary_draws"): 23 / 200_000,
    ("auctions", "corollary10", "auction_draws"): 23 / 3_000,
    ("auctions", "theorem11", "draws"): 23 / 2_000,
}
#: Bytes per unit of a count drawn as one array: Corollary 10's (draws, 2) float64 bids, their sum and maximum.
BYTES_PER_UNIT = {("auctions", "corollary_draws"): 48}


def _get(cfg: Mapping[str, Any], path: Sequence[str | int]) -> Any:
    for part in path:
        cfg = cfg[part]
    return cfg


def planned_runs(cfg: Mapping[str, Any]) -> Iterable[tuple[Sequence[str | int], int]]:
    """The training runs (one output file each) each seed count makes Snakemake plan: (the seeds key, runs)."""
    mmfl = cfg["mmfl"]
    for i, e in enumerate(mmfl["experiments"]):
        key = ("mmfl", "experiments", i, "seeds") if "seeds" in e else ("mmfl", "seeds")
        yield key, len(e["methods"]) * max(1, len(e.get("alphas") or ())) * _get(cfg, key)
    exp6 = cfg["auctions"]["exp6"]
    yield ("auctions", "exp6", "seeds"), len(exp6.get("mechanisms") or (1,)) * exp6["seeds"]
    a = cfg["aequa"]
    yield ("aequa", "seeds"), len(a["datasets"]) * len(a["partitions"]) * (1 + len(a["methods"])) * a["seeds"]
    key = ("aequa", "extension_seeds") if "extension_seeds" in a else ("aequa", "seeds")
    extensions = len(a["participation"]["datasets"]) * len(a["participation"]["methods"])
    extensions += len(a["training_time"]["datasets"]) * len(a["training_time"]["methods"]) + 1  # + the scale run
    yield key, extensions * _get(cfg, key)


def counted_work(cfg: Mapping[str, Any], bound: Limits) -> tuple[Sequence[str | int], str] | None:
    """The first count that multiplies work beyond ``bound``: the runs all seed counts make Snakemake plan, then each
    closed-form job's count (its time, and its memory where drawn at once); as (the key, one line saying why)."""
    runs = list(planned_runs(cfg))
    total = sum(n for _, n in runs)
    if total > PLANNED_RUNS_MAX:
        key = max(runs, key=lambda run: run[1])[0]
        return key, (
            f"the seeds make Snakemake plan about {total:,} training runs, over the {PLANNED_RUNS_MAX:,} it plans "
            "in minutes"
        )
    for key, seconds in SECONDS_PER_UNIT.items():
        count = _get(cfg, key)
        if key in BYTES_PER_UNIT and BASE_MB + count * BYTES_PER_UNIT[key] / MB > bound.mem_mb:
            need = (BASE_MB + count * BYTES_PER_UNIT[key] / MB) / 1e3
            return key, f"its job needs about {need:,.1f} GB of memory, over the {_gb(bound.mem_mb)} allowed"
        if count * seconds / 3600 > bound.job_hours:
            hours = count * seconds / 3600
            return key, f"its job takes about {hours:,.0f} hours, over the {bound.job_hours:g} per job"
    return None


def check_limits(cfg: Mapping[str, Any]) -> tuple[Sequence[str | int], str] | None:
    """The first run whose estimate exceeds :func:`limits`, or the first count that multiplies work beyond them
    (:func:`counted_work`), as (the key to change, one line saying why), or None."""
    bound = limits(cfg)
    found = counted_work(cfg, bound)
    if found is not None:
        return found
    for mem_key, time_key, run in sized_runs(cfg):
        if run.mem_mb > bound.mem_mb:
            return (
                mem_key,
                f"a run needs about {run.mem_mb / 1e3:,.1f} GB of memory, over the {_gb(bound.mem_mb)} allowed",
            )
        if run.disk_mb > bound.disk_mb:
            return (
                mem_key,
                f"a run's checkpoint needs about {run.disk_mb / 1e3:,.1f} GB, over {_gb(bound.disk_mb)} of disk",
            )
        if run.minutes / 60 > bound.job_hours:
            return time_key, f"a run takes about {run.minutes / 60:,.0f} hours, over the {bound.job_hours:g} per job"
    return None


def _gb(mb: float) -> str:
    return f"{mb / 1e3:,.1f} GB"
