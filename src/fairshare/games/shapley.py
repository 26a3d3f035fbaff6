"""Shapley values over bitmask-indexed value tables (exact, vectorised) and by Monte Carlo.

A game on n players is an array ``v`` of length 2^n with ``v[mask]`` the value of the coalition whose members are
the set bits of ``mask`` (bit k = player k) and ``v[0] = 0``.
"""
from __future__ import annotations

from math import comb
from typing import Callable, Sequence

import numpy as np


def n_players(v: Sequence[float]) -> int:
    """Number of players of a value table, checking its shape."""
    size = len(v)
    n = size.bit_length() - 1
    if size < 2 or 1 << n != size:
        raise ValueError(f"a value table needs 2^n entries (one per coalition bitmask), got {size}")
    if abs(float(v[0])) > 1e-12:
        raise ValueError(f"v[0] is the empty coalition's value and must be 0, got {v[0]}")
    return n


def popcounts(n: int) -> np.ndarray:
    masks = np.arange(1 << n)
    return np.array([bin(m).count("1") for m in masks]) if n <= 16 else np.vectorize(lambda m: bin(m).count("1"))(masks)


def shapley_values(v: Sequence[float]) -> np.ndarray:
    """Exact Shapley values phi_i = (1/n) sum_{C subset N\\i} C(n-1,|C|)^-1 (v(C+i) - v(C)), O(n 2^n)."""
    v = np.asarray(v, dtype=float)
    n = n_players(v)
    sizes = popcounts(n)
    masks = np.arange(1 << n)
    weight = np.array([1.0 / (n * comb(n - 1, s)) if s < n else 0.0 for s in range(n + 1)])
    phi = np.empty(n)
    for i in range(n):
        without = masks[(masks >> i & 1) == 0]
        phi[i] = np.sum(weight[sizes[without]] * (v[without | 1 << i] - v[without]))
    return phi


def conditional_shapley(v: Sequence[float]) -> np.ndarray:
    """F[i, j] = phi_{j|i}: Shapley value of j in the game u_i(S) = v(S + i) - v(i) on N \\ i (Lemma 3.7, Eq. 5).

    F[i, i] = 0. Row sums are v(N) - v(i) (fair cost); column sums plus v(i) are n phi_i (Eq. 6).
    """
    v = np.asarray(v, dtype=float)
    n = n_players(v)
    if n < 2:
        return np.zeros((n, n))
    sizes = popcounts(n)
    masks = np.arange(1 << n)
    weight = np.array([1.0 / ((n - 1) * comb(n - 2, s)) if s <= n - 2 else 0.0 for s in range(n + 1)])
    F = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            base = masks[((masks >> i & 1) == 0) & ((masks >> j & 1) == 0)]
            with_i = base | 1 << i
            F[i, j] = np.sum(weight[sizes[base]] * (v[with_i | 1 << j] - v[with_i]))
    return F


def monte_carlo_shapley(value: Callable[[int], float] | Sequence[float], n: int, samples: int,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Permutation-sampling Shapley estimate and its standard error (for games too large to tabulate).

    ``value`` is a table or a function of a coalition bitmask. Each sampled permutation gives one unbiased
    marginal-contribution vector; the standard error is the sample standard deviation over sqrt(samples).
    """
    if samples < 2:
        raise ValueError("need at least two sampled permutations for a standard error")
    f = value if callable(value) else (lambda mask, table=np.asarray(value, float): table[mask])
    draws = np.empty((samples, n))
    for t in range(samples):
        mask, previous = 0, f(0)
        for j in rng.permutation(n):
            mask |= 1 << int(j)
            current = f(mask)
            draws[t, j] = current - previous
            previous = current
    return draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(samples)
