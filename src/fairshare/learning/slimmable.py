"""Slimmable layers (Yu et al. 2019) for Aequa: one network whose width-p sub-network keeps the first ceil(p C)
channels/units of every hidden layer, so sub-networks are nested (width p's parameters are a slice of width 1's).

Network inputs and the classifier's outputs are never slimmed. Switchable batch norm keeps one set of statistics and
affine parameters per width of a discrete grid. ``set_width(model, p)`` switches a whole model;
``subnetwork_state(model, p)`` slices out the width-p parameters (the reward model a participant receives) and
``width_masks(model, p)`` marks the same entries inside the full tensors (for masked averaging of sub-networks).

Models: ``SlimmableCNN`` (Aequa's 1-conv / 2-conv CNNs), ``SlimmableResNet18`` (CIFAR ResNet-18 with switchable
batch norm), ``SlimmableTextLSTM`` (SST) and ``SlimmableMLP`` (tabular / offline data of the default profile).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from fairshare.learning.kernels import max_pool2

__all__ = [
    "units",
    "SlimmableLinear",
    "SlimmableConv2d",
    "SwitchableBatchNorm2d",
    "SlimmableLSTM",
    "set_width",
    "slimmable_layers",
    "put_width",
    "width_masks",
    "subnetwork_state",
    "SlimmableCNN",
    "SlimmableTextLSTM",
    "SlimmableMLP",
    "SlimmableResNet18",
    "stacked_mlp_forward",
]


def units(p: float, channels: int) -> int:
    """Channels kept at width p: ceil(p C), at least 1."""
    if not 0 < p <= 1:
        raise ValueError(f"width must be in (0, 1], got {p}")
    return max(1, math.ceil(p * channels - 1e-9))


class _Slimmable:
    width: float = 1.0


def _first(t: torch.Tensor, n: int, dim: int) -> torch.Tensor:
    """The first ``n`` entries of ``t`` along ``dim``; ``t`` itself when that is all of it (no slice, so no slice
    backward either: a full-width step dispatches the operations of a plain layer)."""
    return t if t.shape[dim] == n else t.narrow(dim, 0, n)


def _block(t: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """``t[:rows, :cols]`` (a weight's nested width-p block), slicing only the dimensions that shrink."""
    return _first(_first(t, rows, 0), cols, 1)


class SlimmableLinear(nn.Linear, _Slimmable):
    def __init__(self, in_features: int, out_features: int, slim_in: bool = True, slim_out: bool = True):
        super().__init__(in_features, out_features)
        self.slim_in, self.slim_out = slim_in, slim_out

    def active(self) -> tuple[int, int]:
        return (
            units(self.width, self.out_features) if self.slim_out else self.out_features,
            units(self.width, self.in_features) if self.slim_in else self.in_features,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out_u, in_u = self.active()
        return F.linear(_first(x, in_u, -1), _block(self.weight, out_u, in_u), _first(self.bias, out_u, 0))


class SlimmableConv2d(nn.Conv2d, _Slimmable):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        slim_in: bool = True,
        slim_out: bool = True,
        **kwargs,
    ):
        super().__init__(in_channels, out_channels, kernel_size, **kwargs)
        self.slim_in, self.slim_out = slim_in, slim_out

    def active(self) -> tuple[int, int]:
        return (
            units(self.width, self.out_channels) if self.slim_out else self.out_channels,
            units(self.width, self.in_channels) if self.slim_in else self.in_channels,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out_u, in_u = self.active()
        bias = _first(self.bias, out_u, 0) if self.bias is not None else None
        return F.conv2d(
            _first(x, in_u, 1),
            _block(self.weight, out_u, in_u),
            bias,
            self.stride,
            self.padding,
            self.dilation,
            self.groups,
        )


class SwitchableBatchNorm2d(nn.Module, _Slimmable):
    """One BatchNorm2d per width of ``widths`` (statistics and affine parameters are not shared across widths)."""

    def __init__(self, channels: int, widths: Sequence[float], track_running_stats: bool = False):
        super().__init__()
        self.channels = channels
        self.widths = tuple(sorted(float(p) for p in widths))
        self.bn = nn.ModuleList(
            nn.BatchNorm2d(units(p, channels), track_running_stats=track_running_stats) for p in self.widths
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.width not in self.widths:
            raise ValueError(f"width {self.width} is not in this switchable batch norm's grid {self.widths}")
        return self.bn[self.widths.index(self.width)](x)


class SlimmableLSTM(nn.Module, _Slimmable):
    """Single-layer LSTM whose four gate blocks are each cut to the first ceil(p H) units (input size not slimmed)."""

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.hidden_size = hidden_size
        self.weight_ih = nn.Parameter(torch.empty(4 * hidden_size, input_size))
        self.weight_hh = nn.Parameter(torch.empty(4 * hidden_size, hidden_size))
        self.bias = nn.Parameter(torch.zeros(4 * hidden_size))
        bound = 1 / math.sqrt(hidden_size)
        nn.init.uniform_(self.weight_ih, -bound, bound)
        nn.init.uniform_(self.weight_hh, -bound, bound)

    def _rows(self, h: int) -> torch.Tensor:
        return torch.cat([torch.arange(g * self.hidden_size, g * self.hidden_size + h) for g in range(4)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (batch, time, input) -> last hidden state (batch, ceil(p H))."""
        h_units = units(self.width, self.hidden_size)
        rows = self._rows(h_units).to(x.device)
        w_ih, w_hh, b = self.weight_ih[rows], self.weight_hh[rows][:, :h_units], self.bias[rows]
        h = x.new_zeros(x.shape[0], h_units)
        c = x.new_zeros(x.shape[0], h_units)
        for t in range(x.shape[1]):
            gates = x[:, t] @ w_ih.T + h @ w_hh.T + b
            i, f, g, o = gates.chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        return h


_LAYERS: weakref.WeakKeyDictionary[nn.Module, list[_Slimmable]] = weakref.WeakKeyDictionary()


def slimmable_layers(model: nn.Module) -> list[_Slimmable]:
    """``model``'s slimmable layers in ``model.modules()`` order, found once per model: an Aequa step switches widths
    several times, and walking the module tree each time was about 2 % of an Aequa job (docs/engine.md). A model's
    layers are fixed once it is built."""
    layers = _LAYERS.get(model)
    if layers is None:
        layers = _LAYERS[model] = [m for m in model.modules() if isinstance(m, _Slimmable)]
    return layers


def put_width(layer: _Slimmable, p: float) -> None:
    """``layer.width = p`` without ``nn.Module.__setattr__``'s parameter, buffer and submodule checks: the width is a
    plain float, and switching it is an Aequa step's most frequent Python call (about 2 % of a job through
    ``__setattr__``)."""
    object.__setattr__(layer, "width", p)


def set_width(model: nn.Module, p: float) -> nn.Module:
    """Switch every slimmable layer of ``model`` to width ``p``."""
    units(p, 1)
    for m in slimmable_layers(model):
        put_width(m, p)
    return model


def width_masks(model: nn.Module, p: float) -> dict[str, torch.Tensor]:
    """0/1 masks shaped like ``model.state_dict()``: 1 on the entries the width-p sub-network holds.

    The masked entries are exactly those :func:`subnetwork_state` returns (switchable BN: only width p's copy);
    parameters of non-slimmable modules (an embedding) are held at every width.
    """
    masks = {k: torch.ones_like(v, dtype=torch.float32) for k, v in model.state_dict().items()}
    for name, m in model.named_modules():
        prefix = f"{name}." if name else ""
        if isinstance(m, (SlimmableLinear, SlimmableConv2d)):
            previous = m.width
            m.width = p
            out_u, in_u = m.active()
            m.width = previous
            w = torch.zeros_like(masks[prefix + "weight"])
            w[:out_u, :in_u] = 1
            masks[prefix + "weight"] = w
            if m.bias is not None:
                b = torch.zeros_like(masks[prefix + "bias"])
                b[:out_u] = 1
                masks[prefix + "bias"] = b
        elif isinstance(m, SlimmableLSTM):
            h = units(p, m.hidden_size)
            rows = m._rows(h)
            for key, cols in (("weight_ih", None), ("weight_hh", h), ("bias", None)):
                mask = torch.zeros_like(masks[prefix + key])
                if cols is None:
                    mask[rows] = 1
                else:
                    mask[rows, :cols] = 1
                masks[prefix + key] = mask
        elif isinstance(m, SwitchableBatchNorm2d):
            k = m.widths.index(p) if p in m.widths else -1
            for j in range(len(m.widths)):
                for key in m.bn[j].state_dict():
                    masks[f"{prefix}bn.{j}.{key}"].fill_(1.0 if j == k else 0.0)
    return masks


def subnetwork_state(model: nn.Module, p: float) -> dict[str, torch.Tensor]:
    """The state of the width-p sub-network: nested slices of the full tensors (switchable BN: width p's copy),
    plus the unchanged state of non-slimmable modules (an embedding), so the result is a complete reward model."""
    previous = {m: m.width for m in model.modules() if isinstance(m, _Slimmable)}
    out: dict[str, torch.Tensor] = {}
    for name, m in model.named_modules():
        prefix = f"{name}." if name else ""
        if isinstance(m, (SlimmableLinear, SlimmableConv2d)):
            set_width(m, p)
            out_u, in_u = m.active()
            out[prefix + "weight"] = m.weight[:out_u, :in_u].detach().clone()
            if m.bias is not None:
                out[prefix + "bias"] = m.bias[:out_u].detach().clone()
        elif isinstance(m, SlimmableLSTM):
            h = units(p, m.hidden_size)
            rows = m._rows(h)
            out[prefix + "weight_ih"] = m.weight_ih[rows].detach().clone()
            out[prefix + "weight_hh"] = m.weight_hh[rows][:, :h].detach().clone()
            out[prefix + "bias"] = m.bias[rows].detach().clone()
        elif isinstance(m, SwitchableBatchNorm2d):
            k = m.widths.index(p)
            for key, value in m.bn[k].state_dict().items():
                out[f"{prefix}bn.{k}.{key}"] = value.detach().clone()
    for m, width in previous.items():
        m.width = width
    masks = width_masks(model, p)
    for key, value in model.state_dict().items():
        if key not in out and bool(masks[key].all()):
            out[key] = value.detach().clone()
    return out


class SlimmableCNN(nn.Module):
    """Aequa's CNNs, slimmable: ``convs=1`` (MNIST/FMNIST, 1 conv + 2 FC) or ``convs=2`` (SVHN, 2 conv + 2 FC).

    Layer widths are this repository's placeholders (docs/aequa.md) (the paper lost them; reconstruction): conv 32 (and 64) channels 5x5,
    FC 128 (1 conv) or 512 (2 conv). ``widths`` given: switchable batch norm after each conv on that grid.
    """

    def __init__(
        self, input_shape: Sequence[int], n_classes: int, convs: int = 1, widths: Sequence[float] | None = None
    ):
        super().__init__()
        c, h, w = input_shape
        chans = [c, 32, 64][: convs + 1]
        self.convs = nn.ModuleList(
            SlimmableConv2d(chans[i], chans[i + 1], 5, slim_in=i > 0, padding=2) for i in range(convs)
        )
        self.norms = (
            None
            if widths is None or len(widths) == 0
            else nn.ModuleList(SwitchableBatchNorm2d(chans[i + 1], widths) for i in range(convs))
        )
        spatial = (h // 2**convs) * (w // 2**convs)
        hidden = 128 if convs == 1 else 512
        self.fc1 = _SlimmableFlatLinear(chans[-1], spatial, hidden)
        self.fc2 = SlimmableLinear(hidden, n_classes, slim_out=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, conv in enumerate(self.convs):
            x = conv(x)
            if self.norms is not None:
                x = self.norms[i](x)
            x = F.relu(max_pool2(x))  # pool(relu(x)) bit for bit (tested), on 4x fewer entries
        return self.fc2(F.relu(self.fc1(x)))


class _SlimmableFlatLinear(SlimmableLinear):
    """Linear layer after flattening (channels x spatial): slims whole channels of its input, keeping nesting."""

    def __init__(self, channels: int, spatial: int, out_features: int):
        super().__init__(channels * spatial, out_features)
        self.channels, self.spatial = channels, spatial

    def active(self) -> tuple[int, int]:
        return units(self.width, self.out_features), units(self.width, self.channels) * self.spatial

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out_u, in_u = self.active()
        return F.linear(x.flatten(1), _block(self.weight, out_u, in_u), _first(self.bias, out_u, 0))


class SlimmableTextLSTM(nn.Module):
    """Aequa's LSTM for SST (App. B: embedding, an LSTM layer, three FC layers; sizes lost). Reconstruction [docs/aequa.md,
    I-med]: IAFL's ``LSTM_Text``: Embedding(vocab -> 300, not slimmed) -> bidirectional LSTM (hidden 120) -> dropout
    0.5 -> FC(240 -> 120) -> FC(120 -> 84) -> FC(84 -> classes).

    Both directions run over the whole padded sequence (no packing) and their last hidden states are interleaved
    unit by unit (forward 0, backward 0, forward 1, ...), so the width-p sub-network's first FC input is the prefix
    of 2 ceil(pH) entries and sub-networks stay nested. ``bidirectional=False`` gives a one-direction LSTM.
    """

    def __init__(
        self,
        vocab_size: int,
        n_classes: int,
        embed_dim: int = 300,
        hidden: int = 120,
        bidirectional: bool = True,
        dropout: float = 0.5,
    ):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = SlimmableLSTM(embed_dim, hidden)
        self.lstm_reverse = SlimmableLSTM(embed_dim, hidden) if bidirectional else None
        self.dropout = nn.Dropout(dropout)
        self.fc1 = _SlimmableFlatLinear(hidden, 2 if bidirectional else 1, 120)
        self.fc2 = SlimmableLinear(120, 84)
        self.fc3 = SlimmableLinear(84, n_classes, slim_out=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        h = self.lstm(x)
        if self.lstm_reverse is not None:
            h = torch.stack([h, self.lstm_reverse(x.flip(1))], dim=2)
        h = self.dropout(h.flatten(1))
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(h)))))


class SlimmableMLP(nn.Module):
    """Slimmable multilayer perceptron (flattened input, ReLU hidden layers) for the default profile's offline data.

    Not one of the paper's architectures: it stands in for the CNNs where the default profile trains on tabular
    (synthetic) features or needs a cheaper model on a 2-core CPU.
    """

    def __init__(self, input_shape: Sequence[int], n_classes: int, hidden: Sequence[int] = (128, 128)):
        super().__init__()
        sizes = [int(math.prod(input_shape)), *hidden, n_classes]
        self.layers = nn.ModuleList(
            SlimmableLinear(sizes[i], sizes[i + 1], slim_in=i > 0, slim_out=i < len(sizes) - 2)
            for i in range(len(sizes) - 1)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.flatten(1)
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = F.relu(x)
        return x


def stacked_mlp_forward(
    model: SlimmableMLP, params: dict[str, torch.Tensor], x: torch.Tensor, widths: Sequence[float]
) -> torch.Tensor:
    """Logits of a stack of ``model``s (leading dimension i: model i's ``params``, inputs ``x[i]``) each at its own
    width ``widths[i]``, in one batched matrix product per layer.

    Every hidden layer runs at full width and its units beyond ``units(p, C)`` are set to zero after the ReLU: the
    next layer's columns for them then add exact zeros, and their weights and biases get zero gradient, as the
    width-p slice gives. So the outputs and gradients equal the sliced sub-network's up to the order in which the
    matrix products add (float rounding), and clients of different widths share one kernel call, which slicing
    cannot do (docs/engine.md).
    """
    h = x.flatten(2)
    last = len(model.layers) - 1
    for i, layer in enumerate(model.layers):
        h = torch.baddbmm(params[f"layers.{i}.bias"].unsqueeze(1), h, params[f"layers.{i}.weight"].transpose(1, 2))
        if i < last:
            h = F.relu(h)
            if layer.slim_out:
                kept = torch.tensor([units(float(p), layer.out_features) for p in widths], device=h.device)
                h = h * (torch.arange(layer.out_features, device=h.device) < kept[:, None]).unsqueeze(1).to(h.dtype)
    return h


class _SlimmableBasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, widths: Sequence[float], track: bool):
        super().__init__()
        self.conv1 = SlimmableConv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = SwitchableBatchNorm2d(cout, widths, track)
        self.conv2 = SlimmableConv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = SwitchableBatchNorm2d(cout, widths, track)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                SlimmableConv2d(cin, cout, 1, stride=stride, bias=False), SwitchableBatchNorm2d(cout, widths, track)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (self.shortcut(x) if self.shortcut is not None else x))


class SlimmableResNet18(nn.Module):
    """CIFAR ResNet-18 (3x3 stem, no max-pool, basic blocks 2-2-2-2) with every conv slimmed and switchable BN.

    Batch-norm models train on the discrete width grid ``widths`` (Aequa App. D.3). ``base`` = 64 is the usual
    ResNet-18 (about 11.2 M parameters at width 1); smaller ``base`` values give cheap test models.
    """

    def __init__(
        self,
        input_shape: Sequence[int],
        n_classes: int,
        widths: Sequence[float],
        base: int = 64,
        track_running_stats: bool = True,
    ):
        super().__init__()
        chans = [base, 2 * base, 4 * base, 8 * base]
        self.stem = SlimmableConv2d(input_shape[0], chans[0], 3, slim_in=False, padding=1, bias=False)
        self.stem_bn = SwitchableBatchNorm2d(chans[0], widths, track_running_stats)
        blocks, cin = [], chans[0]
        for i, cout in enumerate(chans):
            for j in range(2):
                blocks.append(
                    _SlimmableBasicBlock(cin, cout, 2 if (j == 0 and i > 0) else 1, widths, track_running_stats)
                )
                cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = SlimmableLinear(cin, n_classes, slim_out=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(F.relu(self.stem_bn(self.stem(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))
