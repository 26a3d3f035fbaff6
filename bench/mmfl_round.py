"""Whole multi-model FL rounds: this project's round beside a plain re-implementation of the papers' loop structure.

The setting of issue 21: two non-iid Fashion-MNIST tasks (each client holds five of the ten classes, FedFairMMFL
spec §2.6), 20 clients all active, each training the task the Random policy gives it (the same draw in both
variants), 5 local epochs of batch 32 on its 400-500 samples with SGD(0.01, momentum 0.9, weight decay 1e-3) and the
authors' masking of absent classes, the MNIST-family CNN (``mnist_cnn``, 1.6 M parameters), uniform averaging, then
each task's full 10,000-image test set; the authors' quirks (``FIDELITY["faithful"]``: double softmax, masking to 0,
evaluation at batch 32), or with ``--corrected`` ``FIDELITY["corrected"]`` (the papers' loop then masks to -inf).

- ``project``: :func:`fairshare.learning.mmfl.run_mmfl` on tasks from :func:`fairshare.learning.mmfl.build_task`
  (the training engine, ``fairshare.learning.engine``), its clients trained side by side in ``--client-threads``
  threads (``TrainSettings.client_threads``; default one per core);
- ``papers-loop``: the structure of the authors' code (spec §2.4), written here from scratch: per client a fresh
  model and ``torch.optim.SGD``, a ``DataLoader`` over uint8 images turned into tensors sample by sample (PIL image
  -> ToTensor -> Normalize(0.5, 0.5)); evaluation through the same per-sample pipeline at batch 32.

Each (variant, mode) trains ``--rounds`` rounds from the same initial models after one untimed warm-up round on a
few clients (one-time kernel selection and imports). Modes: ``fp32``, and ``bf16`` (bfloat16 autocast of the forward
passes; the project through ``TrainSettings.precision``). Prints whole-round client-samples per second (wall clock,
and per CPU-second of this process, which a shared machine disturbs less) and each task's final test accuracy,
then the ratios project / papers-loop: the project in its fastest mode whose final accuracy (mean over tasks) is
within the seed noise of fp32's (the gap between fp32 runs of ``--seed`` and ``--seed + 1``, or ``--tolerance``),
against the papers' loop as the authors run it (fp32) and against the papers' loop in its own fastest mode (given
bf16 autocast too), beside the fp32 ratio.

Usage: python bench/mmfl_round.py [--rounds 2] [--clients 20] [--samples 400 500] [--epochs 5] [--threads N]
                                  [--modes fp32 bf16] [--variants project papers-loop] [--repeats 1] [--seed 0]
                                  [--tolerance X] [--corrected] [--client-threads N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

from fairshare.data.datasets import ArrayDataset, build_dataset
from fairshare.data.partition import Partition, mmfl_noniid
from fairshare.learning.aggregation import uniform_average
from fairshare.learning.engine import TrainSettings
from fairshare.learning.mmfl import FIDELITY, allocate, build_task, run_mmfl
from fairshare.learning.models import build_model

MIRROR = "/usr/share/datasets/fashion-mnist"
TASKS = 2
CLASS_RATIO = 0.5  # non-iid: five of ten classes per client (the paper's setting)
LR, MOMENTUM, WEIGHT_DECAY, BATCH = 0.01, 0.9, 1e-3, 32


class Setting:
    """Data, partitions and seeds shared by both variants (one partition per task, as the authors' code draws)."""

    def __init__(self, dataset: ArrayDataset, args: argparse.Namespace):
        self.dataset, self.args = dataset, args
        self.fidelity = FIDELITY["corrected" if args.corrected else "faithful"]
        self.partitions: list[Partition] = [
            mmfl_noniid(dataset.y_train, args.clients, args.samples, CLASS_RATIO, self.rng(1, s)) for s in range(TASKS)
        ]
        self.init_seeds = [int(self.rng(2, s).integers(2**31)) for s in range(TASKS)]

    def rng(self, *key: int) -> np.random.Generator:
        return np.random.default_rng([self.args.seed, *key])

    def sampling(self, r: int) -> np.random.Generator:
        return self.rng(3, r)

    def order(self, r: int, s: int, c: int) -> np.random.Generator:
        return self.rng(4, r, s, c)

    def allocation(self, r: int) -> np.ndarray:
        """The Random policy's task per client in round r, drawn as run_mmfl draws it (every client active)."""
        rng = self.sampling(r)
        active = np.sort(rng.choice(self.args.clients, size=self.args.clients, replace=False))
        return allocate("random", active, self.args.clients, TASKS, r, None, 1.0, rng)

    def client_samples(self, rounds: int) -> int:
        """Client-samples trained in ``rounds`` rounds (each client trains its allocated task's data)."""
        sizes = np.array([p.sizes for p in self.partitions])  # tasks x clients
        return int(
            sum(sizes[self.allocation(r), np.arange(self.args.clients)].sum() for r in range(rounds)) * self.args.epochs
        )


# ---------------------------------------------------------------------------------------------------- project
def project_run(setting: Setting, mode: str, clients: int) -> Callable[[int], list[float]]:
    """The project's tasks for the first ``clients`` clients (built untimed: run_mmfl's callers build them once per
    job) and a function running ``rounds`` rounds of run_mmfl on them, returning each task's final accuracy."""
    args = setting.args
    settings = TrainSettings(
        epochs=args.epochs,
        batch_size=BATCH,
        lr=LR,
        momentum=MOMENTUM,
        weight_decay=WEIGHT_DECAY,
        precision=mode,
        client_threads=setting.args.client_threads,
    )
    tasks = []
    for s, part in enumerate(setting.partitions):
        part = Partition(part.scheme, part.client_indices[:clients], part.counts[:clients], part.params)
        tasks.append(
            build_task(
                f"fashion_mnist#{s}",
                setting.dataset,
                part,
                model="mnist_cnn",
                fidelity=setting.fidelity,
                settings=settings,
                mask_absent=True,
                test_indices=np.arange(len(setting.dataset.y_test)),
                init_seed=setting.init_seeds[s],
            )
        )

    def run(rounds: int) -> list[float]:
        rows, _ = run_mmfl(
            tasks,
            n_clients=clients,
            active_rate=1.0,
            rounds=rounds,
            policy="random",
            alpha=1.0,
            weighted_aggregation=False,
            executor="auto",
            sampling_rng=setting.sampling,
            order_rng=setting.order,
            settings=f"bench seed {args.seed}",
            progress=False,
        )
        return [row["accuracy"] for row in rows[-TASKS:]]

    return run


# ------------------------------------------------------------------------------------------------ papers-loop
class ImageSet(torch.utils.data.Dataset):
    """uint8 images delivered one at a time as a PIL image through ToTensor and Normalize(0.5, 0.5), as a torchvision
    dataset with the authors' transforms does (FedFairMMFL spec §2.5)."""

    def __init__(self, x: np.ndarray, y: np.ndarray):
        from torchvision import transforms

        self.x, self.y = x, y
        self.transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        from PIL import Image

        return self.transform(Image.fromarray(self.x[i, 0], mode="L")), int(self.y[i])


def _autocast(mode: str):
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "bf16")


def papers_client(
    setting: Setting, global_state: dict, rows: np.ndarray, mask: torch.Tensor, mode: str, seed: int
) -> dict:
    """One client's local training as the authors' loop does it: fresh model, optimizer and DataLoader."""
    ds = setting.dataset
    model = build_model("mnist_cnn", ds.input_shape, ds.n_classes, faithful=setting.fidelity.double_softmax)
    model.load_state_dict(global_state)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
    loader = torch.utils.data.DataLoader(
        ImageSet(ds.x_train[rows], ds.y_train[rows]),
        batch_size=BATCH,
        shuffle=True,
        generator=torch.Generator().manual_seed(seed),
    )
    for _ in range(setting.args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with _autocast(mode):
                out = model(x)
            loss = F.cross_entropy(out.float().masked_fill(~mask, setting.fidelity.absent_class_fill), y)
            loss.backward()
            optimizer.step()
    return model.state_dict()


def papers_evaluate(setting: Setting, state: dict, mode: str) -> float:
    """Test accuracy through the per-sample pipeline at batch 32 (loss summed too, as the authors' code does)."""
    ds = setting.dataset
    model = build_model("mnist_cnn", ds.input_shape, ds.n_classes, faithful=setting.fidelity.double_softmax)
    model.load_state_dict(state)
    model.eval()
    correct, loss = 0, 0.0
    with torch.no_grad():
        for x, y in torch.utils.data.DataLoader(ImageSet(ds.x_test, ds.y_test), batch_size=BATCH):
            with _autocast(mode):
                out = model(x).float()
            loss += float(F.cross_entropy(out, y, reduction="sum"))
            correct += int((out.argmax(1) == y).sum())
    return correct / len(ds.y_test)


def papers_run(setting: Setting, mode: str, clients: int) -> Callable[[int], list[float]]:
    """A function running ``rounds`` rounds of the papers' loop with the first ``clients`` clients, returning each
    task's final accuracy."""
    ds = setting.dataset

    def run(rounds: int) -> list[float]:
        states = []
        for s in range(TASKS):
            torch.manual_seed(setting.init_seeds[s])
            model = build_model("mnist_cnn", ds.input_shape, ds.n_classes, faithful=setting.fidelity.double_softmax)
            states.append(model.state_dict())
        accuracies = [0.0] * TASKS
        for r in range(rounds):
            assigned = setting.allocation(r)[:clients]
            for s, part in enumerate(setting.partitions):
                trained = []
                for c in np.flatnonzero(assigned == s):
                    mask = torch.as_tensor(part.counts[c] > 0)[None, :]
                    seed = int(setting.order(r, s, int(c)).integers(2**31))
                    trained.append(papers_client(setting, states[s], part.client_indices[c], mask, mode, seed))
                if trained:
                    states[s] = uniform_average(trained)
                accuracies[s] = papers_evaluate(setting, states[s], mode)
        return accuracies

    return run


VARIANTS: dict[str, Callable[[Setting, str, int], Callable[[int], list[float]]]] = {
    "project": project_run,
    "papers-loop": papers_run,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--samples", type=int, nargs=2, default=[400, 500], metavar=("MIN", "MAX"))
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    parser.add_argument(
        "--client-threads",
        type=int,
        default=len(os.sched_getaffinity(0)),
        help="the project's TrainSettings.client_threads (default: one per core this process may use)",
    )
    parser.add_argument("--modes", nargs="+", choices=["fp32", "bf16"], default=["fp32", "bf16"])
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--repeats", type=int, default=1, help="timed runs of each (variant, mode); the best counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--tolerance",
        type=float,
        default=None,
        help="accuracy gap to fp32 a mode may have (default: the seed noise, measured on seed + 1)",
    )
    parser.add_argument("--corrected", action="store_true", help="the corrected CNN instead of the authors' model")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as raw:
        dataset = build_dataset("fashion_mnist", raw_dir=raw, mirrors=[MIRROR])
    setting = Setting(dataset, args)
    samples = setting.client_samples(args.rounds)
    print(
        f"{args.clients} clients x {args.epochs} epochs, {TASKS} tasks, {args.rounds} rounds, "
        f"{'corrected' if args.corrected else 'faithful'} CNN, {torch.get_num_threads()} threads, the project's "
        f"clients in {args.client_threads} threads: "
        f"{samples / args.rounds:.0f} client-samples per round",
        flush=True,
    )
    speed: dict[tuple[str, str], float] = {}
    cpu: dict[tuple[str, str], float] = {}
    accuracy: dict[tuple[str, str], float] = {}
    for repeat in range(args.repeats):  # interleaved, so that a burst of load on a shared machine hits every run
        for mode in args.modes:
            for name in args.variants:
                variant = VARIANTS[name]
                if repeat == 0:
                    variant(setting, mode, 2)(1)  # warm-up: kernel selection, imports
                run = variant(setting, mode, args.clients)
                wall, used = time.perf_counter(), time.process_time()
                accs = run(args.rounds)
                wall, used = time.perf_counter() - wall, time.process_time() - used
                speed[name, mode] = max(speed.get((name, mode), 0.0), samples / wall)
                cpu[name, mode] = max(cpu.get((name, mode), 0.0), samples / used)
                accuracy[name, mode] = float(np.mean(accs))
                print(
                    f"{name:12s} {mode}: {samples / wall:6.0f} client-samples/s ({wall / args.rounds:5.1f} s/round; "
                    f"{samples / used:6.0f} per CPU-second)   final accuracy {' '.join(f'{a:.4f}' for a in accs)}",
                    flush=True,
                )
    if set(args.variants) != set(VARIANTS):
        return
    reference = accuracy.get(("project", "fp32"))
    tolerance = args.tolerance
    if tolerance is None and reference is not None:
        other = argparse.Namespace(**{**vars(args), "seed": args.seed + 1})
        noise = abs(float(np.mean(project_run(Setting(dataset, other), "fp32", args.clients)(args.rounds))) - reference)
        tolerance = noise
        print(f"seed noise: |mean final accuracy, fp32, seed {args.seed} - seed {args.seed + 1}| = {noise:.4f}")
    matching = [m for m in args.modes if reference is None or abs(accuracy["project", m] - reference) <= tolerance]
    best = max(matching, key=lambda m: speed["project", m])
    papers = max(args.modes, key=lambda m: speed["papers-loop", m])  # the papers' loop in its fastest mode
    per_cpu = cpu["project", best] / cpu["papers-loop", papers]
    print(
        f"per CPU-second: project {best} / papers-loop {papers}: {per_cpu:.1f}x"
        + (f"; fp32: {cpu['project', 'fp32'] / cpu['papers-loop', 'fp32']:.1f}x" if "fp32" in args.modes else "")
    )
    if "fp32" in args.modes:
        print(
            f"project {best} (its fastest mode matching fp32) / papers-loop as the authors run it (fp32): "
            f"{speed['project', best] / speed['papers-loop', 'fp32']:.1f}x"
        )
    fp32 = f"; fp32: {speed['project', 'fp32'] / speed['papers-loop', 'fp32']:.1f}x" if "fp32" in args.modes else ""
    print(
        f"project/papers-loop, each in its fastest mode (project {best}, matching fp32; papers-loop {papers}): "
        f"{speed['project', best] / speed['papers-loop', papers]:.1f}x{fp32}"
    )


if __name__ == "__main__":
    main()
