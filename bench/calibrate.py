"""This machine's reference figure: client-samples per second of `bench/engine_throughput.py --clients 20` (fp32, CPU,
sequential executor), and the factor by which times stated for the reference machine scale here (docs/budgets.md).

The figure is taken with torch's intra-op threads pinned (``--threads``, default 2: the reference machine's cores), after
one untimed warm-up round, as the median of as many timed rounds as fit in ``--seconds`` with the warm-up (at least
``--min-repeats`` unless that takes twice as long: a busy machine stops at fewer rounds rather than running on).
A median of many rounds is stable where the best or a single round is not: other processes on a shared machine slow
some rounds down, and the median ignores a minority of those. The load average is printed beside it: a figure taken
while other work ran is low, and says so.

Usage: python bench/calibrate.py [--threads 2] [--seconds 45] [--min-repeats 5] [--max-repeats 40]   (or: ./run calibrate)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch
from engine_throughput import make_clients, one_round, setup

#: The reference machine every budget in README and docs is stated for: 2 cores at this many client-samples/s.
REFERENCE = 2000.0


def measure(threads: int, seconds: float, min_repeats: int, max_repeats: int) -> tuple[list[float], int]:
    """Client-samples/s of each timed sequential round (20 clients, fp32, CPU) and the samples of one round."""
    torch.set_num_threads(threads)
    device = torch.device("cpu")
    model, params, settings = setup(device, epochs=1, precision="fp32")
    clients, samples = make_clients(20, np.random.default_rng(0), device)
    start = time.perf_counter()  # the time box holds the warm-up too
    one_round(model, params, clients, settings, "sequential", device, None, False)  # warm-up: kernels, allocator
    rates: list[float] = []
    while len(rates) < max_repeats:
        elapsed = time.perf_counter() - start
        if rates and elapsed >= seconds and (len(rates) >= min_repeats or elapsed >= 2 * seconds):
            break
        rates.append(samples / one_round(model, params, clients, settings, "sequential", device, None, False))
    return rates, samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads (default 2: the reference's)")
    parser.add_argument(
        "--seconds", type=float, default=45.0, help="time box of the warm-up and timed rounds (default 45)"
    )
    parser.add_argument("--min-repeats", type=int, default=5, help="timed rounds at least (default 5), time allowing")
    parser.add_argument("--max-repeats", type=int, default=40, help="timed rounds at most (default 40)")
    args = parser.parse_args(argv)
    if args.threads < 1 or args.min_repeats < 1 or args.max_repeats < args.min_repeats:
        parser.error("--threads and --min-repeats must be >= 1, and --max-repeats >= --min-repeats")
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    rates, samples = measure(args.threads, args.seconds, args.min_repeats, args.max_repeats)
    elapsed = time.perf_counter() - start
    load_after = os.getloadavg()[0]
    figure = statistics.median(rates)
    q1, _, q3 = statistics.quantiles(rates, n=4, method="inclusive") if len(rates) > 1 else (figure, figure, figure)
    print(
        f"{len(rates)} timed rounds of 20 clients ({samples:,} client-samples each), fp32, CPU, sequential executor, "
        f"{torch.get_num_threads()} torch threads, {elapsed:.0f} s with the warm-up and model set-up; {os.cpu_count()} CPUs, "
        f"load average {load_before:.2f} before, {load_after:.2f} after"
    )
    print(
        f"rounds: min {min(rates):,.0f}, quartiles {q1:,.0f} / {q3:,.0f}, max {max(rates):,.0f} client-samples/s "
        f"(interquartile range {100 * (q3 - q1) / figure:.1f} % of the median)"
    )
    if load_before > 0.5:
        print(f"note: load average {load_before:.2f} before the run: other work shared the CPUs, the figure may be low")
    print(
        f"this machine: {figure:,.0f} client-samples/s; times stated for the reference machine (2 cores at "
        f"{REFERENCE:,.0f}) scale here by {REFERENCE:,.0f} / {figure:,.0f} = {REFERENCE / figure:.2f}x"
    )


if __name__ == "__main__":
    main()
