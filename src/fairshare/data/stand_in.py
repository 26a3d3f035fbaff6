"""Stand-in data for the smoke profile: each paper dataset's exact layout, random content (plumbing only).

The smoke profile runs every rule and code path of the paper profile on a CPU without downloads. A dataset that
cannot be had here is replaced by torchvision's ``FakeData`` with that dataset's image shape and class count (token
sequences with SST's layout for text), so the models, partitions and training loops see the shapes they will see at
paper scale. Nothing can be learnt from these images: every number computed from them is marked "smoke: plumbing
only" in the scorecard.
"""

from __future__ import annotations

import numpy as np

from fairshare.data.datasets import ArrayDataset

__all__ = ["IMAGE_LAYOUTS", "TEXT_LAYOUTS", "STAND_IN_DATASETS", "stand_in_dataset"]

# (channels, height, width) and number of classes of each paper dataset (EMNIST: the balanced split).
IMAGE_LAYOUTS: dict[str, tuple[tuple[int, int, int], int]] = {
    "mnist": ((1, 28, 28), 10),
    "fashion_mnist": ((1, 28, 28), 10),
    "emnist": ((1, 28, 28), 47),
    "cifar10": ((3, 32, 32), 10),
    "cifar100": ((3, 32, 32), 100),
    "svhn": ((3, 32, 32), 10),
}
TEXT_LAYOUTS: dict[str, dict[str, int]] = {"sst": {"vocab_size": 2000, "max_len": 56, "n_classes": 5}}
STAND_IN_DATASETS = tuple(IMAGE_LAYOUTS) + tuple(TEXT_LAYOUTS)


def _fake_images(shape: tuple[int, int, int], n_classes: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from torchvision.datasets import FakeData

    data = FakeData(size=n, image_size=shape, num_classes=n_classes, random_offset=seed)
    x = np.empty((n, *shape), dtype=np.uint8)
    y = np.empty(n, dtype=np.int64)
    for i in range(n):
        image, label = data[i]  # a PIL image, as torchvision's real datasets give
        array = np.asarray(image, dtype=np.uint8)
        x[i] = array[None] if array.ndim == 2 else array.transpose(2, 0, 1)
        y[i] = int(label)
    return x, y


def stand_in_dataset(name: str, *, n_train: int, n_test: int, seed: int) -> ArrayDataset:
    """Random data with the layout of paper dataset ``name`` (see the module docstring)."""
    if name in IMAGE_LAYOUTS:
        shape, n_classes = IMAGE_LAYOUTS[name]
        x_train, y_train = _fake_images(shape, n_classes, n_train, seed)
        x_test, y_test = _fake_images(shape, n_classes, n_test, seed + n_train)
        return ArrayDataset(name, x_train, y_train, x_test, y_test, tuple(str(c) for c in range(n_classes)))
    if name in TEXT_LAYOUTS:
        from fairshare.data.sst import CLASSES, stand_in_arrays

        layout = TEXT_LAYOUTS[name]
        rng = np.random.default_rng(seed)
        x_train, y_train, x_test, y_test = stand_in_arrays(
            rng, n_train=n_train, n_test=n_test, vocab_size=layout["vocab_size"], max_len=layout["max_len"]
        )
        return ArrayDataset(name, x_train, y_train, x_test, y_test, CLASSES)
    raise ValueError(f"no stand-in for dataset '{name}'; choose one of {', '.join(STAND_IN_DATASETS)}")
