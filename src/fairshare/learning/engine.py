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
from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import nn

from fairshare.learning.cohort import Cohort, State, StepWidths, at_width, autocast, has_module, total_loss
from fairshare.learning.kernels import cpu_kernels
from fairshare.learning.sgd import ClientData, TrainSettings, batch_plan, decayed_lr, masked_loss, sgd_step, step_count
from fairshare.learning.slimmable import SlimmableMLP

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
    """Whether the batched executor should compute the clients' gradients stacked (else client by client).

    With ``per_client_widths`` (Aequa's step widths, drawn per client and minibatch) on CPU: only for small slimmable
    MLPs, whose stacked pass masks each client's width (:meth:`Cohort.masked_width_steps`: one batched matrix
    product per layer and width slot; bench/aequa_stacking.py measures it against the client loop). Other slimmable
    models would split into groups of about one client per width and step, so vmap batches nothing
    and adds its stacking, gathers and scatters: 13.7x the operations of a plain step per client-step, against 1.0x
    for the client loop (bench/aequa_step_ops.py, slimmable ResNet-18). Otherwise always on CUDA, where small
    per-client steps are bound by kernel launches, not arithmetic. On CPU only for small models (at most
    ``CPU_VMAP_MAX_PARAMS`` parameters: the payoff MLP, the 8x8-digits CNN), where batching many small operations
    pays; for larger ones (the 1.6 M-parameter MNIST CNN) each client's step is compute-bound with its state in
    cache, and vmap's grouped convolutions, layout copies and cache misses make it slower than computing client by
    client (bench/engine_throughput.py).
    """
    if torch.device(device).type == "cuda":
        return True
    small = sum(p.numel() for p in model.parameters()) <= CPU_VMAP_MAX_PARAMS
    return small and (isinstance(model, SlimmableMLP) or not per_client_widths)


def _precision(precision: str, amp: bool, device: torch.device) -> str:
    """The precision a call runs at: ``precision``, or bf16 where the older ``amp`` flag asks for it (CUDA only)."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision '{precision}'; choose one of {', '.join(PRECISIONS)}")
    return "bf16" if amp and device.type == "cuda" else precision


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
    if threads > 1 and clients[0].y.device.type == "cpu" and not has_module(model, nn.modules.dropout._DropoutNd):
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
                    with at_width(model, width), autocast(device, precision):
                        out = model(x)
                    losses.append(masked_loss(out, y, None, mask, settings.absent_class_fill))
                loss = total_loss(losses, width_loss)
                grads = torch.autograd.grad(loss, params, allow_unused=True)
                step = _fused_sgd_step if precision == "bf16" else sgd_step
                step(params, grads, buffers, settings.lr, settings.momentum, settings.weight_decay)
            results.append({k: _copy(v) for k, v in model.state_dict().items()})
    return results


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
    cohort = Cohort(model, global_params, clients, settings, plans, precision, step_widths, width_loss)
    model.train()
    if vectorize and step_widths is not None and isinstance(model, SlimmableMLP):
        cohort.masked_width_steps()
    elif vectorize:
        cohort.vectorized_steps()
    else:  # client after client, as the sequential executor (the same dropout draws too)
        with cpu_kernels(model, cohort.x, precision):
            for j, plan in enumerate(cohort.plans):
                for t in range(len(plan)):
                    cohort.client_step(j, t)
    return [cohort.state(i) for i in range(len(clients))]


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
