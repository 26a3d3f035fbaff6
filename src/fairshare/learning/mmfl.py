"""Multi-model federated learning: several tasks trained concurrently by one client population (FedFairMMFL).

Each round a share of the clients is active; each active client is assigned one task by a policy and trains that
task's global model locally; each task aggregates its clients' models and is evaluated on its test set
(Algorithm 1 of the paper). Policies:
- ``fedfair``: P(task s) proportional to f_s^(alpha - 1), f_s = 100 (1 - acc_s) the task's current test error in
  percent (Eq. 5 as the authors' code computes it; alpha = 1 is uniform);
- ``random``: uniform (the paper's Random baseline);
- ``round_robin``: client i starts at task floor(i S / K) and moves to the next task every round;
- ``qffl``: uniform allocation with task-level q-FFL aggregation (q = alpha - 1, Lipschitz constant L).
The first round is allocated uniformly at random. Every round's randomness comes from generators derived from
(seed, round), so a run resumed from its last checkpoint is identical to an uninterrupted one.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from torch import nn

from fairshare.learning.aggregation import uniform_average, weighted_average
from fairshare.learning.checkpoint import load_checkpoint, save_checkpoint
from fairshare.learning.engine import ClientData, TrainSettings, evaluate, local_train

POLICIES = ("fedfair", "random", "round_robin", "qffl")
ERROR_FLOOR = 1e-8  # keeps f_s^(alpha-1) defined when a task reaches 100% accuracy (spec §2.2 guard)


@dataclass
class Task:
    """One task: its model, the clients' local data for it, its test set and its local-training settings."""

    name: str
    model: nn.Module
    clients: list[ClientData]
    x_test: torch.Tensor
    y_test: torch.Tensor
    settings: TrainSettings


def allocation_probabilities(accuracies: Sequence[float], alpha: float) -> np.ndarray:
    """FedFairMMFL's Eq. (5): p_s proportional to (100 (1 - acc_s))^(alpha - 1)."""
    f = 100.0 * (1.0 - np.asarray(accuracies, float)) + ERROR_FLOOR
    logw = (alpha - 1.0) * np.log(f)
    w = np.exp(logw - logw.max())
    return w / w.sum()


def allocate(policy: str, active: np.ndarray, n_clients: int, n_tasks: int, round_index: int, accuracies: Sequence[float] | None,
             alpha: float, rng: np.random.Generator, eligible: np.ndarray | None = None) -> np.ndarray:
    """Task index of each active client this round.

    ``eligible`` (active clients x tasks, boolean) restricts each client to the tasks it was recruited for (auction
    experiments); probabilities are renormalised over a client's eligible tasks.
    """
    if policy == "round_robin":
        start = (np.arange(n_clients) * n_tasks) // n_clients
        return (start[active] + round_index) % n_tasks
    probs = allocation_probabilities(accuracies, alpha) if policy == "fedfair" and accuracies is not None else np.full(n_tasks, 1 / n_tasks)
    if eligible is None:
        return rng.choice(n_tasks, size=len(active), p=probs) if policy == "fedfair" and accuracies is not None else rng.integers(0, n_tasks, size=len(active))
    weights = eligible * probs[None, :]
    weights = weights / weights.sum(axis=1, keepdims=True)
    return np.array([rng.choice(n_tasks, p=w) for w in weights])


def qffl_update(global_state: dict[str, torch.Tensor], client_states: Sequence[dict[str, torch.Tensor]], loss: float, q: float,
                lipschitz: float) -> dict[str, torch.Tensor]:
    """q-FedAvg step for one task (Li et al.): w - sum_k f^q L (w - w_k) / sum_k (q f^(q-1) ||L (w - w_k)||^2 + L f^q)."""
    keys = [k for k in global_state if global_state[k].is_floating_point()]
    deltas = [{k: lipschitz * (global_state[k] - s[k]) for k in keys} for s in client_states]
    f = max(loss, 1e-10)
    num = {k: sum(f**q * d[k] for d in deltas) for k in keys}
    den = sum(q * f ** (q - 1) * sum(float((d[k] ** 2).sum()) for k in keys) + lipschitz * f**q for d in deltas)
    out = dict(global_state)
    out.update({k: global_state[k] - num[k] / den for k in keys})
    return out


def run_mmfl(tasks: Sequence[Task], *, n_clients: int, active_rate: float, rounds: int, policy: str, alpha: float,
             weighted_aggregation: bool, executor: str, sampling_rng: Callable[[int], np.random.Generator],
             order_rng: Callable[[int, int, int], np.random.Generator], checkpoint: str | Path | None = None, lipschitz: float = 1.0,
             progress: bool = True, eligibility: np.ndarray | None = None) -> tuple[list[dict], np.ndarray]:
    """Run the concurrent training; return per-round rows (round, task, accuracy, loss, clients) and the allocation map.

    The allocation map has shape (clients, rounds) with the task index each client trained (-1 when inactive).
    ``sampling_rng(round)`` draws active clients and allocations; ``order_rng(round, task, client)`` orders data.
    With ``checkpoint``, state is saved atomically after every round and a restart resumes from it.
    ``eligibility`` (clients x tasks, in [0, 1]) is the chance that a client may train a task in a round (1 for a
    recruited client, its fraction for a fractionally recruited one, 0 otherwise); clients with no eligible task sit
    the round out. Without it every client may train every task.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy '{policy}'; choose one of {', '.join(POLICIES)}")
    if not 0 < active_rate <= 1:
        raise ValueError(f"active_rate must be in (0, 1], got {active_rate}")
    n_tasks = len(tasks)
    m = max(1, int(active_rate * n_clients))
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is None:
        globals_ = [{k: v.detach().clone() for k, v in t.model.state_dict().items()} for t in tasks]
        rows: list[dict] = []
        alloc_map = np.full((n_clients, rounds), -1, dtype=np.int64)
        accuracies: list[float] | None = None
        losses: list[float] = [float("nan")] * n_tasks
        start = 0
    else:
        globals_, rows, alloc_map, accuracies, losses, start = (state["globals"], state["rows"], state["alloc_map"], state["accuracies"],
                                                               state["losses"], state["round"])
        if alloc_map.shape[1] < rounds:  # resumed with more rounds than the checkpointed run planned
            alloc_map = np.pad(alloc_map, ((0, 0), (0, rounds - alloc_map.shape[1])), constant_values=-1)
    from tqdm import tqdm

    bar = tqdm(range(start, rounds), desc=f"{policy}", unit="round", disable=not progress, initial=start, total=rounds)
    for r in bar:
        rng = sampling_rng(r)
        eligible = None
        if eligibility is not None:
            allowed = rng.random(eligibility.shape) < eligibility
            candidates = np.flatnonzero(allowed.any(axis=1))
            active = np.sort(rng.choice(candidates, size=min(m, len(candidates)), replace=False))
            eligible = allowed[active]
        else:
            active = np.sort(rng.choice(n_clients, size=m, replace=False))
        assigned = allocate(policy, active, n_clients, n_tasks, r, accuracies if r > 0 else None, alpha, rng, eligible)
        alloc_map[active, r] = assigned
        new_acc, new_loss = [], []
        for s, task in enumerate(tasks):
            chosen = active[assigned == s]
            if len(chosen):
                client_data = [task.clients[c] for c in chosen]
                states = local_train(task.model, globals_[s], client_data, task.settings, executor=executor,
                                     generators=[order_rng(r, s, int(c)) for c in chosen])
                sizes = [len(d) for d in client_data]
                if policy == "qffl":
                    globals_[s] = qffl_update(globals_[s], states, losses[s] if np.isfinite(losses[s]) else 1.0, max(alpha - 1, 0.0), lipschitz)
                elif weighted_aggregation:
                    globals_[s] = weighted_average(states, sizes)
                else:
                    globals_[s] = uniform_average(states)
                acc, loss = evaluate(task.model, globals_[s], task.x_test, task.y_test)
            else:  # no client trained this task: the global model and its accuracy carry over
                acc, loss = (accuracies[s], losses[s]) if accuracies is not None else evaluate(task.model, globals_[s], task.x_test, task.y_test)
            new_acc.append(acc)
            new_loss.append(loss)
            rows.append({"round": r + 1, "task": s, "task_name": task.name, "accuracy": acc, "loss": loss, "clients": int(len(chosen))})
        accuracies, losses = new_acc, new_loss
        bar.set_postfix(min_acc=f"{min(accuracies):.3f}")
        if checkpoint:
            save_checkpoint(checkpoint, {"globals": globals_, "rows": rows, "alloc_map": alloc_map, "accuracies": accuracies,
                                         "losses": losses, "round": r + 1})
    return rows, alloc_map
