"""Side by side: training loops with glibc's default heap, with the trim threshold and top pad alone (the first fix),
and with ``fairshare.pipeline.heap.keep_heap`` (those and the mmap threshold).

Each variant runs in its own fresh process (``mallopt`` settings last for the process), alternating, ``--repeats``
times, setting the heap before torch is imported as every ``fairshare`` command does; each prints user and system
CPU-seconds, minor page faults and peak RSS of the loop, and a hash of the trained weights (the same in all:
allocation does not change arithmetic). Two loops, one thread each, as a pipeline job runs:

- ``step``: the 1-conv CNN's first layer on 28x28 inputs at batch 64 (4.7 MB activations), forward and backward;
- ``held``: the same step while 150 client states of 3.2 MB each are held and one is copied per step (the Aequa
  scale job's pattern: 300 such client models alive while it trains and evaluates).

    python bench/heap_trim.py [--steps 1500] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

LOOP = r"""
import ctypes, hashlib, json, resource, sys
from fairshare.pipeline import heap
variant, pattern, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
if variant == "kept":  # before torch is imported, as every fairshare command does
    kept = heap.keep_heap()
elif variant == "trim_only":  # the first fix: trim threshold and top pad, the mmap threshold left frozen at 128 KiB
    libc = ctypes.CDLL("libc.so.6")
    kept = bool(libc.mallopt(-1, heap.TRIM_THRESHOLD)) and bool(libc.mallopt(-2, heap.TOP_PAD))
else:
    kept = False
import torch
torch.set_num_threads(1)
torch.manual_seed(0)
x = torch.randn(64, 1, 28, 28)
w = torch.randn(32, 1, 5, 5, requires_grad=True)
held = [torch.randn(803840) for _ in range(150)] if pattern == "held" else []
before = resource.getrusage(resource.RUSAGE_SELF)
for i in range(steps):
    if held:
        held[i % len(held)] = held[i % len(held)].clone()
    loss = torch.relu(torch.nn.functional.conv2d(x, w)).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
    w.grad = None
after = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"kept": kept, "user": after.ru_utime - before.ru_utime, "sys": after.ru_stime - before.ru_stime,
                  "faults": after.ru_minflt - before.ru_minflt, "peak_mb": after.ru_maxrss // 1024,
                  "weights": hashlib.sha256(w.detach().numpy().tobytes()).hexdigest()[:16]}))
"""
VARIANTS = ("default", "trim_only", "kept")
PATTERNS = ("step", "held")


def run(variant: str, steps: int, pattern: str = "step") -> dict:
    """One loop in a fresh process: its CPU-seconds, minor faults, peak RSS (MB) and weights' hash."""
    cmd = [sys.executable, "-c", LOOP, variant, pattern, str(steps)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    for pattern in PATTERNS:
        results: dict[str, list[dict]] = {v: [] for v in VARIANTS}
        for _ in range(args.repeats):
            for variant in VARIANTS:
                r = run(variant, args.steps, pattern)
                results[variant].append(r)
                print(
                    f"{pattern:4s} {variant:9s} user {r['user']:6.2f} s  sys {r['sys']:6.2f} s  "
                    f"minor faults {r['faults']:>9d}  peak {r['peak_mb']:>5d} MB  weights {r['weights']}",
                    flush=True,
                )
        cpu = {v: statistics.median(r["user"] + r["sys"] for r in rs) for v, rs in results.items()}
        same = len({r["weights"] for rs in results.values() for r in rs}) == 1
        print(
            f"{pattern}: CPU-seconds (median user + sys): default {cpu['default']:.2f}, trim only "
            f"{cpu['trim_only']:.2f}, kept {cpu['kept']:.2f}: default / kept {cpu['default'] / cpu['kept']:.2f}x; "
            f"weights identical: {same}"
        )


if __name__ == "__main__":
    main()
