"""Side by side: a CNN training loop with glibc's default heap trimming and with ``fairshare.pipeline.heap.keep_heap``.

Each variant runs in its own fresh process (``mallopt`` settings last for the process), alternating, ``--repeats``
times; each prints user and system CPU-seconds and minor page faults of the loop, and a hash of the trained weights
(the same in both: allocation does not change arithmetic). The loop is the 1-conv CNN's first layer on 28x28 inputs
at batch 64 (4.7 MB activations), forward and backward, one thread, as a pipeline job runs it.

    python bench/heap_trim.py [--steps 1500] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

LOOP = r"""
import hashlib, json, resource, sys, torch
from fairshare.pipeline.heap import keep_heap
kept = keep_heap() if sys.argv[1] == "kept" else False
torch.set_num_threads(1)
torch.manual_seed(0)
x = torch.randn(64, 1, 28, 28)
w = torch.randn(32, 1, 5, 5, requires_grad=True)
before = resource.getrusage(resource.RUSAGE_SELF)
for _ in range(int(sys.argv[2])):
    loss = torch.relu(torch.nn.functional.conv2d(x, w)).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
    w.grad = None
after = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"kept": kept, "user": after.ru_utime - before.ru_utime, "sys": after.ru_stime - before.ru_stime,
                  "faults": after.ru_minflt - before.ru_minflt,
                  "weights": hashlib.sha256(w.detach().numpy().tobytes()).hexdigest()[:16]}))
"""


def run(variant: str, steps: int) -> dict:
    out = subprocess.run([sys.executable, "-c", LOOP, variant, str(steps)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    results: dict[str, list[dict]] = {"default": [], "kept": []}
    for _ in range(args.repeats):
        for variant in results:
            r = run(variant, args.steps)
            results[variant].append(r)
            print(
                f"{variant:7s} user {r['user']:6.2f} s  sys {r['sys']:6.2f} s  minor faults {r['faults']:>9d}  "
                f"weights {r['weights']}",
                flush=True,
            )
    cpu = {v: statistics.median(r["user"] + r["sys"] for r in rs) for v, rs in results.items()}
    same = len({r["weights"] for rs in results.values() for r in rs}) == 1
    print(
        f"CPU-seconds (median user + sys): default {cpu['default']:.2f}, kept {cpu['kept']:.2f}: "
        f"{cpu['default'] / cpu['kept']:.2f}x; weights identical: {same}"
    )


if __name__ == "__main__":
    main()
