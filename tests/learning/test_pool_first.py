"""The CNNs pool before their ReLU, through the channels-last pooling kernel called directly (issue 41): outputs and
gradients are the bits of the former ``max_pool2d(relu(x))`` forward, tied windows and all-negative windows
included."""

import pytest
import torch
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

from fairshare.learning.kernels import max_pool2
from fairshare.learning.models import MnistCNN
from fairshare.learning.slimmable import SlimmableCNN, set_width


def _former_slimmable(model: SlimmableCNN, x: torch.Tensor) -> torch.Tensor:
    for i, conv in enumerate(model.convs):
        x = conv(x)
        if model.norms is not None:
            x = model.norms[i](x)
        x = F.max_pool2d(F.relu(x), 2)
    return model.fc2(F.relu(model.fc1(x)))


def _former_mnist(model: MnistCNN, x: torch.Tensor) -> torch.Tensor:
    if model.faithful:
        x = F.max_pool2d(model.conv2(F.max_pool2d(model.conv1(x), 2)), 2)
        return F.softmax(F.relu(model.fc2(model.fc1(x.flatten(1)))), dim=1)
    x = F.max_pool2d(F.relu(model.conv1(x)), 2)
    x = F.max_pool2d(F.relu(model.conv2(x)), 2)
    return model.fc2(F.relu(model.fc1(x.flatten(1))))


def _inputs(shape, ties: bool) -> torch.Tensor:
    g = torch.Generator().manual_seed(3)
    x = torch.randn(16, *shape, generator=g)
    return x.round() if ties else x  # integer pixels: tied maxima in many pooling windows


def _check(model, former, x, y):
    params = dict(model.named_parameters())

    def loss(p, forward):
        return F.cross_entropy(forward(p), y)

    new = lambda p: functional_call(model, p, (x,))  # noqa: E731
    old = lambda p: former(model, x)  # noqa: E731  (reads the same parameters)
    out_new, out_old = new(params), old(params)
    assert torch.equal(out_new, out_old)
    g_new = torch.autograd.grad(loss(params, new), list(params.values()))
    g_old = torch.autograd.grad(loss(params, old), list(params.values()))
    assert all(torch.equal(a, b) for a, b in zip(g_new, g_old))
    assert any(bool(g.abs().sum() > 0) for g in g_new)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("width", [1.0, 0.3])
@pytest.mark.parametrize("convs", [1, 2])
def test_slimmable_cnn_pools_first_with_the_same_bits(convs, width, ties):
    torch.manual_seed(0)
    model = set_width(SlimmableCNN((1, 8, 8) if convs == 1 else (3, 8, 8), 10, convs=convs), width)
    x = _inputs((1, 8, 8) if convs == 1 else (3, 8, 8), ties)
    _check(model, _former_slimmable, x, torch.arange(16) % 10)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("faithful", [False, True])
@pytest.mark.parametrize("side", [8, 28])
def test_mnist_cnn_pools_first_with_the_same_bits(side, faithful, ties):
    torch.manual_seed(0)
    model = MnistCNN((1, side, side), 10, faithful=faithful)
    _check(model, _former_mnist, _inputs((1, side, side), ties), torch.arange(16) % 10)


def test_all_negative_windows_pass_no_gradient_either_way():
    x = -torch.rand(2, 3, 4, 4) - 0.1
    x.requires_grad_(True)
    (g_new,) = torch.autograd.grad(F.relu(max_pool2(x)).sum(), x)
    (g_old,) = torch.autograd.grad(F.max_pool2d(F.relu(x), 2).sum(), x)
    assert torch.equal(g_new, g_old) and not g_new.any()


def test_max_pool2_under_vmap_and_grad_is_the_plain_kernel():
    x = torch.randn(4, 2, 3, 8, 8)
    per = vmap(grad(lambda t: max_pool2(t).square().sum()))(x)
    plain = vmap(grad(lambda t: F.max_pool2d(t, 2).square().sum()))(x)
    assert torch.equal(per, plain)


def test_cpu_kernels_leave_models_without_convolutions_unintercepted():
    from fairshare.learning.kernels import cpu_kernels
    from fairshare.learning.slimmable import SlimmableMLP

    images = torch.randn(4, 1, 28, 28)
    with cpu_kernels(SlimmableMLP((1, 28, 28), 10), images, "fp32"):
        assert not torch._C._is_torch_function_mode_enabled()
    with cpu_kernels(MnistCNN((1, 28, 28), 10), images, "fp32"):
        assert torch._C._is_torch_function_mode_enabled()
