"""Fixtures shared by the training tests: one torch thread, and scikit-learn digits as image tensors."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture
def one_torch_thread():
    """Tiny models: one intra-op thread is fastest here and does not stall when other jobs load the shared cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def digits_tensors() -> tuple[torch.Tensor, torch.Tensor]:
    """All 1,797 digits as (N, 1, 8, 8) floats in [-1, 1] and int64 labels."""
    from sklearn.datasets import load_digits

    d = load_digits()
    return torch.as_tensor(d.images[:, None] / 8.0 - 1.0, dtype=torch.float32), torch.as_tensor(
        d.target, dtype=torch.long
    )
