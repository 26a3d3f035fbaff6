"""The batched executor's cohort: every client's parameters, buffers and momentum stacked along a leading client
dimension, and the three ways it steps (:func:`fairshare.learning.engine.local_train` chooses):

- ``client_step``: one client after another on the stacked state (per-client kernels);
- ``vectorized_steps``: ``torch.func.vmap`` over the active clients' gradients, grouped by width and batch size;
- ``masked_width_steps``: slimmable MLPs with per-client widths, every client at its own width in one stacked pass.

Each gives the sequential executor's results (the masked pass up to float rounding: docs/engine.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

from fairshare.learning.sgd import ClientData, TrainSettings, masked_loss
from fairshare.learning.slimmable import stacked_mlp_forward

__all__ = [
    "Cohort",
    "State",
    "StepWidths",
    "at_width",
    "autocast",
    "has_module",
    "sgd_update",
    "total_loss",
    "trained_parameters",
]

State = dict[str, torch.Tensor]
StepWidths = Callable[[int, int], Sequence[float]]
_SKIP = object()


def has_module(model: nn.Module, kind: type) -> bool:
    return any(isinstance(m, kind) for m in model.modules())


def autocast(device: torch.device, precision: str):
    """bfloat16 autocast on ``device`` (CPU or CUDA) for ``bf16``; nothing for ``fp32``."""
    if precision == "bf16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return nullcontext()


@contextmanager
def at_width(model: nn.Module, width: float | None) -> Iterator[None]:
    """Run the block with every slimmable layer at ``width`` (None: as the model is), then restore their widths."""
    if width is None:
        yield
        return
    from fairshare.learning.slimmable import put_width, set_width, slimmable_layers

    saved = [(m, m.width) for m in slimmable_layers(model)]
    set_width(model, width)
    try:
        yield
    finally:
        for m, w in saved:
            put_width(m, w)


def total_loss(losses: list[torch.Tensor], width_loss: str) -> torch.Tensor:
    """The step's loss: the widths' losses summed in order (``mean``: then divided by their number)."""
    loss = losses[0]
    for more in losses[1:]:
        loss = loss + more
    return loss / len(losses) if width_loss == "mean" else loss


def trained_parameters(
    model: nn.Module,
    start: State,
    x: torch.Tensor,
    y: torch.Tensor,
    rows: torch.Tensor,
    class_mask: torch.Tensor | None,
    settings: TrainSettings,
) -> list[str]:
    """Names of the parameters SGD updates: those that require grad and that the loss depends on (one forward and
    backward pass on ``rows`` of (x, y), with copies of the buffers so no running statistics change)."""
    leaves = {n: start[n].clone().requires_grad_(True) for n, p in model.named_parameters() if p.requires_grad}
    frozen = {n: start[n] for n, p in model.named_parameters() if not p.requires_grad}
    bufs = {n: start[n].clone() for n, _ in model.named_buffers()}
    out = functional_call(model, (leaves | frozen, bufs), (x[rows],))
    mask = None if class_mask is None else class_mask[None, :]
    grads = torch.autograd.grad(
        masked_loss(out, y[rows], None, mask, settings.absent_class_fill), list(leaves.values()), allow_unused=True
    )
    return [n for n, g in zip(leaves, grads) if g is not None]


class Cohort:
    """One batched call's clients: every client's parameters, buffers and momentum stacked (client = leading
    dimension), all their data in one tensor, and their batch plans.

    Stack position j holds the caller's client ``order[j]``; clients are sorted by decreasing number of steps, so
    the clients still training at step t are the stack's first ``active[t]`` positions.
    """

    def __init__(
        self,
        model: nn.Module,
        global_params: State,
        clients: Sequence[ClientData],
        settings: TrainSettings,
        plans: list[list[np.ndarray]],
        precision: str,
        step_widths: StepWidths | None,
        width_loss: str,
    ):
        k = len(clients)
        self.model, self.settings, self.precision, self.step_widths = model, settings, precision, step_widths
        self.width_loss = width_loss
        self.order = sorted(range(k), key=lambda i: -len(plans[i]))
        self.plans = [plans[i] for i in self.order]
        clients = [clients[i] for i in self.order]
        self.device = device = clients[0].y.device
        own = dict(model.named_parameters()) | dict(model.named_buffers())  # non-persistent buffers included
        self.start = {n: (global_params[n] if n in global_params else own[n]).detach().to(device) for n in own}
        stack = lambda t: t.unsqueeze(0).expand(k, *t.shape).clone()  # noqa: E731
        self.params = {n: stack(self.start[n]) for n, _ in model.named_parameters()}
        self.frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
        self.buffers = {n: stack(self.start[n]) for n, _ in model.named_buffers()}
        self.momentum = {n: torch.zeros_like(p) for n, p in self.params.items()} if settings.momentum else None
        self.keys = list(model.state_dict())
        # batch t of stack position j = rows index[t, j, :sizes[t, j]] of x / y
        self.x = torch.cat([c.x for c in clients])
        self.y = torch.cat([c.y for c in clients])
        offsets = np.concatenate([[0], np.cumsum([len(c) for c in clients])[:-1]])
        self.steps = len(self.plans[0])
        index = np.zeros((self.steps, k, settings.batch_size), dtype=np.int64)
        self.sizes = np.zeros((self.steps, k), dtype=np.int64)
        for j, plan in enumerate(self.plans):
            for t, idx in enumerate(plan):
                index[t, j, : len(idx)] = offsets[j] + idx
                self.sizes[t, j] = len(idx)
        self.index = torch.as_tensor(index, device=device)
        self.active = (self.sizes > 0).sum(axis=1)
        fill = settings.absent_class_fill
        self.masks = (
            torch.stack([c.class_mask for c in clients])
            if fill is not None and clients[0].class_mask is not None
            else None
        )
        self._trained: dict[float | None, set[str]] = {}

    def state(self, i: int) -> State:
        """The caller's client i's state dict (copies: saving one client's state must not save the whole stack)."""
        j = self.order.index(i)
        return {n: (self.buffers[n] if n in self.buffers else self.params[n])[j].clone() for n in self.keys}

    def widths(self, j: int, t: int) -> list[float | None]:
        return list(self.step_widths(self.order[j], t)) if self.step_widths else [None]

    def client_step(self, j: int, t: int) -> None:
        """Step t of stack position j alone (per-client kernels), then its SGD update while its state is in cache."""
        rows = self.index[t, j, : self.sizes[t, j]]
        leaves = {n: v[j].detach().requires_grad_(True) for n, v in self.params.items() if n not in self.frozen}
        params = leaves | {n: self.params[n][j] for n in self.frozen}
        buffers = {n: v[j] for n, v in self.buffers.items()}
        mask = self.masks[j][None] if self.masks is not None else None
        x, y = self.x[rows], self.y[rows]
        losses = []
        for width in self.widths(j, t):
            with at_width(self.model, width), autocast(self.device, self.precision):
                out = functional_call(self.model, (params, buffers), (x,))
            losses.append(masked_loss(out, y, None, mask, self.settings.absent_class_fill))
        loss = total_loss(losses, self.width_loss)
        grads = torch.autograd.grad(loss, list(leaves.values()), allow_unused=True)
        got = {n: g for n, g in zip(leaves, grads) if g is not None}  # as torch SGD: no gradient, no update
        sgd_update(self, got, list(got), j)

    def trained(self, width: float | None) -> set[str]:
        """Parameters a forward pass at ``width`` trains (one probe per width on the first client's first batch)."""
        if width not in self._trained:
            with at_width(self.model, width):
                self._trained[width] = set(
                    trained_parameters(
                        self.model,
                        self.start,
                        self.x,
                        self.y,
                        self.index[0, 0, : self.sizes[0, 0]],
                        self.masks[0] if self.masks is not None else None,
                        self.settings,
                    )
                )
        return self._trained[width]

    def masked_width_steps(self) -> None:
        """A slimmable MLP's steps with per-client widths, all active clients at once: per step and width slot one
        stacked forward pass in which each client's units beyond its width are masked
        (:func:`~fairshare.learning.slimmable.stacked_mlp_forward`), then one stacked SGD update.

        Equals the client loop up to float rounding (the masked products add exact zeros in another order); padded
        samples of short batches weigh 0 in the loss. Every parameter of the MLP gets a gradient at every width (zero
        outside the slice), as slicing gives, so all of them take the SGD update (weight decay included).
        """
        device, bs, fill = self.device, self.settings.batch_size, self.settings.absent_class_fill
        padding = torch.arange(bs, device=device)[None, :]
        names = [n for n in self.params if n not in self.frozen]
        for t in range(self.steps):
            a = int(self.active[t])
            widths = [self.widths(j, t) for j in range(a)]
            rows = self.index[t, :a]
            x, y = self.x[rows], self.y[rows]
            weight = (padding < torch.as_tensor(self.sizes[t, :a], device=device)[:, None]).float()
            leaves = {n: self.params[n][:a].detach().requires_grad_(True) for n in names}
            params = leaves | {n: self.params[n][:a] for n in self.frozen}
            total = torch.zeros((), device=device)
            for slot in range(max(len(w) for w in widths)):
                share = [(1.0 / len(w) if self.width_loss == "mean" else 1.0) if slot < len(w) else 0.0 for w in widths]
                with autocast(device, self.precision):
                    out = stacked_mlp_forward(self.model, params, x, [w[min(slot, len(w) - 1)] for w in widths])
                out = out if out.dtype == torch.float32 else out.float()
                if self.masks is not None and fill is not None:
                    out = out.masked_fill(~self.masks[:a, None, :], fill)
                per_sample = F.cross_entropy(out.flatten(0, 1), y.flatten(), reduction="none").view(a, -1) * weight
                loss = per_sample.sum(1) / weight.sum(1).clamp(min=1)
                total = total + (loss * torch.as_tensor(share, device=device)).sum()
            grads = torch.autograd.grad(total, list(leaves.values()))
            # the products' weight gradients come out transposed in memory; the fused SGD kernel needs the
            # parameters' layout
            sgd_update(self, {n: g.contiguous() for n, g in zip(names, grads)}, names, slice(0, a))

    def vectorized_steps(self) -> None:
        """All clients' steps at once: per step, vmapped gradients of the active clients, then one stacked SGD update.

        Batches shorter than ``batch_size`` are padded and masked out of the loss; models with batch norm instead
        group the clients by batch size (batch statistics must see exactly the client's samples). With
        ``step_widths``, clients are grouped by width as well and each group's gradients are added up (divided by
        the client's number of widths when ``width_loss`` is ``mean``).
        """
        model, device, bs = self.model, self.device, self.settings.batch_size
        by_size = has_module(model, nn.modules.batchnorm._BatchNorm)
        masked = self.masks is not None

        def client_loss(p, b, x, y, w, cm):
            with autocast(device, self.precision):
                out = functional_call(model, (p, b), (x,))
            return masked_loss(out, y, w, cm if masked else None, self.settings.absent_class_fill)

        randomness = "different" if has_module(model, nn.modules.dropout._DropoutNd) else "error"
        grad_all = vmap(grad(client_loss), in_dims=(0, 0, 0, 0, 0, 0 if masked else None), randomness=randomness)
        padding = torch.arange(bs, device=device)[None, :]

        def gradients(t: int, members: np.ndarray, a: int) -> dict[str, torch.Tensor]:
            sel = slice(0, a) if len(members) == a else torch.as_tensor(members, device=device)
            width = int(self.sizes[t, members[0]]) if by_size else bs
            rows = self.index[t, sel, :width]
            p = {n: v[sel] for n, v in self.params.items()}
            b = {n: v[sel] for n, v in self.buffers.items()}
            weights = (padding[:, :width] < torch.as_tensor(self.sizes[t, members], device=device)[:, None]).float()
            g = grad_all(p, b, self.x[rows], self.y[rows], weights, self.masks[sel] if masked else padding)
            if not isinstance(sel, slice):  # buffers (batch-norm running statistics) were updated on gathered copies
                for n, v in b.items():
                    self.buffers[n].index_copy_(0, sel, v)
            return g

        for t in range(self.steps):
            a = int(self.active[t])
            widths = [self.widths(j, t) for j in range(a)]
            passes = []  # (width, stack positions): the step's gradient is the sum over passes
            for slot in range(max(len(w) for w in widths)):
                column = [w[slot] if slot < len(w) else _SKIP for w in widths]
                for value in dict.fromkeys(column):
                    if value is not _SKIP:
                        members = np.array([j for j in range(a) if column[j] == value])
                        sizes = np.unique(self.sizes[t, members]) if by_size else [None]
                        passes += [
                            (value, members if s is None else members[self.sizes[t, members] == s]) for s in sizes
                        ]
            if len(passes) == 1 and len(passes[0][1]) == a and self.width_loss == "sum":
                with at_width(model, passes[0][0]):
                    g = gradients(t, passes[0][1], a)
            else:
                g = {n: torch.zeros_like(v[:a]) for n, v in self.params.items()}
                for value, members in passes:
                    with at_width(model, value):
                        part = gradients(t, members, a)
                    rows = torch.as_tensor(members, device=device)
                    if self.width_loss == "mean":
                        share = torch.as_tensor([1.0 / len(widths[j]) for j in members], device=device)
                        part = {n: v * share.view(-1, *[1] * (v.dim() - 1)).to(v.dtype) for n, v in part.items()}
                    for n in g:
                        g[n].index_add_(0, rows, part[n])
            # torch.optim.SGD skips parameters without a gradient (e.g. other widths' batch norm): so does this update
            used = [set().union(*(self.trained(w) for w in ws)) for ws in widths]
            everyone = [n for n in self.params if all(n in u for u in used)]
            sgd_update(self, g, everyone, slice(0, a))
            for n in self.params:
                holders = [j for j in range(a) if n in used[j]]
                if holders and n not in everyone:
                    sgd_update(self, {n: g[n][holders]}, [n], torch.as_tensor(holders, device=device))


def sgd_update(cohort: Cohort, g: dict[str, torch.Tensor], names: list[str], sel: slice | int | torch.Tensor) -> None:
    """torch.optim.SGD's step (weight decay, momentum without dampening) on stack positions ``sel`` of ``names``, in
    place, with torch's fused SGD kernel (one pass over each tensor); ``g[n]`` holds those positions' gradients.
    Momentum buffers start at zero, so the first step's ``momentum * 0 + g`` equals SGD's ``buf = g`` exactly."""
    if not names:
        return
    view = isinstance(sel, (slice, int))
    take = (lambda t: t[sel]) if view else (lambda t: t.index_select(0, sel))  # noqa: E731
    params = [take(cohort.params[n]) for n in names]
    bufs = [take(cohort.momentum[n]) for n in names] if cohort.momentum is not None else []
    s = cohort.settings
    torch._fused_sgd_(
        params,
        [g[n] for n in names],
        bufs,
        weight_decay=s.weight_decay,
        momentum=s.momentum,
        lr=s.lr,
        dampening=0.0,
        nesterov=False,
        maximize=False,
        is_first_step=False,
    )
    if not view:  # gathered copies: write them back
        for i, n in enumerate(names):
            cohort.params[n].index_copy_(0, sel, params[i])
            if bufs:
                cohort.momentum[n].index_copy_(0, sel, bufs[i])
