"""Fixtures shared by the training tests: scikit-learn digits as image tensors (one torch thread: tests/conftest.py)."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(scope="session")
def digits_tensors() -> tuple[torch.Tensor, torch.Tensor]:
    """All 1,797 digits as (N, 1, 8, 8) floats in [-1, 1] and int64 labels."""
    from sklearn.datasets import load_digits

    d = load_digits()
    return torch.as_tensor(d.images[:, None] / 8.0 - 1.0, dtype=torch.float32), torch.as_tensor(
        d.target, dtype=torch.long
    )
