"""Writer partitions (Aequa's FEMNIST stand-in and real writer ids) and the LEAF FEMNIST loader, on generated data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairshare.data.datasets import DatasetUnavailableError
from fairshare.data.leaf import load_femnist
from fairshare.data.partition import PartitionError, by_writer, make_partition, writers


def _labels(n=5000, k=10, seed=0):
    return np.random.default_rng(seed).integers(0, k, n)


def test_writer_partition_is_disjoint_complete_heavy_tailed_and_deterministic():
    labels = _labels()
    part = writers(labels, 100, np.random.default_rng(1), size_sigma=1.0, alpha=0.5, min_size=10)
    flat = np.concatenate(part.client_indices)
    assert len(flat) == len(labels) == len(np.unique(flat))  # every sample used once
    sizes = part.sizes
    assert sizes.min() >= 10 and sizes.max() > 4 * np.median(sizes)  # a few large writers, many small ones
    mix = part.counts / part.counts.sum(1, keepdims=True)
    assert np.median(mix.max(1)) > 0.3  # Dirichlet(0.5) label mixes are skewed (uniform would be ~0.1)
    again = make_partition(
        labels,
        {"scheme": "writers", "clients": 100, "size_sigma": 1.0, "alpha": 0.5, "min_size": 10},
        np.random.default_rng(1),
    )
    assert all(np.array_equal(a, b) for a, b in zip(part.client_indices, again.client_indices))


def test_writer_partition_min_size_binds_under_a_heavy_tail():
    part = writers(_labels(), 100, np.random.default_rng(2), size_sigma=3.0, min_size=10)
    assert part.sizes.min() == 10 and (part.sizes == 10).sum() > 10  # the floor is hit, never undercut
    assert part.sizes.sum() == 5000


def test_writer_partition_errors():
    with pytest.raises(PartitionError, match="not enough data"):
        writers(_labels(500), 100, np.random.default_rng(0), min_size=10)
    with pytest.raises(PartitionError):
        writers(_labels(), 10, np.random.default_rng(0), alpha=0)


def test_by_writer_groups_samples_and_drops_small_writers():
    labels = np.array([0, 1, 2, 0, 1, 2, 3])
    ids = np.array([7, 7, 7, 3, 3, 9, 3])
    part = by_writer(labels, ids, min_size=2)
    assert [ix.tolist() for ix in part.client_indices] == [[3, 4, 6], [0, 1, 2]]  # writers 3 and 7; 9 has one sample
    assert part.params["writers"] == [3, 7] and part.counts[0].tolist() == [1, 1, 0, 1]
    sub = by_writer(labels, ids, min_size=1, max_clients=2, rng=np.random.default_rng(0))
    again = by_writer(labels, ids, min_size=1, max_clients=2, rng=np.random.default_rng(0))
    assert sub.n_clients == 2 and sub.params["writers"] == again.params["writers"]
    for w, ix in zip(sub.params["writers"], sub.client_indices):
        assert ix.tolist() == np.flatnonzero(ids == w).tolist()  # each client is one whole writer
    with pytest.raises(PartitionError, match="Generator"):
        by_writer(labels, ids, max_clients=2)
    with pytest.raises(PartitionError):
        by_writer(labels, ids[:3])


def _write_leaf(root, users_per_file):
    """LEAF's layout: train/ and test/ with one JSON file per entry of ``users_per_file``; returns the train y."""
    rng = np.random.default_rng(0)
    y_train = []
    for split in ("train", "test"):
        (root / split).mkdir(parents=True)
        for f, users in enumerate(users_per_file):
            data = {
                u: {"x": rng.random((n, 784)).round(3).tolist(), "y": rng.integers(0, 62, n).tolist()}
                for u, n in users.items()
            }
            blob = {"users": list(users), "num_samples": list(users.values()), "user_data": data}
            (root / split / f"all_data_{f}.json").write_text(json.dumps(blob))
            if split == "train":
                y_train += [y for u in users for y in data[u]["y"]]
    return y_train


def test_leaf_loader_reads_arrays_and_writer_ids(tmp_path):
    y_train = _write_leaf(tmp_path, [{"f0001": 3, "f0002": 2}, {"f0003": 4}])
    ds, w_train, w_test = load_femnist(tmp_path)
    assert ds.x_train.shape == (9, 1, 28, 28) and ds.x_train.dtype == np.uint8 and ds.n_classes == 62
    assert ds.y_train.dtype == np.int64 and ds.y_train.tolist() == y_train
    assert (
        w_train.tolist() == [0, 0, 0, 1, 1, 2, 2, 2, 2] and w_test.tolist() == w_train.tolist() and len(ds.y_test) == 9
    )
    first = json.loads((tmp_path / "train" / "all_data_0.json").read_text())["user_data"]["f0001"]["x"][0]
    assert np.array_equal(ds.x_train[0, 0].ravel(), np.round(np.asarray(first, np.float32) * 255).astype(np.uint8))


def test_missing_and_corrupt_leaf_data_name_the_problem(tmp_path):
    with pytest.raises(DatasetUnavailableError, match="preprocess.sh") as err:
        load_femnist(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(err.value)
    _write_leaf(tmp_path, [{"a": 2}])
    (tmp_path / "train" / "all_data_0.json").write_text("{not json")
    with pytest.raises(DatasetUnavailableError, match="all_data_0.json"):
        load_femnist(tmp_path)


def test_leaf_label_outside_62_classes_names_the_file(tmp_path):
    _write_leaf(tmp_path, [{"a": 2}])
    path = tmp_path / "test" / "all_data_0.json"
    blob = json.loads(path.read_text())
    blob["user_data"]["a"]["y"][0] = 62
    path.write_text(json.dumps(blob))
    with pytest.raises(DatasetUnavailableError, match=r"test.all_data_0\.json"):
        load_femnist(tmp_path)
