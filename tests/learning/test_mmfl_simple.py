"""The simple entry point of multi-model FL: tasks from a dataset with defaults, and ``run_mmfl`` called with a seed
instead of generator factories and a settings hash."""

from __future__ import annotations

import numpy as np
import pytest

from fairshare import seeding
from fairshare.data.datasets import build_dataset
from fairshare.data.partition import mmfl_iid
from fairshare.learning.engine import TrainSettings
from fairshare.learning.mmfl import FIDELITY, build_task, run_mmfl, seeded_generators


def _tasks():
    ds = build_dataset("digits", rng=seeding.generator(0, "dataset"))
    settings = TrainSettings(epochs=1, batch_size=16, lr=0.05)
    return [
        build_task(
            f"digits#{s}",
            ds,
            mmfl_iid(ds.y_train, 4, (20, 30), seeding.generator(0, "partition", s)),
            model="mlp",
            settings=settings,
            init_seed=s,
        )
        for s in range(2)
    ]


def test_build_task_defaults_to_the_whole_test_split_and_no_quirks():
    task = _tasks()[0]
    assert len(task.y_test) == 359 and task.fidelity == FIDELITY["corrected"]  # digits: 1,797 samples, 20% test


def test_a_seed_gives_the_seeded_generators():
    rows, alloc = run_mmfl(_tasks(), rounds=2, seed=3, progress=False)
    sampling, order, settings = seeded_generators(3)
    explicit = run_mmfl(
        _tasks(),
        n_clients=4,
        active_rate=1.0,
        rounds=2,
        policy="fedfair",
        alpha=3.0,
        weighted_aggregation=True,
        executor="auto",
        sampling_rng=sampling,
        order_rng=order,
        settings=settings,
        progress=False,
    )
    assert rows == explicit[0] and np.array_equal(alloc, explicit[1])
    assert alloc.shape == (4, 2) and (alloc >= 0).all()  # every client active every round by default
    other, _ = run_mmfl(_tasks(), rounds=2, seed=4, progress=False)
    assert [r["accuracy"] for r in other] != [r["accuracy"] for r in rows]


def test_generators_without_a_settings_hash_are_refused():
    sampling, order, _ = seeded_generators(0)
    with pytest.raises(ValueError, match="together"):
        run_mmfl(_tasks(), rounds=1, sampling_rng=sampling, order_rng=order, progress=False)
