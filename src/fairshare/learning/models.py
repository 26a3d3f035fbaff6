"""Architectures used by the training papers, with the authors' quirks as named options (corrected behaviour default).

Multi-model FL (FedFairMMFL Sec. VI and the authors' code; docs/mmfl.md):
- ``MnistCNN``: the CNN for MNIST / Fashion-MNIST (2 conv 3x3 with 32/64 channels, 2 max-pools, FC 512, FC out;
  kaiming-uniform conv and xavier-normal linear init, zero biases). The EMNIST model is the same network with 47
  outputs (registry name ``emnist_cnn``; the authors' optional 3-conv network is not what the paper describes).
  ``faithful=True`` reproduces the authors' code: no nonlinearity between the convolutions, and ReLU + softmax on
  the output, which then goes into cross-entropy (a double softmax). Default: ReLU after each conv and after FC 1,
  logits out.
- ``PreActResNet18``: pre-activation ResNet-18 for CIFAR-10 (3x3 stem, no max-pool, blocks 2-2-2-2 with 64-512
  channels, final BN + ReLU, global average pool, linear). ``track_running_stats=False`` reproduces the authors'
  batch norm without running statistics (batch statistics at evaluation too, so accuracy depends on the evaluation
  batch size); the default tracks running statistics. ``width`` scales the channels (64 = the paper's model).
The authors' training quirks (masking of absent classes, evaluation batch size, a learning-rate decay that never
takes effect) are training settings; ``fairshare.learning.mmfl.Fidelity`` switches all of them with these two.

Aequa (App. B; slimmable versions from ``fairshare.learning.slimmable``; layer sizes the paper lost are this repository's
reconstructions (docs/aequa.md)): ``aequa_cnn1`` (1 conv + 2 FC, MNIST/FMNIST), ``aequa_cnn2`` (2 conv + 2 FC, SVHN),
``aequa_resnet18`` (ResNet-18 with switchable batch norm on a width grid), ``aequa_lstm`` (embedding, bidirectional LSTM, 3 FC),
``aequa_mlp`` (slimmable MLP for the offline profile's tabular data).

Payoff flows (Sec. 5; docs/payoff_flows.md): ``MLP`` with hidden (64, 64) is the authors' 784-64-64-10 network (logits out).

Offline data of the default profile: ``SmallCNN`` for scikit-learn's 8x8 digits (and other small images) and ``MLP``
for the synthetic Gaussian features. Every model adapts to the input shape it is built for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from fairshare.learning.kernels import max_pool2

__all__ = ["MnistCNN", "PreActResNet18", "SmallCNN", "MLP", "MODELS", "build_model"]


class MnistCNN(nn.Module):
    """FedFairMMFL's MNIST-family CNN (docs/mmfl.md); ``faithful`` = the authors' activation quirks."""

    def __init__(self, input_shape: Sequence[int] = (1, 28, 28), n_classes: int = 10, faithful: bool = False):
        super().__init__()
        c, h, w = input_shape
        self.faithful = faithful
        self.conv1 = nn.Conv2d(c, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(64 * (h // 4) * (w // 4), 512)
        self.fc2 = nn.Linear(512, n_classes)
        for m in (self.conv1, self.conv2):
            nn.init.kaiming_uniform_(m.weight)
            nn.init.zeros_(m.bias)
        for m in (self.fc1, self.fc2):
            nn.init.xavier_normal_(m.weight)
            nn.init.zeros_(m.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.faithful:  # conv -> pool -> conv -> pool -> FC -> FC -> ReLU -> softmax (fed to cross-entropy)
            x = max_pool2(self.conv2(max_pool2(self.conv1(x))))
            return F.softmax(F.relu(self.fc2(self.fc1(x.flatten(1)))), dim=1)
        x = F.relu(max_pool2(self.conv1(x)))  # = pool(relu(x)) bit for bit (tested), on 4x fewer entries
        x = F.relu(max_pool2(self.conv2(x)))
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class _PreActBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, track: bool):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin, track_running_stats=track)
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout, track_running_stats=track)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.shortcut = nn.Conv2d(cin, cout, 1, stride, bias=False) if stride != 1 or cin != cout else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(x))
        skip = self.shortcut(out) if self.shortcut is not None else x
        out = self.conv1(out)
        out = self.conv2(F.relu(self.bn2(out)))
        return out + skip


class PreActResNet18(nn.Module):
    """Pre-activation ResNet-18 for 32x32 images (docs/mmfl.md); ``track_running_stats=False`` = the authors' batch norm."""

    def __init__(
        self,
        input_shape: Sequence[int] = (3, 32, 32),
        n_classes: int = 10,
        track_running_stats: bool = True,
        width: int = 64,
    ):
        super().__init__()
        widths = [width, 2 * width, 4 * width, 8 * width]
        self.stem = nn.Conv2d(input_shape[0], widths[0], 3, 1, 1, bias=False)
        blocks, cin = [], widths[0]
        for i, cout in enumerate(widths):
            for j in range(2):
                blocks.append(_PreActBlock(cin, cout, 2 if (j == 0 and i > 0) else 1, track_running_stats))
                cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.bn = nn.BatchNorm2d(cin, track_running_stats=track_running_stats)
        self.fc = nn.Linear(cin, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn(self.blocks(self.stem(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class SmallCNN(nn.Module):
    """Two 3x3 conv layers (``channels``), each followed by ReLU and 2x2 max-pool, then FC ``hidden`` and FC out.

    For small images of the offline profile (scikit-learn's 8x8 digits): a cheap stand-in for the MNIST CNN, not a
    paper architecture (reconstruction).
    """

    def __init__(
        self,
        input_shape: Sequence[int] = (1, 8, 8),
        n_classes: int = 10,
        channels: Sequence[int] = (16, 32),
        hidden: int = 64,
    ):
        super().__init__()
        c, h, w = input_shape
        self.conv1 = nn.Conv2d(c, channels[0], 3, padding=1)
        self.conv2 = nn.Conv2d(channels[0], channels[1], 3, padding=1)
        self.fc1 = nn.Linear(channels[1] * (h // 4) * (w // 4), hidden)
        self.fc2 = nn.Linear(hidden, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class MLP(nn.Module):
    """Flatten, then Linear + ReLU per ``hidden`` size, then a linear output (logits).

    ``hidden=(64, 64)`` on 28x28 inputs is the payoff paper's 784-64-64-10 network (Sec. 5).
    """

    def __init__(self, input_shape: Sequence[int], n_classes: int, hidden: Sequence[int] = (64, 64)):
        super().__init__()
        width = int(math.prod(input_shape))
        layers: list[nn.Module] = [nn.Flatten()]
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, n_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


MODELS = (
    "mnist_cnn",
    "emnist_cnn",
    "preact_resnet18",
    "small_cnn",
    "mlp",
    "aequa_cnn1",
    "aequa_cnn2",
    "aequa_resnet18",
    "aequa_lstm",
    "aequa_mlp",
)


def build_model(name: str, input_shape: Sequence[int], n_classes: int, **options) -> nn.Module:
    """Construct a registered architecture for the given input shape ((C, H, W), (D,) or (T,) tokens) and class count.

    Options each model reads (others are ignored, so one option set can serve a task list of mixed models):
    ``faithful`` (mnist_cnn, emnist_cnn); ``track_running_stats``, ``width`` (preact_resnet18);
    ``channels``, ``hidden`` (small_cnn); ``hidden`` (mlp, aequa_mlp); ``widths`` (the switchable-batch-norm width
    grid of aequa_cnn1/2 (optional) and aequa_resnet18 (required)); ``base``, ``track_running_stats``
    (aequa_resnet18); ``vocab_size`` (required), ``embed_dim``, ``hidden``, ``bidirectional``, ``dropout`` (aequa_lstm).
    Width grids may be any sequence (a list, or the numpy array a config-derived grid is).

    The model is built on the CPU, whatever torch's default device: its initial weights are those of a CPU run on any
    device (the caller moves it), and no parameter lands on a device nobody named.
    """
    with torch.device("cpu"):
        return _construct(name, input_shape, n_classes, **options)


def _construct(name: str, input_shape: Sequence[int], n_classes: int, **options) -> nn.Module:
    """:func:`build_model`'s dispatch on the architecture's name."""
    if name in ("mnist_cnn", "emnist_cnn"):
        return MnistCNN(input_shape, n_classes, faithful=options.get("faithful", False))
    if name == "preact_resnet18":
        return PreActResNet18(
            input_shape,
            n_classes,
            track_running_stats=options.get("track_running_stats", True),
            width=options.get("width", 64),
        )
    if name == "small_cnn":
        return SmallCNN(
            input_shape, n_classes, channels=options.get("channels", (16, 32)), hidden=options.get("hidden", 64)
        )
    if name == "mlp":
        return MLP(input_shape, n_classes, options.get("hidden", (64, 64)))
    from fairshare.learning import slimmable

    if name in ("aequa_cnn1", "aequa_cnn2"):
        return slimmable.SlimmableCNN(
            input_shape, n_classes, convs=1 if name == "aequa_cnn1" else 2, widths=options.get("widths")
        )
    if name == "aequa_resnet18":
        if options.get("widths") is None or len(options["widths"]) == 0:
            raise ValueError("aequa_resnet18 has switchable batch norm: pass its width grid as widths=[...]")
        return slimmable.SlimmableResNet18(
            input_shape,
            n_classes,
            widths=options["widths"],
            base=options.get("base", 64),
            track_running_stats=options.get("track_running_stats", True),
        )
    if name == "aequa_lstm":
        if "vocab_size" not in options:
            raise ValueError("aequa_lstm needs vocab_size")
        return slimmable.SlimmableTextLSTM(
            options["vocab_size"],
            n_classes,
            options.get("embed_dim", 300),
            options.get("hidden", 120),
            options.get("bidirectional", True),
            options.get("dropout", 0.5),
        )
    if name == "aequa_mlp":
        return slimmable.SlimmableMLP(input_shape, n_classes, hidden=options.get("hidden", (128, 128)))
    raise ValueError(f"unknown model '{name}'; choose one of {', '.join(MODELS)}")
