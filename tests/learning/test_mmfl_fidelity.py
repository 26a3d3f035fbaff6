"""FedFairMMFL's two fidelity presets, each against a plain re-implementation of its training round.

The faithful reference follows spec §2.4-2.5 step by step, the way the authors' loop is described: per client and
round a model loaded with the global weights, a fresh ``torch.optim.SGD(lr, momentum 0.9, weight decay)`` and a
``StepLR(step 1, gamma)`` stepped once after local training (so it never takes effect), outputs of absent classes
set to 0 (``masked_fill``) before ``nn.CrossEntropyLoss``, the CNN without a nonlinearity between its convolutions
and with ReLU + softmax on its output, batch norm without running statistics, evaluation in batches of 32. The
corrected reference is the textbook step the quirks depart from: ReLU CNN with logits, a cross-entropy over the
client's own classes only, learning rate lr * gamma^round, batch norm with running statistics.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from fairshare import seeding
from fairshare.data.datasets import ArrayDataset
from fairshare.data.partition import Partition
from fairshare.learning.engine import TrainSettings
from fairshare.learning.mmfl import FIDELITY, batch_statistics, build_task, run_mmfl
from fairshare.learning.models import PreActResNet18
from fairshare.learning.rounds import read_checkpoint

HELD = [0, 2, 3, 5, 7]  # the non-iid client's classes (of 10)
N_TRAIN, N_TEST, BATCH, LR, MOMENTUM, WD, GAMMA = 24, 70, 16, 0.01, 0.9, 1e-3, 0.9
ROUNDS = 2  # the second round shows the learning rate (inert decay or lr * gamma)


class AuthorsCNN(nn.Module):
    """The authors' MnistCNN as spec §2.5 describes it: conv, pool, conv, pool, FC, FC, ReLU, softmax."""

    def __init__(self, channels: int, side: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(64 * (side // 4) ** 2, 512)
        self.fc2 = nn.Linear(512, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(self.conv2(F.max_pool2d(self.conv1(x), 2)), 2)
        return torch.softmax(torch.relu(self.fc2(self.fc1(x.flatten(1)))), dim=1)


class PlainCNN(AuthorsCNN):
    """The same layers with ReLU after each convolution and after FC 1, logits out."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


def _dataset(channels: int, side: int = 8) -> ArrayDataset:
    rng = np.random.default_rng(4)
    shape = (channels, side, side)
    return ArrayDataset(
        "toy",
        rng.integers(0, 256, (N_TRAIN, *shape), dtype=np.uint8),
        rng.choice(HELD, N_TRAIN),
        rng.integers(0, 256, (N_TEST, *shape), dtype=np.uint8),
        rng.integers(0, 10, N_TEST),
        tuple(str(c) for c in range(10)),
    )


def _order(r: int) -> np.random.Generator:
    return seeding.generator(9, "data_order", r)


def _project(
    ds: ArrayDataset, model: str, fidelity: str, tmp_path, rounds: int = ROUNDS
) -> tuple[dict, list[dict], dict, nn.Module]:
    """Initial weights, per-round rows and final global weights of ``rounds`` rounds of run_mmfl: one task, one
    non-iid client holding ``HELD``, every round active."""
    part = Partition("toy", [np.arange(N_TRAIN)], np.bincount(ds.y_train, minlength=10)[None, :])
    task = build_task(
        "toy#0",
        ds,
        part,
        model=model,
        fidelity=FIDELITY[fidelity],
        settings=TrainSettings(epochs=1, batch_size=BATCH, lr=LR, momentum=MOMENTUM, weight_decay=WD),
        test_indices=np.arange(N_TEST),
        init_seed=3,
        mask_absent=True,
        lr_decay=GAMMA,
    )
    initial = {k: v.clone() for k, v in task.model.state_dict().items()}
    checkpoint = tmp_path / f"{model}_{fidelity}.pt"
    rows, _ = run_mmfl(
        [task],
        n_clients=1,
        active_rate=1.0,
        rounds=rounds,
        policy="fedfair",
        alpha=3.0,
        weighted_aggregation=True,
        executor="auto",
        sampling_rng=lambda r: seeding.generator(9, "sampling", r),
        order_rng=lambda r, s, c: _order(r),
        settings="fidelity test",
        checkpoint=checkpoint,
        progress=False,
    )
    final = read_checkpoint(checkpoint)["state"]["globals"][0]
    return initial, rows, final, task.model


def _tensors(ds: ArrayDataset) -> tuple[torch.Tensor, ...]:
    """Images to [-1, 1] (the authors' Normalize((0.5,), (0.5,))), labels to int64."""
    scale = lambda a: torch.as_tensor(a, dtype=torch.float32) / 255.0 * 2 - 1  # noqa: E731
    return scale(ds.x_train), torch.as_tensor(ds.y_train), scale(ds.x_test), torch.as_tensor(ds.y_test)


def _reference(
    model: nn.Module, ds: ArrayDataset, faithful: bool, rounds: int = ROUNDS
) -> tuple[list[tuple[float, float]], dict]:
    """``rounds`` rounds of one client's local training, aggregation (one client: its own weights) and evaluation,
    written out plainly; returns (accuracy, mean loss) per round and the final weights."""
    x, y, xt, yt = _tensors(ds)
    held = torch.zeros(10, dtype=torch.bool)
    held[HELD] = True
    metrics = []
    for r in range(rounds):
        model.train()
        lr = LR if faithful else LR * GAMMA**r
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=MOMENTUM, weight_decay=WD)
        schedule = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=GAMMA)
        order = _order(r).permutation(N_TRAIN)  # one permutation per epoch, cut into batches
        for start in range(0, N_TRAIN, BATCH):
            idx = torch.as_tensor(order[start : start + BATCH])
            out = model(x[idx])
            if faithful:
                loss = nn.CrossEntropyLoss()(out.masked_fill(~held, 0), y[idx])
            else:  # a softmax over the client's own classes only
                own = torch.as_tensor([HELD.index(int(c)) for c in y[idx]])
                loss = nn.CrossEntropyLoss()(out[:, held], own)
            opt.zero_grad()
            loss.backward()
            opt.step()
        schedule.step()  # the authors' schedule: stepped once, then the optimiser is dropped
        model.eval()
        size = 32 if faithful else N_TEST
        correct, total = 0, 0.0
        with torch.no_grad():
            for start in range(0, N_TEST, size):
                out = model(xt[start : start + size])
                correct += int((out.argmax(1) == yt[start : start + size]).sum())
                total += float(F.cross_entropy(out, yt[start : start + size], reduction="sum"))
        metrics.append((correct / N_TEST, total / N_TEST))
    return metrics, model.state_dict()


def _compare(rows: list[dict], final: dict, metrics: list, reference: dict) -> None:
    assert [r["accuracy"] for r in rows] == [m[0] for m in metrics]
    np.testing.assert_allclose([r["loss"] for r in rows], [m[1] for m in metrics], rtol=1e-5)
    assert set(final) == set(reference)
    for name, value in reference.items():
        torch.testing.assert_close(final[name], value, rtol=1e-5, atol=1e-6, msg=name)


def test_faithful_cnn_round_is_the_authors_round(tmp_path):
    ds = _dataset(1)
    initial, rows, final, model = _project(ds, "mnist_cnn", "faithful", tmp_path)
    assert not batch_statistics(model)  # evaluated in the engine's batches: the same predictions as batches of 32
    authors = AuthorsCNN(1, 8)
    authors.load_state_dict(initial)
    metrics, reference = _reference(authors, ds, faithful=True)
    _compare(rows, final, metrics, reference)
    plain = PlainCNN(1, 8)  # the corrected step from the same start lands elsewhere: the comparison has teeth
    plain.load_state_dict(initial)
    _, elsewhere = _reference(plain, ds, faithful=False)
    assert not torch.allclose(elsewhere["fc2.weight"], final["fc2.weight"], atol=1e-4)


def test_corrected_cnn_round_excludes_absent_classes_and_decays_the_learning_rate(tmp_path):
    ds = _dataset(1)
    initial, rows, final, _ = _project(ds, "mnist_cnn", "corrected", tmp_path)
    plain = PlainCNN(1, 8)
    plain.load_state_dict(initial)
    metrics, reference = _reference(plain, ds, faithful=False)
    _compare(rows, final, metrics, reference)


@pytest.mark.parametrize("fidelity", ["faithful", "corrected"])
def test_resnet_batch_norm_and_evaluation_batches(tmp_path, fidelity):
    """Faithful: batch norm without running statistics, so the test accuracy is that of batches of 32; corrected:
    running statistics (averaged across clients like the weights), so the evaluation batch does not matter. One
    round: the 11 M-parameter model is slow to checkpoint."""
    ds = _dataset(3, side=4)
    initial, rows, final, model = _project(ds, "preact_resnet18", fidelity, tmp_path, rounds=1)
    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    assert norms and all(m.track_running_stats == (fidelity == "corrected") for m in norms)
    assert batch_statistics(model) == (fidelity == "faithful")
    reference = PreActResNet18((3, 4, 4), 10, track_running_stats=fidelity == "corrected")
    reference.load_state_dict(initial)
    metrics, weights = _reference(reference, ds, faithful=fidelity == "faithful", rounds=1)
    _compare(rows, final, metrics, weights)


def test_presets_differ_in_every_quirk():
    faithful, corrected = FIDELITY["faithful"], FIDELITY["corrected"]
    assert all(getattr(faithful, f) != getattr(corrected, f) for f in faithful.__dataclass_fields__)
