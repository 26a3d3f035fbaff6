"""CPU kernels of the engine: channels-last pooling gives the plain kernel's bits; bf16's channels-last weights are
put back."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from fairshare.learning.kernels import cpu_kernels
from fairshare.learning.models import build_model

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CONV = torch.nn.Conv2d(1, 1, 1)  # a model with a 2-D convolution


def _bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit-for-bit equality (NaN included)."""
    return torch.equal(a.contiguous().view(torch.int32), b.contiguous().view(torch.int32))


def _pooled(x: torch.Tensor, grad: torch.Tensor, **options) -> tuple[torch.Tensor, torch.Tensor]:
    x = x.clone().requires_grad_(True)
    out = F.max_pool2d(x, **options)
    (gx,) = torch.autograd.grad(out, x, grad)
    return out.detach(), gx


@pytest.mark.parametrize(
    "options",
    [
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 2, "padding": 1},  # overlapping windows: gradients accumulate
        {"kernel_size": (2, 3), "stride": (2, 1), "ceil_mode": True},
    ],
)
def test_channels_last_pooling_is_the_plain_kernel_bit_for_bit(options):
    """Values and gradients equal torch's NCHW kernel, with ties (constant patches, as an image's background gives)."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 6, 17, 18, generator=g)
    x[:, :, :5, :6] = 0.25  # ties in every window there: the first maximum must take the gradient
    x[0, 0, 6, 6] = float("nan")
    reference = F.max_pool2d(x, **options)
    grad = torch.randn(reference.shape, generator=g)
    plain_out, plain_grad = _pooled(x, grad, **options)
    with cpu_kernels(CONV, x, "fp32"):
        out, gx = _pooled(x, grad, **options)
        no_grad = F.max_pool2d(x, **options)
    assert out.is_contiguous() and gx.is_contiguous()
    assert _bits(out, plain_out) and _bits(no_grad, plain_out)
    assert _bits(gx, plain_grad)


def test_pooling_with_indices_is_left_to_torch():
    x = torch.randn(2, 3, 16, 16)
    with cpu_kernels(CONV, x, "fp32"):
        out, indices = F.max_pool2d(x, 2, return_indices=True)
    expected, expected_indices = F.max_pool2d(x, 2, return_indices=True)
    assert torch.equal(out, expected) and torch.equal(indices, expected_indices)


def test_bf16_runs_convolutions_channels_last_and_restores_the_layout():
    model = build_model("mnist_cnn", (1, 16, 16), 10)
    x = torch.randn(2, 1, 16, 16)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with cpu_kernels(model, x, "bf16"):
        assert model.conv2.weight.is_contiguous(memory_format=torch.channels_last)
        assert not model.conv2.weight.is_contiguous()
    assert all(p.is_contiguous() for p in model.parameters())
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())
    with cpu_kernels(model, x, "fp32"):  # fp32 keeps the NCHW convolutions
        assert model.conv2.weight.is_contiguous()


def test_the_pooling_path_is_taken_for_images_of_16x16_or_more_only():
    for size, routed in ((16, True), (8, False)):
        x = torch.randn(2, 4, size, size, requires_grad=True)
        with cpu_kernels(CONV, x, "fp32"):
            out = F.max_pool2d(x, 2)
        assert (type(out.grad_fn).__name__ == "_ChannelsLastMaxPool2dBackward") == routed
