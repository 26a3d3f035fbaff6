"""Shared fixtures: real offline data (scikit-learn digits, Fashion-MNIST when Debian's package is installed)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch

REPO = Path(__file__).resolve().parents[1]
FASHION_MIRROR = Path("/usr/share/datasets/fashion-mnist")
#: torch's intra-op thread count in a fresh process, which is what a `fairshare` subprocess trains with
DEFAULT_TORCH_THREADS = torch.get_num_threads()
# Tests kill runs at a chosen round and look for that round's checkpoint, in this process and in the commands it
# starts: a checkpoint every round (users get one at most every 30 s; tests/learning/test_rounds.py tests that mode).
os.environ.setdefault("FAIRSHARE_CHECKPOINT_SECONDS", "0")


@pytest.fixture(autouse=True)
def fresh_process_torch_threads():
    """Every test starts with a fresh process's torch thread count. Commands run in-process set it (an Aequa job
    uses one thread), and float sums depend on it: a command resumed in-process from a checkpoint a subprocess wrote
    must train with the same count to continue it bit for bit, whichever tests ran before on this worker."""
    torch.set_num_threads(DEFAULT_TORCH_THREADS)
    yield


@pytest.fixture
def one_torch_thread():
    """Tiny models: one intra-op thread is fastest here and does not stall when other jobs load the shared cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The end-to-end pipeline runs (marked slow, several minutes each) first: with one worker per core they then
    start at once on different workers instead of after everything else, which decided the suite's wall time.
    Tests marked ``long`` (another whole pipeline run: the smoke profile, `dvc exp run` of the test profile) are
    skipped unless FAIRSHARE_LONG_TESTS=1: CI's 12 minutes hold the test profile's run, not more."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if os.environ.get("FAIRSHARE_LONG_TESTS") != "1":
        skip = pytest.mark.skip(reason="a whole extra pipeline run: FAIRSHARE_LONG_TESTS=1 ./run tests -m long")
        for item in items:
            if item.get_closest_marker("long"):
                item.add_marker(skip)
