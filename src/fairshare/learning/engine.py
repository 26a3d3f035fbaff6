"""Local training of a cohort of clients from one global model: a sequential reference and a batched executor.

Both executors run the same computation for the same inputs:
- each client's sample order comes from its own numpy Generator (one permutation per epoch), cut into batches of
  ``batch_size`` (the last one smaller);
- loss = mean cross-entropy over the batch (optionally with the outputs of classes the client does not hold set to
  a constant first, as the multi-model FL authors' code does);
- SGD with momentum and weight decay (torch.optim.SGD's update rule; fresh momentum each call).

``sequential`` trains clients one after another with ``torch.optim.SGD`` (the papers' own structure).
``batched`` stacks every client's parameters and runs all clients' steps at once with ``torch.func.vmap`` over
``functional_call`` + ``grad``; clients with fewer steps are masked out once they finish. Batch statistics of batch
norm are supported when the model does not track running statistics (the authors' ResNet setting).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

EXECUTORS = ("auto", "batched", "sequential")


@dataclass
class ClientData:
    """One client's local data (float inputs, int64 labels) and optional mask of the classes it holds."""

    x: torch.Tensor
    y: torch.Tensor
    class_mask: torch.Tensor | None = None

    def __len__(self) -> int:
        return len(self.y)


@dataclass
class TrainSettings:
    epochs: int
    batch_size: int
    lr: float
    momentum: float = 0.0
    weight_decay: float = 0.0
    absent_class_fill: float | None = None  # e.g. 0.0: the MMFL authors' masking of absent classes' outputs
    drop_last: bool = False  # skip each epoch's final partial batch (needed by batch norm in the batched executor)


def _batches(n: int, settings: TrainSettings, rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for _ in range(settings.epochs):
        order = rng.permutation(n)
        out += [order[s:s + settings.batch_size] for s in range(0, n, settings.batch_size)
                if not settings.drop_last or s + settings.batch_size <= n]
    return out


def _loss(out: torch.Tensor, y: torch.Tensor, weight: torch.Tensor, class_mask: torch.Tensor | None, fill: float | None) -> torch.Tensor:
    if fill is not None and class_mask is not None:
        out = out.masked_fill(~class_mask, fill)
    per_sample = F.cross_entropy(out, y, reduction="none")
    return (per_sample * weight).sum() / weight.sum().clamp(min=1)


def choose_executor(model: nn.Module, device: torch.device | str) -> str:
    """``auto``: batched on CUDA, and on CPU for models without convolutions; sequential for CNNs on CPU.

    Measured with bench/engine_throughput.py: on a 2-core CPU, vmap turns each client's convolution into a grouped
    convolution whose backward pass is several times slower than separate small convolutions, so batching CNNs does
    not pay there; it does for MLPs, and on GPUs.
    """
    if any(getattr(m, "track_running_stats", False) for m in model.modules()):
        return "sequential"  # running statistics cannot be updated per client under vmap
    if torch.device(device).type == "cuda":
        return "batched"
    has_conv = any(isinstance(m, nn.modules.conv._ConvNd) for m in model.modules())
    return "sequential" if has_conv else "batched"


def _check(model: nn.Module, executor: str) -> None:
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor '{executor}'; choose one of {', '.join(EXECUTORS)}")
    if executor == "batched" and any(getattr(m, "track_running_stats", False) for m in model.modules()):
        raise ValueError("the batched executor needs batch norm without running statistics; use executor='sequential'")


def _sequential(model: nn.Module, global_params: dict[str, torch.Tensor], clients: Sequence[ClientData], settings: TrainSettings,
                plans: list[list[np.ndarray]]) -> list[dict[str, torch.Tensor]]:
    results = []
    for client, plan in zip(clients, plans):
        model.load_state_dict(global_params, strict=False)
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=settings.lr, momentum=settings.momentum, weight_decay=settings.weight_decay)
        mask = None if client.class_mask is None else client.class_mask[None, :]
        for idx in plan:
            ix = torch.as_tensor(idx, device=client.y.device)
            opt.zero_grad()
            out = model(client.x[ix])
            _loss(out, client.y[ix], torch.ones(len(ix), device=out.device), mask, settings.absent_class_fill).backward()
            opt.step()
        results.append({k: v.detach().clone() for k, v in model.state_dict().items()})
    return results


def _batched(model: nn.Module, global_params: dict[str, torch.Tensor], clients: Sequence[ClientData], settings: TrainSettings,
             plans: list[list[np.ndarray]]) -> list[dict[str, torch.Tensor]]:
    k = len(clients)
    device = clients[0].y.device
    names = [n for n, _ in model.named_parameters()]
    buffers = {n: b for n, b in model.named_buffers()}
    params = {n: global_params[n].detach().to(device).unsqueeze(0).repeat(k, *([1] * global_params[n].dim())) for n in names}
    momentum = {n: torch.zeros_like(p) for n, p in params.items()}
    steps = max(len(p) for p in plans)
    bs = settings.batch_size
    n_max = max(len(c) for c in clients)
    x_all = torch.zeros((k, n_max, *clients[0].x.shape[1:]), dtype=clients[0].x.dtype, device=device)
    y_all = torch.zeros((k, n_max), dtype=torch.long, device=device)
    for i, c in enumerate(clients):
        x_all[i, : len(c)] = c.x
        y_all[i, : len(c)] = c.y
    n_classes = None
    masks = None
    if settings.absent_class_fill is not None and clients[0].class_mask is not None:
        masks = torch.stack([c.class_mask for c in clients])
        n_classes = masks.shape[1]
    index = np.zeros((steps, k, bs), dtype=np.int64)
    weight = np.zeros((steps, k, bs), dtype=np.float32)
    for i, plan in enumerate(plans):
        for t, idx in enumerate(plan):
            index[t, i, : len(idx)] = idx
            weight[t, i, : len(idx)] = 1.0
    index_t, weight_t = torch.as_tensor(index, device=device), torch.as_tensor(weight, device=device)
    active = weight_t.sum(dim=2) > 0  # (steps, k)

    def client_loss(p, x, y, w, cm):
        out = functional_call(model, (p, buffers), (x,))
        return _loss(out, y, w, cm[None, :] if n_classes else None, settings.absent_class_fill)

    grad_all = vmap(grad(client_loss), in_dims=(0, 0, 0, 0, 0 if masks is not None else None))
    rows = torch.arange(k, device=device)[:, None]
    model.train()
    for t in range(steps):
        xb, yb = x_all[rows, index_t[t]], y_all[rows, index_t[t]]
        g = grad_all(params, xb, yb, weight_t[t], masks if masks is not None else torch.zeros(1, device=device))
        on = active[t]
        for n in names:
            shape = (k,) + (1,) * (params[n].dim() - 1)
            d = g[n] + settings.weight_decay * params[n] if settings.weight_decay else g[n]
            new_buf = settings.momentum * momentum[n] + d if settings.momentum else d
            new_p = params[n] - settings.lr * new_buf
            keep = on.view(shape)
            momentum[n] = torch.where(keep, new_buf, momentum[n])
            params[n] = torch.where(keep, new_p, params[n])
    results = []
    for i in range(k):
        state = {n: b.detach().clone() for n, b in buffers.items()}
        state.update({n: params[n][i].detach().clone() for n in names})
        results.append(state)
    return results


def local_train(model: nn.Module, global_params: dict[str, torch.Tensor], clients: Sequence[ClientData], settings: TrainSettings, *,
                generators: Sequence[np.random.Generator], executor: str = "auto", chunk: int | None = None) -> list[dict[str, torch.Tensor]]:
    """Train every client from ``global_params`` and return each client's resulting state dict.

    ``executor``: ``batched``, ``sequential`` or ``auto`` (see :func:`choose_executor`). The sequential executor
    leaves the last client's parameters in ``model``; the batched one does not touch it.

    ``generators[i]`` orders client i's samples. ``chunk`` caps how many clients the batched executor stacks at once
    (memory); results do not depend on it.
    """
    requested = executor
    if executor == "auto" and clients:
        executor = choose_executor(model, clients[0].y.device)
    _check(model, executor)
    if len(generators) != len(clients):
        raise ValueError("need one Generator per client")
    if not clients:
        return []
    plans = [_batches(len(c), settings, g) for c, g in zip(clients, generators)]
    has_bn = any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())
    partial = any(len(b) != settings.batch_size for p in plans for b in p)
    if requested == "auto" and has_bn and partial:
        executor = "sequential"
    if executor == "batched" and has_bn and partial:
        raise ValueError("batch norm sees padded samples in partial batches of the batched executor; set drop_last=True "
                         "or use executor='sequential'")
    if executor == "sequential":
        return _sequential(model, global_params, clients, settings, plans)
    size = chunk or len(clients)
    out = []
    for s in range(0, len(clients), size):
        out += _batched(model, global_params, clients[s:s + size], settings, plans[s:s + size])
    return out


@torch.no_grad()
def evaluate(model: nn.Module, params: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor, batch_size: int = 1024) -> tuple[float, float]:
    """(accuracy, mean cross-entropy) of ``params`` on (x, y)."""
    model.load_state_dict(params, strict=False)
    model.eval()
    correct, loss = 0, 0.0
    for s in range(0, len(y), batch_size):
        out = model(x[s:s + batch_size])
        correct += int((out.argmax(1) == y[s:s + batch_size]).sum())
        loss += float(F.cross_entropy(out, y[s:s + batch_size], reduction="sum"))
    return correct / max(1, len(y)), loss / max(1, len(y))


def to_tensors(x: np.ndarray, y: np.ndarray, device: str | torch.device = "cpu", normalize: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """uint8 images -> float in [-1, 1] (the MMFL code's Normalize(0.5, 0.5)); float features unchanged."""
    xt = torch.as_tensor(x)
    if xt.dtype == torch.uint8:
        xt = xt.float() / 255.0
        if normalize:
            xt = (xt - 0.5) / 0.5
    return xt.float().to(device), torch.as_tensor(y).long().to(device)


def resolve_device(name: str = "auto") -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' requested but no CUDA device is available; use device: auto or cpu")
    return torch.device(name)


def set_deterministic(seed: int) -> None:
    torch.manual_seed(seed)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
