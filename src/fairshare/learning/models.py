"""Architectures used by the training papers, with the authors' quirks as named options.

- ``MnistCNN``: the multi-model FL paper's CNN for MNIST/Fashion-MNIST/EMNIST (2 conv, 2 pool, 2 FC; spec §2.5).
  ``faithful=True`` reproduces the authors' code: no nonlinearity between the convolutions, and ReLU + softmax on
  the output, which then goes into cross-entropy (a double softmax). Default (corrected): ReLU after each conv and
  after the first FC layer, logits out.
- ``PreActResNet18``: pre-activation ResNet-18 for CIFAR-10. ``track_running_stats=False`` reproduces the authors'
  batch norm without running statistics (batch statistics also at evaluation); the default tracks them.
- ``MLP``: the payoff paper's 784-64-64-10 network, and a small model for tabular/synthetic data.
- ``aequa_cnn1`` / ``aequa_cnn2`` / ``aequa_lstm``: Aequa's slimmable 1-conv and 2-conv CNNs and text LSTM
  (``fairshare.learning.slimmable``; layer widths are reconstructions, the paper lost them).
Any input size works: the flattened size is computed from ``input_shape``.
"""
from __future__ import annotations

from typing import Sequence

import torch
from torch import nn
import torch.nn.functional as F


class MnistCNN(nn.Module):
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
        act = (lambda t: t) if self.faithful else F.relu
        x = F.max_pool2d(act(self.conv1(x)), 2)
        x = F.max_pool2d(act(self.conv2(x)), 2)
        x = self.fc1(x.flatten(1))
        if self.faithful:
            return F.softmax(F.relu(self.fc2(x)), dim=1)
        return self.fc2(F.relu(x))


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
    def __init__(self, input_shape: Sequence[int] = (3, 32, 32), n_classes: int = 10, track_running_stats: bool = True, width: int = 64):
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


class MLP(nn.Module):
    def __init__(self, input_shape: Sequence[int], n_classes: int, hidden: Sequence[int] = (64, 64)):
        super().__init__()
        width = int(torch.tensor(input_shape).prod())
        layers: list[nn.Module] = [nn.Flatten()]
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, n_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


MODELS = ("mnist_cnn", "preact_resnet18", "mlp", "aequa_cnn1", "aequa_cnn2", "aequa_lstm")


def build_model(name: str, input_shape: Sequence[int], n_classes: int, **options) -> nn.Module:
    """Construct a registered architecture for the given input shape (C, H, W or D,) and class count."""
    if name == "mnist_cnn":
        return MnistCNN(input_shape, n_classes, faithful=options.get("faithful", False))
    if name == "preact_resnet18":
        return PreActResNet18(input_shape, n_classes, track_running_stats=options.get("track_running_stats", True), width=options.get("width", 64))
    if name == "mlp":
        return MLP(input_shape, n_classes, options.get("hidden", (64, 64)))
    if name in ("aequa_cnn1", "aequa_cnn2"):
        from fairshare.learning.slimmable import SlimmableCNN

        return SlimmableCNN(input_shape, n_classes, convs=1 if name == "aequa_cnn1" else 2, widths=options.get("widths"))
    if name == "aequa_lstm":
        from fairshare.learning.slimmable import SlimmableTextLSTM

        return SlimmableTextLSTM(options["vocab_size"], n_classes, options.get("embed_dim", 300), options.get("hidden", 120))
    raise ValueError(f"unknown model '{name}'; choose one of {', '.join(MODELS)}")
