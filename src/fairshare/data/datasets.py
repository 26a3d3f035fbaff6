"""Dataset registry with local mirrors, checksum verification and a verified tensor cache.

Torchvision datasets (MNIST, Fashion-MNIST, EMNIST-balanced, CIFAR-10/100, SVHN) are read through
``torchvision.datasets``. Their raw files are taken from ``raw_dir/<name>`` when every file there passes its check,
else from the first mirror folder (given per dataset by the caller) holding the dataset's archives, else downloaded
when allowed. Checks, by what was published:

- MNIST, Fashion-MNIST: the MD5 of each decompressed IDX file (``CONTENT_MD5``), so Debian's re-compressed archives
  are accepted; mirror archives may also match torchvision's archive MD5;
- CIFAR-10/100, SVHN: torchvision's MD5 of every extracted file it reads, and of the archives in a mirror;
- EMNIST: only its 536 MB archive has a published MD5 (checked by torchvision on download and here for a mirror
  copy); its extracted IDX files have none, so they are checked for structure only (size matching the IDX header,
  labels within the 47 classes): a same-size overwrite with valid labels cannot be detected.

A truncated file is reported as corrupted, not missing. Fetches go to a temporary folder renamed into place only
after every check passed, so a failure leaves nothing behind.

Offline datasets: scikit-learn's bundled ``digits`` and a ``synthetic`` Gaussian task generated from a seed.

Cache format (``data/processed/<name>.npz``, written atomically): ``name``, the dataset it holds; ``x_train``,
``x_test`` as ``uint8`` arrays of shape (N, C, H, W) for images or ``float32`` (N, D) for tabular data; ``y_train``,
``y_test`` as ``int64``; ``classes`` as a string array; ``digest``, the SHA-256 of those six arrays
(:func:`content_digest`). Loading recomputes the digest, so a cache that was truncated, corrupted or replaced after it
was built is refused, and checks what the cache holds against what the reader asked for: the dataset (by default the
file's name), its class count and per-sample shape (:data:`KNOWN_CLASSES`, :data:`SAMPLE_SHAPES`, or the reader's
``expected`` layout, as for ``synthetic`` whose layout comes from the config), so a valid cache of another dataset
copied over it is refused too. ``ArrayDataset`` holds the same arrays in memory.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fairshare.errors import UserError
from fairshare.io import write_npz
from fairshare.validate import cache_problem

__all__ = [
    "DatasetUnavailableError",
    "ArrayDataset",
    "CONTENT_MD5",
    "IDX_FAMILY",
    "TorchvisionSpec",
    "TORCHVISION",
    "OFFLINE",
    "DATASETS",
    "CACHEABLE",
    "fetch_raw",
    "build_dataset",
    "CACHE_ARRAYS",
    "KNOWN_CLASSES",
    "SAMPLE_SHAPES",
    "CACHE_NAMES",
    "Layout",
    "REBUILD",
    "content_digest",
    "save_cache",
    "load_cache",
    "load_dataset",
    "locally_available",
    "resolve_dataset",
]


class DatasetUnavailableError(UserError):
    """A dataset that cannot be had here, or a file of it (raw, mirror or cache) that fails its check."""


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


# MD5 of the decompressed IDX files, as published with the datasets. Debian re-compresses the .gz archives, so their
# archive checksums differ from torchvision's while the content is identical: the content is what is checked.
CONTENT_MD5 = {
    "train-images-idx3-ubyte": {
        "MNIST": "6bbc9ace898e44ae57da46a324031adb",
        "FashionMNIST": "f4a8712d7a061bf5bd6d2ca38dc4d50a",
    },
    "train-labels-idx1-ubyte": {
        "MNIST": "a25bea736e30d166cdddb491f175f624",
        "FashionMNIST": "9018921c3c673c538a1fc5bad174d6f9",
    },
    "t10k-images-idx3-ubyte": {
        "MNIST": "2646ac647ad5339dbf082846283269ea",
        "FashionMNIST": "8181f5470baa50b63fa0f6fddb340f0a",
    },
    "t10k-labels-idx1-ubyte": {
        "MNIST": "27ae3e4e09519cfbb04c329615203637",
        "FashionMNIST": "15d484375f8d13e6eb1aabb0c3f46965",
    },
}
IDX_FAMILY = ("MNIST", "FashionMNIST", "EMNIST")


@dataclass(frozen=True)
class TorchvisionSpec:
    """How to find, check and read one torchvision dataset's raw files."""

    cls_name: str
    n_classes: int
    hint: str  # how to get it, besides a mirror folder or a download
    kwargs_train: dict
    kwargs_test: dict

    def torchvision_class(self) -> type:
        import torchvision.datasets as tvd

        return getattr(tvd, self.cls_name)

    def archive_files(self) -> list[tuple[str, str]]:
        """(file name, md5) of every archive torchvision downloads, as a mirror folder holds them."""
        cls = self.torchvision_class()
        if self.cls_name in ("MNIST", "FashionMNIST"):
            return [(name, md5) for name, md5 in cls.resources]
        if self.cls_name == "EMNIST":
            return [(cls.url.rsplit("/", 1)[-1], cls.md5)]
        if self.cls_name in ("CIFAR10", "CIFAR100"):
            return [(cls.filename, cls.tgz_md5)]
        if self.cls_name == "SVHN":
            return [(entry[1], entry[2]) for split, entry in cls.split_list.items() if split != "extra"]
        raise AssertionError(self.cls_name)

    def archive_folder(self, root: Path) -> Path:
        """Where torchvision keeps the archives (and, for the IDX datasets, the extracted files)."""
        return root / self.cls_name / "raw" if self.cls_name in IDX_FAMILY else root

    def raw_files(self, root: Path) -> list[tuple[Path, str | None]]:
        """Every file torchvision reads under ``root``, with its published MD5 (None: none was published)."""
        cls = self.torchvision_class()
        if self.cls_name in ("MNIST", "FashionMNIST"):
            return [(self.archive_folder(root) / name, md5[self.cls_name]) for name, md5 in CONTENT_MD5.items()]
        if self.cls_name == "EMNIST":
            split = self.kwargs_train["split"]
            return [
                (self.archive_folder(root) / f"emnist-{split}-{part}-{kind}-ubyte", None)
                for part in ("train", "test")
                for kind in ("images-idx3", "labels-idx1")
            ]
        if self.cls_name in ("CIFAR10", "CIFAR100"):
            listed = [*cls.train_list, *cls.test_list, [cls.meta["filename"], cls.meta["md5"]]]
            return [(root / cls.base_folder / name, md5) for name, md5 in listed]
        return [(root / name, md5) for name, md5 in self.archive_files()]  # SVHN reads its .mat files as they are


TORCHVISION = {
    "mnist": TorchvisionSpec("MNIST", 10, "", {"train": True}, {"train": False}),
    "fashion_mnist": TorchvisionSpec(
        "FashionMNIST",
        10,
        "install Debian's package dataset-fashion-mnist (its default mirror folder)",
        {"train": True},
        {"train": False},
    ),
    "emnist": TorchvisionSpec(
        "EMNIST",
        47,
        "the archive is 536 MB",
        {"split": "balanced", "train": True},
        {"split": "balanced", "train": False},
    ),
    "cifar10": TorchvisionSpec("CIFAR10", 10, "", {"train": True}, {"train": False}),
    "cifar100": TorchvisionSpec("CIFAR100", 100, "", {"train": True}, {"train": False}),
    "svhn": TorchvisionSpec("SVHN", 10, "", {"split": "train"}, {"split": "test"}),
}

OFFLINE = ("digits", "synthetic")
DATASETS: tuple[str, ...] = tuple(TORCHVISION) + OFFLINE
# Every dataset the data rule can cache: SST-5 is built by fairshare.data.sst, outside this registry.
CACHEABLE: tuple[str, ...] = (*DATASETS, "sst")


def _md5(path: Path) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _idx_problem(path: Path, n_classes: int) -> str | None:
    """What is wrong with the IDX file ``path`` (size against its header, labels out of range), or None."""
    data = path.read_bytes()
    if not data:
        return "it is empty"
    if len(data) < 8 or data[:3] != b"\x00\x00\x08" or data[3] not in (1, 3):
        return "it is not an IDX file of unsigned bytes"
    ndim = data[3]
    header = 4 + 4 * ndim
    declared = header + int(np.prod([int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim)]))
    if len(data) != declared:
        return f"it has {len(data)} bytes where its header declares {declared}"
    if ndim == 1 and len(data) > header and max(data[header:]) >= n_classes:
        return f"it holds label {max(data[header:])}, outside the {n_classes} classes"
    return None


def _file_problem(spec: TorchvisionSpec, path: Path, md5: str | None) -> str | None:
    """Why ``path`` fails its check (structure for IDX files, then its published MD5 where there is one), or None."""
    if spec.cls_name in IDX_FAMILY:
        problem = _idx_problem(path, spec.n_classes)
        if problem:
            return problem
    elif path.stat().st_size == 0:
        return "it is empty"
    if md5 is not None and (got := _md5(path)) != md5:
        return f"its MD5 is {got}, not the published {md5}"
    return None


def _checked_raw(name: str, spec: TorchvisionSpec, root: Path) -> bool:
    """True when every raw file under ``root`` is present and passes its check, False when some are missing.

    Raises DatasetUnavailableError naming the first present file that fails its check.
    """
    files = spec.raw_files(root)
    present = [(path, md5) for path, md5 in files if path.is_file()]
    for path, md5 in present:
        if problem := _file_problem(spec, path, md5):
            raise DatasetUnavailableError(
                f"raw file {path} of '{name}' is corrupted ({problem}); delete {root} and rerun to fetch it again"
            )
    return len(present) == len(files)


def _copy_from_mirror(name: str, spec: TorchvisionSpec, mirror: Path, staging: Path) -> bool:
    """Copy the dataset's archives from ``mirror`` into ``staging`` and unpack them; False when some are absent.

    Raises DatasetUnavailableError for a file that is present but corrupted or of another version.
    """
    files = spec.archive_files()
    if not all((mirror / f).is_file() for f, _ in files):
        return False
    fix = f"replace it with a good copy, or take {mirror} out of data.mirrors.{name}"
    folder = spec.archive_folder(staging)
    folder.mkdir(parents=True, exist_ok=True)
    for f, md5 in files:
        source = mirror / f
        if spec.cls_name in ("MNIST", "FashionMNIST"):
            # Decompress and check the content: a re-compressed archive (Debian's) is as good as the original.
            payload = folder / f.removesuffix(".gz")
            try:
                with gzip.open(source, "rb") as src, open(payload, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            except (OSError, EOFError, zlib.error) as exc:
                raise DatasetUnavailableError(
                    f"mirror file {source} is not a readable gzip archive ({exc}); {fix}"
                ) from None
            problem = _file_problem(spec, payload, CONTENT_MD5[payload.name][spec.cls_name])
        else:
            problem = None if (got := _md5(source)) == md5 else f"its MD5 is {got}, not the published {md5}"
            shutil.copyfile(source, folder / f)
        if problem:
            raise DatasetUnavailableError(
                f"mirror file {source} of '{name}' is corrupted or another version ({problem}); {fix}"
            )
    if spec.cls_name not in ("MNIST", "FashionMNIST", "SVHN"):
        _unpack(spec, staging)
    return True


def _unpack(spec: TorchvisionSpec, root: Path) -> None:
    """Extract verified archives under ``root`` the way torchvision does after a download.

    Torchvision's ``download=True`` finds each archive in place with its published MD5 ("using downloaded and verified
    file"), so it only extracts: no network is used.
    """
    for kwargs in (spec.kwargs_train, spec.kwargs_test):
        spec.torchvision_class()(str(root), download=True, **kwargs)


def fetch_raw(name: str, raw_dir: str | Path, mirrors: Sequence[str | Path] = (), allow_download: bool = False) -> Path:
    """Make the raw files of torchvision dataset ``name`` available under ``raw_dir/name`` and return that folder.

    ``mirrors`` are this dataset's own mirror folders. Order: the copy in ``raw_dir`` when every file passes its
    check, then the first mirror holding all the archives, then a download when allowed; a corrupted file anywhere
    stops with a DatasetUnavailableError naming it.
    """
    if name not in TORCHVISION:
        raise ValueError(f"'{name}' is not a downloadable dataset; choose one of {', '.join(TORCHVISION)}")
    spec = TORCHVISION[name]
    root = Path(raw_dir) / name
    if _checked_raw(name, spec, root):
        return root
    archives = ", ".join(f for f, _ in spec.archive_files())
    tried = [f"{root} (no complete copy)"]
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root.parent))
    try:
        for mirror in map(Path, mirrors):
            if _copy_from_mirror(name, spec, mirror, staging):
                break
            tried.append(f"{mirror} (not all of {archives})")
        else:
            if not allow_download:
                tried.append("download (off: data.allow_download is false)")
                raise DatasetUnavailableError(_missing_message(name, spec, tried))
            try:
                for kwargs in (spec.kwargs_train, spec.kwargs_test):
                    spec.torchvision_class()(str(staging), download=True, **kwargs)
            except Exception as exc:  # network errors come as URLError, RuntimeError or OSError
                tried.append(f"download ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})")
                raise DatasetUnavailableError(_missing_message(name, spec, tried)) from None
        if not _checked_raw(name, spec, staging):
            raise DatasetUnavailableError(
                f"dataset '{name}': the fetched archives lack some of the files torchvision reads"
            )
        if root.exists():
            shutil.rmtree(root)
        staging.rename(root)
        return root
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _missing_message(name: str, spec: TorchvisionSpec, tried: list[str]) -> str:
    archives = ", ".join(f for f, _ in spec.archive_files())
    hint = f" ({spec.hint})" if spec.hint else ""
    return (
        f"dataset '{name}' is not available; tried: {'; '.join(tried)}. To provide it: put {archives} in one of those "
        f"mirror folders{hint}, or set data.allow_download: true in the config on a machine with internet"
    )


def _torchvision_arrays(name: str, root: Path) -> ArrayDataset:
    spec = TORCHVISION[name]
    cls = spec.torchvision_class()
    parts = []
    for kwargs in (spec.kwargs_train, spec.kwargs_test):
        try:
            ds = cls(str(root), download=False, **kwargs)
        except (RuntimeError, OSError, ValueError, EOFError) as exc:
            raise DatasetUnavailableError(
                f"torchvision cannot read '{name}' from {root} ({exc}); delete {root} and rerun"
            ) from None
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


def _synthetic(
    rng: np.random.Generator, n_train: int, n_test: int, n_features: int, n_classes: int, class_sep: float
) -> ArrayDataset:
    """Gaussian classes with random means (scaled by ``class_sep``) and unit covariance."""
    means = rng.normal(size=(n_classes, n_features)) * class_sep
    y = rng.integers(0, n_classes, size=n_train + n_test)
    x = (means[y] + rng.normal(size=(len(y), n_features))).astype(np.float32)
    return ArrayDataset(
        "synthetic", x[:n_train], y[:n_train], x[n_train:], y[n_train:], tuple(str(c) for c in range(n_classes))
    )


def build_dataset(
    name: str,
    *,
    raw_dir: str | Path = "data/raw",
    mirrors: Sequence[str | Path] = (),
    allow_download: bool = False,
    rng: np.random.Generator | None = None,
    synthetic: dict | None = None,
) -> ArrayDataset:
    """Build dataset ``name`` as arrays (fetching raw files for torchvision datasets from ``mirrors``, its folders)."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset '{name}'; choose one of {', '.join(DATASETS)}")
    if name == "digits":
        return _digits(rng if rng is not None else np.random.default_rng(0))
    if name == "synthetic":
        params = {
            "n_train": 6000,
            "n_test": 2000,
            "n_features": 64,
            "n_classes": 10,
            "class_sep": 1.0,
            **(synthetic or {}),
        }
        return _synthetic(rng if rng is not None else np.random.default_rng(0), **params)
    root = fetch_raw(name, raw_dir, mirrors, allow_download)
    return _torchvision_arrays(name, root)


CACHE_ARRAYS = ("name", "x_train", "y_train", "x_test", "y_test", "classes")
#: Class count of each dataset whose count is fixed (synthetic's comes from the config): a cache's labels must lie
#: below it, checked on every load (:func:`fairshare.validate.cache_problem`).
KNOWN_CLASSES = {
    "digits": 10,
    "sst": 5,
    "femnist": 62,
    **{name: spec.n_classes for name, spec in TORCHVISION.items()},
}
#: Per-sample shape of each dataset whose shape is fixed (SST: ``fairshare.data.sst``'s 56 token ids per sentence).
SAMPLE_SHAPES = {
    "digits": (1, 8, 8),
    "sst": (56,),
    **{name: (1, 28, 28) for name in ("mnist", "fashion_mnist", "emnist", "femnist")},
    **{name: (3, 32, 32) for name in ("cifar10", "cifar100", "svhn")},
}
#: Every name a dataset cache may have (FEMNIST is cached by the Aequa extensions, beside its writers file).
CACHE_NAMES: tuple[str, ...] = (*CACHEABLE, "femnist")
#: (per-sample shape, class count) a reader expects of a cache; None for either: not checked.
Layout = tuple[tuple[int, ...] | None, int | None]
REBUILD = "rerun ./run pipeline, which removes it and rebuilds it"


def content_digest(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over the cache's arrays (name, dtype, shape and bytes of each): what the cache's ``digest`` records."""
    digest = hashlib.sha256()
    for key in CACHE_ARRAYS:
        a = np.ascontiguousarray(arrays[key])
        digest.update(f"{key}:{a.dtype.str}:{a.shape};".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def save_cache(ds: ArrayDataset, path: str | Path) -> None:
    """Write ``ds`` as a cache file with its content digest (atomically)."""
    arrays = {
        "name": np.array(ds.name),
        "x_train": ds.x_train,
        "y_train": ds.y_train,
        "x_test": ds.x_test,
        "y_test": ds.y_test,
        "classes": np.array(ds.classes),
    }
    write_npz(path, **arrays, digest=np.array(content_digest(arrays)))


def load_cache(path: str | Path, name: str | None = None, expected: Layout | None = None) -> ArrayDataset:
    """Load a cache written by :func:`save_cache`; refuse one that is unreadable, changed since it was built, or holds
    another dataset than ``name`` (by default the file's stem), or another layout than ``expected`` (by default the
    dataset's known class count and per-sample shape)."""
    path = Path(path)
    name = name or path.stem
    if not path.is_file():
        raise DatasetUnavailableError(f"cached dataset {path} does not exist; run `snakemake {path}` to build it")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {key: z[key] for key in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetUnavailableError(f"cached dataset {path} is unreadable ({reason}); {REBUILD}") from None
    missing = [key for key in (*CACHE_ARRAYS, "digest") if key not in arrays]
    if missing:
        raise DatasetUnavailableError(
            f"cached dataset {path} lacks {', '.join(missing)}: it was not written by this version's `fairshare data build`; {REBUILD}"
        )
    if str(arrays["digest"]) != content_digest(arrays):
        raise DatasetUnavailableError(f"cached dataset {path} was changed after it was built; {REBUILD}")
    if (held := str(arrays["name"])) != name:
        raise DatasetUnavailableError(f"cached dataset {path} holds '{held}', not '{name}'; {REBUILD}")
    shape, classes = expected or (SAMPLE_SHAPES.get(name), KNOWN_CLASSES.get(name))
    problem = cache_problem(arrays, classes, shape)
    if problem:
        raise DatasetUnavailableError(f"cached dataset {path} fails its check ({problem}); {REBUILD}")
    return ArrayDataset(
        name,
        arrays["x_train"],
        arrays["y_train"],
        arrays["x_test"],
        arrays["y_test"],
        tuple(str(c) for c in arrays["classes"]),
    )


def load_dataset(name: str, processed_dir: str | Path = "data/processed", **build_kwargs) -> ArrayDataset:
    """The cached arrays of ``name``, building and caching them first if needed."""
    path = Path(processed_dir) / f"{name}.npz"
    if not path.is_file():
        save_cache(build_dataset(name, **build_kwargs), path)
    return load_cache(path)


def locally_available(name: str, raw_dir: str | Path, processed_dir: str | Path, mirrors: Sequence[str | Path]) -> bool:
    """Cheap check (file presence, no checksums) whether ``name`` can be built here without a download.

    ``mirrors`` are this dataset's own folders. A present but corrupted file counts as available: building then
    stops with a message naming it, instead of silently using a fallback dataset.
    """
    if name in OFFLINE or (Path(processed_dir) / f"{name}.npz").is_file():
        return True
    spec = TORCHVISION[name]
    if all(path.is_file() for path, _ in spec.raw_files(Path(raw_dir) / name)):
        return True
    return any(all((Path(m) / f).is_file() for f, _ in spec.archive_files()) for m in mirrors)


def resolve_dataset(
    name: str,
    *,
    raw_dir: str | Path,
    processed_dir: str | Path,
    mirrors: Sequence[str | Path],
    allow_download: bool,
    fallback: dict[str, str],
) -> str:
    """The dataset actually used for ``name``: itself, or its configured ``offline_fallback`` when unavailable.

    ``mirrors`` are the mirror folders of ``name`` itself.
    """
    if allow_download or name not in fallback or locally_available(name, raw_dir, processed_dir, mirrors):
        return name
    return fallback[name]
