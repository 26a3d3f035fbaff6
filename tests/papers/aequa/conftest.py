"""Fixtures shared by the Aequa reproduction's tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def digits(tmp_path_factory) -> Path:
    """The digits dataset cache (seed 5), written once per test module."""
    from fairshare import seeding
    from fairshare.data.datasets import build_dataset, save_cache

    path = tmp_path_factory.mktemp("aequa_digits") / "digits.npz"
    save_cache(build_dataset("digits", rng=seeding.generator(5, "dataset")), path)
    return path
