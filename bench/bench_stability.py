"""Time `stable_partitions` against a straightforward reference, side by side, for M = 8, 9, 10 players.

`stable_partitions` computes every coalition's errors once (2^M - 1 coalitions, exact ranks) and tests all Bell(M)
partitions against that table with numpy. The reference does what the definitions say, one partition at a time:
enumerate set partitions recursively and, for each partition, recompute with `errors` the errors of its blocks
and of every coalition (core, strict core) or every single-player move (individual stability) it must check,
stopping at the first violation (floats, ties within a relative 1e-9). Both run all three notions.

For M >= 10 (more than 25,000 partitions) the reference takes about a minute on one core, so by default it
checks a fixed random sample of partitions there and its time is extrapolated to all Bell(M) partitions (the
printout says so); ``--sample 0`` runs it in full.
Usage: python bench/bench_stability.py [--sizes 8 9 10] [--sample 2000] [--method coarse]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

import numpy as np

from fairshare.games.model_sharing import errors
from fairshare.games.stability import NOTIONS, stable_partitions

MU_E, SIGMA2, TOL = 10, 1, 1e-9


def partitions(players: list[int]) -> Iterator[list[list[int]]]:
    """Every set partition of ``players`` (first player joins each block of a partition of the rest, or is alone)."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for smaller in partitions(rest):
        for k in range(len(smaller)):
            yield smaller[:k] + [[first] + smaller[k]] + smaller[k + 1 :]
        yield [[first]] + smaller


def _errs(n, members, method) -> dict[int, float]:
    return dict(zip(members, errors([n[j] for j in members], mu_e=MU_E, sigma2=SIGMA2, method=method)))


def _less(a: float, b: float) -> bool:
    return a < b * (1 - TOL)


def reference_is_stable(n, part, method, notion) -> bool:
    """The stability definition applied to one partition, recomputing every error it needs."""
    current = {}
    for block in part:
        current.update(_errs(n, block, method))
    m = len(n)
    if notion in ("core", "strict_core"):
        for mask in range(1, 1 << m):
            members = [j for j in range(m) if mask >> j & 1]
            new = _errs(n, members, method)
            better = [_less(new[j], current[j]) for j in members]
            weak = [not _less(current[j], new[j]) for j in members]
            if all(better) or (notion == "strict_core" and all(weak) and any(better)):
                return False
        return True
    for block in part:
        for i in block:
            for target in [b for b in part if b is not block] + [[]]:
                joined = _errs(n, target + [i], method)
                if not _less(joined[i], current[i]):
                    continue
                before = _errs(n, target, method) if target else {}
                if all(not _less(before[k], joined[k]) for k in target):
                    return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 9, 10])
    parser.add_argument(
        "--sample", type=int, default=2000, help="partitions the reference checks per notion beyond 25,000 (0: all)"
    )
    parser.add_argument("--method", default="coarse", choices=["uniform", "coarse", "fine"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    ratio = 1.0
    for m in args.sizes:
        n = rng.integers(1, 60, size=m).tolist()
        fast, t_fast = {}, {}
        for notion in NOTIONS:
            t0 = time.perf_counter()
            fast[notion] = set(stable_partitions(n, mu_e=MU_E, sigma2=SIGMA2, method=args.method, notion=notion))
            t_fast[notion] = time.perf_counter() - t0
        every = list(partitions(list(range(m))))
        sampled = bool(args.sample) and len(every) > 25_000
        chosen = [every[i] for i in rng.choice(len(every), size=args.sample, replace=False)] if sampled else every
        t_ref, agree = {}, True
        for notion in NOTIONS:
            t0 = time.perf_counter()
            verdicts = [reference_is_stable(n, p, args.method, notion) for p in chosen]
            t_ref[notion] = (time.perf_counter() - t0) * len(every) / len(chosen)
            canonical = [tuple(sorted(tuple(sorted(b)) for b in p)) for p in chosen]
            agree &= verdicts == [p in fast[notion] for p in canonical]
        how = (
            f"extrapolated from {len(chosen)} of {len(every)} partitions" if sampled else f"all {len(every)} partitions"
        )
        per_notion = "  ".join(f"{k} {t_fast[k]:.2f}s/{t_ref[k]:.1f}s" for k in NOTIONS)
        ratio = sum(t_ref.values()) / sum(t_fast.values())
        print(
            f"M={m:2d}  Bell={len(every):6d}  stable_partitions {sum(t_fast.values()):6.2f} s   reference {sum(t_ref.values()):8.1f} s "
            f"({how})   same verdicts: {agree}   ratio {ratio:7.1f}x   [{per_notion}]"
        )
    print(
        f"reference/stable_partitions (core + strict core + individual, {args.method}, M={args.sizes[-1]}): {ratio:.1f}x"
    )


if __name__ == "__main__":
    main()
