"""Shapley values of games given as bitmask-indexed value tables: exact (vectorised), conditional, Monte Carlo.

A game on n players is an array ``v`` of length 2^n where ``v[mask]`` is the value of the coalition whose members
are the set bits of ``mask`` (bit k = player k) and ``v[0] = 0`` is the empty coalition.

- ``shapley_values``: phi_i = (1/n) sum_{C subset N\\i} C(n-1,|C|)^-1 (v(C+i) - v(C)) (payoff paper, Sec. 2).
- ``conditional_shapley``: F[i, j] = phi_{j|i}, j's Shapley value in the game restricted to coalitions that
  contain i (Lemma 3.7, Eq. 5). It is the payoff flow from payer i to payee j.
- ``monte_carlo_shapley`` / ``monte_carlo_conditional_shapley``: permutation-sampling estimates with standard
  errors for games too large to tabulate (Remark 3.9).

Both exact routines build the n x 2^n table of marginal contributions once, so they cost O(n 2^n) memory and
O(n 2^n) (Shapley) or O(n^2 2^n) (conditional: n^2 outputs, one matrix product) time with no Python loop over
coalitions.
"""

from collections.abc import Callable, Sequence
from math import comb
from typing import NamedTuple

import numpy as np

__all__ = [
    "ValueFunction",
    "Estimate",
    "n_players",
    "membership",
    "marginal_contributions",
    "shapley_values",
    "conditional_shapley",
    "monte_carlo_shapley",
    "monte_carlo_conditional_shapley",
]

ValueFunction = Callable[[int], float]


class Estimate(NamedTuple):
    """A Monte Carlo estimate: the sample mean and its standard error (sample std / sqrt(samples))."""

    # No ``from __future__ import annotations`` in this module: the fields' type stays ``np.ndarray`` itself, not a
    # string that the generated ``__init__`` cannot resolve (the API reference warned on it, issue 39).

    mean: np.ndarray
    stderr: np.ndarray


def n_players(v: Sequence[float]) -> int:
    """Number of players of a value table, checking that it has 2^n entries and v(empty) = 0."""
    size = len(v)
    n = size.bit_length() - 1
    if size < 2 or 1 << n != size:
        raise ValueError(f"a value table needs 2^n entries (one per coalition bitmask), got {size}")
    if abs(float(v[0])) > 1e-12:
        raise ValueError(f"v[0] is the empty coalition's value and must be 0, got {v[0]}")
    return n


def membership(n: int) -> np.ndarray:
    """Boolean 2^n x n matrix: entry [mask, k] says whether player k is in coalition ``mask``."""
    masks = np.arange(1 << n, dtype=np.int64)
    return (masks[:, None] >> np.arange(n)) & 1 == 1


def marginal_contributions(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(D, member): D[S, j] = v(S + j) - v(S) where j is not in S, and 0 where it is; member = membership(n)."""
    n = n_players(v)
    member = membership(n)
    masks = np.arange(1 << n, dtype=np.int64)
    joined = masks[:, None] | (np.int64(1) << np.arange(n))
    D = np.where(member, 0.0, v[joined] - v[masks][:, None])
    return D, member


def shapley_values(v: Sequence[float]) -> np.ndarray:
    """Exact Shapley values of the bitmask game ``v`` in O(n 2^n)."""
    v = np.asarray(v, dtype=float)
    D, member = marginal_contributions(v)
    n = member.shape[1]
    sizes = member.sum(axis=1)
    weight = np.array([1.0 / (n * comb(n - 1, s)) if s < n else 0.0 for s in range(n + 1)])
    return weight[sizes] @ D


def conditional_shapley(v: Sequence[float]) -> np.ndarray:
    """F[i, j] = phi_{j|i}(v) for i != j, F[i, i] = 0 (Lemma 3.7, Eq. 5).

    phi_{j|i} = 1/(n-1) sum_{C subset N\\{i,j}} C(n-2,|C|)^-1 (v(C+i+j) - v(C+i)). Writing S = C + i, every
    coalition S that contains i and not j contributes with a weight that depends on |S| only, so
    F = member^T (w(|S|) * D): one matrix product over all coalitions. Row sums are v(N) - v(i) (fair cost, Eq. 4);
    column sums plus v(i) are n phi_i (Eq. 6).
    """
    v = np.asarray(v, dtype=float)
    D, member = marginal_contributions(v)
    n = member.shape[1]
    if n < 2:
        return np.zeros((n, n))
    sizes = member.sum(axis=1)
    # weight of S = C + i with |C| = |S| - 1 in 0..n-2; S = empty (no i) and S = N (no j outside) never contribute
    weight = np.array([1.0 / ((n - 1) * comb(n - 2, s - 1)) if 1 <= s <= n - 1 else 0.0 for s in range(n + 1)])
    return member.T.astype(float) @ (weight[sizes][:, None] * D)


def _lookup(value: ValueFunction | Sequence[float]) -> Callable[[np.ndarray], np.ndarray]:
    """Vectorised coalition values: a table is indexed directly; a function is called once per distinct mask."""
    if not callable(value):
        table = np.asarray(value, dtype=float)
        return lambda masks: table[masks]
    cache: dict[int, float] = {}

    def evaluate(masks: np.ndarray) -> np.ndarray:
        unique, inverse = np.unique(masks, return_inverse=True)
        values = np.array([cache.setdefault(int(m), float(value(int(m)))) for m in unique])
        return values[inverse].reshape(masks.shape)

    return evaluate


def _permutation_marginals(
    lookup: Callable[[np.ndarray], np.ndarray],
    players: np.ndarray,
    start: int,
    n: int,
    samples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """samples x n marginal contributions of ``players`` joining coalition ``start`` in random orders (0 elsewhere)."""
    orders = rng.permuted(np.tile(players, (samples, 1)), axis=1)
    prefixes = start | np.cumsum(np.int64(1) << orders, axis=1)
    values = lookup(np.concatenate([np.full((samples, 1), start, dtype=np.int64), prefixes], axis=1))
    draws = np.zeros((samples, n))
    np.put_along_axis(draws, orders, np.diff(values, axis=1), axis=1)
    return draws


def _check_samples(n: int, samples: int) -> None:
    if not 1 <= n <= 62:
        raise ValueError(f"Monte Carlo Shapley supports 1..62 players (int64 masks), got {n}")
    if samples < 2:
        raise ValueError("need at least two sampled permutations for a standard error")


def monte_carlo_shapley(
    value: ValueFunction | Sequence[float], n: int, samples: int, rng: np.random.Generator
) -> Estimate:
    """Permutation-sampling Shapley estimate with its standard error.

    ``value`` is a bitmask table or a function of one coalition bitmask (called once per distinct coalition, so an
    expensive valuation such as a training run is not repeated). Each permutation gives one unbiased vector of
    marginal contributions whose entries sum to v(N) exactly.
    """
    _check_samples(n, samples)
    draws = _permutation_marginals(_lookup(value), np.arange(n), 0, n, samples, rng)
    return Estimate(draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(samples))


def monte_carlo_conditional_shapley(
    value: ValueFunction | Sequence[float], n: int, samples: int, rng: np.random.Generator
) -> Estimate:
    """Estimate of F[i, j] = phi_{j|i} from ``samples`` permutations of N \\ i per payer i (Remark 3.10).

    Each sampled row sums to v(N) - v(i) exactly (fair cost holds per sample); the diagonal is 0 with zero error.
    """
    _check_samples(n, samples)
    lookup = _lookup(value)
    mean, stderr = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        others = np.array([k for k in range(n) if k != i], dtype=np.int64)
        if len(others) == 0:
            continue
        draws = _permutation_marginals(lookup, others, 1 << i, n, samples, rng)
        mean[i] = draws.mean(axis=0)
        stderr[i] = draws.std(axis=0, ddof=1) / np.sqrt(samples)
    return Estimate(mean, stderr)
