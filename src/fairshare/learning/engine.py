"""Local training of a cohort of clients from one global model: a sequential reference and a batched executor.

Both executors run the same computation for the same inputs:
- client i's sample order comes from ``generators[i]`` (one permutation per epoch, :func:`batch_plan`), cut into
  batches of ``batch_size`` (the last one smaller unless ``drop_last``);
- loss = mean cross-entropy over the batch (optionally with the outputs of classes the client does not hold set to
  a constant first, as the multi-model FL authors' code does: ``absent_class_fill``); with ``step_widths`` (slimmable
  models) the losses of several widths are summed (or averaged) in one step;
- SGD with momentum and weight decay (``torch.optim.SGD``'s update rule, fresh momentum each call; parameters the
  forward pass does not use, e.g. another width's switchable batch norm, are left untouched as SGD leaves them).

``sequential`` trains clients one after another with :func:`sgd_step`, torch.optim.SGD's update written out (bit for
bit the same result; constructing torch.optim imports ``torch._dynamo``, several seconds per short CPU job; the bf16
mode uses torch's fused SGD kernel instead).
``batched`` (the ``auto`` choice) stacks every client's parameters and buffers and runs all clients' steps at once:
``torch.func.vmap`` over ``functional_call`` + ``grad``, then one in-place SGD update of the stacked tensors.
Clients are ordered by their number of steps so that the clients still training at step t are a prefix of the
stack (finished clients cost nothing); batches shorter than ``batch_size`` are padded and masked out of the loss,
except for models with batch norm, whose batch statistics must see exactly the client's samples: there clients are
grouped by their batch size at each step. Batch norm with running statistics works (per-client stacked buffers).

The model's current width (slimmable models, ``fairshare.learning.slimmable.set_width``) applies to every client
in both executors. Models with dropout get independent dropout masks per client in the batched executor
(``vmap(randomness="different")``), so only they differ between executors, and only in which units are dropped.

Precision (``TrainSettings.precision``): ``fp32`` (default) or ``bf16``, an opt-in bfloat16 autocast of the forward
passes on CPU and CUDA (losses and the SGD update of the float32 parameters stay float32; deterministic on CPU).
On CPU, every path that runs the model itself (the sequential executor, the client-by-client batched path,
:func:`evaluate`, :func:`predict`) uses :func:`fairshare.learning.kernels.cpu_kernels` on images of 16x16 pixels or
more: channels-last max pooling in fp32 (the same bits) and channels-last convolution weights in bf16. Evaluation
runs in inference mode, 128 samples per forward pass for such images where no batch statistics couple the samples
(the same outputs; faster here than 1,024).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

from fairshare.learning.kernels import cpu_kernels
from fairshare.learning.sgd import ClientData, TrainSettings, batch_plan, decayed_lr, masked_loss, sgd_step, step_count

__all__ = [
    "EXECUTORS",
    "PRECISIONS",
    "ClientData",
    "TrainSettings",
    "batch_plan",
    "choose_executor",
    "decayed_lr",
    "local_train",
    "sgd_step",
    "step_count",
    "vmap_pays",
]

EXECUTORS = ("auto", "batched", "sequential")
# fp32: plain float32. bf16: forward passes under bfloat16 autocast (matmuls and convolutions in bfloat16, losses and
# the SGD update of the float32 parameters in float32); opt-in, see docs/engine.md for its accuracy against fp32.
PRECISIONS = ("fp32", "bf16")
State = dict[str, torch.Tensor]
StepWidths = Callable[[int, int], Sequence[float]]
_SKIP = object()


def _has(model: nn.Module, kind: type) -> bool:
    return any(isinstance(m, kind) for m in model.modules())


def _cumulative_bn(model: nn.Module) -> bool:
    """Batch norm that tracks running statistics with a cumulative average (momentum=None) needs a per-client counter
    as a Python number, which vmap cannot provide."""
    return any(
        isinstance(m, nn.modules.batchnorm._BatchNorm) and m.track_running_stats and m.momentum is None
        for m in model.modules()
    )


def choose_executor(model: nn.Module, device: torch.device | str) -> str:
    """``auto``: the batched executor, except for the one model feature it cannot run (cumulative-average batch norm).

    bench/engine_throughput.py measures the two side by side (docs/engine.md has the numbers).
    """
    return "sequential" if _cumulative_bn(model) else "batched"


CPU_VMAP_MAX_PARAMS = 100_000  # measured (docs/engine.md): above this, client-by-client kernels are faster on CPU


def vmap_pays(model: nn.Module, device: torch.device | str, *, per_client_widths: bool = False) -> bool:
    """Whether the batched executor should vmap the clients' gradients (else it computes them client by client).

    Never with ``per_client_widths`` (Aequa's step widths, drawn per client and minibatch): the cohort then splits
    into groups of about one client per width and step, so vmap batches nothing and adds its stacking, gathers and
    scatters: 13.7x the operations of a plain step per client-step, against 1.0x for the client loop
    (bench/aequa_step_ops.py, slimmable ResNet-18). Otherwise always on CUDA, where small per-client steps are bound
    by kernel launches, not arithmetic. On CPU only for small
    models (at most ``CPU_VMAP_MAX_PARAMS`` parameters: the payoff MLP, the 8x8-digits CNN), where batching many
    small operations pays; for larger ones (the 1.6 M-parameter MNIST CNN) each client's step is compute-bound with
    its state in cache, and vmap's grouped convolutions, layout copies and cache misses make it slower than computing
    client by client (bench/engine_throughput.py).
    """
    if torch.device(device).type == "cuda":
        return True
    return sum(p.numel() for p in model.parameters()) <= CPU_VMAP_MAX_PARAMS


def _precision(precision: str, amp: bool, device: torch.device) -> str:
    """The precision a call runs at: ``precision``, or bf16 where the older ``amp`` flag asks for it (CUDA only)."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision '{precision}'; choose one of {', '.join(PRECISIONS)}")
    return "bf16" if amp and device.type == "cuda" else precision


def _autocast(device: torch.device, precision: str):
    """bfloat16 autocast on ``device`` (CPU or CUDA) for ``bf16``; nothing for ``fp32``."""
    if precision == "bf16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return nullcontext()


@contextmanager
def _at_width(model: nn.Module, width: float | None) -> Iterator[None]:
    """Run the block with every slimmable layer at ``width`` (None: as the model is), then restore their widths."""
    if width is None:
        yield
        return
    from fairshare.learning.slimmable import set_width

    saved = [(m, m.width) for m in model.modules() if hasattr(type(m), "width")]
    set_width(model, width)
    try:
        yield
    finally:
        for m, w in saved:
            m.width = w


def _sequential(
    model: nn.Module,
    global_params: State,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    plans: list[list[np.ndarray]],
    precision: str,
    step_widths: StepWidths | None,
    width_loss: str,
) -> list[State]:
    """Client after client on ``model``; with ``settings.client_threads`` > 1 on CPU, clients in threads instead
    (:func:`_in_client_threads`, longest first), except for models with dropout, whose masks come from torch's
    global generator."""
    threads = min(settings.client_threads, len(clients))
    if threads > 1 and clients[0].y.device.type == "cpu" and not _has(model, nn.modules.dropout._DropoutNd):
        alone = dataclasses.replace(settings, client_threads=1)

        def train_one(replica: nn.Module, i: int) -> State:
            widths = None if step_widths is None else (lambda _, t: step_widths(i, t))
            return _sequential(replica, global_params, [clients[i]], alone, [plans[i]], precision, widths, width_loss)[
                0
            ]

        order = sorted(range(len(clients)), key=lambda i: -len(plans[i]))  # longest first: the threads end together
        return _in_client_threads(model, threads, train_one, len(clients), order)
    results = []
    device = clients[0].y.device
    with cpu_kernels(model, clients[0].x, precision):
        params = list(model.parameters())
        for i, (client, plan) in enumerate(zip(clients, plans)):
            model.load_state_dict(global_params, strict=False)
            model.train()
            buffers: list[torch.Tensor | None] = [None] * len(params)
            mask = None if client.class_mask is None else client.class_mask[None, :]
            for t, idx in enumerate(plan):
                ix = torch.as_tensor(idx, device=device)
                x, y = client.x[ix], client.y[ix]
                widths = step_widths(i, t) if step_widths else [None]
                losses = []
                for width in widths:
                    with _at_width(model, width), _autocast(device, precision):
                        out = model(x)
                    losses.append(masked_loss(out, y, None, mask, settings.absent_class_fill))
                loss = _total(losses, width_loss)
                grads = torch.autograd.grad(loss, params, allow_unused=True)
                step = _fused_sgd_step if precision == "bf16" else sgd_step
                step(params, grads, buffers, settings.lr, settings.momentum, settings.weight_decay)
            results.append({k: _copy(v) for k, v in model.state_dict().items()})
    return results


def _total(losses: list[torch.Tensor], width_loss: str) -> torch.Tensor:
    """The step's loss: the widths' losses summed in order (``mean``: then divided by their number)."""
    loss = losses[0]
    for more in losses[1:]:
        loss = loss + more
    return loss / len(losses) if width_loss == "mean" else loss


def _in_client_threads(
    model: nn.Module, threads: int, train_one: Callable[[nn.Module, int], State], count: int, order: Sequence[int]
) -> list[State]:
    """``train_one(replica, i)`` for clients ``0..count-1``, side by side in ``threads`` threads, each on its own copy
    of ``model`` with torch's intra-op parallelism off (``TrainSettings.client_threads``): on a few cores, small
    per-client steps keep a core each busier than two cores share one step. A client goes to whichever thread is free,
    in ``order``; it starts from the global state and runs on one thread, so its result does not depend on the
    scheduling (it may differ in the last bits from the intra-op-parallel loop)."""
    import copy
    import queue
    from concurrent.futures import ThreadPoolExecutor

    free: queue.SimpleQueue[nn.Module] = queue.SimpleQueue()
    for _ in range(threads):
        free.put(copy.deepcopy(model))

    def train(i: int) -> State:
        replica = free.get()
        try:
            return train_one(replica, i)
        finally:
            free.put(replica)

    intra_op = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with ThreadPoolExecutor(threads) as pool:
            states = dict(zip(order, pool.map(train, order)))
    finally:
        torch.set_num_threads(intra_op)
    return [states[i] for i in range(count)]


def _copy(t: torch.Tensor) -> torch.Tensor:
    """A detached copy in the default (contiguous) layout, whatever layout the model ran in."""
    return t.detach().clone(memory_format=torch.contiguous_format)


def _fused_sgd_step(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor | None],
    buffers: list[torch.Tensor | None],
    lr: float,
    momentum: float = 0.0,
    weight_decay: float = 0.0,
) -> None:
    """:func:`sgd_step`'s update with torch's fused SGD kernel: one pass over each tensor instead of three, but not
    always the same last bit (it may round ``momentum * buf + grad`` once), so only the bf16 mode uses it."""
    fresh = [buffers[k] is None for k in range(len(params))]  # decided before any buffer is created
    for first in (True, False):
        chosen = [k for k, g in enumerate(grads) if g is not None and fresh[k] == first]
        if not chosen:
            continue
        if momentum and first:
            for k in chosen:
                buffers[k] = torch.empty_like(params[k])
        torch._fused_sgd_(
            [params[k] for k in chosen],
            [grads[k] for k in chosen],
            [buffers[k] for k in chosen] if momentum else [],
            weight_decay=weight_decay,
            momentum=momentum,
            lr=lr,
            dampening=0.0,
            nesterov=False,
            maximize=False,
            is_first_step=first,
        )


def _trained_parameters(
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


class _Cohort:
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
            with _at_width(self.model, width), _autocast(self.device, self.precision):
                out = functional_call(self.model, (params, buffers), (x,))
            losses.append(masked_loss(out, y, None, mask, self.settings.absent_class_fill))
        loss = _total(losses, self.width_loss)
        grads = torch.autograd.grad(loss, list(leaves.values()), allow_unused=True)
        got = {n: g for n, g in zip(leaves, grads) if g is not None}  # as torch SGD: no gradient, no update
        _sgd_update(self, got, list(got), j)

    def trained(self, width: float | None) -> set[str]:
        """Parameters a forward pass at ``width`` trains (one probe per width on the first client's first batch)."""
        if width not in self._trained:
            with _at_width(self.model, width):
                self._trained[width] = set(
                    _trained_parameters(
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

    def vectorized_steps(self) -> None:
        """All clients' steps at once: per step, vmapped gradients of the active clients, then one stacked SGD update.

        Batches shorter than ``batch_size`` are padded and masked out of the loss; models with batch norm instead
        group the clients by batch size (batch statistics must see exactly the client's samples). With
        ``step_widths``, clients are grouped by width as well and each group's gradients are added up (divided by
        the client's number of widths when ``width_loss`` is ``mean``).
        """
        model, device, bs = self.model, self.device, self.settings.batch_size
        by_size = _has(model, nn.modules.batchnorm._BatchNorm)
        masked = self.masks is not None

        def client_loss(p, b, x, y, w, cm):
            with _autocast(device, self.precision):
                out = functional_call(model, (p, b), (x,))
            return masked_loss(out, y, w, cm if masked else None, self.settings.absent_class_fill)

        randomness = "different" if _has(model, nn.modules.dropout._DropoutNd) else "error"
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
                with _at_width(model, passes[0][0]):
                    g = gradients(t, passes[0][1], a)
            else:
                g = {n: torch.zeros_like(v[:a]) for n, v in self.params.items()}
                for value, members in passes:
                    with _at_width(model, value):
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
            _sgd_update(self, g, everyone, slice(0, a))
            for n in self.params:
                holders = [j for j in range(a) if n in used[j]]
                if holders and n not in everyone:
                    _sgd_update(self, {n: g[n][holders]}, [n], torch.as_tensor(holders, device=device))


def _batched(
    model: nn.Module,
    global_params: State,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    plans: list[list[np.ndarray]],
    precision: str,
    step_widths: StepWidths | None,
    width_loss: str,
    vectorize: bool,
) -> list[State]:
    cohort = _Cohort(model, global_params, clients, settings, plans, precision, step_widths, width_loss)
    model.train()
    if vectorize:
        cohort.vectorized_steps()
    else:  # client after client, as the sequential executor (the same dropout draws too)
        with cpu_kernels(model, cohort.x, precision):
            for j, plan in enumerate(cohort.plans):
                for t in range(len(plan)):
                    cohort.client_step(j, t)
    return [cohort.state(i) for i in range(len(clients))]


def _sgd_update(cohort: _Cohort, g: dict[str, torch.Tensor], names: list[str], sel: slice | int | torch.Tensor) -> None:
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


def local_train(
    model: nn.Module,
    global_params: State,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    *,
    generators: Sequence[np.random.Generator],
    executor: str = "auto",
    chunk: int | None = None,
    amp: bool = False,
    step_widths: StepWidths | None = None,
    width_loss: str = "sum",
    vectorize: bool | None = None,
) -> list[State]:
    """Train every client from ``global_params`` and return each client's resulting state dict (in client order).

    - ``model``: any ``nn.Module`` (its architecture and current width; its own weights are not the start point).
    - ``global_params``: the state dict every client starts from (missing keys: the model's current values).
    - ``clients[i]``: client i's data, on the device training runs on; ``generators[i]`` orders its samples.
    - ``executor``: ``batched``, ``sequential`` or ``auto`` (:func:`choose_executor`). The sequential executor (and
      the batched one where it runs the plain client loop, see ``vectorize``) leaves the last client's parameters
      in ``model``; the stacked batched paths do not change the model's weights.
    - ``chunk``: at most this many clients are stacked at once (memory); results do not depend on it.
    - ``amp``: bfloat16 autocast on CUDA (ignored on CPU); ``settings.precision="bf16"`` asks for it on any device.
    - ``step_widths(i, t)``: slimmable models (``fairshare.learning.slimmable``) only: the widths whose
      cross-entropies are summed in client i's step t (e.g. ``[1.0, p_sampled]``, Aequa's full + random width);
      each width's gradient reaches its own slice and switchable batch norm. None: every step at the model's
      current width. The batched executor groups the clients by width within each step.
    - ``width_loss``: ``sum`` (default) or ``mean`` of the per-width losses of a step.
    - ``vectorize``: how the batched executor computes gradients: True = one vmapped call for all clients, False =
      client by client on the stacked state; None = :func:`vmap_pays`, and where vmap does not pay, the sequential
      executor's plain client loop (stacking alone only adds copies). All give the sequential executor's results.
    Sample counts for aggregation are ``len(clients[i])``.
    """
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor '{executor}'; choose one of {', '.join(EXECUTORS)}")
    if len(generators) != len(clients):
        raise ValueError("need one Generator per client")
    if width_loss not in ("sum", "mean"):
        raise ValueError(f"width_loss must be 'sum' or 'mean', got {width_loss!r}")
    if chunk is not None and chunk < 1:
        raise ValueError(f"chunk must be a positive number of clients, got {chunk}")
    if not clients:
        return []
    precision = _precision(settings.precision, amp, clients[0].y.device)
    if executor == "auto":
        executor = choose_executor(model, clients[0].y.device)
    if executor == "batched" and _cumulative_bn(model):
        raise ValueError(
            "the batched executor cannot run batch norm with momentum=None and running statistics "
            "(a cumulative average); use executor='sequential'"
        )
    plans = [batch_plan(len(c), settings, g) for c, g in zip(clients, generators)]
    if executor == "sequential":
        return _sequential(model, global_params, clients, settings, plans, precision, step_widths, width_loss)
    if vectorize is None:
        vectorize = vmap_pays(model, clients[0].y.device, per_client_widths=step_widths is not None)
        if not vectorize:  # stacking buys nothing without vmap: the plain client loop is faster (docs/engine.md)
            return _sequential(model, global_params, clients, settings, plans, precision, step_widths, width_loss)
    size = chunk or len(clients)
    out: list[State] = []
    for s in range(0, len(clients), size):
        widths = None if step_widths is None else (lambda i, t, s=s: step_widths(s + i, t))
        out += _batched(
            model,
            global_params,
            clients[s : s + size],
            settings,
            plans[s : s + size],
            precision,
            widths,
            width_loss,
            vectorize,
        )
    return out
