"""Fair concurrent training of several models (FedFairMMFL) on small data: two tasks share 12 clients.

Task "digits" is scikit-learn's 8x8 digits (bundled, no download); task "noisy digits" is the same data with heavy
pixel noise, so it is harder. Each round every client trains one task: ``fedfair`` sends more clients to the task
with the higher error (Eq. 5, alpha = 3), ``random`` picks uniformly. Prints each policy's final accuracies.
Run: uv run python examples/mmfl.py
"""

from __future__ import annotations

import dataclasses

import numpy as np

from fairshare import seeding
from fairshare.data.datasets import build_dataset
from fairshare.data.partition import mmfl_iid
from fairshare.learning.engine import TrainSettings
from fairshare.learning.mmfl import Task, build_task, run_mmfl

CLIENTS, ROUNDS, SEED, NOISE = 12, 8, 0, 120.0


def tasks() -> list[Task]:
    """The two tasks: an easy one and a noisy copy, each with its own partition of the 12 clients."""
    digits = build_dataset("digits", rng=seeding.generator(SEED, "dataset"))
    noise = seeding.generator(SEED, "dataset", 1)

    def noisy(x: np.ndarray) -> np.ndarray:  # pixels are uint8 in [0, 255]
        return np.clip(x + noise.normal(0, NOISE, x.shape), 0, 255).astype(np.uint8)

    hard = dataclasses.replace(digits, name="noisy digits", x_train=noisy(digits.x_train), x_test=noisy(digits.x_test))
    settings = TrainSettings(epochs=2, batch_size=16, lr=0.1, momentum=0.9)
    return [
        build_task(
            ds.name,
            ds,
            mmfl_iid(ds.y_train, CLIENTS, (30, 50), seeding.generator(SEED, "partition", s)),
            model="mlp",
            settings=settings,
            init_seed=s,
        )
        for s, ds in enumerate((digits, hard))
    ]


def main() -> None:
    for policy in ("fedfair", "random"):
        rows, alloc = run_mmfl(tasks(), rounds=ROUNDS, policy=policy, seed=SEED, progress=False)
        final = {r["task_name"]: r["accuracy"] for r in rows if r["round"] == ROUNDS}
        share = (alloc == 1).sum() / (alloc >= 0).sum()
        accs = ", ".join(f"{name} {acc:.3f}" for name, acc in final.items())
        print(
            f"{policy:<8} final accuracy: {accs}; min {min(final.values()):.3f}; noisy task's client share {share:.2f}"
        )


if __name__ == "__main__":
    main()
