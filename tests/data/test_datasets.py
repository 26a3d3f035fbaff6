"""Dataset registry: offline datasets, mirrors matched by dataset, checked raw files and caches, one-line errors.

Every corrupted file (raw, mirror archive, cache) must stop with one line naming the file and the fix, and nothing
built from it may be left behind. Tests that need real files use Debian's Fashion-MNIST package and skip without it.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from fairshare import seeding
from fairshare.cli import main as cli_main
from fairshare.data import datasets as D
from fairshare.pipeline.config import dataset_mirrors, validate_config
from tests.conftest import FASHION_MIRROR

NEEDS_FASHION = "Debian package dataset-fashion-mnist is not installed (apt-get install dataset-fashion-mnist)"


def _one_line_naming(exc: pytest.ExceptionInfo, path: Path, fix: str) -> None:
    message = str(exc.value)
    assert "\n" not in message and str(path) in message and fix in message, message


def test_digits_split_is_deterministic_and_complete():
    a = D.build_dataset("digits", rng=seeding.generator(1, "dataset"))
    b = D.build_dataset("digits", rng=seeding.generator(1, "dataset"))
    assert a.x_train.shape[1:] == (1, 8, 8) and a.x_train.dtype == np.uint8
    assert len(a.y_train) + len(a.y_test) == 1797
    assert np.array_equal(a.y_train, b.y_train) and np.array_equal(a.x_test, b.x_test)


def test_synthetic_shapes_and_learnability():
    ds = D.build_dataset(
        "synthetic",
        rng=seeding.generator(0, "dataset"),
        synthetic={"n_train": 500, "n_test": 200, "n_features": 8, "n_classes": 3, "class_sep": 3.0},
    )
    assert ds.x_train.shape == (500, 8) and ds.n_classes == 3
    means = np.stack([ds.x_train[ds.y_train == c].mean(0) for c in range(3)])
    pred = np.argmin(((ds.x_test[:, None, :] - means[None]) ** 2).sum(-1), axis=1)
    assert (pred == ds.y_test).mean() > 0.8  # well-separated classes are learnable by nearest mean


def test_missing_dataset_offline_names_dataset_places_and_the_config_key(tmp_path):
    with pytest.raises(D.DatasetUnavailableError) as info:
        D.fetch_raw("cifar10", tmp_path / "raw", mirrors=[tmp_path / "nowhere"], allow_download=False)
    msg = str(info.value)
    assert "cifar10" in msg and str(tmp_path / "nowhere") in msg and "\n" not in msg
    assert "data.allow_download: true" in msg and "--allow-download" not in msg  # a config key, not a pipeline flag
    assert not any((tmp_path / "raw").iterdir())  # nothing half-written left behind


# --- mirrors are matched by dataset ---------------------------------------------------------------------------------


def _data_block(tmp_path: Path, **changes) -> dict:
    return validate_config({"data": {"mirror_dir": str(tmp_path / "mirror"), **changes}})["data"]


def test_default_mirrors_serve_only_fashion_mnist(tmp_path):
    data = _data_block(tmp_path)
    assert dataset_mirrors(data, "fashion_mnist") == [str(FASHION_MIRROR), f"{tmp_path}/mirror/fashion_mnist"]
    assert dataset_mirrors(data, "mnist") == [f"{tmp_path}/mirror/mnist"]


def test_mnist_is_not_found_in_the_fashion_mnist_folder(tmp_path):
    """The two datasets share file names: MNIST used to be 'found' there and rejected with advice to delete a system file."""
    if not (FASHION_MIRROR / "train-labels-idx1-ubyte.gz").is_file():
        pytest.skip(NEEDS_FASHION)
    data = _data_block(tmp_path)
    kwargs = dict(
        raw_dir=tmp_path / "raw", processed_dir=tmp_path / "p", allow_download=False, fallback={"mnist": "digits"}
    )
    assert D.resolve_dataset("mnist", mirrors=dataset_mirrors(data, "mnist"), **kwargs) == "digits"
    assert (
        D.resolve_dataset("fashion_mnist", mirrors=dataset_mirrors(data, "fashion_mnist"), **kwargs) == "fashion_mnist"
    )
    with pytest.raises(D.DatasetUnavailableError, match="'mnist' is not available") as info:
        D.fetch_raw("mnist", tmp_path / "raw", mirrors=dataset_mirrors(data, "mnist"))
    assert str(FASHION_MIRROR) not in str(info.value)


@pytest.fixture
def fashion_mirror(tmp_path) -> Path:
    """A copy of Debian's Fashion-MNIST archives in the project mirror folder layout (<mirror_dir>/fashion_mnist)."""
    if not (FASHION_MIRROR / "train-labels-idx1-ubyte.gz").is_file():
        pytest.skip(NEEDS_FASHION)
    mirror = tmp_path / "mirror" / "fashion_mnist"
    mirror.mkdir(parents=True)
    for f in FASHION_MIRROR.glob("*.gz"):
        shutil.copyfile(f, mirror / f.name)
    return mirror


def test_fashion_mnist_from_the_project_mirror_folder(tmp_path, fashion_mirror):
    data = _data_block(tmp_path, mirrors={})  # no configured folder: <mirror_dir>/fashion_mnist alone
    ds = D.build_dataset("fashion_mnist", raw_dir=tmp_path / "raw", mirrors=dataset_mirrors(data, "fashion_mnist"))
    assert ds.x_train.shape == (60000, 1, 28, 28) and ds.x_test.shape == (10000, 1, 28, 28)
    assert np.bincount(ds.y_train).tolist() == [6000] * 10
    cache = tmp_path / "processed" / "fashion_mnist.npz"
    D.save_cache(ds, cache)
    back = D.load_cache(cache)
    assert np.array_equal(back.y_test, ds.y_test) and back.classes == ds.classes


def _flip_label(data: bytes) -> bytes:
    payload = bytearray(gzip.decompress(data))
    payload[100] ^= 0xFF  # one label byte: still a valid gzip and a valid IDX header
    return gzip.compress(bytes(payload))


def _relabel(data: bytes) -> bytes:
    payload = bytearray(gzip.decompress(data))
    payload[100] = (payload[100] + 1) % 10  # a label still within the 10 classes: only the MD5 tells
    return gzip.compress(bytes(payload))


def _flip_compressed(data: bytes) -> bytes:
    out = bytearray(data)
    out[len(out) // 2] ^= 0x55
    return bytes(out)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda b: b[: len(b) // 2], id="truncated"),
        pytest.param(lambda b: b"", id="empty"),
        pytest.param(lambda b: b"not a gzip archive", id="not-gzip"),
        pytest.param(_flip_compressed, id="bit-flipped"),
        pytest.param(_flip_label, id="label-out-of-range"),
        pytest.param(_relabel, id="mislabelled"),
    ],
)
def test_corrupted_mirror_archive_gives_one_line_and_leaves_nothing(tmp_path, fashion_mirror, damage):
    target = fashion_mirror / "train-labels-idx1-ubyte.gz"
    target.write_bytes(damage(target.read_bytes()))
    with pytest.raises(D.DatasetUnavailableError) as info:
        D.fetch_raw("fashion_mnist", tmp_path / "raw", mirrors=[fashion_mirror])
    _one_line_naming(info, target, f"take {fashion_mirror} out of data.mirrors.fashion_mnist")
    assert not any((tmp_path / "raw").iterdir())  # neither the dataset folder nor the staging folder


# --- raw files are checked too --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fashion_raw(tmp_path_factory) -> Path:
    """``raw_dir`` holding a verified Fashion-MNIST, fetched once from Debian's package."""
    if not (FASHION_MIRROR / "train-labels-idx1-ubyte.gz").is_file():
        pytest.skip(NEEDS_FASHION)
    raw = tmp_path_factory.mktemp("fashion") / "raw"
    D.fetch_raw("fashion_mnist", raw, mirrors=[FASHION_MIRROR])
    return raw


def _overwrite_label_200(b: bytes) -> bytes:
    out = bytearray(b)
    out[8 + 17] = 200  # a same-size overwrite: the test labels gain the value 200
    return bytes(out)


def _flip_pixel(b: bytes) -> bytes:
    out = bytearray(b)
    out[len(out) // 2] ^= 0x01  # one pixel: structure intact, only the MD5 tells
    return bytes(out)


@pytest.mark.parametrize(
    "name, damage, problem",
    [
        ("t10k-labels-idx1-ubyte", _overwrite_label_200, "label 200, outside the 10 classes"),
        ("t10k-labels-idx1-ubyte", lambda b: b[:-10], "has 9998 bytes where its header declares 10008"),
        ("t10k-labels-idx1-ubyte", lambda b: b"", "it is empty"),
        ("t10k-images-idx3-ubyte", _flip_pixel, "its MD5 is"),
        (
            "train-labels-idx1-ubyte",
            lambda b: b[:-1] + bytes([(b[-1] + 1) % 10]),
            "not the published 9018921c3c673c538a1fc5bad174d6f9",
        ),
    ],
)
def test_corrupted_raw_file_is_reported_not_used(tmp_path, fashion_raw, name, damage, problem):
    raw = tmp_path / "raw"
    shutil.copytree(fashion_raw, raw)
    target = raw / "fashion_mnist" / "FashionMNIST" / "raw" / name
    target.write_bytes(damage(target.read_bytes()))
    for attempt in (
        lambda: D.fetch_raw("fashion_mnist", raw, mirrors=[FASHION_MIRROR]),
        lambda: D.build_dataset("fashion_mnist", raw_dir=raw, mirrors=[FASHION_MIRROR]),
    ):
        with pytest.raises(D.DatasetUnavailableError, match="is corrupted") as info:
            attempt()
        _one_line_naming(info, target, f"delete {raw / 'fashion_mnist'} and rerun")
        assert problem in str(info.value)


def test_verified_raw_copy_is_used_without_a_mirror(tmp_path, fashion_raw):
    assert D.fetch_raw("fashion_mnist", fashion_raw, mirrors=[tmp_path / "none"]) == fashion_raw / "fashion_mnist"


def test_build_command_prints_one_line_and_writes_no_cache(tmp_path, fashion_raw, capsys):
    raw = tmp_path / "raw"
    shutil.copytree(fashion_raw, raw)
    target = raw / "fashion_mnist" / "FashionMNIST" / "raw" / "t10k-labels-idx1-ubyte"
    target.write_bytes(target.read_bytes()[:5000])
    out = tmp_path / "processed" / "fashion_mnist.npz"
    cfg = {
        "seed": 0,
        "data": validate_config({"data": {"raw_dir": str(raw), "mirror_dir": str(tmp_path / "m")}})["data"],
    }
    assert cli_main(["data", "build", "fashion_mnist", "--output", str(out), "--cfg", json.dumps(cfg)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(target) in err and "corrupted" in err
    assert not out.exists()


def _idx(shape: tuple[int, ...], values: np.ndarray) -> bytes:
    header = bytes([0, 0, 8, len(shape)]) + b"".join(n.to_bytes(4, "big") for n in shape)
    return header + values.astype(np.uint8).tobytes()


def test_emnist_extracted_files_are_checked_for_structure(tmp_path):
    """EMNIST publishes no checksum of its extracted files: their size against the header and label range are checked."""
    folder = tmp_path / "raw" / "emnist" / "EMNIST" / "raw"
    folder.mkdir(parents=True)
    for part, n in (("train", 6), ("test", 4)):
        (folder / f"emnist-balanced-{part}-images-idx3-ubyte").write_bytes(_idx((n, 28, 28), np.zeros(n * 784)))
        (folder / f"emnist-balanced-{part}-labels-idx1-ubyte").write_bytes(_idx((n,), np.arange(n)))
    assert D.fetch_raw("emnist", tmp_path / "raw") == tmp_path / "raw" / "emnist"
    labels = folder / "emnist-balanced-test-labels-idx1-ubyte"
    labels.write_bytes(_idx((4,), np.array([0, 1, 47, 3])))
    with pytest.raises(D.DatasetUnavailableError, match="label 47, outside the 47 classes"):
        D.fetch_raw("emnist", tmp_path / "raw")
    images = folder / "emnist-balanced-train-images-idx3-ubyte"
    images.write_bytes(images.read_bytes()[:-100])
    with pytest.raises(D.DatasetUnavailableError, match="train-images-idx3-ubyte of 'emnist' is corrupted"):
        D.fetch_raw("emnist", tmp_path / "raw")


def test_cifar_files_are_checked_against_torchvision_md5(tmp_path):
    batch = tmp_path / "raw" / "cifar10" / "cifar-10-batches-py" / "data_batch_1"
    batch.parent.mkdir(parents=True)
    batch.write_bytes(b"\x80" * 1000)
    with pytest.raises(D.DatasetUnavailableError, match="not the published c99cafc152244af753f735de768cd75f") as info:
        D.fetch_raw("cifar10", tmp_path / "raw")
    _one_line_naming(info, batch, "delete")


# --- caches ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def digits_cache(tmp_path) -> Path:
    path = tmp_path / "processed" / "digits.npz"
    D.save_cache(D.build_dataset("digits", rng=seeding.generator(0, "dataset")), path)
    return path


def _rewrite(path: Path, change) -> None:
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    np.savez(path, **arrays)


def _shuffle_labels(arrays: dict) -> None:
    arrays["y_train"] = np.random.default_rng(0).permutation(arrays["y_train"])


@pytest.mark.parametrize(
    "damage, reason",
    [
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]), "unreadable", id="truncated"),
        pytest.param(lambda p: p.write_bytes(b""), "unreadable", id="empty"),
        pytest.param(lambda p: p.write_bytes(b"not a zip file"), "unreadable", id="garbage"),
        pytest.param(lambda p: p.write_bytes(_flip_pixel(p.read_bytes())), "unreadable", id="bit-flipped"),
        pytest.param(lambda p: _rewrite(p, _shuffle_labels), "was changed after it was built", id="shuffled-labels"),
        pytest.param(lambda p: _rewrite(p, lambda a: a.pop("digest")), "lacks digest", id="no-digest"),
    ],
)
def test_damaged_cache_is_refused_with_one_line(digits_cache, damage, reason):
    damage(digits_cache)
    with pytest.raises(D.DatasetUnavailableError, match=reason) as info:
        D.load_cache(digits_cache)
    _one_line_naming(info, digits_cache, "rerun ./run pipeline, which removes it")


def test_cache_round_trip_keeps_content_and_digest(digits_cache):
    back = D.load_cache(digits_cache)
    with np.load(digits_cache) as z:
        assert str(z["digest"]) == D.content_digest({k: z[k] for k in D.CACHE_ARRAYS})
    assert back.name == "digits" and back.n_classes == 10 and back.y_train.dtype == np.int64


def test_partitions_command_refuses_a_changed_cache(tmp_path, digits_cache, capsys):
    _rewrite(digits_cache, _shuffle_labels)
    spec = {"name": "p", "dataset": "digits", "scheme": "iid", "clients": 2}
    args = [
        "data",
        "partitions",
        "--datasets",
        str(digits_cache),
        "--outputs",
        str(tmp_path / "p.json"),
        "--summary",
        str(tmp_path / "s.csv"),
        "--figure",
        str(tmp_path / "fig"),
        "--cfg",
        json.dumps({"seed": 0, "partitions": [spec]}),
    ]
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "was changed after it was built; rerun ./run pipeline, which removes it and rebuilds it" in err
    )
    assert not (tmp_path / "p.json").exists() and not (tmp_path / "s.csv").exists()


def test_offline_fallback_only_when_unavailable(tmp_path):
    kwargs = dict(
        raw_dir=tmp_path / "raw", processed_dir=tmp_path / "p", mirrors=[tmp_path], fallback={"cifar10": "synthetic"}
    )
    assert D.resolve_dataset("cifar10", allow_download=False, **kwargs) == "synthetic"
    assert D.resolve_dataset("cifar10", allow_download=True, **kwargs) == "cifar10"
    assert (
        D.resolve_dataset("svhn", allow_download=False, **kwargs) == "svhn"
    )  # no fallback: the rule will fail clearly


def _md5_bytes(data: bytes) -> str:
    import hashlib

    return hashlib.md5(data).hexdigest()


def test_cifar_mirror_archive_is_verified_and_unpacked_without_network(tmp_path, monkeypatch):
    """A tiny stand-in CIFAR-10 archive (torchvision's checksums patched to match it) goes mirror -> raw -> arrays."""
    import io
    import pickle
    import tarfile

    import torchvision.datasets as tvd
    import torchvision.datasets.utils as tv_utils

    def no_network(*args, **kwargs):
        raise AssertionError("the mirror path must not download")

    monkeypatch.setattr(tv_utils, "_urlretrieve", no_network)
    monkeypatch.setattr(tv_utils, "_get_redirect_url", no_network)
    rng = np.random.default_rng(0)
    members = {
        f"data_batch_{i}": {"data": rng.integers(0, 256, (2, 3072), dtype=np.uint8), "labels": [i % 10, 3]}
        for i in range(1, 6)
    }
    members["test_batch"] = {"data": rng.integers(0, 256, (2, 3072), dtype=np.uint8), "labels": [7, 9]}
    members["batches.meta"] = {"label_names": [f"class{c}" for c in range(10)]}
    blobs = {name: pickle.dumps(entry) for name, entry in members.items()}
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for name, blob in blobs.items():
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
    mirror = tmp_path / "mirror" / "cifar10"
    mirror.mkdir(parents=True)
    (mirror / "cifar-10-python.tar.gz").write_bytes(archive.getvalue())
    monkeypatch.setattr(tvd.CIFAR10, "tgz_md5", _md5_bytes(archive.getvalue()))
    monkeypatch.setattr(
        tvd.CIFAR10, "train_list", [[f"data_batch_{i}", _md5_bytes(blobs[f"data_batch_{i}"])] for i in range(1, 6)]
    )
    monkeypatch.setattr(tvd.CIFAR10, "test_list", [["test_batch", _md5_bytes(blobs["test_batch"])]])
    monkeypatch.setattr(
        tvd.CIFAR10,
        "meta",
        {"filename": "batches.meta", "key": "label_names", "md5": _md5_bytes(blobs["batches.meta"])},
    )

    ds = D.build_dataset("cifar10", raw_dir=tmp_path / "raw", mirrors=[mirror])
    assert ds.x_train.shape == (10, 3, 32, 32) and ds.y_test.tolist() == [7, 9] and ds.n_classes == 10
    batch = tmp_path / "raw" / "cifar10" / "cifar-10-batches-py" / "test_batch"
    batch.write_bytes(batch.read_bytes()[:-1])  # a truncated extracted file is corrupted, not missing
    with pytest.raises(D.DatasetUnavailableError, match="test_batch of 'cifar10' is corrupted"):
        D.fetch_raw("cifar10", tmp_path / "raw", mirrors=[mirror])
