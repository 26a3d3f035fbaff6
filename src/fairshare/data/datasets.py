"""Dataset registry with local mirrors, checksum verification and a tensor cache.

Torchvision datasets (MNIST, Fashion-MNIST, EMNIST-balanced, CIFAR-10/100, SVHN) are read through
``torchvision.datasets``. Before any download, each configured mirror folder is searched for the dataset's raw
archive files; a file found there must match torchvision's published MD5 or it is rejected. Downloads (only when
allowed) go to a temporary folder that is renamed into place on success, so a failure leaves nothing behind.

Offline datasets: scikit-learn's bundled ``digits`` and a ``synthetic`` Gaussian task generated from a seed.

Cache format (``data/processed/<name>.npz``, written atomically): ``x_train``, ``x_test`` as ``uint8`` arrays of
shape (N, C, H, W) for images or ``float32`` (N, D) for tabular data; ``y_train``, ``y_test`` as ``int64``;
``classes`` as a string array. ``ArrayDataset`` holds the same arrays in memory.
"""
from __future__ import annotations

import gzip
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from fairshare.io import write_npz


class DatasetUnavailableError(RuntimeError):
    """A dataset that cannot be found locally, cannot be downloaded, or fails its checksum."""


@dataclass(frozen=True)
class ArrayDataset:
    """A dataset as in-memory numpy arrays (train and test split)."""

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: tuple[str, ...]

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def input_shape(self) -> tuple[int, ...]:
        return tuple(self.x_train.shape[1:])


@dataclass(frozen=True)
class TorchvisionSpec:
    """How to find one torchvision dataset's raw files and turn them into arrays."""

    cls_name: str
    how_to_get: str
    kwargs_train: dict
    kwargs_test: dict

    def torchvision_class(self):
        import torchvision.datasets as tvd

        return getattr(tvd, self.cls_name)

    def archive_files(self) -> list[tuple[str, str]]:
        """(file name, md5) of every raw archive torchvision needs, read from torchvision's own class."""
        cls = self.torchvision_class()
        if self.cls_name in ("MNIST", "FashionMNIST"):
            return [(name, md5) for name, md5 in cls.resources]
        if self.cls_name == "EMNIST":
            return [(cls.url.rsplit("/", 1)[-1], cls.md5)]
        if self.cls_name in ("CIFAR10", "CIFAR100"):
            return [(cls.filename, cls.tgz_md5)]
        if self.cls_name == "SVHN":
            return [(entry[1], entry[2]) for entry in cls.split_list.values() if entry[1] != "extra_32x32.mat"]
        raise AssertionError(self.cls_name)


TORCHVISION = {
    "mnist": TorchvisionSpec("MNIST", "pass --allow-download (config data.allow_download: true) on a machine with internet", {"train": True}, {"train": False}),
    "fashion_mnist": TorchvisionSpec(
        "FashionMNIST",
        "install Debian's package 'dataset-fashion-mnist' (apt-get install dataset-fashion-mnist), or allow downloads",
        {"train": True},
        {"train": False},
    ),
    "emnist": TorchvisionSpec("EMNIST", "allow downloads on a machine with internet (the archive is 536 MB)", {"split": "balanced", "train": True}, {"split": "balanced", "train": False}),
    "cifar10": TorchvisionSpec("CIFAR10", "allow downloads on a machine with internet", {"train": True}, {"train": False}),
    "cifar100": TorchvisionSpec("CIFAR100", "allow downloads on a machine with internet", {"train": True}, {"train": False}),
    "svhn": TorchvisionSpec("SVHN", "allow downloads on a machine with internet", {"split": "train"}, {"split": "test"}),
}

OFFLINE = ("digits", "synthetic")
DATASETS: tuple[str, ...] = tuple(TORCHVISION) + OFFLINE


def _md5_ok(path: Path, md5: str) -> bool:
    from torchvision.datasets.utils import check_integrity

    return check_integrity(str(path), md5)


def _raw_folder(spec: TorchvisionSpec, root: Path) -> Path:
    # MNIST-family classes keep their files in <root>/<ClassName>/raw; the others directly in <root>.
    if spec.cls_name in ("MNIST", "FashionMNIST", "EMNIST"):
        return root / spec.cls_name / "raw"
    return root


def _is_present(spec: TorchvisionSpec, root: Path) -> bool:
    cls = spec.torchvision_class()
    try:
        cls(str(root), download=False, **spec.kwargs_train)
        cls(str(root), download=False, **spec.kwargs_test)
    except (RuntimeError, FileNotFoundError, OSError):
        return False
    return True


# MD5 of the decompressed IDX payloads (published with the datasets). Debian re-compresses the .gz files, so
# their archive checksums differ from torchvision's while the content is identical: accept either.
CONTENT_MD5 = {
    "train-images-idx3-ubyte": {"MNIST": "6bbc9ace898e44ae57da46a324031adb", "FashionMNIST": "f4a8712d7a061bf5bd6d2ca38dc4d50a"},
    "train-labels-idx1-ubyte": {"MNIST": "a25bea736e30d166cdddb491f175f624", "FashionMNIST": "9018921c3c673c538a1fc5bad174d6f9"},
    "t10k-images-idx3-ubyte": {"MNIST": "2646ac647ad5339dbf082846283269ea", "FashionMNIST": "8181f5470baa50b63fa0f6fddb340f0a"},
    "t10k-labels-idx1-ubyte": {"MNIST": "27ae3e4e09519cfbb04c329615203637", "FashionMNIST": "15d484375f8d13e6eb1aabb0c3f46965"},
}


def _copy_from_mirror(spec: TorchvisionSpec, mirror: Path, staging: Path) -> bool:
    """Copy every archive found in ``mirror`` into ``staging`` after its MD5 check; True when all were found.

    Raises DatasetUnavailableError for a file that is present but corrupted.
    """
    files = spec.archive_files()
    if not all((mirror / name).is_file() for name, _ in files):
        return False
    raw = _raw_folder(spec, staging)
    raw.mkdir(parents=True, exist_ok=True)
    for name, md5 in files:
        if _md5_ok(mirror / name, md5):
            shutil.copyfile(mirror / name, raw / name)
            if name.endswith(".gz"):
                from torchvision.datasets.utils import extract_archive

                extract_archive(str(raw / name), str(raw), remove_finished=True)
            continue
        payload = name.removesuffix(".gz")
        expected = CONTENT_MD5.get(payload, {}).get(spec.cls_name)
        if expected is not None and name.endswith(".gz"):
            try:
                with gzip.open(mirror / name, "rb") as src, open(raw / payload, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            except (OSError, EOFError):
                pass
            if _md5_ok(raw / payload, expected):
                continue
        raise DatasetUnavailableError(
            f"dataset file {mirror / name} fails its MD5 checksum (expected {md5}"
            + (f", or {expected} for its decompressed content" if expected else "")
            + "): the file is corrupted or a different version; replace it or remove it from the mirror folder"
        )
    return True


def fetch_raw(name: str, raw_dir: str | Path, mirrors: Sequence[str | Path] = (), allow_download: bool = False) -> Path:
    """Make the raw files of torchvision dataset ``name`` available under ``raw_dir/name`` and return that folder.

    Order: existing verified copy, then each mirror folder (MD5-checked), then download when allowed.
    """
    if name not in TORCHVISION:
        raise ValueError(f"'{name}' is not a downloadable dataset; choose one of {', '.join(TORCHVISION)}")
    spec = TORCHVISION[name]
    root = Path(raw_dir) / name
    if _is_present(spec, root):
        return root
    tried = [f"{root} (no verified copy)"]
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root.parent))
    try:
        found = False
        for mirror in map(Path, mirrors):
            if _copy_from_mirror(spec, mirror, staging):
                found = True
                break
            tried.append(f"{mirror} (files {', '.join(n for n, _ in spec.archive_files())} not all present)")
        if not found:
            if not allow_download:
                tried.append("download (disabled: data.allow_download is false)")
                raise DatasetUnavailableError(_missing_message(name, spec, tried))
            try:
                spec.torchvision_class()(str(staging), download=True, **spec.kwargs_train)
                spec.torchvision_class()(str(staging), download=True, **spec.kwargs_test)
            except Exception as exc:  # network errors come as URLError, RuntimeError or OSError
                tried.append(f"download ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})")
                raise DatasetUnavailableError(_missing_message(name, spec, tried)) from None
        if not _is_present(spec, staging):
            raise DatasetUnavailableError(f"dataset '{name}': files were copied but torchvision cannot read them from {staging}")
        if root.exists():
            shutil.rmtree(root)
        staging.rename(root)
        return root
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _missing_message(name: str, spec: TorchvisionSpec, tried: list[str]) -> str:
    return f"dataset '{name}' is not available; tried: {'; '.join(tried)}. To provide it: {spec.how_to_get}."


def _torchvision_arrays(name: str, root: Path) -> ArrayDataset:
    spec = TORCHVISION[name]
    cls = spec.torchvision_class()
    parts = []
    for kwargs in (spec.kwargs_train, spec.kwargs_test):
        ds = cls(str(root), download=False, **kwargs)
        if spec.cls_name == "SVHN":
            x, y = np.asarray(ds.data, dtype=np.uint8), np.asarray(ds.labels, dtype=np.int64)
        else:
            x = ds.data.numpy() if hasattr(ds.data, "numpy") else np.asarray(ds.data)
            y = np.asarray(ds.targets, dtype=np.int64)
            x = x[:, None] if x.ndim == 3 else x.transpose(0, 3, 1, 2)
            if spec.cls_name == "EMNIST":  # torchvision stores EMNIST transposed
                x = x.transpose(0, 1, 3, 2)
        parts.append((np.ascontiguousarray(x, dtype=np.uint8), y))
        classes = tuple(str(c) for c in getattr(ds, "classes", range(int(y.max()) + 1)))
    (xtr, ytr), (xte, yte) = parts
    return ArrayDataset(name, xtr, ytr, xte, yte, classes)


def _digits(rng: np.random.Generator) -> ArrayDataset:
    from sklearn.datasets import load_digits

    bunch = load_digits()
    x = np.round(bunch.images * (255.0 / 16.0)).astype(np.uint8)[:, None]  # 8x8 grey images, 0..16 -> 0..255
    y = bunch.target.astype(np.int64)
    order = rng.permutation(len(y))
    n_test = len(y) // 5
    te, tr = order[:n_test], order[n_test:]
    return ArrayDataset("digits", x[tr], y[tr], x[te], y[te], tuple(str(c) for c in range(10)))


def _synthetic(rng: np.random.Generator, n_train: int, n_test: int, n_features: int, n_classes: int, class_sep: float) -> ArrayDataset:
    """Gaussian classes with random means (scaled by ``class_sep``) and unit covariance."""
    means = rng.normal(size=(n_classes, n_features)) * class_sep
    y = rng.integers(0, n_classes, size=n_train + n_test)
    x = (means[y] + rng.normal(size=(len(y), n_features))).astype(np.float32)
    return ArrayDataset("synthetic", x[:n_train], y[:n_train], x[n_train:], y[n_train:], tuple(str(c) for c in range(n_classes)))


def build_dataset(
    name: str,
    *,
    raw_dir: str | Path = "data/raw",
    mirrors: Sequence[str | Path] = (),
    allow_download: bool = False,
    rng: np.random.Generator | None = None,
    synthetic: dict | None = None,
) -> ArrayDataset:
    """Build dataset ``name`` as arrays (fetching raw files for torchvision datasets)."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset '{name}'; choose one of {', '.join(DATASETS)}")
    if name == "digits":
        return _digits(rng if rng is not None else np.random.default_rng(0))
    if name == "synthetic":
        params = {"n_train": 6000, "n_test": 2000, "n_features": 64, "n_classes": 10, "class_sep": 1.0, **(synthetic or {})}
        return _synthetic(rng if rng is not None else np.random.default_rng(0), **params)
    root = fetch_raw(name, raw_dir, mirrors, allow_download)
    return _torchvision_arrays(name, root)


def save_cache(ds: ArrayDataset, path: str | Path) -> None:
    write_npz(path, x_train=ds.x_train, y_train=ds.y_train, x_test=ds.x_test, y_test=ds.y_test, classes=np.array(ds.classes))


def load_cache(path: str | Path) -> ArrayDataset:
    """Load a cached dataset written by :func:`save_cache`."""
    path = Path(path)
    if not path.is_file():
        raise DatasetUnavailableError(f"cached dataset {path} does not exist; run `snakemake {path}` to build it")
    try:
        with np.load(path, allow_pickle=False) as z:
            return ArrayDataset(path.stem, z["x_train"], z["y_train"], z["x_test"], z["y_test"], tuple(str(c) for c in z["classes"]))
    except (OSError, ValueError, KeyError) as exc:
        raise DatasetUnavailableError(f"cached dataset {path} is unreadable ({exc}); delete it and rerun the pipeline") from None


def load_dataset(name: str, processed_dir: str | Path = "data/processed", **build_kwargs) -> ArrayDataset:
    """The cached arrays of ``name``, building and caching them first if needed."""
    path = Path(processed_dir) / f"{name}.npz"
    if not path.is_file():
        save_cache(build_dataset(name, **build_kwargs), path)
    return load_cache(path)


def locally_available(name: str, raw_dir: str | Path, processed_dir: str | Path, mirrors: Sequence[str | Path]) -> bool:
    """Cheap check (no checksums) whether ``name`` can be built without a download."""
    if name in OFFLINE or (Path(processed_dir) / f"{name}.npz").is_file():
        return True
    spec = TORCHVISION[name]
    if _raw_folder(spec, Path(raw_dir) / name).exists() and _is_present(spec, Path(raw_dir) / name):
        return True
    return any(all((Path(m) / f).is_file() for f, _ in spec.archive_files()) for m in mirrors)


def resolve_dataset(name: str, *, raw_dir: str | Path, processed_dir: str | Path, mirrors: Sequence[str | Path],
                    allow_download: bool, fallback: dict[str, str]) -> str:
    """The dataset actually used for ``name``: itself, or its configured ``offline_fallback`` when unavailable."""
    if allow_download or name not in fallback or locally_available(name, raw_dir, processed_dir, mirrors):
        return name
    return fallback[name]
