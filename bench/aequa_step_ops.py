"""Operations per SGD step: Aequa's slimmable training step against a plain training step at the same widths.

On a GPU a small model's step is bound by how many operations it dispatches (one kernel launch each, plus Python
and dispatcher overhead), not by arithmetic; the operation count measured here on the CPU is therefore the proxy for
GPU time per step that holds on any device. Counted with the PyTorch profiler: every ``aten::`` operation that no
other ``aten::`` operation called (the dispatcher's top level, forward and backward alike).

- **Aequa**: ``fairshare.learning.engine.local_train`` with Aequa's step widths (full width plus one width drawn from
  the switchable-BN grid per minibatch, ``full_plus_random``) on the slimmable CIFAR ResNet-18, for each executor
  the engine has (``sequential``; ``batched`` with vmap; ``batched`` client by client).
- **Plain**: two ordinary ResNet-18s built from ``nn.Conv2d`` / ``nn.BatchNorm2d``, one with the full width's
  channels and one with width p's, each batch through both, the two cross-entropies summed, one backward, then
  ``torch.optim.SGD(foreach=True)`` (what a plain training loop runs on a GPU).

The marginal count per step is measured (clients with k and 2k steps; the difference over k), so per-client costs
(loading the global state, copying the result) are reported apart, per client. Operation counts do not depend on
tensor sizes, so the models here are narrow (``--base``, default 8) and inputs small; the counts hold for base 64 and
32x32 CIFAR images.

Usage: python bench/aequa_step_ops.py [--base 8] [--batch 64] [--steps 6] [--clients 3]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile

from fairshare.learning.aequa import build_slimmable_model, step_widths_plan, width_grid
from fairshare.learning.engine import ClientData, TrainSettings, local_train
from fairshare.learning.slimmable import units

SETTINGS = dict(lr=0.01, momentum=0.9, weight_decay=5e-4)
P_MIN, BN_STEP = 0.25, 0.05  # the paper profile's p_min and switchable-BN width step (config/paper.yaml)


def top_level_ops(run: Callable[[], object]) -> Counter:
    """``aten::`` operations called by no other ``aten::`` operation while ``run()`` runs, by name."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        run()
    counts: Counter = Counter()
    for event in prof.events():
        if not event.name.startswith("aten::"):
            continue
        parent = event.cpu_parent
        while parent is not None and not parent.name.startswith("aten::"):
            parent = parent.cpu_parent
        if parent is None:
            counts[event.name] += 1
    return counts


class PlainBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(out + (self.shortcut(x) if self.shortcut is not None else x))


class PlainResNet18(nn.Module):
    """The slimmable CIFAR ResNet-18's architecture at one width, from ordinary layers (the plain reference)."""

    def __init__(self, in_channels: int, n_classes: int, base: int, width: float):
        super().__init__()
        chans = [units(width, c) for c in (base, 2 * base, 4 * base, 8 * base)]
        self.stem = nn.Conv2d(in_channels, chans[0], 3, padding=1, bias=False)
        self.stem_bn = nn.BatchNorm2d(chans[0])
        blocks, cin = [], chans[0]
        for i, cout in enumerate(chans):
            for j in range(2):
                blocks.append(PlainBlock(cin, cout, 2 if (j == 0 and i > 0) else 1))
                cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(F.relu(self.stem_bn(self.stem(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def plain_ops(steps: int, base: int, batch: int, width: float, image: int) -> Counter:
    """Operations of ``steps`` plain steps (full width + width ``width``, one backward, foreach SGD)."""
    torch.manual_seed(0)
    models = [PlainResNet18(3, 10, base, 1.0), PlainResNet18(3, 10, base, width)]
    params = [p for m in models for p in m.parameters()]
    optimizer = torch.optim.SGD(params, foreach=True, **SETTINGS)
    x, y = torch.randn(steps * batch, 3, image, image), torch.randint(0, 10, (steps * batch,))

    def run() -> None:
        for t in range(steps):
            xb, yb = x[t * batch : (t + 1) * batch], y[t * batch : (t + 1) * batch]
            loss = sum(F.cross_entropy(m(xb), yb) for m in models)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

    return top_level_ops(run)


def aequa_ops(
    steps: int, clients: int, base: int, batch: int, image: int, executor: str, vectorize: bool | None
) -> Counter:
    """Operations of one local phase of ``clients`` clients with ``steps`` minibatches each (Aequa's step widths)."""
    torch.manual_seed(0)
    grid = width_grid(P_MIN, BN_STEP)
    model = build_slimmable_model("aequa_resnet18", (3, image, image), 10, bn_widths=grid, resnet_base=base)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    n = steps * batch
    data = [ClientData(torch.randn(n, 3, image, image), torch.randint(0, 10, (n,))) for _ in range(clients)]
    settings = TrainSettings(epochs=1, batch_size=batch, **SETTINGS)
    plans = [
        step_widths_plan(steps, np.random.default_rng(1000 + i), "full_plus_random", P_MIN, 1.0, grid)
        for i in range(clients)
    ]

    def run() -> None:
        local_train(
            model,
            state,
            data,
            settings,
            generators=[np.random.default_rng(i) for i in range(clients)],
            executor=executor,
            vectorize=vectorize,
            step_widths=lambda i, t: plans[i][t],
        )

    return top_level_ops(run)


VARIANTS: dict[str, tuple[str, bool | None]] = {
    "sequential": ("sequential", None),
    "batched, vmap": ("batched", True),
    "batched, client by client": ("batched", False),
}


def per_step(measure: Callable[[int], Counter], steps: int) -> tuple[float, float, Counter]:
    """(marginal operations per step, fixed operations per call, the marginal counts by name) from calls with
    ``steps`` and ``2 * steps`` steps."""
    short, long = measure(steps), measure(2 * steps)
    marginal = long - short
    per = sum(marginal.values()) / steps
    return per, sum(short.values()) - per * steps, marginal


def compare(base: int, batch: int, steps: int, clients: int, image: int = 8) -> dict[str, tuple[float, float]]:
    """{variant: (operations per SGD step, fixed operations per client)}, ``plain`` included."""
    out = {}
    width = float(width_grid(P_MIN, BN_STEP)[len(width_grid(P_MIN, BN_STEP)) // 2])
    per, fixed, _ = per_step(lambda k: plain_ops(k, base, batch, width, image), steps)
    out["plain"] = (per, fixed)
    for name, (executor, vectorize) in VARIANTS.items():
        per, fixed, _ = per_step(
            lambda k, e=executor, v=vectorize: aequa_ops(k, clients, base, batch, image, e, v), steps
        )
        out[name] = (per / clients, fixed / clients)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=8, help="ResNet-18 base channels (counts do not depend on it)")
    parser.add_argument("--batch", type=int, default=64, help="minibatch size (the paper profile's)")
    parser.add_argument("--steps", type=int, default=6, help="k: calls with k and 2k steps per client")
    parser.add_argument("--clients", type=int, default=3, help="clients per local phase")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    results = compare(args.base, args.batch, args.steps, args.clients)
    plain = results["plain"][0]
    print(f"{'variant':28s} {'ops/step':>9s} {'x plain':>8s} {'fixed ops/client':>17s}")
    for name, (per, fixed) in results.items():
        print(f"{name:28s} {per:9.0f} {per / plain:7.2f}x {fixed:17.0f}")


if __name__ == "__main__":
    main()
