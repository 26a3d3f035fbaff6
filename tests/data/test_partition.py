"""Each partition scheme's defining property, on real labels (digits, Fashion-MNIST)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairshare import seeding
from fairshare.data import partition as P


def _disjoint_and_valid(part: P.Partition, n: int) -> np.ndarray:
    allidx = np.concatenate(part.client_indices)
    assert len(np.unique(allidx)) == len(allidx), "clients share samples"
    assert allidx.min() >= 0 and allidx.max() < n
    return allidx


def test_homogeneous_equal_per_class(digits_labels):
    part = P.homogeneous(digits_labels, 7, seeding.generator(1, "partition"))
    _disjoint_and_valid(part, len(digits_labels))
    per_class = np.bincount(digits_labels) // 7
    assert (part.counts == per_class[None, :]).all()


def test_iid_equal_sizes_and_covers_everything(digits_labels):
    part = P.iid(digits_labels, 6, seeding.generator(1, "partition"))
    allidx = _disjoint_and_valid(part, len(digits_labels))
    assert len(allidx) == len(digits_labels)
    assert part.sizes.max() - part.sizes.min() <= 1


def test_counts_table_matches_indices(digits_labels):
    part = P.dirichlet(digits_labels, 5, 0.3, seeding.generator(2, "partition"), min_size=10)
    for i, ix in enumerate(part.client_indices):
        assert (np.bincount(digits_labels[ix], minlength=10) == part.counts[i]).all()


@pytest.mark.parametrize("alpha", [0.1, 0.5, 100.0])
def test_dirichlet_min_size_and_skew(fashion_labels, alpha):
    part = P.dirichlet(fashion_labels, 10, alpha, seeding.generator(3, "partition"), min_size=10)
    allidx = _disjoint_and_valid(part, len(fashion_labels))
    assert len(allidx) == len(fashion_labels)  # every sample is assigned
    assert part.sizes.min() >= 10
    shares = part.counts / part.counts.sum(axis=1, keepdims=True)
    spread = np.abs(shares - 0.1).sum(axis=1).mean()  # total-variation-like distance from uniform labels
    if alpha == 100.0:
        assert spread < 0.1
    if alpha == 0.1:
        assert spread > 0.8


def test_dirichlet_impossible_min_size_is_an_error(digits_labels):
    with pytest.raises(P.PartitionError, match="at least"):
        P.dirichlet(digits_labels, 200, 0.5, seeding.generator(0, "partition"), min_size=10)


def test_quantity_skew_shares_and_uniform_labels(fashion_labels):
    part = P.quantity_skew(fashion_labels, 10, 0.4, 2, seeding.generator(4, "partition"))
    _disjoint_and_valid(part, len(fashion_labels))
    total = len(fashion_labels)
    assert abs(part.sizes[0] / total - 0.4) < 1e-3 and abs(part.sizes[1] / total - 0.4) < 1e-3
    rest = part.sizes[2:]
    assert rest.max() - rest.min() <= 10  # the remainder is split equally (per class, up to rounding)
    assert (part.counts[:2] == part.counts[:2, :1]).all()  # each large client has the same count of every class


def test_label_skew_classes_per_client(digits_labels):
    part = P.label_skew(digits_labels, 12, 3, seeding.generator(5, "partition"))
    _disjoint_and_valid(part, len(digits_labels))
    held = part.counts > 0
    assert (held.sum(axis=1) == 3).all()
    assert all(held[i, i % 10] for i in range(12))  # client i always holds class i mod K


def test_mmfl_iid_sizes_and_balance(digits_labels):
    part = P.mmfl_iid(digits_labels, 8, (50, 60), seeding.generator(6, "partition"))
    _disjoint_and_valid(part, len(digits_labels))
    assert ((part.sizes >= 50) & (part.sizes <= 60)).all()
    assert (part.counts.max(axis=1) - part.counts.min(axis=1) <= 1).all()  # round robin over all classes


def test_mmfl_noniid_class_ratio(digits_labels):
    part = P.mmfl_noniid(digits_labels, 10, (40, 60), 0.5, seeding.generator(7, "partition"))
    _disjoint_and_valid(part, len(digits_labels))
    assert ((part.counts > 0).sum(axis=1) == 5).all()
    assert ((part.sizes >= 40) & (part.sizes <= 60)).all()


def test_mmfl_not_enough_data(digits_labels):
    with pytest.raises(P.PartitionError, match="not enough data"):
        P.mmfl_iid(digits_labels, 40, (100, 100), seeding.generator(0, "partition"))


def test_label_range_parties_overlap_as_specified(fashion_labels):
    part = P.label_range(fashion_labels, [[0, 0], [1, 2], [0, 3], [3, 5], [6, 9]])
    assert part.sizes.tolist() == [6000, 12000, 24000, 18000, 24000]  # Fashion-MNIST: 6000 images per class
    assert set(np.flatnonzero(part.counts[2])) == {0, 1, 2, 3}
    assert np.isin(part.client_indices[0], part.client_indices[2]).all()  # [0] is a subset of [0-3]


@pytest.mark.parametrize(
    "spec",
    [
        {"scheme": "homogeneous", "clients": 5},
        {"scheme": "dirichlet", "clients": 5, "alpha": 0.5},
        {"scheme": "quantity_skew", "clients": 5, "share": 0.3, "n_large": 1},
        {"scheme": "label_skew", "clients": 5, "classes_per_client": 2},
        {"scheme": "mmfl_noniid", "clients": 5, "size_range": [30, 40], "class_ratio": 0.3},
    ],
)
def test_same_seed_same_bytes_other_seed_differs(digits_labels, spec):
    def draw(seed):
        part = P.make_partition(digits_labels, spec, seeding.generator(seed, "partition"))
        return json.dumps(part.to_json()).encode()

    assert draw(11) == draw(11)
    assert draw(11) != draw(12)


def test_roundtrip_json(digits_labels):
    part = P.label_skew(digits_labels, 4, 2, seeding.generator(0, "partition"))
    back = P.Partition.from_json(json.loads(json.dumps(part.to_json())))
    assert all((a == b).all() for a, b in zip(part.client_indices, back.client_indices))
    assert (back.counts == part.counts).all()
