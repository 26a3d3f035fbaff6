"""Time `stable_partitions` (table of 2^M coalition errors + vectorised checks) against a straightforward reference.

The reference enumerates set partitions and, for each one, recomputes the errors of its blocks and of every
candidate coalition, exactly as the definitions read. For M >= 9 the reference would take many minutes, so it is
timed on a fixed random sample of partitions and its per-partition time is extrapolated to all Bell(M) partitions
(the printout says so). Usage: python bench/bench_stability.py [--sizes 8 9 10] [--sample 300]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from fairshare.games import stability as st
from fairshare.games.model_sharing import errors


def reference_is_core(n, part, mu_e, sigma2, method) -> bool:
    """Core check of one partition by recomputing every error it needs (floats with a 1e-12 relative tie margin)."""
    m = len(n)
    current = {}
    for block in part:
        errs = errors([n[j] for j in block], mu_e=mu_e, sigma2=sigma2, method=method)
        current.update(zip(block, errs))
    for mask in range(1, 1 << m):
        members = st.mask_to_players(mask)
        errs = errors([n[j] for j in members], mu_e=mu_e, sigma2=sigma2, method=method)
        if all(e < current[j] * (1 - 1e-12) for j, e in zip(members, errs)):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 9, 10])
    parser.add_argument("--sample", type=int, default=300, help="partitions timed with the reference for M >= 9")
    parser.add_argument("--method", default="coarse", choices=["uniform", "coarse", "fine"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    ratios = []
    for m in args.sizes:
        n = rng.integers(1, 60, size=m).tolist()
        t0 = time.perf_counter()
        fast = st.stable_partitions(n, mu_e=10, sigma2=1, method=args.method, notion="core")
        t_fast = time.perf_counter() - t0
        parts = list(st.set_partitions(m))
        sample = parts if m < 9 else [parts[i] for i in rng.choice(len(parts), size=min(args.sample, len(parts)), replace=False)]
        t0 = time.perf_counter()
        ref_stable = [p for p in sample if reference_is_core(n, p, 10, 1, args.method)]
        t_ref = (time.perf_counter() - t0) * len(parts) / len(sample)
        agree = set(ref_stable) == set(fast) & set(sample) if m >= 9 else set(ref_stable) == set(fast)
        how = "measured" if len(sample) == len(parts) else f"extrapolated from {len(sample)} of {len(parts)} partitions"
        print(f"M={m:2d}  Bell={len(parts):6d}  stable_partitions {t_fast:7.2f} s   reference {t_ref:9.1f} s ({how})   "
              f"same answer: {agree}   ratio {t_ref / t_fast:8.1f}x")
        ratios.append(t_ref / t_fast)
    print(f"reference/stable_partitions (core, {args.method}, M={args.sizes[-1]}): {ratios[-1]:.1f}x")


if __name__ == "__main__":
    main()
