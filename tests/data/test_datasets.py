"""Dataset registry: offline datasets, local mirrors with checksums, clear errors, no partial files."""
from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

from fairshare import seeding
from fairshare.data import datasets as D
from tests.conftest import FASHION_MIRROR


def test_digits_split_is_deterministic_and_complete():
    a = D.build_dataset("digits", rng=seeding.generator(1, "dataset"))
    b = D.build_dataset("digits", rng=seeding.generator(1, "dataset"))
    assert a.x_train.shape[1:] == (1, 8, 8) and a.x_train.dtype == np.uint8
    assert len(a.y_train) + len(a.y_test) == 1797
    assert np.array_equal(a.y_train, b.y_train) and np.array_equal(a.x_test, b.x_test)


def test_synthetic_shapes_and_learnability():
    ds = D.build_dataset("synthetic", rng=seeding.generator(0, "dataset"), synthetic={"n_train": 500, "n_test": 200, "n_features": 8, "n_classes": 3, "class_sep": 3.0})
    assert ds.x_train.shape == (500, 8) and ds.n_classes == 3
    means = np.stack([ds.x_train[ds.y_train == c].mean(0) for c in range(3)])
    pred = np.argmin(((ds.x_test[:, None, :] - means[None]) ** 2).sum(-1), axis=1)
    assert (pred == ds.y_test).mean() > 0.8  # well-separated classes are learnable by nearest mean


def test_missing_dataset_offline_names_dataset_places_and_fix(tmp_path):
    with pytest.raises(D.DatasetUnavailableError) as info:
        D.fetch_raw("cifar10", tmp_path / "raw", mirrors=[tmp_path / "nowhere"], allow_download=False)
    msg = str(info.value)
    assert "cifar10" in msg and str(tmp_path / "nowhere") in msg and "allow" in msg and "\n" not in msg
    assert not any((tmp_path / "raw").iterdir())  # nothing half-written left behind


def _mnist_like_mirror(tmp_path: Path) -> Path:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for f in FASHION_MIRROR.glob("*.gz"):
        shutil.copyfile(f, mirror / f.name)
    return mirror


@pytest.fixture
def fashion_mirror(tmp_path):
    if not (FASHION_MIRROR / "train-labels-idx1-ubyte.gz").is_file():
        pytest.skip("Debian package dataset-fashion-mnist is not installed")
    return _mnist_like_mirror(tmp_path)


def test_fashion_mnist_from_local_mirror(tmp_path, fashion_mirror):
    ds = D.build_dataset("fashion_mnist", raw_dir=tmp_path / "raw", mirrors=[tmp_path / "empty", fashion_mirror])
    assert ds.x_train.shape == (60000, 1, 28, 28) and ds.x_test.shape == (10000, 1, 28, 28)
    assert np.bincount(ds.y_train).tolist() == [6000] * 10
    cache = tmp_path / "processed" / "fashion_mnist.npz"
    D.save_cache(ds, cache)
    back = D.load_cache(cache)
    assert np.array_equal(back.y_test, ds.y_test) and back.classes == ds.classes


def test_corrupted_mirror_file_is_rejected_by_checksum(tmp_path, fashion_mirror):
    target = fashion_mirror / "train-labels-idx1-ubyte.gz"
    payload = bytearray(gzip.decompress(target.read_bytes()))
    payload[100] ^= 0xFF  # flip one label byte: still a valid gzip and a valid IDX file
    target.write_bytes(gzip.compress(bytes(payload)))
    with pytest.raises(D.DatasetUnavailableError, match="fails its MD5 checksum"):
        D.fetch_raw("fashion_mnist", tmp_path / "raw", mirrors=[fashion_mirror])
    assert not (tmp_path / "raw" / "fashion_mnist").exists()
    assert not [p for p in (tmp_path / "raw").iterdir()]  # the staging folder was removed


def test_unreadable_cache_gives_fix(tmp_path):
    bad = tmp_path / "digits.npz"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(D.DatasetUnavailableError, match="delete it and rerun"):
        D.load_cache(bad)


def test_offline_fallback_only_when_unavailable(tmp_path):
    kwargs = dict(raw_dir=tmp_path / "raw", processed_dir=tmp_path / "p", mirrors=[tmp_path], fallback={"cifar10": "synthetic"})
    assert D.resolve_dataset("cifar10", allow_download=False, **kwargs) == "synthetic"
    assert D.resolve_dataset("cifar10", allow_download=True, **kwargs) == "cifar10"
    assert D.resolve_dataset("svhn", allow_download=False, **kwargs) == "svhn"  # no fallback: the rule will fail clearly
