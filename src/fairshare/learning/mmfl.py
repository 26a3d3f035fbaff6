"""Multi-model federated learning: several tasks trained concurrently by one client population (FedFairMMFL).

Each round a share of the clients is active; each active client is assigned one task by a policy and trains that
task's global model locally; each task aggregates its clients' models and is evaluated on its test set
(Algorithm 1 of the paper). Policies:
- ``fedfair``: P(task s) proportional to f_s^(alpha - 1), f_s = 100 (1 - acc_s) the task's current test error in
  percent (Eq. 5 as the authors' code computes it; alpha = 1 is uniform);
- ``random``: uniform (the paper's Random baseline);
- ``round_robin``: client i starts at task floor(i S / K) and moves to the next task every round;
- ``qffl``: uniform allocation with task-level q-FFL aggregation (q = alpha - 1, Lipschitz constant L).
The first round is allocated uniformly at random. Training goes through :func:`fairshare.learning.rounds.run_rounds`;
every round's randomness comes from generators derived from (seed, round), so a run resumed from its checkpoint is
identical to an uninterrupted one.

:class:`Fidelity` says which of the authors' code quirks a task reproduces (docs/mmfl.md, Fidelity); ``FIDELITY["faithful"]``
is their code, ``FIDELITY["corrected"]`` fixes every quirk.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from fairshare import seeding
from fairshare.data.datasets import ArrayDataset
from fairshare.data.partition import Partition
from fairshare.learning.aggregation import uniform_average, weighted_average
from fairshare.learning.engine import ClientData, TrainSettings, decayed_lr, local_train
from fairshare.learning.evaluation import evaluate, to_tensors
from fairshare.learning.mmfl_policies import POLICIES
from fairshare.learning.models import build_model
from fairshare.learning.rounds import run_rounds, settings_hash
from fairshare.metrics import collapsed

__all__ = [
    "ERROR_FLOOR",
    "MEMBERS",
    "Fidelity",
    "FIDELITY",
    "Task",
    "build_task",
    "batch_statistics",
    "allocation_probabilities",
    "allocate",
    "qffl_update",
    "tasks_fingerprint",
    "SamplingRng",
    "OrderRng",
    "seeded_generators",
    "run_mmfl",
    "mark_collapsed",
    "allocation_map",
]

ERROR_FLOOR = 1e-8  # keeps f_s^(alpha-1) defined when a task reaches 100% accuracy (a guard; docs/mmfl.md)
MEMBERS = "members"  # a round row's clients that trained its task; only for the allocation map
SamplingRng = Callable[[int], np.random.Generator]  # round -> the generator of its active clients and allocation
OrderRng = Callable[[int, int, int], np.random.Generator]  # (round, task, client) -> the client's data order


@dataclass(frozen=True)
class Fidelity:
    """Which quirks of the authors' code (docs/mmfl.md, Fidelity) a task reproduces.

    - ``double_softmax``: the MNIST-family CNN without a nonlinearity between its convolutions and with ReLU + softmax
      on its output, which the cross-entropy then treats as logits (else ReLUs between the layers, logits out);
    - ``absent_class_fill``: the value a non-iid client's outputs for the classes it does not hold are set to before
      the loss: 0 (the authors' ``masked_fill``, on the CNN's probabilities) or -inf (the classes are excluded from
      the softmax: the client fits a distribution over its own classes, and absent classes get neither probability
      nor gradient);
    - ``bn_running_stats``: the ResNet's batch norm tracks running statistics (the authors': it does not, so
      evaluation normalises with each test batch's statistics);
    - ``eval_batch_size``: test samples per evaluation batch of a model with batch norm without running statistics
      (the authors': 32), whose outputs depend on the batch; other models are evaluated in the engine's default
      batches, which give them the same predictions faster;
    - ``inert_lr_decay``: the authors' per-round learning-rate decay never takes effect (a StepLR built per client
      per round and stepped after training), so every round trains at ``lr``; else round r uses ``lr * gamma**r``.
    """

    double_softmax: bool
    absent_class_fill: float
    bn_running_stats: bool
    eval_batch_size: int
    inert_lr_decay: bool


FIDELITY = {
    "faithful": Fidelity(True, 0.0, False, 32, True),
    "corrected": Fidelity(False, float("-inf"), True, 1024, False),
}


@dataclass
class Task:
    """One task: its model, the clients' local data for it, its test set, its local-training settings, the quirks it
    reproduces and its per-round learning-rate decay ``lr_decay`` (gamma; 1 = none)."""

    name: str
    model: nn.Module
    clients: list[ClientData]
    x_test: torch.Tensor
    y_test: torch.Tensor
    settings: TrainSettings
    fidelity: Fidelity = FIDELITY["corrected"]
    lr_decay: float = 1.0

    def round_settings(self, round_index: int) -> TrainSettings:
        """The local-training settings of round ``round_index`` (0-based): ``settings`` at the round's learning rate."""
        lr = decayed_lr(self.settings.lr, self.lr_decay, round_index, inert=self.fidelity.inert_lr_decay)
        return self.settings if lr == self.settings.lr else dataclasses.replace(self.settings, lr=lr)


def build_task(
    name: str,
    dataset: ArrayDataset,
    partition: Partition,
    *,
    model: str,
    settings: TrainSettings,
    fidelity: Fidelity = FIDELITY["corrected"],
    test_indices: np.ndarray | None = None,
    init_seed: int = 0,
    mask_absent: bool = False,
    lr_decay: float = 1.0,
    device: torch.device | str = "cpu",
) -> Task:
    """A task from a dataset and a client partition: each client's data with the mask of the classes it holds, the
    test samples ``test_indices`` (default: the whole test split), and architecture ``model`` (one of
    :data:`fairshare.learning.models.MODELS`) with ``fidelity``'s quirks (default: none, ``FIDELITY["corrected"]``)
    initialised from ``torch.manual_seed(init_seed)``. ``mask_absent``: set the outputs of the classes a client lacks to
    ``fidelity.absent_class_fill`` before the loss (the authors do so in their non-iid experiments)."""
    test_indices = np.arange(len(dataset.y_test)) if test_indices is None else test_indices
    xt, yt = to_tensors(dataset.x_test[test_indices], dataset.y_test[test_indices], device)
    clients = []
    for ix, counts in zip(partition.client_indices, partition.counts):
        # only the clients' samples are converted (elementwise, so the same values as converting the whole split)
        x, y = to_tensors(dataset.x_train[np.asarray(ix)], dataset.y_train[np.asarray(ix)], device)
        clients.append(ClientData(x, y, torch.as_tensor(counts > 0, device=device)))
    settings = dataclasses.replace(settings, absent_class_fill=fidelity.absent_class_fill if mask_absent else None)
    torch.manual_seed(init_seed)
    net = build_model(
        model,
        dataset.input_shape,
        dataset.n_classes,
        faithful=fidelity.double_softmax,
        track_running_stats=fidelity.bn_running_stats,
    )
    return Task(name, net.to(device), clients, xt, yt, settings, fidelity, lr_decay)


def batch_statistics(model: nn.Module) -> bool:
    """Whether ``model`` normalises with each batch's own statistics at evaluation too (batch norm without running
    statistics), so that its test accuracy depends on the evaluation batch size."""
    return any(isinstance(m, nn.modules.batchnorm._BatchNorm) and not m.track_running_stats for m in model.modules())


def allocation_probabilities(accuracies: Sequence[float], alpha: float) -> np.ndarray:
    """FedFairMMFL's Eq. (5): p_s proportional to (100 (1 - acc_s))^(alpha - 1)."""
    f = 100.0 * (1.0 - np.asarray(accuracies, float)) + ERROR_FLOOR
    logw = (alpha - 1.0) * np.log(f)
    w = np.exp(logw - logw.max())
    return w / w.sum()


def allocate(
    policy: str,
    active: np.ndarray,
    n_clients: int,
    n_tasks: int,
    round_index: int,
    accuracies: Sequence[float] | None,
    alpha: float,
    rng: np.random.Generator,
    eligible: np.ndarray | None = None,
) -> np.ndarray:
    """Task index of each active client this round.

    ``eligible`` (active clients x tasks, boolean) restricts each client to the tasks it was recruited for (auction
    experiments); probabilities are renormalised over a client's eligible tasks.
    """
    if policy == "round_robin":
        start = (np.arange(n_clients) * n_tasks) // n_clients
        return (start[active] + round_index) % n_tasks
    fair = policy == "fedfair" and accuracies is not None
    probs = allocation_probabilities(accuracies, alpha) if fair else np.full(n_tasks, 1 / n_tasks)
    if eligible is None:
        return rng.choice(n_tasks, size=len(active), p=probs) if fair else rng.integers(0, n_tasks, size=len(active))
    weights = eligible * probs[None, :]
    weights = weights / weights.sum(axis=1, keepdims=True)
    return np.array([rng.choice(n_tasks, p=w) for w in weights])


def qffl_update(
    global_state: dict[str, torch.Tensor],
    client_states: Sequence[dict[str, torch.Tensor]],
    loss: float,
    q: float,
    lipschitz: float,
) -> dict[str, torch.Tensor]:
    """q-FedAvg step for one task (Li et al.): w - sum_k f^q L (w - w_k) / sum_k (q f^(q-1) ||L (w - w_k)||^2 + L f^q)."""
    keys = [k for k in global_state if global_state[k].is_floating_point()]
    deltas = [{k: lipschitz * (global_state[k] - s[k]) for k in keys} for s in client_states]
    f = max(loss, 1e-10)
    num = {k: sum(f**q * d[k] for d in deltas) for k in keys}
    den = sum(q * f ** (q - 1) * sum(float((d[k] ** 2).sum()) for k in keys) + lipschitz * f**q for d in deltas)
    out = dict(global_state)
    out.update({k: global_state[k] - num[k] / den for k in keys})
    return out


def tasks_fingerprint(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """What a run's result depends on in its tasks (for the settings hash): name, initial weights, every client's
    data and class mask, test set, local-training settings, quirks and learning-rate decay."""
    return [
        {
            "name": t.name,
            "initial": t.model.state_dict(),
            "clients": [(c.x, c.y, c.class_mask) for c in t.clients],
            "test": (t.x_test, t.y_test),
            "settings": t.settings,
            "fidelity": t.fidelity,
            "lr_decay": t.lr_decay,
        }
        for t in tasks
    ]


def seeded_generators(seed: int) -> tuple[SamplingRng, OrderRng, str]:
    """The default generator factories and settings hash of :func:`run_mmfl` for ``seed``: round r's sampling
    generator is the ``sampling`` stream of ``seed`` keyed by r, client c's data order for task s in round r the
    ``data_order`` stream keyed by (r, s, c) (:mod:`fairshare.seeding`)."""
    return (
        lambda r: seeding.generator(seed, "sampling", r),
        lambda r, s, c: seeding.generator(seed, "data_order", r, s, c),
        settings_hash("run_mmfl", seed),
    )


def run_mmfl(
    tasks: Sequence[Task],
    *,
    rounds: int,
    policy: str = "fedfair",
    seed: int = 0,
    n_clients: int | None = None,
    active_rate: float = 1.0,
    alpha: float = 3.0,
    weighted_aggregation: bool = True,
    executor: str = "auto",
    sampling_rng: SamplingRng | None = None,
    order_rng: OrderRng | None = None,
    settings: str | None = None,
    checkpoint: str | Path | None = None,
    lipschitz: float = 1.0,
    progress: bool = True,
    eligibility: np.ndarray | None = None,
    chunk: int | None = None,
    label: str | None = None,
    on_round: Callable[[int], None] | None = None,
) -> tuple[list[dict], np.ndarray]:
    """Run the concurrent training; return per-round rows (round, task, task_name, accuracy, loss, clients) and the
    allocation map.

    The simple call is ``run_mmfl(tasks, rounds=20, policy="fedfair", seed=0)``: every client (``n_clients``
    defaults to the first task's client count) is active every round (``active_rate`` 1), ``alpha`` = 3 (the paper's
    value for FedFairMMFL), aggregation weighted by client data size, and the randomness comes from ``seed``
    (:func:`seeded_generators`). The pipeline passes its own generators instead:
    ``sampling_rng(round)`` draws active clients and allocations; ``order_rng(round, task, client)`` orders data;
    ``settings`` is the caller's :func:`~fairshare.learning.rounds.settings_hash` of what this function cannot see
    (the seed behind the two generator factories, the config they come from). Pass all three or none (then ``seed``
    is ignored). The checkpoint's hash adds every argument here and the tasks' data and initial weights, so a
    checkpoint of any other run is discarded.
    The allocation map has shape (clients, rounds) with the task index each client trained (-1 when inactive).
    ``eligibility`` (clients x tasks, in [0, 1]) is the chance that a client may train a task in a round (1 for a
    recruited client, its fraction for a fractionally recruited one, 0 otherwise); clients with no eligible task sit
    the round out. Without it every client may train every task.
    ``chunk`` (at most this many clients stacked at once; memory) goes to the engine's
    :func:`~fairshare.learning.engine.local_train` and does not change results. Each task trains and is evaluated at
    its settings' ``precision``. ``label`` names the run in progress output (default: the policy). ``on_round``
    goes to :func:`~fairshare.learning.rounds.run_rounds` (called after each round; it changes nothing).
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy '{policy}'; choose one of {', '.join(POLICIES)}")
    given = [x is not None for x in (sampling_rng, order_rng, settings)]
    if any(given) and not all(given):
        raise ValueError("pass sampling_rng, order_rng and settings together, or none of them (seed derives all three)")
    if not any(given):
        sampling_rng, order_rng, settings = seeded_generators(seed)
    n_clients = len(tasks[0].clients) if n_clients is None else n_clients
    if not 0 < active_rate <= 1:
        raise ValueError(f"active_rate must be in (0, 1], got {active_rate}")
    n_tasks = len(tasks)
    m = max(1, int(active_rate * n_clients))

    def test(task: Task, params: dict[str, torch.Tensor]) -> tuple[float, float]:
        batch = {"batch_size": task.fidelity.eval_batch_size} if batch_statistics(task.model) else {}
        return evaluate(task.model, params, task.x_test, task.y_test, precision=task.settings.precision, **batch)

    def step(r: int, state: dict[str, Any]) -> tuple[dict[str, Any], list[dict], int]:
        accuracies, losses = state["accuracies"], state["losses"]
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
        globals_ = list(state["globals"])
        new_acc, new_loss, rows, samples = [], [], [], 0
        for s, task in enumerate(tasks):
            chosen = active[assigned == s]
            if len(chosen):
                data = [task.clients[c] for c in chosen]
                generators = [order_rng(r, s, int(c)) for c in chosen]
                states = local_train(
                    task.model,
                    globals_[s],
                    data,
                    task.round_settings(r),
                    executor=executor,
                    generators=generators,
                    chunk=chunk,
                )
                sizes = [len(d) for d in data]
                samples += sum(sizes) * task.settings.epochs
                if policy == "qffl":
                    last_loss = losses[s] if np.isfinite(losses[s]) else 1.0
                    globals_[s] = qffl_update(globals_[s], states, last_loss, max(alpha - 1, 0.0), lipschitz)
                elif weighted_aggregation:
                    globals_[s] = weighted_average(states, sizes)
                else:
                    globals_[s] = uniform_average(states)
                acc, loss = test(task, globals_[s])
            elif accuracies is not None:  # no client trained this task: the global model and its accuracy carry over
                acc, loss = accuracies[s], losses[s]
            else:
                acc, loss = test(task, globals_[s])
            new_acc.append(acc)
            new_loss.append(loss)
            rows.append(
                {
                    "task": s,
                    "task_name": task.name,
                    "accuracy": acc,
                    "loss": loss,
                    "clients": int(len(chosen)),
                    MEMBERS: chosen.tolist(),
                }
            )
        state = {"globals": globals_, "accuracies": new_acc, "losses": new_loss}
        return state, rows, samples

    initial = {
        "globals": [{k: v.detach().clone() for k, v in t.model.state_dict().items()} for t in tasks],
        "accuracies": None,
        "losses": [float("nan")] * n_tasks,
    }
    digest = settings_hash(
        settings,
        tasks_fingerprint(tasks),
        {"n_clients": n_clients, "active_rate": active_rate, "policy": policy, "alpha": alpha},
        {"weighted_aggregation": weighted_aggregation, "executor": executor, "lipschitz": lipschitz},
        eligibility,
    )
    _, rows = run_rounds(
        step,
        initial,
        rounds,
        settings=digest,
        checkpoint=checkpoint,
        desc=label or policy,
        progress=progress,
        on_round=on_round,
    )
    mark_collapsed(rows, tasks)
    return rows, allocation_map(rows, n_clients, rounds)


def mark_collapsed(rows: list[dict], tasks: Sequence[Task]) -> None:
    """Add ``collapsed`` to every row: whether its task's curve collapsed (:func:`fairshare.metrics.collapsed`, chance
    being the majority-class share of the task's test samples)."""
    for s, task in enumerate(tasks):
        mine = sorted((r for r in rows if r["task"] == s), key=lambda r: r["round"])
        chance = float(torch.bincount(task.y_test).max()) / max(len(task.y_test), 1)
        flag = collapsed([r["accuracy"] for r in mine], [r["loss"] for r in mine], chance)
        for r in mine:
            r["collapsed"] = flag


def allocation_map(rows: list[dict], n_clients: int, rounds: int) -> np.ndarray:
    """The (clients, rounds) map of the task each client trained (-1 when inactive), from the rows' member lists.

    The lists are removed from the rows: the map is their only output. Each round's members travel in its rows
    rather than in the training state, so a checkpoint does not grow with the number of rounds.
    """
    alloc = np.full((n_clients, rounds), -1, dtype=np.int64)
    for row in rows:
        alloc[row.pop(MEMBERS), row["round"] - 1] = row["task"]
    return alloc
