"""Baselines of the Aequa paper that reward clients with models (App. B, "Baselines"; IAFL's experimental protocol).

- standalone (:func:`standalone_step`): every client trains alone (its test accuracy is the contribution surrogate and the reference of
  the collaboration gain).
- FedAvg-FT (:func:`fedavg_step`, then :func:`finetune`): FedAvg (data-size weights), then every client fine-tunes the final global model on its own
  data for ``finetune_epochs`` (one) without sharing (FedAvg-FT; plain FedAvg gives everybody the same model, so
  the Pearson correlation would be undefined).
- CGSV (:func:`cgsv_step`): cosine-gradient Shapley value (Xu et al. 2021) as in the IAFL authors' protocol: normalised uploads
  Gamma * Delta / ||Delta||, reputations r <- alpha r + (1 - alpha) cos(Delta_i, Delta_agg) (clamped, normalised),
  and each client receives the aggregated update sparsified to its top q_i = tanh(beta r_i) / max_j tanh(beta r_j)
  fraction of entries (by magnitude, per tensor).
- IAFL (:func:`iafl_step`): incentive-aware FL (Wu et al. 2024) in its most fair setting: client i receives the average of its
  own update and ceil(gamma_i^(1 - kappa) (n - 1)) randomly sampled others', gamma_i = min(1, c_i / max_j c_j);
  with probability q it is reset to the server model (q = 0 disables this), and the server model takes the update
  the top contributor receives (all updates).

Each method is a per-round step for :func:`fairshare.learning.rounds.run_rounds` (``*_step``, with ``*_start`` for
the initial state where it is more than the initial model); in a notebook, ``run_rounds(step, start, rounds,
settings="")`` runs all rounds, e.g. ``run_rounds(cgsv_step(model, clients, settings, order_rng), cgsv_start(init,
clients), 50, settings="")[0]["locals"]`` are CGSV's reward models. Optional ``participants(round)``, the clients joining a round (Sec. 6.4's participation-rate
experiment), leaves the full-participation computation unchanged. ``order_rng(round, client)`` gives the Generator
ordering a client's samples in a round (standalone: from an epoch on); ``executor`` is one of the engine's.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import torch
from torch import nn

from fairshare.learning.aggregation import weighted_average
from fairshare.learning.engine import ClientData, TrainSettings, local_train
from fairshare.learning.rounds import RoundStep

__all__ = [
    "State",
    "OrderRng",
    "Participants",
    "LrAt",
    "train_from",
    "standalone_phases",
    "standalone_step",
    "fedavg_step",
    "finetune",
    "pooled_buffers",
    "sparsify",
    "cgsv_start",
    "cgsv_step",
    "iafl_start",
    "iafl_step",
]

State = dict[str, torch.Tensor]
OrderRng = Callable[[int, int], np.random.Generator]
Participants = Callable[[int], np.ndarray]  # round -> indices of the clients that join it
LrAt = Callable[[int], float]


def _clone(state: State) -> State:
    return {k: v.clone() for k, v in state.items()}


def _lr(settings: TrainSettings, lr_at: LrAt | None, step: int) -> TrainSettings:
    return settings if lr_at is None else dataclasses.replace(settings, lr=lr_at(step))


def _joining(n: int, participants: Participants | None, r: int) -> np.ndarray:
    return np.arange(n) if participants is None else np.asarray(participants(r), int)


def _samples(clients: Sequence[ClientData], ids: Sequence[int], settings: TrainSettings) -> int:
    return settings.epochs * sum(len(clients[i]) for i in ids)


def _train_joined(
    model: nn.Module,
    locals_: Sequence[State],
    clients: Sequence[ClientData],
    ids: np.ndarray,
    settings: TrainSettings,
    order_rng: Callable[[int], np.random.Generator],
    executor: str,
) -> list[State]:
    """One round's local training of the joining clients ``ids`` (CGSV, IAFL), each from its own local model."""
    return train_from(
        model,
        [locals_[i] for i in ids],
        [clients[i] for i in ids],
        settings,
        [order_rng(int(i)) for i in ids],
        executor,
    )


def train_from(
    model: nn.Module,
    starts: Sequence[State],
    clients: Sequence[ClientData],
    settings: TrainSettings,
    generators: Sequence[np.random.Generator],
    executor: str = "auto",
) -> list[State]:
    """Local training where client i starts from ``starts[i]``; clients sharing one start are trained in one cohort."""
    if len(starts) != len(clients):
        raise ValueError("need one start state per client")
    out: list[State | None] = [None] * len(clients)
    groups: dict[int, list[int]] = {}
    for i, s in enumerate(starts):
        groups.setdefault(id(s), []).append(i)
    for members in groups.values():
        # a lone client gains nothing from the batched executor's stacking, only its per-step overhead
        states = local_train(
            model,
            starts[members[0]],
            [clients[i] for i in members],
            settings,
            generators=[generators[i] for i in members],
            executor=executor if len(members) > 1 else "sequential",
        )
        for i, s in zip(members, states):
            out[i] = s
    return out  # type: ignore[return-value]


# ----------------------------------------------------------------------------------------------- standalone
def standalone_phases(epochs: int, lr: float, lr_at: LrAt | None = None) -> list[tuple[int, int, float]]:
    """Stretches of epochs with a constant learning rate: (first epoch, epochs, learning rate)."""
    lrs = [lr if lr_at is None else lr_at(e) for e in range(epochs)]
    phases, start = [], 0
    for e in range(1, epochs + 1):
        if e == epochs or lrs[e] != lrs[start]:
            phases.append((start, e - start, lrs[start]))
            start = e
    return phases


def standalone_step(
    model: nn.Module,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    order_rng: OrderRng,
    phases: Sequence[tuple[int, int, float]],
    *,
    executor: str = "auto",
) -> RoundStep:
    """Step r trains every client (state: one state dict per client) through ``phases[r]``: one engine call per
    stretch, so momentum restarts only where the learning rate changes; ``order_rng(e, i)`` orders client i's
    samples from the stretch's first epoch e on."""

    def step(r: int, states: list[State]) -> tuple[list[State], dict, int]:
        start, epochs, lr = phases[r]
        phase = dataclasses.replace(settings, lr=lr, epochs=epochs)
        states = train_from(model, states, clients, phase, [order_rng(start, i) for i in range(len(clients))], executor)
        return states, {}, _samples(clients, range(len(clients)), phase)

    return step


# ----------------------------------------------------------------------------------------------- FedAvg(-FT)
def fedavg_step(
    model: nn.Module,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    order_rng: OrderRng,
    *,
    lr_at: LrAt | None = None,
    executor: str = "auto",
    weighted: bool = True,
    participants: Participants | None = None,
) -> RoundStep:
    """One FedAvg round on the global state (a round nobody joins leaves the model unchanged)."""

    def step(r: int, state: State) -> tuple[State, dict, int]:
        ids = np.arange(len(clients)) if participants is None else participants(r)
        if not len(ids):
            return state, {}, 0
        states = local_train(
            model,
            state,
            [clients[i] for i in ids],
            _lr(settings, lr_at, r),
            generators=[order_rng(r, int(i)) for i in ids],
            executor=executor,
        )
        state = weighted_average(states, [len(clients[i]) if weighted else 1.0 for i in ids])
        return state, {}, _samples(clients, ids, settings)

    return step


def finetune(
    model: nn.Module,
    state: State,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    epochs: int,
    order_rng: OrderRng,
    round_index: int,
    *,
    lr_at: LrAt | None = None,
    executor: str = "auto",
) -> list[State]:
    """FedAvg-FT's reward: every client fine-tunes ``state`` on its own data for ``epochs`` epochs (last round's lr)."""
    ft = dataclasses.replace(_lr(settings, lr_at, max(round_index - 1, 0)), epochs=epochs)
    return local_train(
        model,
        state,
        clients,
        ft,
        generators=[order_rng(round_index, i) for i in range(len(clients))],
        executor=executor,
    )


# ----------------------------------------------------------------------------------------------- CGSV
def _param_keys(model: nn.Module) -> list[str]:
    return [n for n, _ in model.named_parameters()]


def _buffer_keys(model: nn.Module) -> list[str]:
    """State entries that are not parameters: batch norm's running statistics and counters."""
    params = set(_param_keys(model))
    return [k for k in model.state_dict() if k not in params]


def pooled_buffers(states: Sequence[State], sizes: Sequence[float], keys: Sequence[str]) -> State:
    """The buffers ``keys`` (batch norm's running statistics) averaged over ``states`` by data size, as FedAvg averages
    them: the statistics of the clients whose updates built a model, pooled (empty without buffers)."""
    if not keys:
        return {}
    return weighted_average([{k: s[k] for k in keys} for s in states], sizes)


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


def cgsv_start(init: State, clients: Sequence[ClientData]) -> dict[str, Any]:
    """CGSV's initial state: server and client models at ``init``, reputations proportional to data size (on the
    models' device: each round mixes them with the uploads' cosine similarities)."""
    sizes = np.array([len(c) for c in clients], float)
    device = next(iter(init.values())).device
    return {
        "server": _clone(init),
        "locals": [_clone(init) for _ in clients],
        "reputation": torch.as_tensor(sizes / sizes.sum(), dtype=torch.float32, device=device),
        "history": [],
    }


def cgsv_step(
    model: nn.Module,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    order_rng: OrderRng,
    *,
    gamma: float = 0.5,
    alpha: float = 0.95,
    beta: float = 1.0,
    min_reputation: float = 1e-3,
    lr_at: LrAt | None = None,
    executor: str = "auto",
    participants: Participants | None = None,
) -> RoundStep:
    """One CGSV round on :func:`cgsv_start`'s state; ``history`` gains the round's reputations.

    With ``participants``, only the clients joining round r train, upload, update their reputation and receive a
    reward that round; the others keep their model and reputation.

    Batch norm's running statistics are not part of the update (they are no gradient: no normalisation, cosine or
    sparsification): the server model and every participant's reward model (built from everybody's aggregated
    update) carry the participants' trained statistics averaged by data size (:func:`pooled_buffers`).
    """
    keys, buffers = _param_keys(model), _buffer_keys(model)
    sizes = np.array([len(c) for c in clients], float)

    def step(r: int, state: dict[str, Any]) -> tuple[dict[str, Any], dict, int]:
        server, locals_, rep = state["server"], list(state["locals"]), state["reputation"]
        ids = _joining(len(clients), participants, r)
        if len(ids):
            trained = _train_joined(
                model, locals_, clients, ids, _lr(settings, lr_at, r), partial(order_rng, r), executor
            )
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
            stats = pooled_buffers(trained, sizes[ids], buffers)
            for i in ids:
                reward = sparsify(agg, min(float(q[i]), 1.0))
                locals_[i] = {**locals_[i], **{k: locals_[i][k] + reward[k] for k in keys}, **_clone(stats)}
            server = {**server, **{k: server[k] + agg[k] for k in keys}, **stats}
        state = {
            "server": server,
            "locals": locals_,
            "reputation": rep,
            "history": [*state["history"], rep.cpu().numpy().copy()],
        }
        return state, {}, _samples(clients, ids, settings)

    return step


# ----------------------------------------------------------------------------------------------- IAFL
def iafl_start(init: State, clients: Sequence[ClientData]) -> dict[str, Any]:
    """IAFL's initial state: server and client models at ``init``."""
    return {"server": _clone(init), "locals": [_clone(init) for _ in clients]}


def iafl_step(
    model: nn.Module,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    order_rng: OrderRng,
    contributions: Sequence[float],
    sampling_rng: Callable[[int], np.random.Generator],
    *,
    kappa: float = 0.0,
    q: float = 0.0,
    lr_at: LrAt | None = None,
    executor: str = "auto",
    participants: Participants | None = None,
) -> RoundStep:
    """One IAFL round with contribution-proportional sampling of others' updates, on :func:`iafl_start`'s state.

    With ``participants``, round r's updates come from the joining clients only, and each of them receives its own
    update averaged with ceil(gamma_i (m - 1)) of the other m - 1 participants'.

    Batch norm's running statistics follow the updates a model is built from, averaged by data size
    (:func:`pooled_buffers`): client i's reward model carries the trained statistics of the clients whose updates it
    received (itself and its sampled others; all participants on a reset), the server model all participants'.
    """
    keys, buffers = _param_keys(model), _buffer_keys(model)
    c = np.asarray(contributions, float)
    # all contributions zero (e.g. chance-level standalone models): equal contributions, everybody shares fully
    gam = (np.minimum(1.0, c / c.max()) if c.max() > 0 else np.ones_like(c)) ** (1.0 - kappa)
    sizes = np.array([len(cl) for cl in clients], float)

    def step(r: int, state: dict[str, Any]) -> tuple[dict[str, Any], dict, int]:
        server, locals_ = state["server"], list(state["locals"])
        ids = _joining(len(clients), participants, r)
        rng = sampling_rng(r)
        if len(ids):
            trained = _train_joined(
                model, locals_, clients, ids, _lr(settings, lr_at, r), partial(order_rng, r), executor
            )
            deltas = {int(i): _delta(new, locals_[i], keys) for new, i in zip(trained, ids)}
            after = {int(i): new for new, i in zip(trained, ids)}
            full = weighted_average([deltas[int(i)] for i in ids], sizes[ids])
            stats = pooled_buffers(trained, sizes[ids], buffers)
            m = len(ids)
            for i in ids:
                n_others = int(np.ceil(gam[i] * (m - 1)))
                others = rng.choice(ids[ids != i], size=n_others, replace=False) if m > 1 else np.array([], int)
                members = [int(i), *others.tolist()]
                upd = weighted_average([deltas[j] for j in members], sizes[members])
                if q > 0 and rng.random() < q:
                    locals_[i] = {**locals_[i], **{k: server[k] + full[k] for k in keys}, **_clone(stats)}
                else:
                    own = pooled_buffers([after[j] for j in members], sizes[members], buffers)
                    locals_[i] = {**locals_[i], **{k: locals_[i][k] + upd[k] for k in keys}, **own}
            server = {**server, **{k: server[k] + full[k] for k in keys}, **stats}
        return {"server": server, "locals": locals_}, {}, _samples(clients, ids, settings)

    return step
