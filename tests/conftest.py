"""Shared fixtures: real offline data (scikit-learn digits, Fashion-MNIST when Debian's package is installed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
FASHION_MIRROR = Path("/usr/share/datasets/fashion-mnist")


@pytest.fixture(scope="session")
def digits_labels() -> np.ndarray:
    from sklearn.datasets import load_digits

    return load_digits().target.astype(np.int64)


@pytest.fixture(scope="session")
def fashion_labels() -> np.ndarray:
    """Fashion-MNIST training labels read straight from the Debian package (skips when it is absent)."""
    import gzip

    path = FASHION_MIRROR / "train-labels-idx1-ubyte.gz"
    if not path.is_file():
        pytest.skip("Debian package dataset-fashion-mnist is not installed")
    return np.frombuffer(gzip.decompress(path.read_bytes()), dtype=np.uint8, offset=8).astype(np.int64)
