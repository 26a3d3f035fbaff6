"""Baselines of the Aequa paper that reward clients with models (App. B, "Baselines"; IAFL's experimental protocol).

- :func:`standalone`: every client trains alone (its test accuracy is the contribution surrogate and the reference of
  the collaboration gain).
- :func:`fedavg_ft`: FedAvg (data-size weights), then every client fine-tunes the final global model on its own
  data for ``finetune_epochs`` (one) without sharing (FedAvg-FT; plain FedAvg gives everybody the same model, so
  the Pearson correlation would be undefined).
- :func:`cgsv`: cosine-gradient Shapley value (Xu et al. 2021) as in the IAFL authors' protocol: normalised uploads
  Gamma * Delta / ||Delta||, reputations r <- alpha r + (1 - alpha) cos(Delta_i, Delta_agg) (clamped, normalised),
  and each client receives the aggregated update sparsified to its top q_i = tanh(beta r_i) / max_j tanh(beta r_j)
  fraction of entries (by magnitude, per tensor).
- :func:`iafl`: incentive-aware FL (Wu et al. 2024) in its most fair setting: client i receives the average of its
  own update and ceil(gamma_i^(1 - kappa) (n - 1)) randomly sampled others', gamma_i = min(1, c_i / max_j c_j);
  with probability q it is reset to the server model (q = 0 disables this), and the server model takes the update
  the top contributor receives (all updates).

Every function takes plain arguments (no config) and returns state dicts; :func:`balanced_accuracy_of` evaluates.
Optional ``participants(round)`` (the clients joining a round: Sec. 6.4's participation-rate experiment) and
``on_round`` hooks (per-round evaluation: Sec. 6.5's curves) leave the full-participation computation unchanged.
``order_rng(round, client)`` gives the Generator ordering a client's samples in a round (standalone: per epoch).
``executor`` is one of the engine's (``auto``, ``batched``, ``sequential``) or ``plain``: the engine's sequential
computation with the SGD update written out (:func:`plain_local_train`), which avoids importing ``torch._dynamo``
(``torch.optim`` and ``torch.func`` do): 5-10 s per short pipeline job on a CPU without a bytecode cache.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable, Mapping, Sequence

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from fairshare.learning.aggregation import weighted_average
from fairshare.learning.engine import ClientData, TrainSettings, _batches, _loss, local_train
from fairshare.metrics import balanced_accuracy

State = dict[str, torch.Tensor]
OrderRng = Callable[[int, int], np.random.Generator]
Participants = Callable[[int], np.ndarray]  # round -> indices of the clients that join it
RoundHook = Callable[[int, State, list[State]], None]  # (round, server state, client states)


@torch.no_grad()
def predict(model: nn.Module, params: Mapping[str, torch.Tensor] | None, x: torch.Tensor, batch_size: int = 1024) -> np.ndarray:
    """Predicted labels of ``params`` (``None``: the model's current parameters) at the model's current width."""
    if params is not None:
        model.load_state_dict(params, strict=False)
    model.eval()
    return torch.cat([model(x[s:s + batch_size]).argmax(1) for s in range(0, len(x), batch_size)]).cpu().numpy()


def balanced_accuracy_of(model: nn.Module, params: Mapping[str, torch.Tensor] | None, x: torch.Tensor, y: torch.Tensor, n_classes: int) -> float:
    """Balanced accuracy (the paper's accuracy metric) of ``params`` on (x, y)."""
    return balanced_accuracy(y.cpu().numpy(), predict(model, params, x), n_classes)


@torch.no_grad()
def sgd_step(params: Sequence[torch.Tensor], grads: Sequence[torch.Tensor | None], buffers: list[torch.Tensor | None], lr: float,
             momentum: float = 0.0, weight_decay: float = 0.0) -> None:
    """In-place SGD with momentum and weight decay, torch.optim.SGD's update rule (dampening 0, not Nesterov).

    Written out because constructing/stepping torch.optim imports torch._dynamo, several seconds per short
    pipeline job on a machine without a bytecode cache. Parameters without a gradient (other widths' BN copies)
    are left untouched, momentum included.
    """
    for k, (p, g) in enumerate(zip(params, grads)):
        if g is None:
            continue
        d = g + weight_decay * p if weight_decay else g
        if momentum:
            buffers[k] = d.clone() if buffers[k] is None else buffers[k].mul_(momentum).add_(d)
            d = buffers[k]
        p.add_(d, alpha=-lr)


def plain_local_train(model: nn.Module, start: Mapping[str, torch.Tensor], clients: Sequence[ClientData], settings: TrainSettings,
                      generators: Sequence[np.random.Generator]) -> list[State]:
    """The engine's sequential executor (same batches, loss and SGD rule, hence the same result) with :func:`sgd_step`."""
    params = list(model.parameters())
    out = []
    for client, rng in zip(clients, generators):
        model.load_state_dict(start, strict=False)
        model.train()
        buffers: list[torch.Tensor | None] = [None] * len(params)
        mask = None if client.class_mask is None else client.class_mask[None, :]
        for idx in _batches(len(client), settings, rng):
            ix = torch.as_tensor(idx, device=client.y.device)
            logits = model(client.x[ix])
            loss = _loss(logits, client.y[ix], torch.ones(len(ix), device=logits.device), mask, settings.absent_class_fill)
            sgd_step(params, torch.autograd.grad(loss, params, allow_unused=True), buffers, settings.lr, settings.momentum, settings.weight_decay)
        out.append({k: v.detach().clone() for k, v in model.state_dict().items()})
    return out


def _train(model: nn.Module, start: Mapping[str, torch.Tensor], clients: Sequence[ClientData], settings: TrainSettings,
           generators: Sequence[np.random.Generator], executor: str) -> list[State]:
    if executor == "plain":
        return plain_local_train(model, start, clients, settings, generators)
    return local_train(model, start, clients, settings, generators=generators, executor=executor)


def _lr(settings: TrainSettings, lr_at: Callable[[int], float] | None, step: int) -> TrainSettings:
    return settings if lr_at is None else dataclasses.replace(settings, lr=lr_at(step))


def train_from(model: nn.Module, starts: Sequence[State], clients: Sequence[ClientData], settings: TrainSettings,
               generators: Sequence[np.random.Generator], executor: str = "auto") -> list[State]:
    """Local training where client i starts from ``starts[i]``; clients sharing one start are trained in one cohort."""
    if len(starts) != len(clients):
        raise ValueError("need one start state per client")
    out: list[State | None] = [None] * len(clients)
    groups: dict[int, list[int]] = {}
    for i, s in enumerate(starts):
        groups.setdefault(id(s), []).append(i)
    for members in groups.values():
        # a lone client gains nothing from the batched executor's stacking, only its per-step overhead
        lone = "sequential" if executor in ("auto", "batched") else executor
        states = _train(model, starts[members[0]], [clients[i] for i in members], settings, [generators[i] for i in members],
                        executor if len(members) > 1 else lone)
        for i, s in zip(members, states):
            out[i] = s
    return out  # type: ignore[return-value]


def standalone(model: nn.Module, init: State, clients: Sequence[ClientData], settings: TrainSettings, epochs: int, order_rng: OrderRng, *,
               lr_at: Callable[[int], float] | None = None, executor: str = "auto") -> list[State]:
    """Each client trains alone from ``init`` for ``epochs`` epochs.

    One engine call per stretch of epochs with a constant learning rate (fresh momentum at each learning-rate
    change); ``order_rng(e, i)`` orders client i's samples from epoch e of the stretch on.
    """
    lrs = [settings.lr if lr_at is None else lr_at(e) for e in range(epochs)]
    states: list[State] = [init] * len(clients)
    start = 0
    for e in range(1, epochs + 1):
        if e == epochs or lrs[e] != lrs[start]:
            phase = dataclasses.replace(settings, lr=lrs[start], epochs=e - start)
            states = train_from(model, states, clients, phase, [order_rng(start, i) for i in range(len(clients))], executor)
            start = e
    return states


def _everyone(n: int) -> np.ndarray:
    return np.arange(n)


def fedavg(model: nn.Module, init: State, clients: Sequence[ClientData], settings: TrainSettings, rounds: int, order_rng: OrderRng, *,
           lr_at: Callable[[int], float] | None = None, executor: str = "auto", weighted: bool = True,
           participants: Participants | None = None, on_round: Callable[[int, State], None] | None = None) -> State:
    """FedAvg: the global model after ``rounds`` rounds.

    ``participants(r)`` gives the clients that join round r (default: all; a round nobody joins leaves the model
    unchanged); ``on_round(r, state)`` sees the global model after every round (per-round evaluation).
    """
    state = init
    for r in tqdm(range(rounds), desc="fedavg", leave=False, disable=None):
        ids = _everyone(len(clients)) if participants is None else participants(r)
        if len(ids):
            states = _train(model, state, [clients[i] for i in ids], _lr(settings, lr_at, r), [order_rng(r, int(i)) for i in ids], executor)
            state = weighted_average(states, [len(clients[i]) if weighted else 1.0 for i in ids])
        if on_round is not None:
            on_round(r, state)
    return state


def finetune(model: nn.Module, state: State, clients: Sequence[ClientData], settings: TrainSettings, epochs: int, order_rng: OrderRng,
             round_index: int, *, lr_at: Callable[[int], float] | None = None, executor: str = "auto") -> list[State]:
    """FedAvg-FT's reward: every client fine-tunes ``state`` on its own data for ``epochs`` epochs (last round's lr)."""
    ft = dataclasses.replace(_lr(settings, lr_at, max(round_index - 1, 0)), epochs=epochs)
    return _train(model, state, clients, ft, [order_rng(round_index, i) for i in range(len(clients))], executor)


def fedavg_ft(model: nn.Module, init: State, clients: Sequence[ClientData], settings: TrainSettings, rounds: int, order_rng: OrderRng, *,
              finetune_epochs: int = 1, lr_at: Callable[[int], float] | None = None, executor: str = "auto", weighted: bool = True,
              participants: Participants | None = None, on_round: Callable[[int, State], None] | None = None) -> tuple[State, list[State]]:
    """FedAvg, then every client fine-tunes the global model locally: (global state, fine-tuned client states)."""
    state = fedavg(model, init, clients, settings, rounds, order_rng, lr_at=lr_at, executor=executor, weighted=weighted,
                   participants=participants, on_round=on_round)
    return state, finetune(model, state, clients, settings, finetune_epochs, order_rng, rounds, lr_at=lr_at, executor=executor)


def _param_keys(model: nn.Module) -> list[str]:
    return [n for n, _ in model.named_parameters()]


def _delta(new: State, old: State, keys: Sequence[str]) -> State:
    return {k: new[k] - old[k] for k in keys}


def _flat(d: State, keys: Sequence[str]) -> torch.Tensor:
    return torch.cat([d[k].flatten() for k in keys])


def sparsify(update: State, fraction: float) -> State:
    """Keep the largest-magnitude ``fraction`` of the entries of every tensor (at least one), zero the rest."""
    out = {}
    for k, v in update.items():
        keep = max(1, math.ceil(fraction * v.numel()))
        if keep >= v.numel():
            out[k] = v.clone()
            continue
        threshold = v.abs().flatten().kthvalue(v.numel() - keep + 1).values
        out[k] = torch.where(v.abs() >= threshold, v, torch.zeros_like(v))
    return out


def cgsv(model: nn.Module, init: State, clients: Sequence[ClientData], settings: TrainSettings, rounds: int, order_rng: OrderRng, *,
         gamma: float = 0.5, alpha: float = 0.95, beta: float = 1.0, min_reputation: float = 1e-3,
         lr_at: Callable[[int], float] | None = None, executor: str = "auto", participants: Participants | None = None,
         on_round: RoundHook | None = None) -> tuple[State, list[State], np.ndarray]:
    """CGSV: (server state, client states, reputations per round (rounds x clients)).

    With ``participants``, only the clients joining round r train, upload, update their reputation and receive a
    reward that round; the others keep their model and reputation.
    """
    keys = _param_keys(model)
    n = len(clients)
    sizes = np.array([len(c) for c in clients], float)
    rep = torch.as_tensor(sizes / sizes.sum(), dtype=torch.float32)
    server = {k: v.clone() for k, v in init.items()}
    locals_: list[State] = [{k: v.clone() for k, v in init.items()} for _ in range(n)]
    history = []
    for r in tqdm(range(rounds), desc="cgsv", leave=False, disable=None):
        ids = _everyone(n) if participants is None else np.asarray(participants(r), int)
        if len(ids):
            trained = train_from(model, [locals_[i] for i in ids], [clients[i] for i in ids], _lr(settings, lr_at, r),
                                 [order_rng(r, int(i)) for i in ids], executor)
            uploads = []
            for new, i in zip(trained, ids):
                d = _delta(new, locals_[i], keys)
                norm = _flat(d, keys).norm().clamp(min=1e-12)
                uploads.append({k: gamma * v / norm for k, v in d.items()})
            agg = {k: sum(rep[i] * u[k] for i, u in zip(ids, uploads)) for k in keys}
            flat_agg = _flat(agg, keys)
            phi = torch.stack([torch.nn.functional.cosine_similarity(_flat(u, keys), flat_agg, dim=0) for u in uploads])
            rep = rep.clone()
            rep[ids] = alpha * rep[ids] + (1 - alpha) * phi
            rep = rep.clamp(min=min_reputation)
            rep = rep / rep.sum()
            q = torch.tanh(beta * rep)
            q = q / q[ids].max()
            for i in ids:
                reward = sparsify(agg, min(float(q[i]), 1.0))
                locals_[i] = {**locals_[i], **{k: locals_[i][k] + reward[k] for k in keys}}
            server = {**server, **{k: server[k] + agg[k] for k in keys}}
        history.append(rep.numpy().copy())
        if on_round is not None:
            on_round(r, server, locals_)
    return server, locals_, np.array(history)


def iafl(model: nn.Module, init: State, clients: Sequence[ClientData], settings: TrainSettings, rounds: int, order_rng: OrderRng,
         contributions: Sequence[float], sampling_rng: Callable[[int], np.random.Generator], *, kappa: float = 0.0, q: float = 0.0,
         lr_at: Callable[[int], float] | None = None, executor: str = "auto", participants: Participants | None = None,
         on_round: RoundHook | None = None) -> tuple[State, list[State]]:
    """IAFL with contribution-proportional sampling of others' updates: (server state, client states).

    With ``participants``, round r's updates come from the joining clients only, and each of them receives its own
    update averaged with ceil(gamma_i (m - 1)) of the other m - 1 participants'.
    """
    keys = _param_keys(model)
    n = len(clients)
    c = np.asarray(contributions, float)
    gam = np.minimum(1.0, c / c.max()) ** (1.0 - kappa)
    sizes = np.array([len(cl) for cl in clients], float)
    server = {k: v.clone() for k, v in init.items()}
    locals_: list[State] = [{k: v.clone() for k, v in init.items()} for _ in range(n)]
    for r in tqdm(range(rounds), desc="iafl", leave=False, disable=None):
        ids = _everyone(n) if participants is None else np.asarray(participants(r), int)
        rng = sampling_rng(r)
        if len(ids):
            trained = train_from(model, [locals_[i] for i in ids], [clients[i] for i in ids], _lr(settings, lr_at, r),
                                 [order_rng(r, int(i)) for i in ids], executor)
            deltas = {int(i): _delta(new, locals_[i], keys) for new, i in zip(trained, ids)}
            full = weighted_average([deltas[int(i)] for i in ids], sizes[ids])
            m = len(ids)
            for i in ids:
                n_others = int(np.ceil(gam[i] * (m - 1)))
                others = rng.choice(ids[ids != i], size=n_others, replace=False) if m > 1 else np.array([], int)
                members = [int(i), *others.tolist()]
                upd = weighted_average([deltas[j] for j in members], sizes[members])
                if q > 0 and rng.random() < q:
                    locals_[i] = {**locals_[i], **{k: server[k] + full[k] for k in keys}}
                else:
                    locals_[i] = {**locals_[i], **{k: locals_[i][k] + upd[k] for k in keys}}
            server = {**server, **{k: server[k] + full[k] for k in keys}}
        if on_round is not None:
            on_round(r, server, locals_)
    return server, locals_
