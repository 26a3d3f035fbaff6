"""Coalition valuation v(C): one model per coalition, trained from one fixed initialisation on the coalition's data.

The payoff paper's authors' setup (the paper's Sec. 5, details from their code; docs/payoff_flows.md): an MLP input -> 64 -> 64 -> classes with ReLU,
inputs scaled to [0, 1], Adam (lr 1e-3), cross-entropy on logits, batch 64, a fixed number of epochs, the same
initial weights for every coalition; v(C) = nu * test accuracy of the final model (no model selection).
Coalition data is the concatenation of the members' index lists (overlaps duplicated, as in the authors' code) or
their union (the paper's D_C = union of D_i).

Each epoch is one round of ``learning.rounds.run_rounds``: given a checkpoint path, a killed job resumes at its last
finished epoch and ends bit-identical to an uninterrupted run on CPU.

Plain torch on purpose: each coalition is its own short Snakemake job, so start-up cost matters. ``Adam`` below is
torch.optim.Adam's update written out, because constructing any ``torch.optim`` optimiser imports ``torch._dynamo``:
measured on the 2-core machine (torch 2.14), ``python -c`` building an MLP takes 3.0-3.6 s, and 7.2-7.6 s when it
also constructs ``torch.optim.Adam``, more than a small coalition's whole training.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from fairshare.learning.rounds import run_rounds

__all__ = ["EVAL_BATCH", "mlp", "initial_model", "coalition_indices", "Adam", "train_and_score", "accuracy"]

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
    with torch.random.fork_rng(devices=[]), torch.device("cpu"):
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

    def __init__(
        self,
        params: Iterable[torch.Tensor],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params = list(params)
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    def state_dict(self) -> dict[str, Any]:
        """Step count and moment estimates (copies), for a checkpoint."""
        return {"t": self.t, "m": [m.clone() for m in self.m], "v": [v.clone() for v in self.v]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned."""
        self.t = int(state["t"])
        for mine, saved in zip(self.m + self.v, list(state["m"]) + list(state["v"])):
            mine.copy_(saved)

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        step_size = self.lr / (1 - self.beta1**self.t)
        root_c2 = (1 - self.beta2**self.t) ** 0.5
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


def train_and_score(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    indices: np.ndarray,
    *,
    n_classes: int,
    epochs: int,
    batch_size: int,
    lr: float,
    init_seed: int,
    order_rng: np.random.Generator,
    hidden: Sequence[int] = (64, 64),
    device: str = "cpu",
    checkpoint: str | Path | None = None,
    settings: str = "",
    progress: bool = False,
    label: str = "epochs",
) -> float:
    """Train the MLP from the initialisation fixed by ``init_seed`` on rows ``indices``; return its test accuracy.

    Each epoch visits the rows in a fresh order drawn from ``order_rng`` (the authors shuffle too), in mini-batches
    of ``batch_size`` (the last one smaller). Epochs are rounds of ``run_rounds``: with ``checkpoint``, the model,
    Adam's moments and ``order_rng``'s state are saved after every epoch under ``settings`` (a
    ``rounds.settings_hash`` of everything the result depends on), and a rerun resumes from them. ``label`` names the
    run in progress output.
    """
    x = _features(x_train[indices]).to(device)
    y = torch.as_tensor(y_train[indices], dtype=torch.long, device=device)
    model = initial_model(x.shape[1], n_classes, hidden, init_seed).to(device)
    opt = Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()

    def snapshot() -> dict[str, Any]:
        weights = {k: t.detach().clone() for k, t in model.state_dict().items()}
        return {"model": weights, "adam": opt.state_dict(), "order_rng": order_rng.bit_generator.state}

    def epoch(_: int, state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], int]:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["adam"])
        order_rng.bit_generator.state = state["order_rng"]
        model.train()
        order = torch.as_tensor(order_rng.permutation(len(y)), device=device)
        total = torch.zeros((), device=device)
        for batch in torch.split(order, batch_size):
            opt.zero_grad()
            loss = loss_fn(model(_scale(x[batch])), y[batch])
            loss.backward()
            opt.step()
            total += loss.detach() * len(batch)
        return snapshot(), {"train_loss": float(total) / len(y)}, len(y)

    final, _ = run_rounds(
        epoch, snapshot(), epochs, settings=settings, checkpoint=checkpoint, desc=label, progress=progress
    )
    model.load_state_dict(final["model"])
    order_rng.bit_generator.state = final["order_rng"]
    return accuracy(model, x_test, y_test, device)


@torch.no_grad()
def accuracy(model: nn.Module, x: np.ndarray, y: np.ndarray, device: str = "cpu") -> float:
    """Share of rows of ``x`` whose arg-max logit equals the label."""
    model.eval()
    features = _features(x)
    predictions = torch.cat(
        [model(_scale(chunk.to(device))).argmax(dim=1).cpu() for chunk in torch.split(features, EVAL_BATCH)]
    )
    return float((predictions.numpy() == np.asarray(y)).mean())
