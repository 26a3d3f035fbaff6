"""One client's local SGD, the pieces both executors of :mod:`fairshare.learning.engine` share: its data and
hyperparameters, the batches it trains on, the loss, and torch.optim.SGD's update rule written out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

__all__ = ["ClientData", "TrainSettings", "batch_plan", "step_count", "decayed_lr", "masked_loss", "sgd_step"]


@dataclass
class ClientData:
    """One client's local data (float inputs or int64 tokens, int64 labels) and optional mask of the classes it holds."""

    x: torch.Tensor
    y: torch.Tensor
    class_mask: torch.Tensor | None = None

    def __len__(self) -> int:
        return len(self.y)


@dataclass
class TrainSettings:
    """Local-training hyperparameters shared by a cohort (one local phase = ``epochs`` passes over the client's data)."""

    epochs: int
    batch_size: int
    lr: float
    momentum: float = 0.0
    weight_decay: float = 0.0
    absent_class_fill: float | None = None  # e.g. 0.0: the MMFL authors' masking of absent classes' outputs
    drop_last: bool = False  # skip each epoch's final partial batch
    precision: str = "fp32"  # "bf16": bfloat16 autocast of the forward passes (CPU and CUDA); see PRECISIONS
    client_threads: int = 1  # CPU: clients trained side by side in this many threads, one core each (see local_train)


def batch_plan(n: int, settings: TrainSettings, rng: np.random.Generator) -> list[np.ndarray]:
    """The index batches one client trains on: a fresh permutation of ``range(n)`` per epoch, cut into batches."""
    out = []
    for _ in range(settings.epochs):
        order = rng.permutation(n)
        out += [
            order[s : s + settings.batch_size]
            for s in range(0, n, settings.batch_size)
            if not settings.drop_last or s + settings.batch_size <= n
        ]
    return out


def step_count(n: int, settings: TrainSettings) -> int:
    """Number of batches :func:`batch_plan` gives a client of ``n`` samples (without drawing its permutations)."""
    per_epoch = n // settings.batch_size if settings.drop_last else -(-n // settings.batch_size)
    return settings.epochs * per_epoch


def decayed_lr(lr: float, gamma: float, round_index: int, *, inert: bool = False) -> float:
    """Learning rate of round ``round_index`` (0-based) under a per-round exponential decay ``lr * gamma**round``.

    ``inert=True`` reproduces the multi-model FL authors' code (docs/mmfl.md, Fidelity): a StepLR is created per client per round
    and stepped once after local training, so the decay never takes effect and every round uses ``lr``.
    """
    return lr if inert else lr * gamma**round_index


def masked_loss(
    out: torch.Tensor, y: torch.Tensor, weight: torch.Tensor | None, class_mask: torch.Tensor | None, fill: float | None
) -> torch.Tensor:
    """Mean cross-entropy of a batch (weighted: padded samples weigh 0), with the outputs of classes the client does
    not hold first set to ``fill`` when given (the multi-model FL authors' masking)."""
    out = out if out.dtype == torch.float32 else out.float()  # bf16 autocast outputs
    if fill is not None and class_mask is not None:
        out = out.masked_fill(~class_mask, fill)
    if weight is None:
        return F.cross_entropy(out, y)
    per_sample = F.cross_entropy(out, y, reduction="none")
    return (per_sample * weight).sum() / weight.sum().clamp(min=1)


@torch.no_grad()
def sgd_step(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor | None],
    buffers: list[torch.Tensor | None],
    lr: float,
    momentum: float = 0.0,
    weight_decay: float = 0.0,
) -> None:
    """In-place SGD with momentum and weight decay: torch.optim.SGD's update (dampening 0, not Nesterov), bit for bit.

    Each line of the update is one multi-tensor (``_foreach``) operation over all parameters, as torch.optim.SGD's
    foreach mode does: a handful of kernel launches per step on a GPU instead of four per parameter; on the CPU the
    same per-tensor arithmetic, so the same bits.

    Parameters without a gradient (e.g. other widths' batch-norm copies) are left untouched, momentum included;
    ``buffers`` holds one momentum buffer per parameter (None before its first step).
    """
    chosen = [k for k, g in enumerate(grads) if g is not None]
    if not chosen:
        return
    ps, gs = [params[k] for k in chosen], [grads[k] for k in chosen]
    d = torch._foreach_add(gs, ps, alpha=weight_decay) if weight_decay else gs
    if momentum:
        running = [j for j, k in enumerate(chosen) if buffers[k] is not None]
        if running:
            held = [buffers[chosen[j]] for j in running]
            torch._foreach_mul_(held, momentum)
            torch._foreach_add_(held, [d[j] for j in running])
        for j, k in enumerate(chosen):
            if buffers[k] is None:
                buffers[k] = d[j].clone()
        d = [buffers[k] for k in chosen]
    torch._foreach_add_(ps, d, alpha=-lr)
