"""Coalition valuation v(C): one model per coalition, trained from one fixed initialisation on the coalition's data.

Follows the payoff paper's authors' setup (spec §3.1): an MLP (input -> 64 -> 64 -> classes, ReLU), Adam,
cross-entropy on logits, fixed batch size and epochs, inputs scaled to [0, 1]; v(C) = nu * test accuracy of the
final model. Coalition data is the concatenation of the members' index lists (overlaps duplicated, as in the
authors' code) or, optionally, their union.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch import nn


def mlp(in_features: int, n_classes: int, hidden: Sequence[int] = (64, 64)) -> nn.Sequential:
    layers: list[nn.Module] = [nn.Flatten()]
    width = in_features
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, n_classes))
    return nn.Sequential(*layers)


def coalition_indices(party_indices: Sequence[np.ndarray], mask: int, mode: str = "concat") -> np.ndarray:
    """Training indices of coalition ``mask`` (bit k = party k): concatenated (duplicates kept) or their union."""
    members = [party_indices[k] for k in range(len(party_indices)) if mask >> k & 1]
    if not members:
        raise ValueError("the empty coalition has no data")
    if mode == "concat":
        return np.concatenate(members)
    if mode == "union":
        return np.unique(np.concatenate(members))
    raise ValueError(f"unknown coalition data mode '{mode}'; choose concat or union")


def _as_float(x: np.ndarray) -> torch.Tensor:
    t = torch.as_tensor(x)
    return t.float() / 255.0 if t.dtype == torch.uint8 else t.float()


def train_and_score(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray, indices: np.ndarray, *,
                    n_classes: int, epochs: int, batch_size: int, lr: float, init_seed: int, order_rng: np.random.Generator,
                    hidden: Sequence[int] = (64, 64), device: str = "cpu") -> float:
    """Train the MLP from the initialisation fixed by ``init_seed`` on ``indices``; return test accuracy."""
    torch.manual_seed(init_seed)  # the same initial weights for every coalition
    in_features = int(np.prod(x_train.shape[1:]))
    model = mlp(in_features, n_classes, hidden).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    x = _as_float(x_train[indices]).to(device)
    y = torch.as_tensor(y_train[indices]).long().to(device)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        order = torch.as_tensor(order_rng.permutation(len(indices)))
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            opt.zero_grad()
            loss_fn(model(x[batch]), y[batch]).backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        xt = _as_float(x_test).to(device)
        pred = torch.cat([model(xt[s:s + 4096]).argmax(1) for s in range(0, len(xt), 4096)])
    return float((pred.cpu().numpy() == y_test).mean())
