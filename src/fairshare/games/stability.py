"""Which partitions of players into coalitions are stable (Donahue & Kleinberg 2021, §1, §5-§7, App. C-E).

Player-level checks precompute every coalition's exact errors once (2^M - 1 coalitions, as bitmasks), replace each
player's exact errors by integer ranks (so ties stay ties and comparisons are exact), and then test all set
partitions at once with numpy: the core, the strict core and individual stability (moves to another coalition
or to being alone, as in the paper's proofs). The two-type checker counts instead of enumerating players, so it
handles populations such as Appendix C's 70 small and 7 large players.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterator, Sequence

import numpy as np

from fairshare.games.model_sharing import errors, two_type_errors

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
    """Exact error of every member of every coalition: table[mask][player]."""
    m = len(n)
    table = {}
    for mask in range(1, 1 << m):
        members = mask_to_players(mask)
        errs = errors([n[j] for j in members], mu_e=mu_e, sigma2=sigma2, method=method, exact=True)
        table[mask] = dict(zip(members, errs))
    return table


def _rank_matrix(table: dict[int, dict[int, Fraction]], m: int) -> np.ndarray:
    """R[mask, j] = rank of player j's error in coalition mask among j's possible errors (ties share a rank)."""
    big = np.iinfo(np.int32).max
    ranks = np.full((1 << m, m), big, dtype=np.int32)
    for j in range(m):
        values = sorted({row[j] for row in table.values() if j in row})
        index = {v: r for r, v in enumerate(values)}
        for mask, row in table.items():
            if j in row:
                ranks[mask, j] = index[row[j]]
    return ranks


def _stable_rows(ranks: np.ndarray, masks: np.ndarray, own: np.ndarray, notion: str) -> np.ndarray:
    """Boolean per partition: stable under ``notion`` (vectorised over all partitions)."""
    n_parts, m = own.shape
    current = ranks[own, np.arange(m)[None, :]]  # each player's rank in its own coalition
    stable = np.ones(n_parts, dtype=bool)
    if notion in ("core", "strict_core"):
        for mask in range(1, 1 << m):
            members = list(mask_to_players(mask))
            new = ranks[mask, members]
            if notion == "core":
                blocked = np.all(new[None, :] < current[:, members], axis=1)
            else:
                weak = np.all(new[None, :] <= current[:, members], axis=1)
                blocked = weak & np.any(new[None, :] < current[:, members], axis=1)
            stable &= ~blocked
        return stable
    # Individual stability: player i moves to block T (or alone, T = 0) when it strictly gains and every member of
    # T weakly agrees. Whether T's members agree does not depend on the partition, so precompute it.
    accept = np.ones((1 << m, m), dtype=bool)
    for t in range(1, 1 << m):
        members = list(mask_to_players(t))
        for i in range(m):
            if not t >> i & 1:
                accept[t, i] = bool(np.all(ranks[t | 1 << i, members] <= ranks[t, members]))
    targets = np.concatenate([masks, np.zeros((n_parts, 1), dtype=masks.dtype)], axis=1)  # blocks + empty set
    for i in range(m):
        t = targets
        valid = (t != own[:, [i]]) & ((t >> i & 1) == 0)
        gain = accept[t, i] & (ranks[t | (1 << i), i] < current[:, [i]])
        stable &= ~np.any(valid & gain, axis=1)
    return stable


def stable_partitions(n: Sequence[Any], *, mu_e: Any, sigma2: Any, method: str, notion: str) -> list[Partition]:
    """Every partition of the players that is stable under ``notion`` (core, strict_core or individual).

    Errors are exact (Fractions), so exact ties, which decide stability (e.g. n = mu_e/sigma2), are respected.
    """
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion '{notion}'; choose one of {', '.join(NOTIONS)}")
    m = len(n)
    ranks = _rank_matrix(coalition_table(n, mu_e=mu_e, sigma2=sigma2, method=method), m)
    rgs = restricted_growth_strings(m)
    masks = _block_masks(rgs)
    own = np.take_along_axis(masks, rgs.astype(np.int64), axis=1)
    keep = _stable_rows(ranks, masks, own, notion)
    return [tuple(mask_to_players(int(b)) for b in row if b) for row in masks[keep]]


def blocking_coalitions(partition: Partition, table: dict[int, dict[int, Fraction]], *, strict: bool = False) -> list[tuple[int, ...]]:
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
    """Small/large players (n_s < n_l), S and L of them; coalitions are counted as pi(s, l) (App. C, D)."""

    def __init__(self, n_s: Any, n_l: Any, S: int, L: int, *, mu_e: Any, sigma2: Any, method: str):
        self.n_s, self.n_l, self.S, self.L = n_s, n_l, S, L
        self.mu_e, self.sigma2, self.method = mu_e, sigma2, method
        self._cache: dict[tuple[int, int], tuple[Fraction | None, Fraction | None]] = {}

    def err(self, s: int, l: int) -> tuple[Fraction | None, Fraction | None]:
        """(err_S, err_L) in pi(s, l), exact and cached."""
        if (s, l) not in self._cache:
            self._cache[(s, l)] = two_type_errors(s, l, self.n_s, self.n_l, mu_e=self.mu_e, sigma2=self.sigma2, method=self.method)
        return self._cache[(s, l)]

    def _current(self, partition: TypedPartition) -> tuple[list[Fraction], list[Fraction]]:
        small, large = [], []
        for s, l in partition:
            es, el = self.err(s, l)
            small += [es] * s
            large += [el] * l
        if len(small) != self.S or len(large) != self.L:
            raise ValueError(f"partition {partition} does not cover S={self.S} small and L={self.L} large players")
        return small, large

    def blocking(self, partition: TypedPartition, *, strict: bool = False) -> list[tuple[int, int]]:
        """Every pi(s, l) that blocks ``partition`` (counting argument: enough players of each type gain)."""
        small, large = self._current(partition)
        out = []
        for s in range(self.S + 1):
            for l in range(self.L + 1):
                if s + l == 0:
                    continue
                es, el = self.err(s, l)
                if not strict:
                    ok = (s == 0 or sum(e > es for e in small) >= s) and (l == 0 or sum(e > el for e in large) >= l)
                else:
                    weak = (s == 0 or sum(e >= es for e in small) >= s) and (l == 0 or sum(e >= el for e in large) >= l)
                    one_strict = (s > 0 and any(e > es for e in small)) or (l > 0 and any(e > el for e in large))
                    ok = weak and one_strict
                if ok:
                    out.append((s, l))
        return out

    def is_core(self, partition: TypedPartition) -> bool:
        return not self.blocking(partition)

    def is_strict_core(self, partition: TypedPartition) -> bool:
        return not self.blocking(partition, strict=True)

    def is_individually_stable(self, partition: TypedPartition) -> bool:
        """No player gains by moving to another coalition (or alone) that weakly welcomes it."""
        blocks = list(partition)
        for idx, (s, l) in enumerate(blocks):
            for kind in ("s", "l"):
                if (s if kind == "s" else l) == 0:
                    continue
                mine = self.err(s, l)[0 if kind == "s" else 1]
                targets = [b for k, b in enumerate(blocks) if k != idx] + [(0, 0)]
                for ts, tl in set(targets):
                    ns, nl = (ts + 1, tl) if kind == "s" else (ts, tl + 1)
                    after = self.err(ns, nl)
                    if after[0 if kind == "s" else 1] >= mine:
                        continue
                    before = self.err(ts, tl)
                    welcome = (ts == 0 or after[0] <= before[0]) and (tl == 0 or after[1] <= before[1])
                    if welcome:
                        return False
        return True

    def check(self, partition: TypedPartition, notion: str) -> bool:
        return {"core": self.is_core, "strict_core": self.is_strict_core, "individual": self.is_individually_stable}[notion](partition)

    def partitions(self) -> Iterator[TypedPartition]:
        """Every typed partition: multisets of (s, l) blocks summing to (S, L)."""
        yield from _vector_partitions(self.S, self.L)

    def stable(self, notion: str) -> list[TypedPartition]:
        return [p for p in self.partitions() if self.check(p, notion)]


@lru_cache(maxsize=None)
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
    a numerical check of the tie instances) shows the grand coalition is the strictly core stable one (spec §4.3).
    """
    if game.S and game.L and game.err(game.S, game.L)[0] > game.err(game.S, 0)[0]:
        return typed([(game.S, 0), (0, game.L)])
    return typed([(game.S, game.L)])


def grand(game: TwoTypeGame) -> TypedPartition:
    return typed([(game.S, game.L)])


def all_local(game: TwoTypeGame) -> TypedPartition:
    return typed([(1, 0)] * game.S + [(0, 1)] * game.L)


def split(game: TwoTypeGame) -> TypedPartition:
    return typed([(game.S, 0), (0, game.L)])


def describe(partition: Partition, names: str = "abcdefghijklmnopqrstuvwxyz") -> str:
    """{a,b},{c} style label of a player-level partition."""
    return ",".join("{" + ",".join(names[j] for j in block) + "}" for block in sorted(partition, key=lambda b: (b[0],)))


__all__ = ["NOTIONS", "stable_partitions", "set_partitions", "coalition_table", "blocking_coalitions", "TwoTypeGame",
           "theorem_5_5_partition", "theorem_6_5_partition", "typed", "describe"]
