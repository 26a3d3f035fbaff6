"""Which partitions of players into coalitions are stable (Donahue & Kleinberg 2021, §1, §5-§7, App. C-E).

Player-level checks compute every coalition's errors once (2^M - 1 coalitions, as bitmasks, vectorised), replace
each player's errors by exact integer ranks (near-ties are re-compared as Fractions, so ties stay ties), and then
test all set partitions at once with numpy: the core, the strict core and individual stability (moves to another
coalition or to being alone, as in the paper's proofs). The two-type checker counts instead of enumerating players,
so it handles populations such as Appendix C's 70 small and 7+ large players. Also here: the constructions of
Theorems 5.5 and 6.5 and the paper's stable partition for each method (``paper_partition``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from fairshare.games.model_sharing import as_fraction, coalition_errors, errors, two_type_errors

NOTIONS = ("core", "strict_core", "individual")
Partition = tuple[tuple[int, ...], ...]


# ---------------------------------------------------------------------------------------------------- partitions
def restricted_growth_strings(m: int) -> np.ndarray:
    """Every set partition of m players as a restricted growth string (row p: block label of each player)."""
    if m < 1:
        raise ValueError("need at least one player")
    rows = np.zeros((1, 1), dtype=np.int8)
    for _ in range(1, m):
        top = rows.max(axis=1)
        reps = top + 2  # a new player joins one of the existing blocks or opens a new one
        parent = np.repeat(np.arange(len(rows)), reps)
        label = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
        rows = np.column_stack([rows[parent], label.astype(np.int8)])
    return rows


def _block_masks(rgs: np.ndarray) -> np.ndarray:
    """(partitions x M) bitmask of each block label (0 where the label is unused)."""
    m = rgs.shape[1]
    bits = (1 << np.arange(m)).astype(np.int64)
    return np.stack([((rgs == b) * bits).sum(axis=1) for b in range(m)], axis=1)


def mask_to_players(mask: int) -> tuple[int, ...]:
    return tuple(j for j in range(mask.bit_length()) if mask >> j & 1)


def set_partitions(m: int) -> Iterator[Partition]:
    """Every set partition of range(m), as tuples of player-index tuples."""
    for row in _block_masks(restricted_growth_strings(m)):
        yield tuple(mask_to_players(int(b)) for b in row if b)


# ---------------------------------------------------------------------------------------------- coalition table
def coalition_table(n: Sequence[Any], *, mu_e: Any, sigma2: Any, method: str) -> dict[int, dict[int, Fraction]]:
    """Exact error of every member of every coalition: table[mask][player] (for reports; O(2^M) exact evaluations)."""
    exact = _ExactErrors(n, mu_e, sigma2, method)
    return {mask: {j: exact(mask, j) for j in mask_to_players(mask)} for mask in range(1, 1 << len(n))}


class _ExactErrors:
    """Exact error of player j in coalition ``mask``, computed once per multiset of member sizes (errors are symmetric)."""

    def __init__(self, n: Sequence[Any], mu_e: Any, sigma2: Any, method: str):
        self.sizes = [as_fraction(x) for x in n]
        self.mu_e, self.sigma2, self.method = mu_e, sigma2, method
        self._cache: dict[tuple, dict[Fraction, Fraction]] = {}

    def key(self, mask: int, j: int) -> tuple:
        """Equal keys mean equal errors: the same multiset of member sizes, seen by a player of the same size."""
        return tuple(sorted(self.sizes[k] for k in mask_to_players(mask))), self.sizes[j]

    def __call__(self, mask: int, j: int) -> Fraction:
        members, own = self.key(mask, j)
        if members not in self._cache:
            values = errors(list(members), mu_e=self.mu_e, sigma2=self.sigma2, method=self.method, exact=True)
            self._cache[members] = dict(zip(members, values))
        return self._cache[members][own]


TIE_TOLERANCE = 1e-9  # float errors closer than this (relative) are re-compared in exact arithmetic


def rank_matrix(n: Sequence[Any], *, mu_e: Any, sigma2: Any, method: str) -> np.ndarray:
    """R[mask, j] = rank of player j's error in coalition ``mask`` among all of j's possible errors; exact ties share a rank.

    The float table of ``coalition_errors`` orders values that differ by more than TIE_TOLERANCE (its rounding error
    is ~1e-15); runs of closer values are re-ranked with exact Fractions, so comparisons of ranks are exact.
    Non-members get a rank larger than any other.
    """
    m = len(n)
    table = coalition_errors(n, mu_e=mu_e, sigma2=sigma2, method=method)
    exact = _ExactErrors(n, mu_e, sigma2, method)
    ranks = np.full((1 << m, m), np.iinfo(np.int32).max, dtype=np.int32)
    for j in range(m):
        masks = np.flatnonzero(~np.isnan(table[:, j]))
        values = table[masks, j]
        order = np.argsort(values, kind="stable")
        masks, values = masks[order], values[order]
        new_run = np.diff(values) > TIE_TOLERANCE * np.abs(values[1:])
        starts = np.concatenate([[0], np.flatnonzero(new_run) + 1, [len(values)]])
        rank = 0
        for lo, hi in zip(starts[:-1], starts[1:]):
            if hi - lo == 1:
                ranks[masks[lo], j] = rank
                rank += 1
                continue
            keys = {int(mask): exact.key(int(mask), j) for mask in masks[lo:hi]}
            if len(set(keys.values())) == 1:  # symmetric coalitions: equal by construction, no exact arithmetic needed
                ranks[masks[lo:hi], j] = rank
                rank += 1
                continue
            run = {mask: exact(mask, j) for mask in keys}
            distinct = {v: r for r, v in enumerate(sorted(set(run.values())))}
            for mask, value in run.items():
                ranks[mask, j] = rank + distinct[value]
            rank += len(distinct)
    return ranks


def _core_rows(ranks: np.ndarray, own: np.ndarray, strict: bool) -> np.ndarray:
    """Boolean per partition: no coalition blocks it (strict: all weakly better, one strictly), vectorised.

    Coalitions are tried from the smallest up and only partitions still unblocked are tested, so most partitions
    drop out after the singletons and pairs.
    """
    n_parts, m = own.shape
    current = ranks[own, np.arange(m)[None, :]]  # each player's rank in its own coalition
    alive = np.arange(n_parts)
    for mask in sorted(range(1, 1 << m), key=int.bit_count):
        members = list(mask_to_players(mask))
        new = ranks[mask, members]
        cur = current[:, members]
        if strict:
            blocked = np.all(new <= cur, axis=1) & np.any(new < cur, axis=1)
        else:
            blocked = np.all(new < cur, axis=1)
        if blocked.any():
            alive, current = alive[~blocked], current[~blocked]
            if alive.size == 0:
                break
    stable = np.zeros(n_parts, dtype=bool)
    stable[alive] = True
    return stable


def _individual_rows(ranks: np.ndarray, masks: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Boolean per partition: no player gains by moving to another block (or alone) whose members all weakly agree.

    Whether a block T's members accept player i does not depend on the partition, so it is tabulated once.
    """
    n_parts, m = own.shape
    current = ranks[own, np.arange(m)[None, :]]
    accept = np.ones((1 << m, m), dtype=bool)
    for t in range(1, 1 << m):
        members = list(mask_to_players(t))
        for i in range(m):
            if not t >> i & 1:
                accept[t, i] = bool(np.all(ranks[t | 1 << i, members] <= ranks[t, members]))
    targets = np.concatenate([masks, np.zeros((n_parts, 1), dtype=masks.dtype)], axis=1)  # blocks + empty set
    stable = np.ones(n_parts, dtype=bool)
    for i in range(m):
        valid = (targets != own[:, [i]]) & ((targets >> i & 1) == 0)
        gain = accept[targets, i] & (ranks[targets | (1 << i), i] < current[:, [i]])
        stable &= ~np.any(valid & gain, axis=1)
    return stable


def stable_partitions(n: Sequence[Any], *, mu_e: Any, sigma2: Any, method: str, notion: str) -> list[Partition]:
    """Every partition of the players that is stable under ``notion`` (core, strict_core or individual).

    Each coalition's errors are computed once (2^M - 1 coalitions) and turned into exact per-player ranks, so
    exact ties, which decide stability (e.g. n = mu_e/sigma2), are respected; then all Bell(M) partitions are
    tested against that table at once. ``method`` is local, uniform, coarse (optimal) or fine (optimal).
    """
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion '{notion}'; choose one of {', '.join(NOTIONS)}")
    ranks = rank_matrix(n, mu_e=mu_e, sigma2=sigma2, method=method)
    rgs = restricted_growth_strings(len(n))
    masks = _block_masks(rgs)
    own = np.take_along_axis(masks, rgs.astype(np.int64), axis=1)
    keep = (
        _individual_rows(ranks, masks, own)
        if notion == "individual"
        else _core_rows(ranks, own, notion == "strict_core")
    )
    return [tuple(mask_to_players(int(b)) for b in row if b) for row in masks[keep]]


def blocking_coalitions(
    partition: Partition, table: dict[int, dict[int, Fraction]], *, strict: bool = False
) -> list[tuple[int, ...]]:
    """Coalitions whose members all prefer them (core; ``strict``: weakly, one strictly) to their block in ``partition``."""
    current = {j: table[sum(1 << k for k in block)][j] for block in partition for j in block}
    out = []
    for mask, row in table.items():
        better = [row[j] < current[j] for j in row]
        weak = [row[j] <= current[j] for j in row]
        if all(better) or (strict and all(weak) and any(better)):
            out.append(mask_to_players(mask))
    return out


# ------------------------------------------------------------------------------------------------- two types
TypedPartition = tuple[tuple[int, int], ...]  # multiset of (s, l) coalitions, sorted


class TwoTypeGame:
    """Small/large players (n_s < n_l), S and L of them; coalitions are counted as pi(s, l) (App. C, D).

    A typed partition is a sorted tuple of (s, l) blocks. Checks count players instead of naming them: a coalition
    pi(s, l) blocks a partition iff at least s small and l large players would gain by forming it, so populations
    far beyond enumeration (Appendix C: 70 small, 7+ large) cost O(S L) exact comparisons per partition.
    """

    def __init__(self, n_s: Any, n_l: Any, S: int, L: int, *, mu_e: Any, sigma2: Any, method: str):
        if S < 0 or L < 0 or S + L == 0:
            raise ValueError(f"need S, L >= 0 and at least one player, got S={S}, L={L}")
        self.n_s, self.n_l, self.S, self.L = n_s, n_l, S, L
        self.mu_e, self.sigma2, self.method = mu_e, sigma2, method
        self._cache: dict[tuple[int, int], tuple[Fraction | None, Fraction | None]] = {}
        self._rank_cache: tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]] | None = None

    def err(self, s: int, l: int) -> tuple[Fraction | None, Fraction | None]:
        """(err_S, err_L) in pi(s, l), exact and cached."""
        if (s, l) not in self._cache:
            self._cache[(s, l)] = two_type_errors(
                s, l, self.n_s, self.n_l, mu_e=self.mu_e, sigma2=self.sigma2, method=self.method
            )
        return self._cache[(s, l)]

    def _ranks(self) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
        """Exact rank of err_S and err_L of every pi(s, l) among that type's possible errors (ties share a rank)."""
        if self._rank_cache is None:
            cells = [(s, l) for s in range(self.S + 1) for l in range(self.L + 1) if s + l]
            out = []
            for k in (0, 1):
                values = {c: self.err(*c)[k] for c in cells if c[k]}
                order = {v: r for r, v in enumerate(sorted(set(values.values())))}
                out.append({c: order[v] for c, v in values.items()})
            self._rank_cache = tuple(out)
        return self._rank_cache

    def _current(self, partition: TypedPartition) -> tuple[Counter, Counter]:
        """How many small / large players currently sit at each error rank."""
        rank_s, rank_l = self._ranks()
        small, large = Counter(), Counter()
        for s, l in partition:
            if s:
                small[rank_s[(s, l)]] += s
            if l:
                large[rank_l[(s, l)]] += l
        if sum(small.values()) != self.S or sum(large.values()) != self.L:
            raise ValueError(f"partition {partition} does not cover S={self.S} small and L={self.L} large players")
        return small, large

    def blocking(self, partition: TypedPartition, *, strict: bool = False) -> list[tuple[int, int]]:
        """Every pi(s, l) that blocks ``partition``: enough players of each type strictly gain (``strict``: weakly,
        with at least one strict gain among them)."""
        small, large = self._current(partition)
        rank_s, rank_l = self._ranks()

        def count(current: Counter, value: int, weak: bool) -> int:
            return sum(c for e, c in current.items() if e > value or (weak and e == value))

        out = []
        for s in range(self.S + 1):
            for l in range(self.L + 1):
                if s + l == 0:
                    continue
                es, el = rank_s.get((s, l)), rank_l.get((s, l))
                if not strict:
                    ok = (s == 0 or count(small, es, False) >= s) and (l == 0 or count(large, el, False) >= l)
                else:
                    weak = (s == 0 or count(small, es, True) >= s) and (l == 0 or count(large, el, True) >= l)
                    one_strict = (s > 0 and count(small, es, False) > 0) or (l > 0 and count(large, el, False) > 0)
                    ok = weak and one_strict
                if ok:
                    out.append((s, l))
        return out

    def is_core(self, partition: TypedPartition) -> bool:
        return not self.blocking(partition)

    def is_strict_core(self, partition: TypedPartition) -> bool:
        return not self.blocking(partition, strict=True)

    def is_individually_stable(self, partition: TypedPartition) -> bool:
        """No player gains by moving to another coalition (or alone) whose members all weakly welcome it."""
        return not self.individual_moves(partition)

    def individual_moves(self, partition: TypedPartition) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
        """Every profitable, welcome single move: (type 'S' or 'L', from block, to block; (0, 0) = alone)."""
        blocks = list(partition)
        moves = []
        for idx, (s, l) in enumerate(blocks):
            for kind, size in (("S", s), ("L", l)):
                if size == 0:
                    continue
                k = 0 if kind == "S" else 1
                mine = self.err(s, l)[k]
                targets = {b for i, b in enumerate(blocks) if i != idx} | {(0, 0)}
                for ts, tl in sorted(targets):
                    after = self.err(ts + (kind == "S"), tl + (kind == "L"))
                    if not after[k] < mine:
                        continue
                    before = self.err(ts, tl) if ts + tl else (None, None)
                    if (ts == 0 or after[0] <= before[0]) and (tl == 0 or after[1] <= before[1]):
                        moves.append((kind, (s, l), (ts, tl)))
        return moves

    def check(self, partition: TypedPartition, notion: str) -> bool:
        if notion not in NOTIONS:
            raise ValueError(f"unknown stability notion '{notion}'; choose one of {', '.join(NOTIONS)}")
        return {"core": self.is_core, "strict_core": self.is_strict_core, "individual": self.is_individually_stable}[
            notion
        ](partition)

    def partitions(self) -> Iterator[TypedPartition]:
        """Every typed partition: multisets of (s, l) blocks summing to (S, L)."""
        yield from _vector_partitions(self.S, self.L)

    def stable(self, notion: str) -> list[TypedPartition]:
        """Every typed partition stable under ``notion`` (enumerates vector partitions: keep S, L small)."""
        return [p for p in self.partitions() if self.check(p, notion)]


@cache
def _vector_partitions_from(s: int, l: int, max_part: tuple[int, int]) -> tuple[TypedPartition, ...]:
    if s == 0 and l == 0:
        return ((),)
    out = []
    for ps in range(s, -1, -1):
        for pl in range(l, -1, -1):
            part = (ps, pl)
            if ps + pl == 0 or part > max_part:
                continue
            for rest in _vector_partitions_from(s - ps, l - pl, part):
                out.append((part,) + rest)
    return tuple(out)


def _vector_partitions(s: int, l: int) -> Iterator[TypedPartition]:
    yield from _vector_partitions_from(s, l, (s, l))


def typed(partition: Sequence[tuple[int, int]]) -> TypedPartition:
    """Canonical form of a typed partition (blocks sorted, empty blocks dropped)."""
    return tuple(sorted((b for b in partition if b[0] + b[1] > 0), reverse=True))


# ------------------------------------------------------------------------------------- constructive algorithms
def theorem_5_5_partition(game: TwoTypeGame) -> TypedPartition:
    """Individually stable partition under uniform federation, n_s < mu_e/sigma2 < n_l (Thm 5.5, proof in App. C).

    l' = the largest l whose pi(S, l) large players weakly prefer to being alone; if the small players would rather be
    on their own than with those l' large players, everyone small federates and the large stay alone.
    """
    alone_large = game.err(0, 1)[1]
    feasible = [l for l in range(1, game.L + 1) if game.err(game.S, l)[1] <= alone_large]
    l_prime = max(feasible) if feasible else 0
    if l_prime > 0 and game.S > 0 and game.err(game.S, l_prime)[0] > game.err(game.S, 0)[0]:
        return typed([(game.S, 0)] + [(0, 1)] * game.L)
    return typed([(game.S, l_prime)] + [(0, 1)] * (game.L - l_prime))


def theorem_6_5_partition(game: TwoTypeGame) -> TypedPartition:
    """Strictly core stable partition under optimal coarse federation (Thm 6.5).

    Exact ties go to the grand coalition: the theorem's statement puts them in the split branch, but its proof (and
    a numerical check of the tie instances) shows the grand coalition is the strictly core stable one (docs/model_sharing.md).
    """
    if game.S and game.L and game.err(game.S, game.L)[0] > game.err(game.S, 0)[0]:
        return typed([(game.S, 0), (0, game.L)])
    return typed([(game.S, game.L)])


def grand(game: TwoTypeGame) -> TypedPartition:
    """pi_g: everyone in one coalition."""
    return typed([(game.S, game.L)])


def all_local(game: TwoTypeGame) -> TypedPartition:
    """pi_l: everyone alone."""
    return typed([(1, 0)] * game.S + [(0, 1)] * game.L)


def split(game: TwoTypeGame) -> TypedPartition:
    """pi_d = {pi(S, 0), pi(0, L)}: small and large players federate among themselves."""
    return typed([(game.S, 0), (0, game.L)])


def paper_partition(game: TwoTypeGame) -> tuple[TypedPartition, str, str]:
    """The stable partition the paper's results give for a two-type game: (partition, notion it satisfies, source).

    Uniform: all local if n_s >= mu_e/sigma2 (Lemma 5.3), grand if n_l <= mu_e/sigma2 (Thm 5.4), else the
    individually stable construction of Thm 5.5. Optimal coarse: Thm 6.5 (strict core). Optimal fine: grand
    (Cor 7.2). Local learning: all local.
    """
    threshold = as_fraction(game.mu_e) / as_fraction(game.sigma2) if as_fraction(game.sigma2) else None
    if game.method == "local":
        return all_local(game), "core", "local learning"
    if game.method == "fine":
        return grand(game), "core", "Cor 7.2"
    if game.method == "coarse":
        return theorem_6_5_partition(game), "strict_core", "Thm 6.5"
    if threshold is None or as_fraction(game.n_s) >= threshold:
        return all_local(game), "core", "Lemma 5.3"
    if as_fraction(game.n_l) <= threshold:
        return grand(game), "core", "Thm 5.4"
    return theorem_5_5_partition(game), "individual", "Thm 5.5"


def describe_typed(partition: TypedPartition) -> str:
    """pi(3,1) + 2 x pi(0,1) style label of a typed partition."""
    counts = Counter(partition)
    return " + ".join(
        (f"{c} x " if c > 1 else "") + f"pi({s},{l})" for (s, l), c in sorted(counts.items(), reverse=True)
    )


def describe(partition: Partition, names: str = "abcdefghijklmnopqrstuvwxyz") -> str:
    """{a,b},{c} style label of a player-level partition."""
    return ",".join("{" + ",".join(names[j] for j in block) + "}" for block in sorted(partition, key=lambda b: (b[0],)))


__all__ = [
    "NOTIONS",
    "stable_partitions",
    "set_partitions",
    "coalition_table",
    "rank_matrix",
    "blocking_coalitions",
    "TwoTypeGame",
    "theorem_5_5_partition",
    "theorem_6_5_partition",
    "paper_partition",
    "grand",
    "all_local",
    "split",
    "typed",
    "describe",
    "describe_typed",
]
