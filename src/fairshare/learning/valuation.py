"""Coalition valuation v(C): one model per coalition, trained from one fixed initialisation on the coalition's data.

The payoff paper's authors' setup (spec §3.1, from their code): an MLP input -> 64 -> 64 -> classes with ReLU,
inputs scaled to [0, 1], Adam (lr 1e-3), cross-entropy on logits, batch 64, a fixed number of epochs, the same
initial weights for every coalition; v(C) = nu * test accuracy of the final model (no model selection).
Coalition data is the concatenation of the members' index lists (overlaps duplicated, as in the authors' code) or
their union (the paper's D_C = union of D_i).

Plain torch on purpose: each coalition is its own short Snakemake job, so start-up cost matters. ``Adam`` below is
torch.optim.Adam's update written out, because constructing any ``torch.optim`` optimiser imports ``torch._dynamo``
(several seconds per job on a busy 2-core machine, more than a small coalition's whole training).
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import torch
from torch import nn

EVAL_BATCH = 4096


def mlp(in_features: int, n_classes: int, hidden: Sequence[int] = (64, 64)) -> nn.Sequential:
    """Flatten -> (Linear -> ReLU) per hidden width -> Linear to logits (784-64-64-10 for MNIST)."""
    layers: list[nn.Module] = [nn.Flatten()]
    width = in_features
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, n_classes))
    return nn.Sequential(*layers)


def initial_model(in_features: int, n_classes: int, hidden: Sequence[int], seed: int) -> nn.Sequential:
    """The MLP with torch's default initialisation drawn from ``seed`` alone (global RNG state left untouched),
    so every coalition's job starts from identical weights."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return mlp(in_features, n_classes, hidden)


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


class Adam:
    """torch.optim.Adam's default update (no weight decay, no amsgrad) for a fixed list of parameters."""

    def __init__(self, params: Iterable[torch.Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.params = list(params)
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        step_size = self.lr / (1 - self.beta1 ** self.t)
        root_c2 = (1 - self.beta2 ** self.t) ** 0.5
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            m.lerp_(p.grad, 1 - self.beta1)
            v.mul_(self.beta2).addcmul_(p.grad, p.grad, value=1 - self.beta2)
            p.addcdiv_(m, (v.sqrt() / root_c2).add_(self.eps), value=-step_size)


def _features(x: np.ndarray) -> torch.Tensor:
    """Flattened inputs; images stored as uint8 stay uint8 here and are scaled to [0, 1] per batch (``_scale``)."""
    return torch.from_numpy(np.ascontiguousarray(x.reshape(len(x), -1)))


def _scale(batch: torch.Tensor) -> torch.Tensor:
    return batch.float().div_(255.0) if batch.dtype == torch.uint8 else batch.float()


def train_and_score(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray,
                    indices: np.ndarray, *, n_classes: int, epochs: int, batch_size: int, lr: float, init_seed: int,
                    order_rng: np.random.Generator, hidden: Sequence[int] = (64, 64), device: str = "cpu") -> float:
    """Train the MLP from the initialisation fixed by ``init_seed`` on rows ``indices``; return its test accuracy.

    Each epoch visits the rows in a fresh order drawn from ``order_rng`` (the authors shuffle too), in mini-batches
    of ``batch_size`` (the last one smaller).
    """
    x = _features(x_train[indices]).to(device)
    y = torch.as_tensor(y_train[indices], dtype=torch.long, device=device)
    model = initial_model(x.shape[1], n_classes, hidden, init_seed).to(device)
    opt = Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        order = torch.as_tensor(order_rng.permutation(len(y)), device=device)
        for batch in torch.split(order, batch_size):
            opt.zero_grad()
            loss_fn(model(_scale(x[batch])), y[batch]).backward()
            opt.step()
    return accuracy(model, x_test, y_test, device)


@torch.no_grad()
def accuracy(model: nn.Module, x: np.ndarray, y: np.ndarray, device: str = "cpu") -> float:
    """Share of rows of ``x`` whose arg-max logit equals the label."""
    model.eval()
    features = _features(x)
    predictions = torch.cat([model(_scale(chunk.to(device))).argmax(dim=1).cpu() for chunk in torch.split(features, EVAL_BATCH)])
    return float((predictions.numpy() == np.asarray(y)).mean())
