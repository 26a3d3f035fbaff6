"""Aequa's experiments: training runs, one per (dataset, partition, method, seed), and the tidy results and tables
the paper reports (Tables 1, 2, 7, 8, 9).

A run's :class:`Setting` is built from the ``aequa`` config block (:func:`prepare`): data, partition, model,
initialisation, optimiser, learning-rate schedule and the width grid a(p) is measured and allocated on. Every random
choice comes from a stream named after the setting (not the method), so all methods of a setting see the same
clients, test subset and initial weights. Every method's rounds go through ``fairshare.learning.rounds.run_rounds``
with the run's checkpoint and settings hash (:class:`Job`).

One job may train several runs (:func:`train_runs`: every seed and method of a setting, or every method of a seed):
each run re-seeds torch and rebuilds its setting exactly as a job of its own would, so its result does not depend on
what else the job trains.
"""

from __future__ import annotations

import dataclasses
import functools
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fairshare import seeding
from fairshare.config import ConfigError

METHODS = ("standalone", "fedavg_ft", "cgsv", "iafl", "aequa", "aequa_pmin")
COLUMNS = {"fedavg_ft": "FedAvg-FT", "cgsv": "CGSV", "iafl": "IAFL", "aequa": "Aequa"}
TABLE1_COLUMNS = {"fedavg_ft": "FedAvg", "cgsv": "CGSV", "iafl": "IAFL", "aequa": "Aequa"}
BASELINES = ("fedavg_ft", "cgsv", "iafl")


# ----------------------------------------------------------------------------------------------- config
def lookup(mapping: Any, *names: str) -> Any:
    """Per-dataset setting: the first of ``names`` present, else ``default``; a plain value applies to every dataset."""
    if not isinstance(mapping, dict):
        return mapping
    for name in names:
        if name in mapping:
            return mapping[name]
    if "default" not in mapping:
        raise ConfigError(f"no entry for {names[0]} and no default in {mapping}")
    return mapping["default"]


def describe_per_dataset(value: float | dict[str, float]) -> str:
    """``0.1`` or ``0.1 (digits 0.03)`` for titles and notes."""
    if not isinstance(value, dict):
        return f"{value:g}"
    others = ", ".join(f"{k} {v:g}" for k, v in value.items() if k != "default")
    return f"{value['default']:g}" + (f" ({others})" if others else "")


def partition_entry(cfg: dict, name: str) -> dict:
    """The ``aequa.partitions`` entry called ``name``."""
    for p in cfg["partitions"]:
        if p["name"] == name:
            return p
    raise ConfigError(f"partition '{name}' is not in aequa.partitions")


def partition_spec(entry: dict, dataset: str, clients: int) -> dict:
    """The make_partition spec of a configured partition for one dataset (label-skew #OC overrides applied)."""
    spec = {k: v for k, v in entry.items() if k not in ("name", "classes_per_client_overrides")}
    spec["clients"] = clients
    if entry["scheme"] == "label_skew":
        spec["classes_per_client"] = entry.get("classes_per_client_overrides", {}).get(
            dataset, entry.get("classes_per_client", 3)
        )
    return spec


@dataclasses.dataclass(frozen=True)
class Contributions:
    """A setting's standalone accuracies: on the test split (what rewards are reported against) and the ones the
    algorithms fit on (the server's validation split; the test split when the profile holds out none)."""

    test: np.ndarray
    fit: np.ndarray
    validation: bool  # whether ``fit`` comes from a held-out validation split


def read_contributions(path: str | None, method: str, clients: int) -> Contributions | None:
    """The standalone accuracies of a setting from its standalone run's JSON (None for the standalone method)."""
    from fairshare.io import read_json

    if method == "standalone":
        return None
    if not path:
        raise ConfigError(f"method {method} needs the setting's standalone run (the contributions)")
    return contributions_of(read_json(path), clients, str(path))


def contributions_of(run: dict, clients: int, source: str = "the standalone run") -> Contributions:
    """The standalone accuracies in a standalone run's result fields."""
    test = np.asarray(run["reward_acc"], float)
    if len(test) != clients:
        raise ConfigError(f"{source} has {len(test)} clients, this setting {clients}")
    if "validation_acc" in run:
        return Contributions(test, np.asarray(run["validation_acc"], float), True)
    return Contributions(test, test, False)


def contribution_fields(contributions: Contributions | None) -> dict:
    """A run's contribution fields: test accuracies, and the validation ones the algorithms fitted on (if any)."""
    if contributions is None:
        return {}
    out = {"contributions": contributions.test.tolist()}
    if contributions.validation:
        out["contributions_validation"] = contributions.fit.tolist()
    return out


def lr_schedule(lr: float, rounds: int, milestones_frac: list[float], gamma: float) -> Callable[[int], float]:
    """MultiStep: lr times gamma per milestone round (fractions of ``rounds``) already reached."""
    milestones = sorted({max(1, int(round(f * rounds))) for f in milestones_frac})
    return lambda r: lr * gamma ** sum(r >= m for m in milestones)


def annealing_options(cfg: dict) -> dict:
    """Keyword arguments of ``aequa_allocation.anneal`` from ``aequa.allocation``."""
    a = cfg["allocation"]
    return dict(
        iters=a["iters"],
        t_start=a["t_start"],
        t_end=a["t_end"],
        schedule=a["schedule"],
        eps=a["eps"],
        tie_break=a["tie_break"],
        spread=a["spread"],
        neighbour_prob=a["neighbour_prob"],
    )


def pearson(x, y) -> float:
    """Pearson correlation; NaN without a warning when an input is constant (identical rewards, reported as NaN)."""
    from fairshare.metrics import pearson as _pearson

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _pearson(x, y)


# ----------------------------------------------------------------------------------------------- one run's setting
@functools.lru_cache(maxsize=2)
def load_dataset(path: str):
    """The cached dataset at ``path``, read (and its digest checked) once per job however many runs it trains."""
    from fairshare.data.datasets import load_cache

    return load_cache(path)


def is_tokens(x: np.ndarray) -> bool:
    """Token ids (SST: int64) rather than images (uint8) or features (float)."""
    return np.issubdtype(x.dtype, np.integer) and x.dtype != np.uint8


def model_inputs(x: np.ndarray, y: np.ndarray, device) -> tuple:
    """(inputs, labels) as tensors on ``device``: images and features through the engine's ``to_tensors``; token ids
    stay int64 for the embedding."""
    import torch

    from fairshare.learning.engine import to_tensors

    if is_tokens(x):
        return torch.as_tensor(x, dtype=torch.int64).to(device), torch.as_tensor(y, dtype=torch.int64).to(device)
    return to_tensors(x, y, device)


@dataclasses.dataclass(frozen=True)
class Setting:
    """Everything one (dataset, partition, seed) run trains on; identical for every method of the setting."""

    dataset: str
    used: str
    partition: dict
    seed: int
    root: int
    key: str
    device: Any
    model_name: str
    model: Any
    init: dict
    clients: list
    test: tuple
    val: tuple | None
    n_classes: int
    train: Any  # engine.TrainSettings
    rounds: int
    lr_at: Callable[[int], float]
    order_rng: Callable[[int, int], np.random.Generator]
    bn_grid: np.ndarray | None  # the switchable-BN width bucket (models with batch norm), else None
    widths: np.ndarray  # widths at which a(p) is measured and allocated (the bucket, or p_min..p_max by width_step)
    p_min: float
    p_max: float
    executor: str
    info: dict

    def acc(self, state) -> float:
        """Balanced accuracy of ``state`` on the test split (full width)."""
        from fairshare.learning.engine import balanced_accuracy_of

        return balanced_accuracy_of(self.model, state, *self.test, self.n_classes)

    def val_acc(self, state) -> float:
        """Balanced accuracy of ``state`` on the server's validation split (full width)."""
        from fairshare.learning.engine import balanced_accuracy_of

        return balanced_accuracy_of(self.model, state, *self.val, self.n_classes)


def prepare(
    cfg: dict,
    root: int,
    device_name: str,
    dataset: str,
    dataset_file: str,
    entry: dict,
    seed_index: int,
    *,
    p_min_key: str = "p_min",
    clients: int | None = None,
    partition_override=None,
) -> Setting:
    """Load, subset and partition the data, build the slimmable model and its initialisation, set the optimiser.

    ``partition_override(labels, train_idx, rng)`` replaces the configured partition (real writer ids): it gets the
    kept training labels, their indices and the Generator.
    """
    import torch

    from fairshare.data.partition import make_partition
    from fairshare.learning import aequa as aq
    from fairshare.learning.engine import ClientData, TrainSettings, resolve_device

    device = resolve_device(device_name)
    ds = load_dataset(str(dataset_file))
    used, key, s = ds.name, f"{dataset}/{entry['name']}", seed_index
    if device.type == "cpu":
        torch.set_num_threads(
            1
        )  # Snakemake runs one job per core; a second intra-op thread slows small convolutions ~5x here

    part_rng = seeding.generator(root, f"aequa/partition/{key}", s)
    n_keep = lookup(cfg["max_train_samples"], used, dataset)
    train_idx = np.sort(part_rng.permutation(len(ds.y_train))[:n_keep]) if n_keep else np.arange(len(ds.y_train))
    val_idx = None
    if cfg["allocation"]["split"] == "validation":  # the server's validation set, held out from the clients' data
        order = seeding.generator(root, f"aequa/validation/{key}", s).permutation(len(train_idx))
        n_val = int(round(cfg["allocation"]["validation_fraction"] * len(train_idx)))
        val_idx, train_idx = np.sort(train_idx[order[:n_val]]), np.sort(train_idx[order[n_val:]])
    if partition_override is None:
        part = make_partition(ds.y_train[train_idx], partition_spec(entry, used, clients or cfg["clients"]), part_rng)
    else:
        part = partition_override(ds.y_train[train_idx], train_idx, part_rng)
    test_rng = seeding.generator(root, f"aequa/test/{dataset}", s)
    test_idx = test_rng.permutation(len(ds.y_test))[: cfg["test_subset"] or len(ds.y_test)]
    n_feat = lookup(cfg["max_features"], used, dataset)
    if n_feat and ds.x_train.ndim == 2 and not is_tokens(ds.x_train):  # tabular data only
        ds = dataclasses.replace(ds, x_train=ds.x_train[:, :n_feat], x_test=ds.x_test[:, :n_feat])
    x, y = model_inputs(ds.x_train[train_idx], ds.y_train[train_idx], device)
    test = model_inputs(ds.x_test[test_idx], ds.y_test[test_idx], device)
    val = None if val_idx is None else model_inputs(ds.x_train[val_idx], ds.y_train[val_idx], device)
    client_data = [
        ClientData(x[torch.as_tensor(ix, device=device)], y[torch.as_tensor(ix, device=device)])
        for ix in part.client_indices
    ]

    model_name = lookup(cfg["models"], used, dataset)
    p_min = float(lookup(cfg[p_min_key], used, dataset))
    p_max = cfg["p_max"]
    bn_grid = aq.width_grid(p_min, cfg["bn_width_step"], p_max) if aq.uses_batch_norm(model_name) else None
    torch.manual_seed(seeding.integer_seed(root, f"aequa/init/{key}", s) % 2**31)
    model = aq.build_slimmable_model(
        model_name,
        ds.input_shape,
        ds.n_classes,
        bn_widths=bn_grid,
        mlp_hidden=cfg["mlp_hidden"],
        resnet_base=cfg["resnet_base"],
        vocab_size=int(max(ds.x_train.max(), ds.x_test.max())) + 1 if is_tokens(ds.x_train) else None,
        text=cfg["lstm"],
    ).to(device)
    init = {n: v.detach().clone() for n, v in model.state_dict().items()}
    tr = cfg["train"]
    rounds = lookup(tr["rounds"], dataset, used)
    settings = TrainSettings(
        epochs=tr["local_epochs"],
        batch_size=tr["batch_size"],
        lr=tr["lr"],
        momentum=tr["momentum"],
        weight_decay=lookup(tr["weight_decay"], used, dataset),
        precision=cfg["precision"],
    )
    info = {
        "dataset": dataset,
        "dataset_used": used,
        "partition": entry["name"],
        "scheme": entry["scheme"],
        "seed": s,
        "model": model_name,
        "rounds": rounds,
        "sizes": part.sizes.tolist(),
        "class_counts": part.counts.tolist(),
        "n_test": len(test_idx),
        "n_validation": 0 if val_idx is None else len(val_idx),
        "input_shape": list(ds.input_shape),
    }
    return Setting(
        dataset,
        used,
        entry,
        s,
        root,
        key,
        device,
        model_name,
        model,
        init,
        client_data,
        test,
        val,
        ds.n_classes,
        settings,
        rounds,
        lr_schedule(tr["lr"], rounds, tr["lr_milestones_frac"], tr["lr_gamma"]),
        lambda r, i: seeding.generator(root, f"aequa/data_order/{key}", s, r, i),
        bn_grid,
        bn_grid if bn_grid is not None else aq.width_grid(p_min, cfg["width_step"], p_max),
        p_min,
        p_max,
        cfg["executor"],
        info,
    )


def data_fingerprint(st: Setting) -> dict:
    """The arrays a job trains and evaluates on, for its settings hash."""
    return {"clients": [(c.x, c.y) for c in st.clients], "test": st.test, "val": st.val}


@dataclasses.dataclass(frozen=True)
class Job:
    """Where a training job checkpoints and the hash of what its result depends on (``rounds.settings_hash``)."""

    checkpoint: str | Path | None
    digest: str

    def rounds(self, step, initial_state, rounds: int, desc: str) -> tuple[Any, list[dict]]:
        """``run_rounds`` with this job's checkpoint and settings hash: (final state, per-round metric rows)."""
        from fairshare.learning.rounds import run_rounds

        return run_rounds(step, initial_state, rounds, settings=self.digest, checkpoint=self.checkpoint, desc=desc)


def aequa_step(cfg: dict, st: Setting, stream: str, participants=None):
    """Algorithm 1's round on the setting; ``stream`` names the width-sampling stream (one per method/experiment)."""
    from fairshare.learning import aequa as aq

    return aq.aequa_step(
        st.model,
        st.clients,
        st.train,
        order_rng=st.order_rng,
        width_rng=lambda r, i: seeding.generator(st.root, f"aequa/widths/{st.key}/{stream}", st.seed, r, i),
        p_min=st.p_min,
        p_max=st.p_max,
        grid=None if st.bn_grid is None else st.bn_grid.tolist(),
        subwidth_mode=cfg["subwidth_mode"],
        lr_at=st.lr_at,
        weighted=cfg["train"]["weighted_aggregation"],
        width_loss=cfg["width_loss"],
        participants=participants,
        executor=st.executor,
    )


def train_aequa(cfg: dict, st: Setting, job: Job, stream: str, participants=None) -> dict:
    """Algorithm 1 on the setting: the final global state (full width)."""
    from fairshare.learning.slimmable import set_width

    state, _ = job.rounds(aequa_step(cfg, st, stream, participants), st.init, st.rounds, desc=stream)
    set_width(st.model, st.p_max)
    return state


def standalone_states(cfg: dict, st: Setting, job: Job, scheduled: bool = True) -> tuple[list, int]:
    """Every client trained alone (contributions), with the learning-rate schedule stretched over its epochs when
    ``scheduled``: (client states, epochs)."""
    from fairshare.learning import baselines

    tr = cfg["train"]
    epochs = tr["standalone_epochs"] or st.rounds * tr["local_epochs"]
    lr_at = lr_schedule(tr["lr"], epochs, tr["lr_milestones_frac"], tr["lr_gamma"]) if scheduled else None
    phases = baselines.standalone_phases(epochs, st.train.lr, lr_at)
    step = baselines.standalone_step(st.model, st.clients, st.train, st.order_rng, phases, executor=st.executor)
    states, _ = job.rounds(step, [st.init] * len(st.clients), len(phases), desc="standalone")
    return states, epochs


def fedavg_ft_states(cfg: dict, st: Setting, job: Job, participants=None) -> tuple[dict, list]:
    """FedAvg then local fine-tuning: (global state, fine-tuned client states)."""
    from fairshare.learning import baselines

    step = baselines.fedavg_step(
        st.model,
        st.clients,
        st.train,
        st.order_rng,
        lr_at=st.lr_at,
        executor=st.executor,
        weighted=cfg["train"]["weighted_aggregation"],
        participants=participants,
    )
    state, _ = job.rounds(step, st.init, st.rounds, desc="fedavg")
    tuned = baselines.finetune(
        st.model,
        state,
        st.clients,
        st.train,
        cfg["fedavg_ft"]["finetune_epochs"],
        st.order_rng,
        st.rounds,
        lr_at=st.lr_at,
        executor=st.executor,
    )
    return state, tuned


def cgsv_step(cfg: dict, st: Setting, participants=None):
    """CGSV's round on the setting (IAFL's code settings)."""
    from fairshare.learning import baselines

    c = cfg["cgsv"]
    return baselines.cgsv_step(
        st.model,
        st.clients,
        st.train,
        st.order_rng,
        gamma=lookup(c["gamma"], st.used, st.dataset),
        alpha=c["alpha"],
        beta=c["beta"],
        min_reputation=c["min_reputation"],
        lr_at=st.lr_at,
        executor=st.executor,
        participants=participants,
    )


def iafl_step(cfg: dict, st: Setting, contributions, sampling_stream: str, participants=None):
    """IAFL's round on the setting; ``sampling_stream`` names the stream of its per-round sampling of updates."""
    from fairshare.learning import baselines

    sampling = lambda r: seeding.generator(st.root, sampling_stream, st.seed, r)  # noqa: E731
    return baselines.iafl_step(
        st.model,
        st.clients,
        st.train,
        st.order_rng,
        contributions,
        sampling,
        kappa=cfg["iafl"]["kappa"],
        q=cfg["iafl"]["q"],
        lr_at=st.lr_at,
        executor=st.executor,
        participants=participants,
    )


def run_method(cfg: dict, st: Setting, method: str, contributions: Contributions | None, job: Job) -> dict:
    """Train one method on the setting and return its result fields (rewards, global accuracy, Aequa's curve...)."""
    from fairshare.learning import baselines

    if method == "standalone":
        states, epochs = standalone_states(cfg, st, job)
        out = {"reward_acc": [st.acc(x) for x in states], "global_acc": None, "standalone_epochs": epochs}
        if st.val is not None:
            out["validation_acc"] = [st.val_acc(x) for x in states]
        return out
    if method == "fedavg_ft":
        glob, tuned = fedavg_ft_states(cfg, st, job)
        return {"global_acc": st.acc(glob), "reward_acc": [st.acc(x) for x in tuned]}
    if method == "cgsv":
        state, _ = job.rounds(cgsv_step(cfg, st), baselines.cgsv_start(st.init, st.clients), st.rounds, desc="cgsv")
        return {
            "global_acc": st.acc(state["server"]),
            "reward_acc": [st.acc(x) for x in state["locals"]],
            "final_reputation": state["history"][-1].tolist(),
        }
    if method == "iafl":
        step = iafl_step(cfg, st, contributions.fit, f"aequa/sampling/{st.key}")
        state, _ = job.rounds(step, baselines.iafl_start(st.init, st.clients), st.rounds, desc="iafl")
        return {"global_acc": st.acc(state["server"]), "reward_acc": [st.acc(x) for x in state["locals"]]}
    return aequa_rewards(cfg, st, method, contributions, job)


@dataclasses.dataclass(frozen=True)
class Run:
    """One training run of a job: its seed, method, output JSON and round checkpoint."""

    seed: int
    method: str
    output: str
    checkpoint: str | None


def job_order(runs: Sequence[Run]) -> list[Run]:
    """The runs seed by seed (in order of first appearance), each seed's standalone run first (the contributions
    every other method of the seed needs). A seed without its standalone run is an error."""
    seeds = list(dict.fromkeys(r.seed for r in runs))
    ordered = []
    for seed in seeds:
        mine = sorted((r for r in runs if r.seed == seed), key=lambda r: r.method != "standalone")
        if mine[0].method != "standalone":
            raise ConfigError(f"seed {seed}: {mine[0].method} needs the seed's standalone run in the same job")
        ordered += mine
    return ordered


def train_runs(
    cfg: dict,
    root: int,
    device_name: str,
    dataset: str,
    dataset_file: str,
    entry: dict,
    runs: Sequence[Run],
    cfg_id: str,
) -> Iterator[tuple[Run, dict]]:
    """Train the runs of one job (see :func:`job_order`), yielding each run's result fields as soon as it is done.

    Each run seeds torch, builds its setting and hashes its settings exactly as a job training only that run: its
    result (``seconds`` and ``metadata`` aside) is the same whatever else the job trains. ``cfg_id`` names the
    job's config (its --cfg) in the settings hash.
    """
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import settings_hash

    standalone: dict[int, dict] = {}
    for run in job_order(runs):
        started = time.perf_counter()
        set_deterministic(
            seeding.integer_seed(root, f"aequa/torch/{dataset}/{entry['name']}/{run.method}", run.seed) % 2**31
        )
        p_min_key = "p_min_ablation" if run.method == "aequa_pmin" else "p_min"
        st = prepare(cfg, root, device_name, dataset, dataset_file, entry, run.seed, p_min_key=p_min_key)
        contributions = None
        if run.method != "standalone":
            contributions = contributions_of(standalone[run.seed], len(st.clients))
        digest = settings_hash(
            cfg_id, dataset, entry["name"], run.method, run.seed, data_fingerprint(st), contributions
        )
        out = {**st.info, "method": run.method, **contribution_fields(contributions)}
        out.update(run_method(cfg, st, run.method, contributions, Job(run.checkpoint, digest)))
        if run.method == "standalone":
            standalone[run.seed] = out
        yield run, finished(out, st, started)


def finished(out: dict, st: Setting, started: float) -> dict:
    """A run's result fields with their provenance. Its time (since ``started``, a ``time.perf_counter()`` value) goes
    to the job's log, not into the result: two runs of the same settings write the same bytes."""
    import sys

    from fairshare.io import run_metadata

    print(f"{out['method']} seed {st.seed}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    out["metadata"] = run_metadata(st.root, seed_index=st.seed, device=str(st.device))
    return out


def width_curve(st: Setting, state: dict, split: tuple | None = None):
    """a(p) of ``state`` on the setting's widths (test split unless ``split`` is given)."""
    from fairshare.learning import aequa as aq

    return aq.width_accuracy_curve(st.model, state, st.widths, *(split or st.test), st.n_classes)


def fit_curve(st: Setting, state: dict, curve: np.ndarray) -> np.ndarray:
    """a(p) the allocation fits on: the validation split's, or ``curve`` (the test split's) without one."""
    return curve if st.val is None else width_curve(st, state, st.val)


def allocate(
    cfg: dict,
    st: Setting,
    state: dict,
    curve: np.ndarray,
    fitted: np.ndarray,
    contributions: np.ndarray,
    stream: str,
    spread: str,
) -> dict:
    """Post-training allocation with cost ``spread`` (std: the spec's sigma/mu; var: a named variant), fitted on
    ``fitted`` (a(p)) and ``contributions``; rewards are read on ``curve`` (the test split). Also the width-as-reward
    allocation (App. D.6: any width for models without batch norm, the bucket otherwise) and its test accuracies."""
    from fairshare.games.aequa_allocation import anneal, width_reward_allocation
    from fairshare.learning.engine import balanced_accuracy_of
    from fairshare.learning.slimmable import set_width

    options = {**annealing_options(cfg), "spread": spread}
    alloc = anneal(contributions, fitted, seeding.generator(st.root, f"aequa/game/{stream}", st.seed), **options)
    wr = width_reward_allocation(
        contributions,
        st.widths,
        seeding.generator(st.root, f"aequa/game_width/{stream}", st.seed),
        p_min=st.p_min,
        p_max=st.p_max,
        continuous=st.bn_grid is None,
        how=cfg["width_reward"]["normalization"],
        **options,
    )
    st.model.load_state_dict(state)
    wr_acc = []
    for p in wr.values:
        set_width(st.model, float(p))
        wr_acc.append(balanced_accuracy_of(st.model, None, *st.test, st.n_classes))
    set_width(st.model, 1.0)
    return {
        "allocated_width": st.widths[alloc.indices].tolist(),
        "reward_acc": curve[alloc.indices].tolist(),
        "allocation_cost": alloc.cost,
        "ir_infeasible": alloc.ir_infeasible.tolist(),
        "width_reward_width": wr.values.tolist(),
        "width_reward_acc": wr_acc,
    }


def aequa_rewards(cfg: dict, st: Setting, method: str, contributions: Contributions, job: Job) -> dict:
    """Train the slimmable model, measure a(p) on the test and validation splits, allocate with the configured
    cost and each variant (accuracy and width rewards): the run's Aequa fields."""
    state = train_aequa(cfg, st, job, method)
    curve = width_curve(st, state)
    fitted = fit_curve(st, state, curve)
    a = cfg["allocation"]
    out = {
        "p_min": st.p_min,
        "widths": st.widths.tolist(),
        "curve": curve.tolist(),
        "global_acc": float(curve[-1]),
        "allocation_split": a["split"],
        "allocation_spread": a["spread"],
    }
    if st.val is not None:
        out["curve_validation"] = fitted.tolist()
    stream = f"{st.key}/{method}"
    out.update(allocate(cfg, st, state, curve, fitted, contributions.fit, stream, a["spread"]))
    out["variants"] = {v: allocate(cfg, st, state, curve, fitted, contributions.fit, stream, v) for v in a["variants"]}
    return out


# ----------------------------------------------------------------------------------------------- tidy results
ALLOCATION_METRICS = ("pearson", "mcg", "cgs", "ipr", "min_gain", "pearson_width", "pearson_width_acc", "ir_infeasible")


def _reward_metrics(c, a, cgs_ddof: int) -> dict:
    from fairshare import metrics as m

    return {
        "pearson": pearson(c, a),
        "mcg": m.mean_collaboration_gain(a, c),
        "cgs": m.collaboration_gain_spread(a, c, ddof=cgs_ddof),
        "ipr": m.incentivized_participation_rate(a, c),
        "min_gain": float(m.collaboration_gains(a, c).min()),
    }


def _allocation_metrics(c, allocation: dict, cgs_ddof: int) -> dict:
    return {
        **_reward_metrics(c, allocation["reward_acc"], cgs_ddof),
        "pearson_width": pearson(c, allocation["width_reward_width"]),
        "pearson_width_acc": pearson(c, allocation["width_reward_acc"]),
        "ir_infeasible": float(np.sum(allocation["ir_infeasible"])),
    }


def tidy_metrics(runs: list[dict], cgs_ddof: int = 0):
    """One row per (run, metric, allocation cost): accuracy, pearson, mcg, cgs, ipr, min_gain, all against the test
    split's contributions (+ Aequa's width-reward correlations). Aequa runs give one set of allocation metrics per cost
    (column ``cost``: the configured one and each variant); other methods leave ``cost`` empty."""
    import pandas as pd

    rows = []
    for r in runs:
        per_cost: dict[str | None, dict] = {}
        if r["method"] == "standalone":
            per_cost[None] = {"mean_standalone": float(np.mean(r["reward_acc"]))}
        elif r["method"].startswith("aequa"):
            c = r["contributions"]
            per_cost[r["allocation_spread"]] = {
                "accuracy": r["global_acc"],
                **_allocation_metrics(c, r, cgs_ddof),
                "width_gap": float(r["curve"][-1] - r["curve"][0]),
            }
            for cost, allocation in r["variants"].items():
                per_cost[cost] = _allocation_metrics(c, allocation, cgs_ddof)
        else:
            per_cost[None] = {
                "accuracy": r["global_acc"],
                **_reward_metrics(r["contributions"], r["reward_acc"], cgs_ddof),
            }
        for cost, values in per_cost.items():
            for metric, value in values.items():
                rows.append(
                    {
                        "paper": "aequa",
                        "experiment": f"{r['dataset']}/{r['partition']}",
                        "method": r["method"],
                        "seed": r["seed"],
                        "round": r["rounds"],
                        "metric": metric,
                        "value": value,
                        "dataset": r["dataset"],
                        "dataset_used": r["dataset_used"],
                        "partition": r["partition"],
                        "scheme": r["scheme"],
                        "cost": cost,
                    }
                )
    return pd.DataFrame(rows)


def with_cost(tidy, cost: str):
    """The rows of one allocation cost: every method's rows, with Aequa's allocation metrics under ``cost``."""
    return tidy[tidy.cost.isna() | (tidy.cost == cost)]


def per_client(runs: list[dict]):
    """Per-client contribution and reward accuracy of every run (the scatter plots' data)."""
    import pandas as pd

    rows = []
    for r in runs:
        if r["method"] == "standalone":
            continue
        widths = r.get("allocated_width", [None] * len(r["reward_acc"]))
        for i, (c, a, w) in enumerate(zip(r["contributions"], r["reward_acc"], widths)):
            rows.append(
                {
                    "dataset": r["dataset"],
                    "partition": r["partition"],
                    "method": r["method"],
                    "seed": r["seed"],
                    "client": i,
                    "size": r["sizes"][i],
                    "contribution": c,
                    "reward_acc": a,
                    "width": w,
                }
            )
    return pd.DataFrame(rows)


def width_curve_rows(runs: list[dict], keys: tuple[str, ...]):
    """The a(p) curves (test split) of the given Aequa runs, one row per (run, width), with the run's ``keys``."""
    import pandas as pd

    rows = [
        {**{k: r[k] for k in keys}, "width": w, "accuracy": a} for r in runs for w, a in zip(r["widths"], r["curve"])
    ]
    return pd.DataFrame(rows, columns=[*keys, "width", "accuracy"])


def width_curves(runs: list[dict]):
    """Aequa's width-accuracy curves a(p) (test split) of every Aequa run of the main experiments."""
    return width_curve_rows(
        [r for r in runs if r["method"].startswith("aequa")], ("dataset", "partition", "method", "seed")
    )


# ----------------------------------------------------------------------------------------------- tables
def group_label(entry: dict) -> str:
    """A partition's row-group label in the paper's tables."""
    scheme = entry["scheme"]
    if scheme == "homogeneous":
        return "Homogeneous"
    if scheme == "dirichlet":
        return f"Heterogeneous: Dirichlet ({entry.get('alpha', 0.5)})"
    if scheme == "quantity_skew":
        return f"Quantity Skew: Imbalanced ({entry.get('share', 0.4)}, {entry.get('n_large', 2)})"
    oc = entry.get("classes_per_client", 3)
    over = sorted(set(entry.get("classes_per_client_overrides", {}).values()) - {oc})
    return "Label Skew: #OC={" + ", ".join(str(v) for v in [oc, *over]) + "}"


def main_partitions(cfg: dict) -> list[dict]:
    """Row groups of Tables 1 and 2: homogeneous, the chosen Dirichlet and quantity skew, label skew."""
    chosen = []
    for scheme in ("homogeneous", "dirichlet", "quantity_skew", "label_skew"):
        names = [p for p in cfg["partitions"] if p["scheme"] == scheme]
        pick = cfg["table_partitions"].get(scheme)
        named = [p for p in names if p["name"] == pick]
        if named or names:
            chosen.append((named or names)[0])
    return chosen


def _cell(values) -> str:
    v = np.asarray(values, float)
    if len(v) == 0:
        return ""
    if np.all(np.isnan(v)):
        return "NaN"
    mean = np.nanmean(v)
    return f"{mean:.3f} ± {np.nanstd(v):.3f}" if len(v) > 1 else f"{mean:.3f}"


def _grid_table(tidy, cfg: dict, partitions: list[dict], specs: list[tuple], title: str):
    """Paper layout: rows (partition group, dataset), columns (method, metric) with mean ± std over seeds, plus times-best rows.

    ``specs``: (method, metric, column label, higher_is_better, cost). ``cost`` None reads the configured allocation
    cost's rows; a variant's name reads that variant's Aequa rows, shown beside and left out of the times-best count.
    """
    import pandas as pd

    from fairshare.metrics import times_best

    main = with_cost(tidy, cfg["allocation"]["spread"])
    records, means = [], []
    for entry in partitions:
        for d in cfg["datasets"]:
            here = (tidy.dataset == d) & (tidy.partition == entry["name"])
            if not here.any():
                continue
            rec = {"partition": group_label(entry), "partition_name": entry["name"], "dataset": d}
            row = []
            for method, metric, label, _, cost in specs:
                sub = (
                    main[(main.dataset == d) & (main.partition == entry["name"])]
                    if cost is None
                    else tidy[here & (tidy.cost == cost)]
                )
                vals = sub[(sub.method == method) & (sub.metric == metric)].value.to_numpy(float)
                rec[label] = _cell(vals)
                rec[f"{label} mean"] = (
                    float(np.nanmean(vals)) if len(vals) and not np.all(np.isnan(vals)) else float("nan")
                )
                rec[f"{label} seeds"] = len(vals)
                row.append(rec[f"{label} mean"])
            records.append(rec)
            means.append(row)
    frame = pd.DataFrame(records)
    labels = [spec[2] for spec in specs]
    best_rows = {}
    if means:
        arr = np.array(means, float)
        groups: dict[tuple[str, bool], list[int]] = {}
        for j, (_, metric, _, higher, cost) in enumerate(specs):
            if cost is None:
                groups.setdefault((metric, higher), []).append(j)
        for (metric, higher), cols in groups.items():
            counts = times_best(arr[:, cols], higher_is_better=higher)
            for j, cnt in zip(cols, counts):
                best_rows.setdefault(metric, {})[labels[j]] = int(cnt)
    lines = [f"{title}", "", "| Partition | Dataset | " + " | ".join(labels) + " |", "|" + "---|" * (len(labels) + 2)]
    previous = None
    for rec in records:
        group = rec["partition"] if rec["partition"] != previous else ""
        previous = rec["partition"]
        lines.append(f"| {group} | {rec['dataset']} | " + " | ".join(rec[label] for label in labels) + " |")
    for metric, counts in best_rows.items():
        suffix = f" ({metric})" if len(best_rows) > 1 else ""
        lines.append(
            f"| Number of times that performs the best{suffix} | | "
            + " | ".join(str(counts.get(label, "")) for label in labels)
            + " |"
        )
        best = {
            "partition": f"Number of times best{suffix}",
            "dataset": "",
            **{label: str(counts[label]) for label in counts},
        }
        frame = pd.concat([frame, pd.DataFrame([best])], ignore_index=True)
    return frame, "\n".join(lines) + "\n"


COST_LABELS = {"std": "σ/μ", "var": "σ²/μ"}


def paper_tables(tidy, cfg: dict) -> dict:
    """Tables 1, 2, 7, 8 and 9 as {name: (CSV frame, Markdown)}. Tables 2 and 7 show each allocation-cost variant's
    Aequa column beside the configured cost's (not counted in the times-best rows)."""
    import pandas as pd

    a = cfg["allocation"]
    main = main_partitions(cfg)
    seeds = f"mean ± std over {tidy.seed.nunique()} seed(s)"
    cost = f"allocation cost {COST_LABELS[a['spread']]} fitted on the {a['split']} split"
    variants = [(v, f"Aequa ({COST_LABELS[v]})") for v in a["variants"]]
    t1 = _grid_table(
        tidy,
        cfg,
        main,
        [(m, "accuracy", TABLE1_COLUMNS[m], True, None) for m in COLUMNS],
        "Table 1 (reproduction): balanced accuracy of the global model (FedAvg: before fine-tuning; CGSV/IAFL: server model; "
        f"Aequa: full width), {seeds}",
    )
    t2 = _grid_table(
        tidy,
        cfg,
        main,
        [(m, "pearson", COLUMNS[m], True, None) for m in COLUMNS]
        + [("aequa", "pearson", label, True, v) for v, label in variants],
        f"Table 2 (reproduction): Pearson correlation between standalone accuracies and reward accuracies (test split), {seeds}; "
        f"Aequa: {cost}; NaN = identical rewards",
    )
    pair = [
        spec
        for m in COLUMNS
        for spec in ((m, "mcg", f"{COLUMNS[m]} MCG", True, None), (m, "cgs", f"{COLUMNS[m]} CGS", False, None))
    ]
    pair += [
        spec
        for v, label in variants
        for spec in (("aequa", "mcg", f"{label} MCG", True, v), ("aequa", "cgs", f"{label} CGS", False, v))
    ]
    t7 = _grid_table(
        tidy,
        cfg,
        cfg["partitions"],
        pair,
        f"Table 7 (reproduction): mean collaboration gain (MCG) and collaboration gain spread (CGS), {seeds}; Aequa: {cost}",
    )
    qskew = [p for p in cfg["partitions"] if p["scheme"] == "quantity_skew"]
    pmin = {m: ("aequa_pmin" if m == "aequa" else m) for m in COLUMNS}
    pair8 = [
        spec
        for m in COLUMNS
        for spec in (
            (pmin[m], "mcg", f"{COLUMNS[m]} MCG", True, None),
            (pmin[m], "cgs", f"{COLUMNS[m]} CGS", False, None),
        )
    ]
    t8 = _grid_table(
        tidy,
        cfg,
        qskew,
        pair8,
        f"Table 8 (reproduction): MCG and CGS under quantity skew with Aequa's p_min lowered to {describe_per_dataset(cfg['p_min_ablation'])}, {seeds}",
    )
    records = []
    rows = with_cost(tidy, a["spread"])
    wanted = [d for d in cfg["datasets"] if d in cfg["table9_datasets"]] or list(cfg["datasets"])
    for d in wanted:
        for entry in cfg["partitions"]:
            sub = rows[(rows.dataset == d) & (rows.partition == entry["name"]) & (rows.method == "aequa")]
            if sub.empty:
                continue
            records.append(
                {
                    "dataset": d,
                    "partition": group_label(entry),
                    "partition_name": entry["name"],
                    "pearson(contribution, width)": _cell(sub[sub.metric == "pearson_width"].value),
                    "pearson(contribution, acc.)": _cell(sub[sub.metric == "pearson_width_acc"].value),
                }
            )
    t9 = pd.DataFrame(records)
    lines = [
        f"Table 9 (reproduction): width as the reward, {seeds}; {cost}",
        "",
        "| Dataset | Partition | ρ(contribution, width) | ρ(contribution, acc.) |",
        "|---|---|---|---|",
    ]
    previous = None
    for rec in records:
        lines.append(
            f"| {rec['dataset'] if rec['dataset'] != previous else ''} | {rec['partition']} | {rec['pearson(contribution, width)']} | "
            f"{rec['pearson(contribution, acc.)']} |"
        )
        previous = rec["dataset"]
    return {"table1": t1, "table2": t2, "table7": t7, "table8": t8, "table9": (t9, "\n".join(lines) + "\n")}
