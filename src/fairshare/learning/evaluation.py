"""Evaluation of a model's parameters: accuracy and loss, predicted labels, balanced accuracy, and the tensors they
read. Runs in inference mode at the model's current width (slimmable models); on CPU images, with the engine's CPU
kernels and ``EVAL_CHUNK`` samples per forward pass where no batch statistics couple the samples (docs/engine.md)."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from fairshare.learning.cohort import State, autocast
from fairshare.learning.engine import _precision
from fairshare.learning.kernels import cpu_images, cpu_kernels

__all__ = ["EVAL_CHUNK", "evaluate", "predict", "balanced_accuracy_of", "to_tensors"]

EVAL_CHUNK = 128  # samples per forward pass in evaluate/predict of CPU images: faster than 1,024 here (docs/engine.md)


def _batch_coupled(model: nn.Module) -> bool:
    """Whether a sample's eval-mode output depends on the other samples of its batch (batch norm without running
    statistics normalises with the batch's own statistics)."""
    return any(isinstance(m, nn.modules.batchnorm._BatchNorm) and m.running_mean is None for m in model.modules())


def _forward(model: nn.Module, x: torch.Tensor, precision: str) -> torch.Tensor:
    """``model(x)`` as float32 outputs, ``EVAL_CHUNK`` samples at a time for CPU images (where it pays, measured)
    unless the model couples the samples of a batch (each sample's output is the same bits either way: tested)."""
    chunk = EVAL_CHUNK if cpu_images(x) and not _batch_coupled(model) else len(x)
    with autocast(x.device, precision):
        return torch.cat([model(x[s : s + chunk]).float() for s in range(0, len(x), chunk)])


def evaluate(
    model: nn.Module,
    params: State,
    x: torch.Tensor,
    y: torch.Tensor,
    batch_size: int = 1024,
    amp: bool = False,
    precision: str = "fp32",
) -> tuple[float, float]:
    """(accuracy, mean cross-entropy) of ``params`` on (x, y), in eval mode at the model's current width.

    The loss is summed per batch of ``batch_size``. Batch norm without running statistics normalises with each
    evaluation batch's statistics, so the result depends on ``batch_size`` (the multi-model FL authors evaluate with
    batches of 32). ``precision``: as :class:`TrainSettings`'s (``amp``: bf16 on CUDA only, as in :func:`local_train`).
    """
    precision = _precision(precision, amp, y.device)
    model.load_state_dict(params, strict=False)
    model.eval()
    correct, loss = 0, 0.0
    with cpu_kernels(model, x, precision), torch.inference_mode():
        for s in range(0, len(y), batch_size):
            out = _forward(model, x[s : s + batch_size], precision)
            correct += int((out.argmax(1) == y[s : s + batch_size]).sum())
            loss += float(F.cross_entropy(out, y[s : s + batch_size], reduction="sum"))
    return correct / max(1, len(y)), loss / max(1, len(y))


def predict(model: nn.Module, params: State | None, x: torch.Tensor, batch_size: int = 1024) -> np.ndarray:
    """Predicted labels of ``params`` (``None``: the model's current parameters) at the model's current width."""
    if params is not None:
        model.load_state_dict(params, strict=False)
    model.eval()
    with cpu_kernels(model, x, "fp32"), torch.inference_mode():
        labels = [_forward(model, x[s : s + batch_size], "fp32").argmax(1) for s in range(0, len(x), batch_size)]
    return torch.cat(labels).cpu().numpy()


def balanced_accuracy_of(
    model: nn.Module, params: State | None, x: torch.Tensor, y: torch.Tensor, n_classes: int
) -> float:
    """Balanced accuracy (Aequa's accuracy metric) of ``params`` on (x, y)."""
    from fairshare.metrics import balanced_accuracy

    return balanced_accuracy(y.cpu().numpy(), predict(model, params, x), n_classes)


def to_tensors(
    x: np.ndarray, y: np.ndarray, device: str | torch.device = "cpu", normalize: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """uint8 images -> float in [-1, 1] (the MMFL code's Normalize(0.5, 0.5)); float features unchanged."""
    xt = torch.as_tensor(x, device="cpu")
    if xt.dtype == torch.uint8:
        xt = xt.float() / 255.0
        if normalize:
            xt = (xt - 0.5) / 0.5
    return xt.float().to(device), torch.as_tensor(y, device="cpu").long().to(device)
