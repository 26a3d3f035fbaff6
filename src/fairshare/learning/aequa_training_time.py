"""Aequa's training-time rewards (Sec. 4.3, App. C, Algorithm 2; the algorithm image was lost; docs/aequa.md).

Every round client i receives the width-p_i sub-network of the global model and trains it (width p_i plus one
width sampled from [p_min, p_i] per minibatch, as in Algorithm 1). The server then

1. scores every client on its update restricted to the minimum-width slice, which every client trains
   (``ca="cgsv"``: cosine between the client's slice update and the data-size weighted sum of all slice updates;
   ``ca="shapfed"``: the same cosine over the last ``last_k`` layers only, the paper's ShapFed modification);
2. updates contributions with momentum, c_i <- beta c_i + (1 - beta) psi_i (eq. 4; psi clipped to
   [``min_score``, 1]; c^0 = 1 so everybody starts with the full model);
3. maps contributions to widths, p_i = clip(c_i / max_j c_j, p_min, 1) (eq. 5, reconstructed: "the normalized
   contributions", the top contributor gets the full model);
4. averages the client models coordinate-wise over the clients whose sub-network holds the coordinate (masked
   averaging).

The reward of client i is the width-p_i sub-network of the final global model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import nn

from fairshare.learning.aequa import aequa_local_train, bn_keys_by_width
from fairshare.learning.aggregation import masked_average
from fairshare.learning.engine import ClientData, TrainSettings
from fairshare.learning.rounds import RoundStep
from fairshare.learning.slimmable import SlimmableConv2d, SlimmableLinear, SlimmableLSTM, set_width, width_masks

__all__ = [
    "CA_METHODS",
    "State",
    "last_layer_keys",
    "slice_scores",
    "widths_from_contributions",
    "training_time_start",
    "training_time_step",
]

CA_METHODS = ("cgsv", "shapfed")
State = dict[str, torch.Tensor]


def last_layer_keys(model: nn.Module, k: int) -> list[str]:
    """Parameter names of the last ``k`` weight layers (linear, convolution, LSTM) in module order."""
    if k < 1:
        raise ValueError(f"last_k must be >= 1, got {k}")
    layers = [
        (name, m)
        for name, m in model.named_modules()
        if isinstance(m, (nn.Linear, nn.Conv2d, SlimmableLSTM, SlimmableLinear, SlimmableConv2d))
    ]
    keys = []
    for name, m in layers[-k:]:
        keys += [f"{name}.{p}" if name else p for p, _ in m.named_parameters(recurse=False)]
    return keys


def slice_scores(updates: Sequence[torch.Tensor], weights: Sequence[float]) -> np.ndarray:
    """psi_i = cos(u_i, sum_j w_j u_j) for flattened updates u (CGSV's score; 0 for a zero update)."""
    stacked = torch.stack([u.double() for u in updates])
    w = torch.as_tensor(np.asarray(weights, float), dtype=torch.float64, device=stacked.device)
    total = (w[:, None] * stacked).sum(0)
    return torch.nn.functional.cosine_similarity(stacked, total[None, :], dim=1).nan_to_num(0.0).cpu().numpy()


def widths_from_contributions(
    c: Sequence[float], p_min: float, p_max: float = 1.0, grid: Sequence[float] | None = None
) -> np.ndarray:
    """Eq. 5 (reconstructed): p_i = clip(c_i / max c, p_min, p_max); with a discrete ``grid``, the largest grid width <= p_i."""
    c = np.asarray(c, float)
    top = c.max()
    p = np.full_like(c, p_max) if top <= 0 else np.clip(p_max * c / top, p_min, p_max)
    if grid is not None:
        g = np.sort(np.asarray(grid, float))
        p = np.array([g[g <= x + 1e-12].max() if np.any(g <= x + 1e-12) else g[0] for x in p])
    return p


def training_time_start(init: State, n_clients: int, p_min: float, grid: Sequence[float] | None = None) -> dict:
    """Algorithm 2's initial state: the global model, c^0 = 1 for every client (so everybody starts with the full
    model) and no scores yet. Only the latest round's values: a checkpoint of it does not grow with the run."""
    contributions = np.ones(n_clients)
    return {
        "model": {k: v.clone() for k, v in init.items()},
        "contributions": contributions,
        "widths": widths_from_contributions(contributions, p_min, 1.0, grid),
        "scores": None,
    }


def training_time_step(
    model: nn.Module,
    clients: Sequence[ClientData],
    settings: TrainSettings,
    *,
    order_rng: Callable[[int, int], np.random.Generator],
    width_rng: Callable[[int, int], np.random.Generator],
    p_min: float,
    ca: str = "cgsv",
    beta: float = 0.9,
    last_k: int = 2,
    min_score: float = 1e-3,
    grid: Sequence[float] | None = None,
    subwidth_mode: str = "full_plus_random",
    lr_at: Callable[[int], float] | None = None,
    weighted: bool = True,
    width_loss: str = "sum",
    executor: str = "sequential",
) -> RoundStep:
    """One round of Algorithm 2 (reconstructed) on :func:`training_time_start`'s state: every client trains its
    width-p_i sub-network, the server scores the min-width slice updates, updates contributions (eq. 4) and widths
    (eq. 5) and averages the sub-networks (masked)."""
    if ca not in CA_METHODS:
        raise ValueError(f"ca must be one of {CA_METHODS}, got {ca!r}")
    weights = np.array([max(len(c), 1) if weighted else 1 for c in clients], float)
    param_keys = [k for k, _ in model.named_parameters()]
    scored = set(param_keys if ca == "cgsv" else last_layer_keys(model, last_k))
    min_mask = width_masks(model, p_min)
    bn = bn_keys_by_width(model)

    def step(r: int, run: dict) -> tuple[dict, dict, int]:
        s = settings if lr_at is None else dataclasses.replace(settings, lr=lr_at(r))
        state, widths = run["model"], run["widths"]
        states, masks, updates = [], [], []
        for i, client in enumerate(clients):
            p_i = float(widths[i])
            sub_grid = None if grid is None else [g for g in grid if g <= p_i + 1e-12]
            (new,), (trained,) = aequa_local_train(
                model,
                state,
                [client],
                s,
                generators=[order_rng(r, i)],
                width_generators=[width_rng(r, i)],
                p_min=p_min,
                p_max=p_i,
                grid=sub_grid,
                subwidth_mode=subwidth_mode,
                width_loss=width_loss,
                executor=executor,
            )
            held = width_masks(model, p_i)
            masks.append(
                {
                    k: (torch.full_like(v, float(weights[i])) if bn[k] in trained else torch.zeros_like(v))
                    if k in bn
                    else held[k] * float(weights[i])
                    for k, v in held.items()
                }
            )
            states.append(new)
            updates.append(
                torch.cat([((new[k] - state[k]) * min_mask[k]).flatten() for k in param_keys if k in scored])
            )
        scores = np.clip(slice_scores(updates, weights), min_score, 1.0)
        contributions = beta * run["contributions"] + (1 - beta) * scores
        widths = widths_from_contributions(contributions, p_min, 1.0, grid)
        set_width(model, 1.0)
        run = {
            "model": masked_average(states, masks, state),
            "contributions": contributions,
            "widths": widths,
            "scores": scores,
        }
        return run, {}, s.epochs * sum(len(c) for c in clients)

    return step
