"""FEMNIST as LEAF prepares it (Caldas et al. 2018), for Aequa's scalability experiment (Sec. 6.6; docs/aequa.md, Extensions).

LEAF's ``preprocess.sh`` writes ``train/`` and ``test/`` folders of JSON files, each with ``users``,
``num_samples`` and ``user_data`` = {writer: {"x": [[784 floats in 0..1]], "y": [labels 0..61]}}. FEMNIST needs
a download (NIST Special Database 19) and LEAF's preprocessing, so only the paper profile uses it.

The paper keeps "more than 800 thousand" images and thousands of writers, i.e. all of LEAF's data: ``--sf 1.0``.
LEAF's non-iid sampling keeps whole writers until the sampled fraction is reached, so a smaller ``--sf`` keeps
only that fraction of the ~3,550 writers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from fairshare.data.datasets import ArrayDataset, DatasetUnavailableError

__all__ = ["N_CLASSES", "HOW_TO_GET", "STAND_IN_WRITERS", "load_femnist", "cache_femnist", "write_stand_in_leaf"]

N_CLASSES = 62  # digits, upper- and lower-case letters
HOW_TO_GET = (
    "FEMNIST needs a download, so only the paper profile uses it (the other profiles use the `writers` "
    "partition of an offline dataset): clone https://github.com/TalwalkarLab/leaf, run "
    "`./preprocess.sh -s niid --sf 1.0 -k 0 -t sample` in leaf/data/femnist (a smaller --sf keeps fewer "
    "writers), and point the config key aequa.scale.femnist_leaf_dir at its data/ folder (the one holding "
    "train/ and test/)"
)
STAND_IN_WRITERS = 20  # writers of the smoke profile's stand-in (enough for its few writer clients)


def _read_split(folder: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    files = sorted(folder.glob("*.json"))
    if not files:
        raise DatasetUnavailableError(f"FEMNIST: no LEAF JSON files in {folder}. {HOW_TO_GET}")
    xs, ys, writers = [], [], []
    for path in files:
        try:
            blob = json.loads(path.read_text())
            users = blob["users"]
            for user in users:
                data = blob["user_data"][user]
                pixels = np.asarray(data["x"], dtype=np.float32).reshape(-1, 1, 28, 28)
                labels = np.asarray(data["y"], dtype=np.int64)
                if len(labels) != len(pixels) or (len(labels) and not 0 <= labels.min() <= labels.max() < N_CLASSES):
                    raise ValueError(
                        f"writer {user}: {len(pixels)} images, {len(labels)} labels, labels must be in 0..{N_CLASSES - 1}"
                    )
                xs.append(np.round(np.clip(pixels, 0.0, 1.0) * 255).astype(np.uint8))  # the cache's image format
                ys.append(labels)
                writers += [user] * len(labels)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise DatasetUnavailableError(
                f"FEMNIST: {path} is not a LEAF JSON file ({exc!r}); delete it and rerun LEAF's preprocessing"
            ) from None
    if not writers:
        raise DatasetUnavailableError(f"FEMNIST: the LEAF JSON files in {folder} hold no samples. {HOW_TO_GET}")
    return np.concatenate(xs), np.concatenate(ys), writers


def load_femnist(leaf_dir: str | Path) -> tuple[ArrayDataset, np.ndarray, np.ndarray]:
    """(dataset as uint8 images (N, 1, 28, 28), train writer ids, test writer ids); writer ids are integers shared
    by both splits."""
    root = Path(leaf_dir)
    if not (root / "train").is_dir() or not (root / "test").is_dir():
        raise DatasetUnavailableError(f"FEMNIST: {root} has no train/ and test/ folders. {HOW_TO_GET}")
    x_train, y_train, w_train = _read_split(root / "train")
    x_test, y_test, w_test = _read_split(root / "test")
    names = sorted(set(w_train) | set(w_test))
    index = {name: i for i, name in enumerate(names)}
    classes = tuple(str(c) for c in range(N_CLASSES))
    ds = ArrayDataset("femnist", x_train, y_train, x_test, y_test, classes)
    return (
        ds,
        np.array([index[w] for w in w_train], dtype=np.int64),
        np.array([index[w] for w in w_test], dtype=np.int64),
    )


def cache_femnist(leaf_dir: str | Path, output: str | Path, writers: str | Path) -> None:
    """Cache LEAF's FEMNIST for the pipeline: the dataset cache at ``output`` and the writer ids of both splits
    (``writers_train``, ``writers_test``) at ``writers``, which the scale experiment's by_writer partition reads."""
    from fairshare.data.datasets import save_cache
    from fairshare.io import write_npz

    ds, writers_train, writers_test = load_femnist(leaf_dir)
    save_cache(ds, output)
    write_npz(writers, writers_train=writers_train, writers_test=writers_test)


def write_stand_in_leaf(folder: str | Path, *, n_train: int, n_test: int, seed: int) -> None:
    """LEAF's layout (``train/`` and ``test/``, one JSON file each) with random content in FEMNIST's format: 784
    pixels in 0..1 and labels 0..61 per image, the images dealt to ``STAND_IN_WRITERS`` writers in turn. The smoke
    profile's stand-in for FEMNIST (``data.stand_in.datasets``), read by :func:`load_femnist` as the real folder is;
    plumbing only, nothing can be learnt from it."""
    rng = np.random.default_rng(seed)
    for split, n in (("train", n_train), ("test", n_test)):
        owner = np.arange(n) % STAND_IN_WRITERS
        users = [f"f{w:04d}_00" for w in range(STAND_IN_WRITERS)]
        user_data = {
            user: {
                "x": rng.random((int((owner == w).sum()), 784)).round(2).tolist(),
                "y": rng.integers(0, N_CLASSES, int((owner == w).sum())).tolist(),
            }
            for w, user in enumerate(users)
        }
        blob = {"users": users, "num_samples": [len(user_data[u]["y"]) for u in users], "user_data": user_data}
        out = Path(folder, split)
        out.mkdir(parents=True, exist_ok=True)
        (out / f"stand_in_{split}.json").write_text(json.dumps(blob))
