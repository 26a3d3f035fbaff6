"""Every client-partition scheme the papers use, as pure functions of (labels, parameters, Generator).

Each returns a :class:`Partition`: one index array per client (into the training set) and a clients x classes
count table. Schemes and their sources:

- ``homogeneous``: equal number of samples of every class per client (Aequa §6.1); remainders are dropped.
- ``iid``: a random permutation cut into equal shares.
- ``dirichlet``: NIID-Bench label skew, per class q ~ Dir(alpha); clients already holding >= n/N samples get
  no more of later classes; redrawn until every client has ``min_size`` samples (Aequa, payoff paper baselines).
- ``quantity_skew``: ``n_large`` clients get ``share`` of every class each; the rest split the remainder
  equally, so label proportions stay uniform (Aequa "imbalanced", ShapFed-style).
- ``label_skew``: #OC = k classes per client; client i always holds class i mod K plus k-1 random others;
  each class is split equally among its holders (NIID-Bench).
- ``mmfl_iid`` / ``mmfl_noniid``: the multi-model FL code's splits (per-client size uniform in a range, samples
  taken round-robin over classes in dataset order; non-iid picks the classes with most remaining samples).
- ``label_range``: party j owns every sample with label in [lo_j, hi_j]; parties may overlap (payoff paper).
- ``writers``: LEAF-like writer clients for data without writer ids (Aequa §6.6 stand-in for FEMNIST): log-normal
  client sizes and a Dirichlet label mix per writer. :func:`by_writer` makes one client per real writer id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairshare.errors import UserError

__all__ = [
    "PartitionError",
    "Partition",
    "homogeneous",
    "iid",
    "dirichlet",
    "quantity_skew",
    "label_skew",
    "mmfl_iid",
    "mmfl_noniid",
    "label_range",
    "writers",
    "by_writer",
    "make_partition",
]


class PartitionError(UserError, ValueError):
    """Parameters a partition scheme cannot satisfy (e.g. not enough data)."""


@dataclass
class Partition:
    """Client index lists and their class-count table."""

    scheme: str
    client_indices: list[np.ndarray]
    counts: np.ndarray  # shape (clients, classes)
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n_clients(self) -> int:
        return len(self.client_indices)

    @property
    def sizes(self) -> np.ndarray:
        return np.array([len(ix) for ix in self.client_indices])

    def to_json(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "params": self.params,
            "sizes": self.sizes.tolist(),
            "counts": self.counts.tolist(),
            "client_indices": [ix.tolist() for ix in self.client_indices],
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Partition:
        return cls(
            obj["scheme"],
            [np.asarray(ix, dtype=np.int64) for ix in obj["client_indices"]],
            np.asarray(obj["counts"], dtype=np.int64),
            obj.get("params", {}),
        )


def _finish(
    scheme: str, labels: np.ndarray, parts: Sequence[Sequence[int] | np.ndarray], n_classes: int, params: dict
) -> Partition:
    indices = [np.sort(np.asarray(p, dtype=np.int64)) for p in parts]
    counts = (
        np.stack([np.bincount(labels[ix], minlength=n_classes) for ix in indices])
        if indices
        else np.zeros((0, n_classes), int)
    )
    return Partition(scheme, indices, counts.astype(np.int64), params)


def _check(labels: np.ndarray, n_clients: int) -> tuple[np.ndarray, int]:
    labels = np.asarray(labels)
    if labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer) or (len(labels) and labels.min() < 0):
        raise PartitionError("labels must be a 1-D array of non-negative integers")
    if n_clients < 1:
        raise PartitionError(f"need at least one client, got {n_clients}")
    return labels, int(labels.max()) + 1 if len(labels) else 0


def homogeneous(labels: np.ndarray, n_clients: int, rng: np.random.Generator) -> Partition:
    labels, k = _check(labels, n_clients)
    parts: list[list[int]] = [[] for _ in range(n_clients)]
    for c in range(k):
        idx = rng.permutation(np.flatnonzero(labels == c))
        per = len(idx) // n_clients
        for i in range(n_clients):
            parts[i].extend(idx[i * per : (i + 1) * per])
    return _finish("homogeneous", labels, parts, k, {"clients": n_clients})


def iid(labels: np.ndarray, n_clients: int, rng: np.random.Generator) -> Partition:
    labels, k = _check(labels, n_clients)
    return _finish("iid", labels, np.array_split(rng.permutation(len(labels)), n_clients), k, {"clients": n_clients})


def dirichlet(
    labels: np.ndarray,
    n_clients: int,
    alpha: float,
    rng: np.random.Generator,
    min_size: int = 10,
    max_tries: int = 1000,
) -> Partition:
    labels, k = _check(labels, n_clients)
    if alpha <= 0:
        raise PartitionError(f"Dirichlet alpha must be positive, got {alpha}")
    if min_size * n_clients > len(labels):
        raise PartitionError(
            f"cannot give {n_clients} clients at least {min_size} samples each from {len(labels)} samples"
        )
    cap = len(labels) / n_clients
    for _ in range(max_tries):
        parts: list[list[int]] = [[] for _ in range(n_clients)]
        for c in range(k):
            idx = rng.permutation(np.flatnonzero(labels == c))
            q = rng.dirichlet(np.full(n_clients, alpha))
            q = q * np.array([len(p) < cap for p in parts])
            q = q / q.sum()
            cuts = (np.cumsum(q) * len(idx)).astype(int)[:-1]
            for i, chunk in enumerate(np.split(idx, cuts)):
                parts[i].extend(chunk)
        if min(len(p) for p in parts) >= min_size:
            return _finish("dirichlet", labels, parts, k, {"clients": n_clients, "alpha": alpha, "min_size": min_size})
    raise PartitionError(
        f"Dirichlet(alpha={alpha}) failed to give every client {min_size} samples in {max_tries} draws; lower min_size or raise alpha"
    )


def quantity_skew(
    labels: np.ndarray, n_clients: int, share: float, n_large: int, rng: np.random.Generator
) -> Partition:
    labels, k = _check(labels, n_clients)
    if not 0 < share * n_large < 1 or n_large >= n_clients:
        raise PartitionError(
            f"quantity skew needs n_large < clients and 0 < share*n_large < 1 (got share={share}, n_large={n_large}, clients={n_clients})"
        )
    parts: list[list[int]] = [[] for _ in range(n_clients)]
    for c in range(k):
        idx = rng.permutation(np.flatnonzero(labels == c))
        big = int(share * len(idx))
        for i in range(n_large):
            parts[i].extend(idx[i * big : (i + 1) * big])
        for i, chunk in enumerate(np.array_split(idx[n_large * big :], n_clients - n_large)):
            parts[n_large + i].extend(chunk)
    return _finish("quantity_skew", labels, parts, k, {"clients": n_clients, "share": share, "n_large": n_large})


def label_skew(labels: np.ndarray, n_clients: int, classes_per_client: int, rng: np.random.Generator) -> Partition:
    labels, k = _check(labels, n_clients)
    if not 1 <= classes_per_client <= k:
        raise PartitionError(f"classes_per_client must be in 1..{k}, got {classes_per_client}")
    held = []
    for i in range(n_clients):
        own = i % k
        others = rng.choice(np.setdiff1d(np.arange(k), [own]), size=classes_per_client - 1, replace=False)
        held.append({own, *others.tolist()})
    parts: list[list[int]] = [[] for _ in range(n_clients)]
    for c in range(k):
        holders = [i for i in range(n_clients) if c in held[i]]
        if holders:
            for i, chunk in zip(holders, np.array_split(rng.permutation(np.flatnonzero(labels == c)), len(holders))):
                parts[i].extend(chunk)
    return _finish("label_skew", labels, parts, k, {"clients": n_clients, "classes_per_client": classes_per_client})


def _round_robin(
    pools: dict[int, list[int]], cursor: dict[int, int], classes: Sequence[int], start: int, size: int
) -> list[int]:
    taken = []
    order = list(classes)
    j = start
    while len(taken) < size:
        c = order[j % len(order)]
        if cursor[c] >= len(pools[c]):
            raise PartitionError(f"not enough data: class {c} ran out while filling a client of {size} samples")
        taken.append(pools[c][cursor[c]])
        cursor[c] += 1
        j += 1
    return taken


def _mmfl(
    labels: np.ndarray, n_clients: int, size_range: Sequence[int], rng: np.random.Generator, class_ratio: float | None
) -> Partition:
    labels, k = _check(labels, n_clients)
    lo, hi = size_range
    if lo > hi:
        raise PartitionError(f"size_range must be [min, max] with min <= max, got {list(size_range)}")
    pools = {c: np.flatnonzero(labels == c).tolist() for c in range(k)}  # dataset order, as the authors' code
    cursor = {c: 0 for c in range(k)}
    parts = []
    n_cls = k if class_ratio is None else max(1, int(class_ratio * k))
    for _ in range(n_clients):
        size = int(rng.integers(lo, hi + 1))
        if class_ratio is None:
            classes = list(range(k))
        else:
            remaining = np.array([len(pools[c]) - cursor[c] for c in range(k)], dtype=float)
            noise = rng.random(k)  # random tie-break among equally full classes
            classes = sorted(np.lexsort((noise, -remaining))[:n_cls].tolist())
        parts.append(_round_robin(pools, cursor, classes, int(rng.integers(len(classes))), size))
    params = {"clients": n_clients, "size_range": list(size_range)}
    if class_ratio is not None:
        params["class_ratio"] = class_ratio
    return _finish("mmfl_iid" if class_ratio is None else "mmfl_noniid", labels, parts, k, params)


def mmfl_iid(labels: np.ndarray, n_clients: int, size_range: Sequence[int], rng: np.random.Generator) -> Partition:
    return _mmfl(labels, n_clients, size_range, rng, None)


def mmfl_noniid(
    labels: np.ndarray, n_clients: int, size_range: Sequence[int], class_ratio: float, rng: np.random.Generator
) -> Partition:
    return _mmfl(labels, n_clients, size_range, rng, class_ratio)


def label_range(labels: np.ndarray, ranges: Sequence[Sequence[int]]) -> Partition:
    labels, k = _check(labels, max(1, len(ranges)))
    for lo, hi in ranges:
        if lo > hi or hi >= k:
            raise PartitionError(f"label range [{lo}, {hi}] is invalid for labels 0..{k - 1}")
    parts = [np.flatnonzero((labels >= lo) & (labels <= hi)) for lo, hi in ranges]
    return _finish("label_range", labels, parts, k, {"label_ranges": [list(r) for r in ranges]})


def writers(
    labels: np.ndarray,
    n_clients: int,
    rng: np.random.Generator,
    *,
    size_sigma: float = 1.0,
    alpha: float = 0.5,
    min_size: int = 10,
) -> Partition:
    """Writer-like clients for data without writer ids (Aequa Sec. 6.6, docs/aequa.md; a stand-in for offline profiles).

    LEAF's FEMNIST writers come from NIST SD19's form metadata, which other datasets lack, so every parameter here
    is a reconstruction, not a paper value:

    - ``size_sigma``: client sizes are ``min_size`` each plus the remaining samples shared in proportion to
      log-normal(0, ``size_sigma``) draws, so a few writers hold many samples and most hold few (0 = equal sizes).
    - ``alpha``: writer w draws its samples from q_w ~ Dir(``alpha``) over the classes (writers' label imbalance),
      renormalised over the classes that still have samples, so late writers take what is left.
    - ``min_size``: the floor on every client's size.

    Sampling is without replacement and uses every sample exactly once.
    """
    labels, k = _check(labels, n_clients)
    if size_sigma < 0 or alpha <= 0 or min_size < 1:
        raise PartitionError(
            f"writers needs size_sigma >= 0, alpha > 0, min_size >= 1 (got {size_sigma}, {alpha}, {min_size})"
        )
    if len(labels) < n_clients * min_size:
        raise PartitionError(
            f"not enough data: {n_clients} writers x {min_size} samples need {n_clients * min_size}, have {len(labels)}"
        )
    share = rng.lognormal(0.0, size_sigma, n_clients)
    extra = len(labels) - n_clients * min_size
    sizes = min_size + np.floor(extra * share / share.sum()).astype(int)
    sizes[np.argsort(-share)[: len(labels) - sizes.sum()]] += (
        1  # hand out the rounding remainder to the largest writers
    )
    pools = [list(rng.permutation(np.flatnonzero(labels == c))) for c in range(k)]
    left = np.array([len(p) for p in pools])
    parts = []
    for size in sizes:
        mix = rng.dirichlet(np.full(k, alpha))
        mine: list[int] = []
        while len(mine) < size:
            weights = np.where(left > 0, mix, 0.0)
            weights = weights / weights.sum() if weights.sum() > 0 else (left > 0) / (left > 0).sum()
            draw = np.minimum(rng.multinomial(size - len(mine), weights), left)
            for c in np.flatnonzero(draw):
                mine += pools[c][len(pools[c]) - left[c] : len(pools[c]) - left[c] + draw[c]]
                left[c] -= draw[c]
        parts.append(np.sort(np.asarray(mine, dtype=np.int64)))
    return _finish(
        "writers",
        labels,
        parts,
        k,
        {"clients": n_clients, "size_sigma": size_sigma, "alpha": alpha, "min_size": min_size},
    )


def by_writer(
    labels: np.ndarray,
    writer_ids: np.ndarray,
    *,
    min_size: int = 1,
    max_clients: int | None = None,
    rng: np.random.Generator | None = None,
) -> Partition:
    """One client per real writer (LEAF FEMNIST, Aequa Sec. 6.6) holding at least ``min_size`` samples; with
    ``max_clients``, a random subset of them (needs ``rng``). Clients are ordered by writer id; ``params['writers']``
    lists the id of each."""
    labels, k = _check(labels, 1)
    writer_ids = np.asarray(writer_ids)
    if writer_ids.shape != labels.shape:
        raise PartitionError(f"{len(writer_ids)} writer ids for {len(labels)} samples")
    ids, counts = np.unique(writer_ids, return_counts=True)
    kept = ids[counts >= min_size]
    if max_clients is not None and len(kept) > max_clients:
        if rng is None:
            raise PartitionError("choosing max_clients of the writers needs a Generator")
        kept = np.sort(rng.choice(kept, size=max_clients, replace=False))
    if len(kept) == 0:
        raise PartitionError(f"no writer has {min_size} or more samples")
    parts = [np.flatnonzero(writer_ids == w) for w in kept]
    return _finish(
        "by_writer", labels, parts, k, {"min_size": min_size, "max_clients": max_clients, "writers": kept.tolist()}
    )


def make_partition(labels: np.ndarray, spec: dict[str, Any], rng: np.random.Generator) -> Partition:
    """Dispatch on ``spec['scheme']`` with the parameter names of ``workflow/schemas/partition.schema.yaml``."""
    scheme, n = spec["scheme"], spec.get("clients", 1)
    if scheme == "homogeneous":
        return homogeneous(labels, n, rng)
    if scheme == "iid":
        return iid(labels, n, rng)
    if scheme == "dirichlet":
        return dirichlet(labels, n, spec.get("alpha", 0.5), rng, spec.get("min_size", 10))
    if scheme == "quantity_skew":
        return quantity_skew(labels, n, spec.get("share", 0.4), spec.get("n_large", 2), rng)
    if scheme == "label_skew":
        return label_skew(labels, n, spec.get("classes_per_client", 3), rng)
    if scheme == "mmfl_iid":
        return mmfl_iid(labels, n, spec.get("size_range", (400, 500)), rng)
    if scheme == "mmfl_noniid":
        return mmfl_noniid(labels, n, spec.get("size_range", (400, 500)), spec.get("class_ratio", 0.5), rng)
    if scheme == "label_range":
        return label_range(labels, spec["label_ranges"])
    if scheme == "writers":
        return writers(
            labels,
            n,
            rng,
            size_sigma=spec.get("size_sigma", 1.0),
            alpha=spec.get("alpha", 0.5),
            min_size=spec.get("min_size", 10),
        )
    raise PartitionError(f"unknown partition scheme '{scheme}'")
