"""Multi-model FL on real data (digits): allocation rule, task construction, determinism, resume after an interrupted
run, and a stale checkpoint (other settings or another number of rounds) never resumed."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fairshare import seeding
from fairshare.data.datasets import build_dataset
from fairshare.data.partition import mmfl_iid
from fairshare.learning.engine import ClientData, TrainSettings
from fairshare.learning.evaluation import to_tensors
from fairshare.learning.mmfl import FIDELITY, Task, allocation_probabilities, build_task, run_mmfl
from fairshare.learning.models import build_model
from fairshare.learning.rounds import read_checkpoint


class Killed(Exception):
    """Stands in for a SIGKILL in the middle of a round."""


def test_allocation_probabilities_match_the_worked_example():
    # spec §2.2: accuracies (0.95, 0.60, 0.80) -> f = (5, 40, 20)
    assert np.allclose(allocation_probabilities([0.95, 0.6, 0.8], 1), [1 / 3] * 3)
    assert np.allclose(allocation_probabilities([0.95, 0.6, 0.8], 3), [0.012, 0.790, 0.198], atol=1e-3)
    assert np.allclose(allocation_probabilities([1.0, 1.0], 3), [0.5, 0.5])  # guard against 0/0


def _tasks(seed=0, precision="fp32"):
    ds = build_dataset("digits", rng=seeding.generator(0, "dataset"))
    x, y = to_tensors(ds.x_train, ds.y_train)
    xt, yt = to_tensors(ds.x_test[:200], ds.y_test[:200])
    tasks = []
    for s in range(2):
        part = mmfl_iid(ds.y_train, 4, (20, 30), seeding.generator(seed, "partition", s))
        torch.manual_seed(s)
        model = build_model("mnist_cnn", (1, 8, 8), 10)
        clients = [ClientData(x[torch.as_tensor(ix)], y[torch.as_tensor(ix)]) for ix in part.client_indices]
        tasks.append(
            Task(f"digits#{s}", model, clients, xt, yt, TrainSettings(1, 16, 0.05, 0.9, 1e-3, precision=precision))
        )
    return tasks


def _run(tasks, checkpoint=None, rounds=3, policy="fedfair", alpha=3.0, kill_at=None, chunk=None):
    def order(r, s, c):
        if r == kill_at:
            raise Killed
        return seeding.generator(5, "data_order", r, s, c)

    return run_mmfl(
        tasks,
        n_clients=4,
        active_rate=0.5,
        rounds=rounds,
        policy=policy,
        alpha=alpha,
        weighted_aggregation=True,
        executor="batched",
        sampling_rng=lambda r: seeding.generator(5, "sampling", r),
        order_rng=order,
        settings="seed 5",
        checkpoint=checkpoint,
        progress=False,
        chunk=chunk,
    )


def test_runs_learn_and_are_deterministic():
    rows_a, alloc_a = _run(_tasks(), rounds=6)
    rows_b, alloc_b = _run(_tasks(), rounds=6)
    assert rows_a == rows_b and np.array_equal(alloc_a, alloc_b)
    first = [r["accuracy"] for r in rows_a if r["round"] == 1]
    last = [r["accuracy"] for r in rows_a if r["round"] == 6]
    assert min(last) > 0.3 and min(last) > max(
        first
    )  # every task learns: three times chance (0.1) after six short rounds
    assert ((alloc_a >= 0).sum(axis=0) == 2).all()  # 50% of 4 clients active every round


def test_killed_run_resumes_to_identical_result(tmp_path):
    ckpt = tmp_path / "run.pt"
    full_rows, full_alloc = _run(_tasks())
    with pytest.raises(Killed):
        _run(_tasks(), checkpoint=ckpt, kill_at=2)
    assert read_checkpoint(ckpt)["round"] == 2
    resumed_rows, resumed_alloc = _run(_tasks(), checkpoint=ckpt)
    assert resumed_rows == full_rows and np.array_equal(resumed_alloc, full_alloc)


@pytest.mark.parametrize("change", [{"rounds": 2}, {"alpha": 4.0}, {"policy": "random"}])
def test_checkpoint_of_another_run_is_discarded(tmp_path, capsys, change):
    """A run killed at round 3 of 4 and rerun with fewer rounds (or another alpha or policy) trains the new run
    from round 0: its rows and allocation map have the new run's shape and values (the bug of issue 17: a 700-round
    checkpoint resumed by a 15-round run reported 87 rounds)."""
    ckpt = tmp_path / "run.pt"
    with pytest.raises(Killed):
        _run(_tasks(), checkpoint=ckpt, rounds=4, kill_at=3)
    fresh_rows, fresh_alloc = _run(_tasks(), **{"rounds": 4, **change})
    rows, alloc = _run(_tasks(), checkpoint=ckpt, **{"rounds": 4, **change})
    assert "discarding checkpoint" in capsys.readouterr().err
    assert rows == fresh_rows and np.array_equal(alloc, fresh_alloc)
    assert alloc.shape == (4, change.get("rounds", 4)) and max(r["round"] for r in rows) == change.get("rounds", 4)


def test_checkpoint_of_other_task_data_is_discarded(tmp_path, capsys):
    ckpt = tmp_path / "run.pt"
    with pytest.raises(Killed):
        _run(_tasks(), checkpoint=ckpt, kill_at=2)
    _run(_tasks(seed=1), checkpoint=ckpt)  # another partition of the same datasets
    assert "discarding checkpoint" in capsys.readouterr().err


def test_build_task_slices_clients_and_masks_absent_classes():
    from fairshare.data.partition import mmfl_noniid

    ds = build_dataset("digits", rng=seeding.generator(0, "dataset"))
    part = mmfl_noniid(ds.y_train, 3, (20, 30), 0.5, seeding.generator(0, "partition"))
    settings = TrainSettings(1, 16, 0.05)

    def build(fidelity: str, mask_absent: bool = True) -> Task:
        return build_task(
            "digits#0",
            ds,
            part,
            model="mnist_cnn",
            fidelity=FIDELITY[fidelity],
            settings=settings,
            test_indices=np.arange(50),
            init_seed=11,
            mask_absent=mask_absent,
            lr_decay=0.98,
        )

    task, again = build("corrected"), build("corrected")
    assert len(task.clients) == 3 and len(task.y_test) == 50
    for client, ix, counts in zip(task.clients, part.client_indices, part.counts):
        assert torch.equal(client.y, torch.as_tensor(ds.y_train[ix]).long())
        assert torch.equal(client.class_mask, torch.as_tensor(counts > 0))
    assert all(torch.equal(a, b) for a, b in zip(task.model.state_dict().values(), again.model.state_dict().values()))
    assert task.settings.absent_class_fill == float("-inf") and build("faithful").settings.absent_class_fill == 0.0
    assert build("faithful", mask_absent=False).settings.absent_class_fill is None
    # the learning rate of round 3: decayed when corrected, the authors' inert decay when faithful
    assert task.round_settings(3).lr == pytest.approx(0.05 * 0.98**3) and build("faithful").round_settings(3).lr == 0.05


@pytest.mark.parametrize("policy", ["random", "round_robin", "qffl"])
def test_baselines_run(policy):
    rows, alloc = _run(_tasks(), rounds=2, policy=policy)
    assert len(rows) == 4 and np.isfinite([r["accuracy"] for r in rows]).all()


def test_eligibility_restricts_clients_to_recruited_tasks():
    eligibility = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])  # client 3 was recruited for nothing
    rows, alloc = run_mmfl(
        _tasks(),
        n_clients=4,
        active_rate=1.0,
        rounds=2,
        policy="fedfair",
        alpha=3,
        weighted_aggregation=True,
        executor="batched",
        sampling_rng=lambda r: seeding.generator(6, "sampling", r),
        order_rng=lambda r, s, c: seeding.generator(6, "data_order", r, s, c),
        settings="seed 6",
        progress=False,
        eligibility=eligibility,
    )
    assert (alloc[:2] == 0).all() and (alloc[2] == 1).all() and (alloc[3] == -1).all()


def test_chunk_changes_nothing_and_precision_reaches_training_and_evaluation():
    rows, alloc = _run(_tasks(), rounds=2)
    chunked_rows, chunked_alloc = _run(_tasks(), rounds=2, chunk=1)
    assert chunked_rows == rows and np.array_equal(chunked_alloc, alloc)
    bf16_rows, _ = _run(_tasks(precision="bf16"), rounds=2)
    assert [r["loss"] for r in bf16_rows] != [r["loss"] for r in rows]
