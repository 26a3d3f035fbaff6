"""CPU-seconds of the same Aequa and multi-model FL runs, the former way and the current way, side by side in one
process (issue 41, item 4).

The former way is reconstructed here (not kept in the library): the CNNs' ``max_pool2d(relu(x))`` through torch's NCHW
pooling kernel (``SlimmableCNN``, ``MnistCNN``; 8x8 maps skipped the channels-last kernel), ``cpu_kernels``
intercepting every torch call of any model on CPU images (the Fashion-MNIST MLP too), ``build_task`` converting a
task's whole training split to float before taking the clients' samples, a checkpoint after every round
(``FAIRSHARE_CHECKPOINT_SECONDS=0``; now at most every 30 s), width switches that walked the module tree and went
through ``nn.Module.__setattr__`` each time, and the allocation's annealing loop on numpy scalars.

- Aequa: Algorithm 1 (``learning.aequa.aequa_step``, full + one random width per minibatch) on the digits CNN
  (``aequa_cnn1``, 8x8), 10 clients of a random split of the cached digits, the default profile's optimiser (batch 32,
  SGD 0.05, momentum 0.9, one local epoch), ``--rounds`` rounds through ``run_rounds`` with its checkpoint, then a(p)
  on the test split at the default profile's widths (0.03 ... 1 by 0.05) and the allocation (``anneal``, 20,000
  moves, as the default profile) of that curve to 10 contributions; the same on Fashion-MNIST with the slimmable MLP
  (``aequa_mlp``, 4,000 training samples, p_min 0.1).
- Multi-model FL: ``run_mmfl`` (FedFair, alpha 3) on the default profile's exp1 tasks (digits, synthetic,
  Fashion-MNIST: corrected CNN / MLP), 30 clients of 20-30 samples, active rate 0.5, five local epochs of batch 32,
  500 test samples per task, ``--rounds`` rounds, tasks built each repeat.

Both variants run one thread, alternate ``--repeats`` times, and must give bit-identical states / rows (checked); the
script prints the CPU-seconds of each (the best repeat) and ends with ``former/current CPU-seconds: Aequa <r>x, MMFL
<r>x``. Needs the cached datasets (``snakemake data/processed/{digits,synthetic,fashion_mnist}.npz``).

    python bench/job_cpu_seconds.py [--rounds 5] [--mmfl-rounds 3] [--repeats 3] [--data data/processed]
        [--former anneal checkpoints conversion interception pooling widths]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from fairshare import seeding
from fairshare.data.datasets import load_cache
from fairshare.data.partition import mmfl_noniid
from fairshare.errors import UserError
from fairshare.games import aequa_allocation
from fairshare.learning import aequa as aq
from fairshare.learning import engine, evaluation, kernels, mmfl, slimmable
from fairshare.learning.engine import ClientData, TrainSettings
from fairshare.learning.evaluation import to_tensors
from fairshare.learning.models import MnistCNN
from fairshare.learning.rounds import CHECKPOINT_SECONDS_ENV, run_rounds
from fairshare.learning.slimmable import SlimmableCNN


# ----------------------------------------------------------------------------------------------- the former way
def _former_slimmable_forward(self, x):
    for i, conv in enumerate(self.convs):
        x = conv(x)
        if self.norms is not None:
            x = self.norms[i](x)
        x = F.max_pool2d(F.relu(x), 2)
    return self.fc2(F.relu(self.fc1(x)))


def _former_mnist_forward(self, x):
    if self.faithful:
        x = F.max_pool2d(self.conv2(F.max_pool2d(self.conv1(x), 2)), 2)
        return F.softmax(F.relu(self.fc2(self.fc1(x.flatten(1)))), dim=1)
    x = F.max_pool2d(F.relu(self.conv1(x)), 2)
    x = F.max_pool2d(F.relu(self.conv2(x)), 2)
    return self.fc2(F.relu(self.fc1(x.flatten(1))))


def _former_build_task(name, dataset, partition, *, model, settings, fidelity=mmfl.FIDELITY["corrected"], **kw):
    """``build_task`` as it was: the whole training split converted, then the clients' rows taken."""
    x, y = to_tensors(dataset.x_train, dataset.y_train)
    task = _current_build_task(name, dataset, partition, model=model, settings=settings, fidelity=fidelity, **kw)
    for c, ix in zip(task.clients, partition.client_indices):
        rows = torch.as_tensor(ix)
        c.x, c.y = x[rows], y[rows]
    return task


_current_build_task = mmfl.build_task


@contextlib.contextmanager
def _former_cpu_kernels(model, x, precision):
    """``kernels.cpu_kernels`` as it was: every model on CPU images ran under the pooling interception."""
    if kernels.cpu_images(x) and precision != "bf16":
        with kernels._ChannelsLastPooling():
            yield
    else:
        with kernels.cpu_kernels(model, x, precision):
            yield


def _former_slimmable_layers(model):
    """Every width switch walked the module tree."""
    return [m for m in model.modules() if isinstance(m, slimmable._Slimmable)]


def _former_put_width(layer, p):
    """... and set the width through ``nn.Module.__setattr__``."""
    layer.width = p


def _former_anneal(contributions, grid, rng, *, iters=20000, t_start=1.0, t_end=1e-5, schedule="geometric", eps=1e-8,
                   tie_break=1e-9, spread="std", neighbour_prob=0.5):  # fmt: skip
    """``aequa_allocation.anneal`` as it was: the same moves on numpy arrays and scalars."""
    al = aequa_allocation
    c, a = al._check_inputs(contributions, grid, spread)
    sets, infeasible = al._feasible(a, c)
    start = al.closed_form_allocation(c, a, eps=eps, tie_break=tie_break, spread=spread).indices
    pos = np.array([int(np.flatnonzero(s == k)[0]) for s, k in zip(sets, start)])
    g = a[start] - c
    s1, s2, n = float(g.sum()), float((g * g).sum()), len(c)
    cost = al._cost_from_sums(s1, s2, n, eps, tie_break, spread)
    best_cost, best_pos = cost, pos.copy()
    movable = np.flatnonzero([len(s) > 1 for s in sets])
    clients = rng.choice(movable, size=iters)
    u_kind, u_accept, u_jump = rng.random(iters), rng.random(iters), rng.random(iters)
    ratio = (t_end / t_start) ** (1.0 / max(iters - 1, 1))
    for k in range(iters):
        temp = t_start * ratio**k if schedule == "geometric" else t_start / math.log(k + 2)
        i = clients[k]
        m = len(sets[i])
        if u_kind[k] < neighbour_prob:
            new = min(max(pos[i] + (1 if u_jump[k] < 0.5 else -1), 0), m - 1)
        else:
            new = int(u_jump[k] * m)
        if new == pos[i]:
            continue
        g_old, g_new = a[sets[i][pos[i]]] - c[i], a[sets[i][new]] - c[i]
        t1, t2 = s1 - g_old + g_new, s2 - g_old * g_old + g_new * g_new
        new_cost = al._cost_from_sums(t1, t2, n, eps, tie_break, spread)
        delta = new_cost - cost
        if delta <= 0 or u_accept[k] < math.exp(-delta / temp):
            pos[i], s1, s2, cost = new, t1, t2, new_cost
            if cost < best_cost - 1e-15:
                best_cost, best_pos = cost, pos.copy()
    return al._result(a, c, np.array([s[p] for s, p in zip(sets, best_pos)]), infeasible, eps, tie_break, spread)


#: each former way by name: (module or class, attribute, the former value); ``--former`` picks which to undo
CHANGES = {
    "pooling": [
        (SlimmableCNN, "forward", _former_slimmable_forward),
        (MnistCNN, "forward", _former_mnist_forward),
    ],
    "interception": [(engine, "cpu_kernels", _former_cpu_kernels), (evaluation, "cpu_kernels", _former_cpu_kernels)],
    "conversion": [(mmfl, "build_task", _former_build_task)],
    "widths": [(slimmable, "slimmable_layers", _former_slimmable_layers), (slimmable, "put_width", _former_put_width)],
    "anneal": [(aequa_allocation, "anneal", _former_anneal)],
    "checkpoints": [],  # FAIRSHARE_CHECKPOINT_SECONDS=0 below
}


@contextlib.contextmanager
def former_way(changes: frozenset[str] = frozenset(CHANGES)):
    """The named changes undone for the block (all by default), then restored."""
    patches = [patch for name in sorted(changes) for patch in CHANGES[name]]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, former in patches:
        setattr(owner, name, former)
    if "checkpoints" in changes:
        os.environ[CHECKPOINT_SECONDS_ENV] = "0"  # a checkpoint after every round
    try:
        yield
    finally:
        for owner, name, current in reversed(saved):
            setattr(owner, name, current)
        os.environ.pop(CHECKPOINT_SECONDS_ENV, None)


def _digest(obj) -> str:
    h = hashlib.sha256()
    if isinstance(obj, dict):
        for k in sorted(obj):
            h.update(k.encode())
            h.update(_digest(obj[k]).encode())
    elif isinstance(obj, torch.Tensor):
        h.update(obj.detach().contiguous().numpy().tobytes())
    else:
        h.update(repr(obj).encode())
    return h.hexdigest()


# ----------------------------------------------------------------------------------------------- the runs
def aequa_run(data: Path, rounds: int, dataset: str = "digits", model_name: str = "aequa_cnn1") -> str:
    ds = load_cache(data / f"{dataset}.npz")
    rng = seeding.generator(2026, "bench/aequa", 0)
    keep = rng.permutation(len(ds.y_train))[:4000]  # the default profile's cap (Fashion-MNIST: 4,000; digits: fewer)
    x, y = to_tensors(ds.x_train[keep], ds.y_train[keep])
    parts = np.array_split(rng.permutation(len(y)), 10)
    clients = [ClientData(x[torch.as_tensor(ix)], y[torch.as_tensor(ix)]) for ix in parts]
    test = to_tensors(ds.x_test[:2000], ds.y_test[:2000])
    torch.manual_seed(0)
    model = aq.build_slimmable_model(model_name, ds.input_shape, ds.n_classes)
    init = {k: v.detach().clone() for k, v in model.state_dict().items()}
    step = aq.aequa_step(
        model,
        clients,
        TrainSettings(epochs=1, batch_size=32, lr=0.05, momentum=0.9),
        order_rng=lambda r, i: seeding.generator(2026, "bench/order", r, i),
        width_rng=lambda r, i: seeding.generator(2026, "bench/width", r, i),
        p_min=0.03 if dataset == "digits" else 0.1,
    )
    with tempfile.TemporaryDirectory() as tmp:
        state, _ = run_rounds(step, init, rounds, settings="bench", checkpoint=Path(tmp) / "job.pt", progress=False)
    widths = aq.width_grid(0.03 if dataset == "digits" else 0.1, 0.05)
    curve = aq.width_accuracy_curve(model, state, widths, *test, ds.n_classes)
    contributions = np.sort(seeding.generator(2026, "bench/contributions").uniform(0.3, 0.9 * curve.max(), 10))
    allocation = aequa_allocation.anneal(contributions, curve, seeding.generator(2026, "bench/anneal"))
    return _digest({**state, "curve": torch.as_tensor(curve), "allocation": torch.as_tensor(allocation.indices)})


def mmfl_run(data: Path, rounds: int) -> str:
    tasks = []
    for s, (name, model) in enumerate((("digits", "mnist_cnn"), ("synthetic", "mlp"), ("fashion_mnist", "mnist_cnn"))):
        ds = load_cache(data / f"{name}.npz")
        part = mmfl_noniid(ds.y_train, 30, (20, 30), 0.5, seeding.generator(2026, "bench/partition", s))
        settings = TrainSettings(epochs=5, batch_size=32, lr=0.01, momentum=0.9, weight_decay=1e-3)
        tests = seeding.generator(2026, "bench/test", s).permutation(len(ds.y_test))[:500]
        tasks.append(
            mmfl.build_task(name, ds, part, model=model, settings=settings, test_indices=tests, mask_absent=True)
        )
    with tempfile.TemporaryDirectory() as tmp:
        rows, alloc = mmfl.run_mmfl(
            tasks,
            rounds=rounds,
            n_clients=30,
            active_rate=0.5,
            sampling_rng=lambda r: seeding.generator(2026, "bench/sampling", r),
            order_rng=lambda r, s, c: seeding.generator(2026, "bench/order", r, s, c),
            settings="bench",
            checkpoint=Path(tmp) / "job.pt",
            progress=False,
        )
    return _digest({"rows": repr(rows), "alloc": torch.as_tensor(alloc)})


def measure(run, repeats: int, changes: frozenset[str] = frozenset(CHANGES)) -> tuple[float, float]:
    """(best former CPU-seconds, best current), alternating; refuses results that differ."""
    times: dict[str, list[float]] = {"former": [], "current": []}
    digests = set()
    for _ in range(repeats):
        for way in ("former", "current"):
            began = time.process_time()
            with former_way(changes) if way == "former" else contextlib.nullcontext():
                digests.add(run())
            times[way].append(time.process_time() - began)
    if len(digests) != 1:
        raise SystemExit("the former and the current way gave different results")
    return min(times["former"]), min(times["current"])


def main(argv: list[str] | None = None) -> None:
    os.environ.pop(CHECKPOINT_SECONDS_ENV, None)  # the current way: the default interval
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="Aequa rounds (the default profile trains 40)")
    parser.add_argument("--mmfl-rounds", type=int, default=3, help="multi-model FL rounds (the default profile: 10)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path("data/processed"))
    parser.add_argument(
        "--former",
        nargs="+",
        choices=sorted(CHANGES),
        default=sorted(CHANGES),
        help="the changes the former way undoes (default: all)",
    )
    args = parser.parse_args(argv)
    changes = frozenset(args.former)
    torch.set_num_threads(1)
    try:
        aequa = measure(lambda: aequa_run(args.data, args.rounds), args.repeats, changes)
        print(f"Aequa digits CNN ({args.rounds} rounds + a(p)): former {aequa[0]:.2f} CPU-s, current {aequa[1]:.2f}")
        mlp = measure(lambda: aequa_run(args.data, args.rounds, "fashion_mnist", "aequa_mlp"), args.repeats, changes)
        print(f"Aequa Fashion-MNIST MLP ({args.rounds} rounds + a(p)): former {mlp[0]:.2f} CPU-s, current {mlp[1]:.2f}")
        multi = measure(lambda: mmfl_run(args.data, args.mmfl_rounds), args.repeats, changes)
        print(f"multi-model FL ({args.mmfl_rounds} rounds): former {multi[0]:.2f} CPU-s, current {multi[1]:.2f} CPU-s")
    except UserError as exc:
        sys.exit(f"job_cpu_seconds: {exc}")
    print(f"results bit-identical between the two ways (former: {', '.join(sorted(changes))} undone)")
    print(
        f"former/current CPU-seconds: Aequa digits {aequa[0] / aequa[1]:.2f}x, Aequa Fashion-MNIST "
        f"{mlp[0] / mlp[1]:.2f}x, MMFL {multi[0] / multi[1]:.2f}x"
    )


if __name__ == "__main__":
    main()
