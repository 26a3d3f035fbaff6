"""Fixtures of the game tests: random monotone games (spec §5 (a))."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest


def random_monotone_game(n: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform random coalition values made monotone by a running maximum over subsets."""
    v = rng.random(1 << n)
    v[0] = 0.0
    for k in range(n):  # after pass k, v(S) >= v(S - k) for every S; later passes keep earlier ones
        with_k = np.flatnonzero((np.arange(1 << n) >> k) & 1)
        v[with_k] = np.maximum(v[with_k], v[with_k ^ (1 << k)])
    return v


@pytest.fixture
def monotone_game() -> Callable[[int, np.random.Generator], np.ndarray]:
    """``monotone_game(n, rng)``: a random monotone bitmask game on n players."""
    return random_monotone_game
