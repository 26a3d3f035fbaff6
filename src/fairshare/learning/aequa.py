"""Aequa (Tastan, Horvath, Nandakumar, ICML 2025): federated training of one slimmable network, its width-accuracy
curve, and fair post-training model rewards.

Training (Sec. 4.1, Algorithm 1, reconstructed; the algorithm image was lost): every round the server broadcasts the
full model; each client runs one local epoch where every minibatch trains the full width *and* one width sampled
uniformly from [p_min, p_max] (``subwidth_mode="full_plus_random"``, default; ``random_only``: only the sampled
width; ``sandwich``: full + p_min + sampled width, Yu & Huang 2019b without distillation). Models with (switchable)
batch norm sample from the discrete ``grid`` instead of the continuous interval (App. D.3). The server averages the
client models by data size; a width's switchable-BN copy is averaged only over the clients that trained that width
this round (others keep the global copy).

A round is :func:`aequa_step` (for ``fairshare.learning.rounds.run_rounds``, which checkpoints and resumes);
``run_rounds(aequa_step(...), init, rounds, settings="")`` runs all rounds. Local training goes through the engine (``local_train(step_widths=...)``).

After training, :func:`width_accuracy_curve` gives a(p) on a grid of widths and
``fairshare.games.aequa_allocation`` allocates one width per client (the reward model is
``slimmable.subnetwork_state(model, p)``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from fairshare.learning.aggregation import masked_average
from fairshare.learning.engine import ClientData, TrainSettings, local_train, step_count
from fairshare.learning.evaluation import balanced_accuracy_of
from fairshare.learning.rounds import RoundStep
from fairshare.learning.slimmable import SlimmableMLP, SlimmableResNet18, SwitchableBatchNorm2d, set_width

__all__ = [
    "SUBWIDTH_MODES",
    "AEQUA_MODELS",
    "State",
    "width_grid",
    "build_slimmable_model",
    "uses_batch_norm",
    "has_switchable_bn",
    "step_widths_plan",
    "aequa_local_train",
    "bn_keys_by_width",
    "aggregate",
    "aequa_step",
    "width_accuracy_curve",
]

SUBWIDTH_MODES = ("full_plus_random", "random_only", "sandwich")
AEQUA_MODELS = ("aequa_cnn1", "aequa_cnn2", "aequa_resnet18", "aequa_lstm", "aequa_mlp")
State = dict[str, torch.Tensor]


def width_grid(p_min: float, step: float, p_max: float = 1.0) -> np.ndarray:
    """Widths p_min, p_min + step, ..., p_max (p_max always included), rounded to 6 decimals."""
    if not 0 < p_min <= p_max <= 1 or step <= 0:
        raise ValueError(f"need 0 < p_min <= p_max <= 1 and step > 0 (got {p_min}, {p_max}, {step})")
    n = int(np.floor((p_max - p_min) / step + 1e-9))
    grid = np.round(p_min + step * np.arange(n + 1), 6)
    return np.unique(np.append(grid[grid <= p_max], p_max))


def build_slimmable_model(
    name: str,
    input_shape: Sequence[int],
    n_classes: int,
    *,
    bn_widths: Sequence[float] | np.ndarray | None = None,
    mlp_hidden: Sequence[int] = (128, 128),
    resnet_base: int = 64,
    vocab_size: int | None = None,
    text: Mapping[str, Any] | None = None,
) -> nn.Module:
    """One of Aequa's slimmable architectures.

    ``bn_widths``: the width bucket of the ResNet's switchable BN (a list or a numpy array, as :func:`width_grid`
    gives); ``vocab_size`` and ``text`` (``embed_dim``, ``hidden``, ``bidirectional``, ``dropout``): the SST LSTM's.
    """
    from fairshare.learning.models import build_model

    if name in ("aequa_cnn1", "aequa_cnn2"):
        return build_model(name, input_shape, n_classes)
    if name == "aequa_mlp":
        return SlimmableMLP(input_shape, n_classes, hidden=tuple(mlp_hidden))
    if name == "aequa_resnet18":
        if bn_widths is None or len(bn_widths) == 0:
            raise ValueError("aequa_resnet18 needs the discrete width bucket of its switchable batch norm")
        return SlimmableResNet18(input_shape, n_classes, widths=[float(w) for w in bn_widths], base=resnet_base)
    if name == "aequa_lstm":
        if vocab_size is None:
            raise ValueError("aequa_lstm needs the vocabulary size")
        return build_model(name, input_shape, n_classes, vocab_size=vocab_size, **dict(text or {}))
    raise ValueError(f"unknown slimmable model '{name}'; choose one of {', '.join(AEQUA_MODELS)}")


def uses_batch_norm(name: str) -> bool:
    """Models trained on a discrete width bucket (switchable batch norm)."""
    return name == "aequa_resnet18"


def has_switchable_bn(model: nn.Module) -> bool:
    return any(isinstance(m, SwitchableBatchNorm2d) for m in model.modules())


def _sample_width(rng: np.random.Generator, p_min: float, p_max: float, grid: Sequence[float] | None) -> float:
    if grid is not None:
        return float(grid[int(rng.integers(len(grid)))])
    return float(rng.uniform(p_min, p_max))


def _widths_for_step(mode: str, sampled: float, p_min: float, p_max: float) -> list[float]:
    if mode == "full_plus_random":
        return [p_max, sampled]
    if mode == "random_only":
        return [sampled]
    return [p_max, p_min, sampled]


def step_widths_plan(
    n_steps: int, width_rng: np.random.Generator, mode: str, p_min: float, p_max: float, grid: Sequence[float] | None
) -> list[list[float]]:
    """The widths trained at each of a client's ``n_steps`` minibatches: ``mode``'s widths with one width sampled per
    minibatch from [p_min, p_max] (from ``grid`` when given), drawn from ``width_rng`` in step order."""
    return [_widths_for_step(mode, _sample_width(width_rng, p_min, p_max, grid), p_min, p_max) for _ in range(n_steps)]


def aequa_local_train(
    model: nn.Module,
    global_state: State,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    *,
    generators: Sequence[np.random.Generator],
    width_generators: Sequence[np.random.Generator],
    p_min: float,
    p_max: float = 1.0,
    grid: Sequence[float] | None = None,
    subwidth_mode: str = "full_plus_random",
    width_loss: str = "sum",
    executor: str = "sequential",
) -> tuple[list[State], list[set[float]]]:
    """One local phase for every client from ``global_state``: (client states, widths each client trained).

    Per minibatch the cross-entropies of the widths in ``subwidth_mode`` are summed (``width_loss="mean"``:
    averaged) and back-propagated in one SGD step (the engine's ``step_widths``; momentum reset every call); each
    width's gradient reaches only its nested slice (and its own BN copy).
    """
    if subwidth_mode not in SUBWIDTH_MODES:
        raise ValueError(f"subwidth_mode must be one of {SUBWIDTH_MODES}, got {subwidth_mode!r}")
    if grid is None and has_switchable_bn(model):
        raise ValueError("models with switchable batch norm need a discrete width grid")
    plans = [
        step_widths_plan(step_count(len(c), settings), g, subwidth_mode, p_min, p_max, grid)
        for c, g in zip(clients, width_generators)
    ]
    states = local_train(
        model,
        global_state,
        clients,
        settings,
        generators=generators,
        executor=executor,
        step_widths=lambda i, t: plans[i][t],
        width_loss=width_loss,
    )
    set_width(model, p_max)
    return states, [set().union(*plan) for plan in plans]


def bn_keys_by_width(model: nn.Module) -> dict[str, float]:
    """state_dict key -> width, for every switchable-BN entry."""
    out = {}
    for name, m in model.named_modules():
        if isinstance(m, SwitchableBatchNorm2d):
            for j, p in enumerate(m.widths):
                for key in m.bn[j].state_dict():
                    out[f"{name}.bn.{j}.{key}"] = p
    return out


def aggregate(
    model: nn.Module, global_state: State, states: Sequence[State], used: Sequence[set[float]], weights: Sequence[float]
) -> State:
    """Weighted average of the client models; switchable-BN copies only over the clients that trained that width."""
    bn = bn_keys_by_width(model)
    masks = [
        {k: float(w) if k not in bn or bn[k] in trained else 0.0 for k in global_state}
        for w, trained in zip(weights, used)
    ]
    return masked_average(states, masks, global_state)


def aequa_step(
    model: nn.Module,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    *,
    order_rng: Callable[[int, int], np.random.Generator],
    width_rng: Callable[[int, int], np.random.Generator],
    p_min: float,
    p_max: float = 1.0,
    grid: Sequence[float] | None = None,
    subwidth_mode: str = "full_plus_random",
    lr_at: Callable[[int], float] | None = None,
    weighted: bool = True,
    width_loss: str = "sum",
    participants: Callable[[int], np.ndarray] | None = None,
    executor: str = "sequential",
) -> RoundStep:
    """One round of Algorithm 1 (reconstructed) on the global state: the joining clients (``participants(r)``,
    default all; Sec. 6.4) train from the global model, the server aggregates (a round nobody joins changes nothing)."""
    weights = [max(len(c), 1) if weighted else 1 for c in clients]

    def step(r: int, state: State) -> tuple[State, dict, int]:
        s = settings if lr_at is None else dataclasses.replace(settings, lr=lr_at(r))
        ids = np.arange(len(clients)) if participants is None else np.asarray(participants(r), int)
        if not len(ids):
            return state, {}, 0
        states, used = aequa_local_train(
            model,
            state,
            [clients[i] for i in ids],
            s,
            generators=[order_rng(r, int(i)) for i in ids],
            width_generators=[width_rng(r, int(i)) for i in ids],
            p_min=p_min,
            p_max=p_max,
            grid=grid,
            subwidth_mode=subwidth_mode,
            width_loss=width_loss,
            executor=executor,
        )
        state = aggregate(model, state, states, used, [weights[i] for i in ids])
        return state, {}, s.epochs * sum(len(clients[i]) for i in ids)

    return step


def width_accuracy_curve(
    model: nn.Module, state: State, widths: Sequence[float], x: torch.Tensor, y: torch.Tensor, n_classes: int
) -> np.ndarray:
    """a(p): balanced accuracy of the width-p sub-network of ``state`` for every p in ``widths``."""
    model.load_state_dict(state)
    out = []
    for p in widths:
        set_width(model, float(p))
        out.append(balanced_accuracy_of(model, None, x, y, n_classes))
    set_width(model, 1.0)
    return np.asarray(out)
