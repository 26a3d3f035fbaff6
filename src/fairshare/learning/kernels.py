"""CPU kernel choices of the training engine: faster kernels that give the same bits in fp32, and the layout of bf16.

- Max pooling (fp32): torch's CPU max-pooling kernel for NCHW tensors is scalar; on the multi-model FL CNN at batch
  32 the first pooling takes about 4 ms where the convolution before it takes 0.3 ms (docs/engine.md). The
  channels-last kernel is vectorised over channels. :func:`cpu_kernels` sends every ``F.max_pool2d`` of a contiguous
  NCHW CPU tensor through it: same maxima, same argmax (the first maximum in window order, ties included), and the
  backward is torch's own NCHW kernel on those indices, so values and gradients are bit for bit those of the plain
  call. Intercepting torch calls costs a few microseconds each, so this is for images large enough to pay for it.
- Channels-last weights (bf16 only, opt-in precision): oneDNN's bfloat16 convolutions, and the pooling after them,
  run much faster on channels-last tensors on this CPU. The model's 4-D weights are converted for the block and
  converted back after it; fp32 keeps the NCHW convolutions, whose results channels-last would change in the last
  bits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd.function import once_differentiable
from torch.nn.modules.utils import _pair
from torch.overrides import TorchFunctionMode

__all__ = ["MIN_PIXELS", "cpu_images", "cpu_kernels", "max_pool2"]


class _ChannelsLastMaxPool2d(torch.autograd.Function):
    """Max pooling of an NCHW tensor by the channels-last kernel, returned NCHW, with torch's NCHW backward."""

    @staticmethod
    def forward(ctx, x, kernel_size, stride, padding, dilation, ceil_mode):
        out, indices = torch.ops.aten.max_pool2d_with_indices(
            x.contiguous(memory_format=torch.channels_last), kernel_size, stride, padding, dilation, ceil_mode
        )
        indices = indices.contiguous()
        ctx.save_for_backward(x, indices)
        ctx.args = (kernel_size, stride, padding, dilation, ceil_mode)
        return out.contiguous()

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        x, indices = ctx.saved_tensors
        grad_x = torch.ops.aten.max_pool2d_with_indices_backward(grad_out.contiguous(), x, *ctx.args, indices)
        return grad_x, None, None, None, None, None


def _max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """``F.max_pool2d``'s signature and result, computed by :class:`_ChannelsLastMaxPool2d`."""
    stride = kernel_size if stride is None or (isinstance(stride, (list, tuple)) and not stride) else stride
    args = (list(_pair(kernel_size)), list(_pair(stride)), list(_pair(padding)), list(_pair(dilation)), ceil_mode)
    if torch.is_grad_enabled() and x.requires_grad:
        return _ChannelsLastMaxPool2d.apply(x, *args)
    return torch.ops.aten.max_pool2d_with_indices(x.contiguous(memory_format=torch.channels_last), *args)[
        0
    ].contiguous()


def max_pool2(x: torch.Tensor) -> torch.Tensor:
    """``F.max_pool2d(x, 2)``, bit for bit, called by a model's forward: a contiguous NCHW CPU float tensor goes
    through the channels-last kernel directly (no interception, so it pays on 8x8 maps too: 0.14 against 0.52 ms for
    the digits CNN's 32x32x8x8 activations, docs/engine.md); anything else, and any tensor under ``torch.func``
    transforms (vmap, grad), through ``F.max_pool2d``."""
    if (
        x.device.type == "cpu"
        and x.dim() == 4
        and x.is_floating_point()
        and x.is_contiguous()
        and not torch._C._functorch.is_functorch_wrapped_tensor(x)
    ):
        return _max_pool2d(x, 2)
    return F.max_pool2d(x, 2)


class _ChannelsLastPooling(TorchFunctionMode):
    """Sends ``F.max_pool2d`` of contiguous 4-D CPU float tensors (no ``return_indices``) to :func:`_max_pool2d`."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is F.max_pool2d and not kwargs.get("return_indices", len(args) > 6 and args[6]):
            x = args[0] if args else kwargs.get("input")
            if isinstance(x, torch.Tensor) and x.device.type == "cpu" and x.dim() == 4 and x.is_floating_point():
                if x.is_contiguous():
                    return _max_pool2d(*args, **kwargs)
        return func(*args, **kwargs)


@contextmanager
def _channels_last_weights(model: nn.Module) -> Iterator[None]:
    model.to(memory_format=torch.channels_last)
    try:
        yield
    finally:
        model.to(memory_format=torch.contiguous_format)


MIN_PIXELS = 16 * 16  # measured (docs/engine.md): these kernels pay on 28x28 images and cost on 8x8 ones


def cpu_images(x: torch.Tensor) -> bool:
    """Whether ``x`` is a batch of images (N, C, H, W) on CPU with at least ``MIN_PIXELS`` pixels each: the inputs
    this module's kernels, and the engine's chunked evaluation, are for."""
    return x.device.type == "cpu" and x.dim() == 4 and x.shape[-2] * x.shape[-1] >= MIN_PIXELS


@contextmanager
def cpu_kernels(model: nn.Module, x: torch.Tensor, precision: str) -> Iterator[None]:
    """The block runs ``model`` on inputs like ``x`` with this module's CPU kernels where :func:`cpu_images` holds and
    the model has 2-D convolutions: channels-last pooling in fp32, channels-last weights in bf16 (after which the
    pooling is channels-last already). Elsewhere the block runs unchanged (models without convolutions pool nothing,
    and intercepting their every torch call cost 10-20 % of a Fashion-MNIST MLP job). Not for use under ``vmap``."""
    if not cpu_images(x) or not any(p.dim() == 4 for p in model.parameters()):
        yield  # no 2-D convolution, no pooling to reroute (e.g. an MLP on images): no per-call interception cost
    elif precision == "bf16":
        with _channels_last_weights(model):
            yield
    else:
        with _ChannelsLastPooling():
            yield
