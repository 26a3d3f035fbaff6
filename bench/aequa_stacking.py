"""CPU-seconds of Aequa's Algorithm 1 on the default profile's 8-feature synthetic task, the client loop against the
stacked masked-width pass, side by side in one process (issue 41, items 2 and 4).

- The run: ``learning.aequa.aequa_step`` (full + one random width per minibatch) on the slimmable MLP (``aequa_mlp``,
  8 inputs, hidden 128-128), 10 clients of 150 samples each (the default profile's 1,500 synthetic training samples),
  batch 32, SGD 0.05 with momentum 0.9, one local epoch, p_min 0.1, ``--rounds`` rounds through ``run_rounds``.
  The data are Gaussian features with labels of a random linear map (what a step costs does not depend on them).
- ``sequential``: each client's steps one after another, the width-p slice per pass (the engine's client loop).
  ``stacked``: every client's step at once, each client's units beyond its width masked
  (``fairshare.learning.cohort.Cohort.masked_width_steps``); its final state must be within ``--tolerance`` of the client loop's
  (the masked products add exact zeros in another order, so the two differ by float rounding only).
- Seed stacking: one local phase of 10 clients (one run's cohort) against 30 (three runs' cohorts in one call, what
  training three seeds as one stacked batch would give), CPU-milliseconds per client-step.

Both variants run one thread and alternate ``--repeats`` times; the best repeat of each is printed, then
``client loop / stacked CPU-seconds: <r>x``.

    python bench/aequa_stacking.py [--rounds 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from fairshare import seeding
from fairshare.learning import aequa as aq
from fairshare.learning.engine import ClientData, TrainSettings
from fairshare.learning.rounds import run_rounds

SETTINGS = TrainSettings(epochs=1, batch_size=32, lr=0.05, momentum=0.9)
FEATURES, CLASSES, SAMPLES = 8, 10, 150


def clients(n: int) -> list[ClientData]:
    """``n`` clients of ``SAMPLES`` Gaussian samples each, labelled by one random linear map."""
    rng = seeding.generator(2026, "bench/aequa_stacking/data")
    mix = rng.normal(size=(FEATURES, CLASSES))
    out = []
    for _ in range(n):
        x = rng.normal(size=(SAMPLES, FEATURES)).astype(np.float32)
        out.append(ClientData(torch.from_numpy(x), torch.from_numpy((x @ mix).argmax(1))))
    return out


def model() -> torch.nn.Module:
    torch.manual_seed(0)
    return aq.build_slimmable_model("aequa_mlp", (FEATURES,), CLASSES)


def run(executor: str, rounds: int) -> dict[str, torch.Tensor]:
    """Algorithm 1 for ``rounds`` rounds with ``executor``; the final global state."""
    net = model()
    init = {k: v.detach().clone() for k, v in net.state_dict().items()}
    step = aq.aequa_step(
        net,
        clients(10),
        SETTINGS,
        order_rng=lambda r, i: seeding.generator(2026, "bench/order", r, i),
        width_rng=lambda r, i: seeding.generator(2026, "bench/width", r, i),
        p_min=0.1,
        executor=executor,
    )
    with tempfile.TemporaryDirectory() as tmp:
        state, _ = run_rounds(step, init, rounds, settings="bench", checkpoint=Path(tmp) / "job.pt", progress=False)
    return state


def local_phase(executor: str, n: int) -> float:
    """CPU-milliseconds per client-step of one local phase of ``n`` clients."""
    net, cohort = model(), clients(n)
    init = {k: v.detach().clone() for k, v in net.state_dict().items()}
    began = time.process_time()
    aq.aequa_local_train(
        net,
        init,
        cohort,
        SETTINGS,
        generators=[seeding.generator(2026, "bench/order", i) for i in range(n)],
        width_generators=[seeding.generator(2026, "bench/width", i) for i in range(n)],
        p_min=0.1,
        executor=executor,
    )
    steps = n * len(range(0, SAMPLES, SETTINGS.batch_size))
    return 1e3 * (time.process_time() - began) / steps


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="Aequa rounds (the default profile trains 40)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tolerance", type=float, default=1e-5, help="largest parameter difference accepted")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    times: dict[str, list[float]] = {"sequential": [], "batched": []}
    states = {}
    for _ in range(args.repeats):
        for executor in times:
            began = time.process_time()
            states[executor] = run(executor, args.rounds)
            times[executor].append(time.process_time() - began)
    gap = max((states["sequential"][k] - states["batched"][k]).abs().max().item() for k in states["sequential"])
    if not gap <= args.tolerance:
        raise SystemExit(f"the stacked pass is {gap:.2e} from the client loop, more than --tolerance {args.tolerance}")
    loop, stacked = min(times["sequential"]), min(times["batched"])
    print(
        f"Aequa, synthetic 8 features, 10 clients, {args.rounds} rounds: client loop {loop:.2f} CPU-s, stacked {stacked:.2f}"
    )
    print(f"largest parameter difference after {args.rounds} rounds: {gap:.1e}")
    per_step = {n: min(local_phase("batched", n) for _ in range(args.repeats)) for n in (10, 30)}
    loop_step = min(local_phase("sequential", 10) for _ in range(args.repeats))
    print(
        f"CPU-ms per client-step of one local phase: client loop {loop_step:.3f}; stacked 10 clients (one run) "
        f"{per_step[10]:.3f}, 30 clients (three seeds' cohorts) {per_step[30]:.3f}"
    )
    print(f"client loop / stacked CPU-seconds: {loop / stacked:.2f}x")


if __name__ == "__main__":
    main()
