"""The federation one Aequa run trains on (:class:`Setting`): data, partition, slimmable model and initialisation,
optimiser, learning-rate schedule and the width grid a(p) is measured and allocated on (Sec. 6.1, App. D.3).

Every random choice comes from a stream named after the setting (not the method), so all methods of a setting see the
same clients, test subset and initial weights.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fairshare import seeding
from fairshare.papers.aequa.settings import AequaSettings, Partition, PerDataset, lookup
from fairshare.pipeline.config import ConfigError

__all__ = ["Contributions", "load_dataset", "is_tokens", "model_inputs", "Setting", "prepare", "Job"]


@dataclasses.dataclass(frozen=True)
class Contributions:
    """A setting's standalone accuracies: on the test split (what rewards are reported against) and the ones the
    algorithms fit on (the server's validation split; the test split when the profile holds out none)."""

    test: np.ndarray
    fit: np.ndarray
    validation: bool  # whether ``fit`` comes from a held-out validation split
    halves: np.ndarray | None = None  # 2 x clients: the accuracies on each half of the test split (cross-fitting)

    @classmethod
    def of_standalone(cls, run: dict, clients: int, source: str = "the standalone run") -> Contributions:
        """The standalone accuracies in a standalone run's result fields."""
        test = np.asarray(run["reward_acc"], float)
        if len(test) != clients:
            raise ConfigError(f"{source} has {len(test)} clients, this setting {clients}")
        halves = np.asarray(run["reward_acc_halves"], float) if "reward_acc_halves" in run else None
        if "validation_acc" in run:
            return cls(test, np.asarray(run["validation_acc"], float), True, halves)
        return cls(test, test, False, halves)

    def fields(self) -> dict:
        """A run's contribution fields: test accuracies, and the validation ones the algorithms fitted on (if any)."""
        out = {"contributions": self.test.tolist()}
        if self.validation:
            out["contributions_validation"] = self.fit.tolist()
        return out


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

    from fairshare.learning.evaluation import to_tensors

    if is_tokens(x):
        return torch.as_tensor(x, dtype=torch.int64, device=device), torch.as_tensor(
            y, dtype=torch.int64, device=device
        )
    return to_tensors(x, y, device)


@dataclasses.dataclass(frozen=True)
class Setting:
    """Everything one (dataset, partition, seed) run trains on; identical for every method of the setting."""

    dataset: str
    used: str
    partition: Partition
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
        from fairshare.learning.evaluation import balanced_accuracy_of

        return balanced_accuracy_of(self.model, state, *self.test, self.n_classes)

    def test_halves(self) -> tuple[tuple, tuple]:
        """The test split in two halves (its order is already a random permutation): one fits an allocation, the
        other reads it (cross-fitting the held-out rho, Sec. 5.2)."""
        x, y = self.test
        n = len(y) // 2
        return (x[:n], y[:n]), (x[n:], y[n:])

    def acc_on(self, state, split: tuple) -> float:
        """Balanced accuracy of ``state`` on ``split`` (full width)."""
        from fairshare.learning.evaluation import balanced_accuracy_of

        return balanced_accuracy_of(self.model, state, *split, self.n_classes)

    def val_acc(self, state) -> float:
        """Balanced accuracy of ``state`` on the server's validation split (full width)."""
        from fairshare.learning.evaluation import balanced_accuracy_of

        return balanced_accuracy_of(self.model, state, *self.val, self.n_classes)

    def width_curve(self, state: dict, split: tuple | None = None) -> np.ndarray:
        """a(p) of ``state`` on the setting's widths (test split unless ``split`` is given)."""
        from fairshare.learning.aequa import width_accuracy_curve

        return width_accuracy_curve(self.model, state, self.widths, *(split or self.test), self.n_classes)

    def fit_curve(self, state: dict, curve: np.ndarray) -> np.ndarray:
        """a(p) the allocation fits on: the validation split's, or ``curve`` (the test split's) without one."""
        return curve if self.val is None else self.width_curve(state, self.val)

    def fingerprint(self) -> dict:
        """The arrays a job trains and evaluates on, for its settings hash."""
        return {"clients": [(c.x, c.y) for c in self.clients], "test": self.test, "val": self.val}

    def stream(self, name: str, *keys: int) -> np.random.Generator:
        """The setting's generator of stream ``name`` (its seed index, then ``keys``)."""
        return seeding.generator(self.root, name, self.seed, *keys)


def prepare(
    settings: AequaSettings,
    root: int,
    device_name: str,
    dataset: str,
    dataset_file: str,
    partition: Partition,
    seed_index: int,
    *,
    p_min: PerDataset,
    clients: int | None = None,
    partition_override=None,
) -> Setting:
    """Load, subset and partition the data, build the slimmable model and its initialisation, set the optimiser.

    ``p_min`` is the smallest width of this run (``settings.p_min``, or Table 8's ``p_min_ablation``);
    ``partition_override(labels, train_idx, rng)`` replaces the configured partition (real writer ids): it gets the
    kept training labels, their indices and the Generator.
    """
    import torch

    from fairshare.data.partition import make_partition
    from fairshare.learning import aequa as aq
    from fairshare.learning.device import resolve_device
    from fairshare.learning.engine import ClientData, TrainSettings

    device = resolve_device(device_name)
    ds = load_dataset(str(dataset_file))
    used, key, s = ds.name, f"{dataset}/{partition.name}", seed_index
    if device.type == "cpu":
        torch.set_num_threads(
            1
        )  # Snakemake runs one job per core; a second intra-op thread slows small convolutions ~5x

    part_rng = seeding.generator(root, f"aequa/partition/{key}", s)
    n_keep = lookup(settings.max_train_samples, used, dataset)
    train_idx = np.sort(part_rng.permutation(len(ds.y_train))[:n_keep]) if n_keep else np.arange(len(ds.y_train))
    val_idx = None
    allocation = settings.allocation
    if allocation.split == "validation":  # the server's validation set, held out from the clients' data
        order = seeding.generator(root, f"aequa/validation/{key}", s).permutation(len(train_idx))
        n_val = int(round(allocation.validation_fraction * len(train_idx)))
        val_idx, train_idx = np.sort(train_idx[order[:n_val]]), np.sort(train_idx[order[n_val:]])
    if partition_override is None:
        part = make_partition(ds.y_train[train_idx], partition.spec(used, clients or settings.clients), part_rng)
    else:
        part = partition_override(ds.y_train[train_idx], train_idx, part_rng)
    test_rng = seeding.generator(root, f"aequa/test/{dataset}", s)
    test_idx = test_rng.permutation(len(ds.y_test))[: settings.test_subset or len(ds.y_test)]
    n_feat = lookup(settings.max_features, used, dataset)
    if n_feat and ds.x_train.ndim == 2 and not is_tokens(ds.x_train):  # tabular data only
        ds = dataclasses.replace(ds, x_train=ds.x_train[:, :n_feat], x_test=ds.x_test[:, :n_feat])
    x, y = model_inputs(ds.x_train[train_idx], ds.y_train[train_idx], device)
    test = model_inputs(ds.x_test[test_idx], ds.y_test[test_idx], device)
    val = None if val_idx is None else model_inputs(ds.x_train[val_idx], ds.y_train[val_idx], device)
    client_data = [
        ClientData(x[torch.as_tensor(ix, device=device)], y[torch.as_tensor(ix, device=device)])
        for ix in part.client_indices
    ]

    model_name = lookup(settings.models, used, dataset)
    smallest = float(lookup(p_min, used, dataset))
    p_max = settings.p_max
    bn_grid = aq.width_grid(smallest, settings.bn_width_step, p_max) if aq.uses_batch_norm(model_name) else None
    torch.manual_seed(seeding.torch_seed(root, f"aequa/init/{key}", s))
    model = aq.build_slimmable_model(
        model_name,
        ds.input_shape,
        ds.n_classes,
        bn_widths=bn_grid,
        mlp_hidden=settings.mlp_hidden,
        resnet_base=settings.resnet_base,
        vocab_size=int(max(ds.x_train.max(), ds.x_test.max())) + 1 if is_tokens(ds.x_train) else None,
        text=settings.lstm,
    ).to(device)
    init = {n: v.detach().clone() for n, v in model.state_dict().items()}
    tr = settings.train
    rounds = lookup(tr.rounds, dataset, used)
    train = TrainSettings(
        epochs=tr.local_epochs,
        batch_size=tr.batch_size,
        lr=tr.lr,
        momentum=tr.momentum,
        weight_decay=lookup(tr.weight_decay, used, dataset),
        precision=settings.precision,
    )
    info = {
        "dataset": dataset,
        "dataset_used": used,
        "partition": partition.name,
        "scheme": partition.scheme,
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
        dataset=dataset,
        used=used,
        partition=partition,
        seed=s,
        root=root,
        key=key,
        device=device,
        model_name=model_name,
        model=model,
        init=init,
        clients=client_data,
        test=test,
        val=val,
        n_classes=ds.n_classes,
        train=train,
        rounds=rounds,
        lr_at=tr.schedule(rounds),
        order_rng=lambda r, i: seeding.generator(root, f"aequa/data_order/{key}", s, r, i),
        bn_grid=bn_grid,
        widths=bn_grid if bn_grid is not None else aq.width_grid(smallest, settings.width_step, p_max),
        p_min=smallest,
        p_max=p_max,
        executor=settings.executor,
        info=info,
    )


@dataclasses.dataclass(frozen=True)
class Job:
    """Where a training run checkpoints and the hash of what its result depends on (``rounds.settings_hash``)."""

    checkpoint: str | Path | None
    digest: str

    def rounds(self, step, initial_state, rounds: int, desc: str, probe=None) -> tuple[Any, list[dict]]:
        """``run_rounds`` with this job's checkpoint and settings hash: (final state, per-round metric rows);
        ``probe(state)``: the progress lines' headline where the rounds' metrics give none."""
        from fairshare.learning.rounds import run_rounds

        return run_rounds(
            step, initial_state, rounds, settings=self.digest, checkpoint=self.checkpoint, desc=desc, probe=probe
        )
