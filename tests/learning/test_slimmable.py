"""Slimmable layers: nested sub-networks, switchable batch norm, and both executors on a slimmable CNN."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fairshare.learning.engine import ClientData, TrainSettings, local_train
from fairshare.learning.slimmable import SlimmableCNN, SlimmableTextLSTM, set_width, subnetwork_state, units

WIDTHS = (0.25, 0.5, 1.0)


@pytest.mark.parametrize("convs", [1, 2])
def test_subnetworks_are_nested_slices_and_ignore_other_weights(convs):
    torch.manual_seed(0)
    model = SlimmableCNN((1, 16, 16), 10, convs=convs)
    x = torch.randn(4, 1, 16, 16)
    for p in (0.25, 0.5):
        full = subnetwork_state(model, 1.0)
        sub = subnetwork_state(model, p)
        for key, tensor in sub.items():
            index = tuple(slice(0, n) for n in tensor.shape)
            assert torch.equal(tensor, full[key][index]), key  # width p's parameters are a slice of width 1's
        set_width(model, p)
        before = model(x)
        with torch.no_grad():  # change only weights outside the width-p slice: the width-p output must not move
            out_u = units(p, model.fc1.out_features)
            model.fc1.weight[out_u:] += 1.0
        assert torch.allclose(model(x), before)
        assert before.shape == (4, 10)  # the classifier output is never slimmed
    set_width(model, 1.0)


def test_switchable_batch_norm_keeps_one_set_per_width():
    model = SlimmableCNN((1, 8, 8), 10, convs=1, widths=WIDTHS)
    bns = model.norms[0].bn
    assert [bn.num_features for bn in bns] == [8, 16, 32]
    with torch.no_grad():
        bns[0].weight.fill_(2.0)
    assert torch.all(subnetwork_state(model, 0.25)["norms.0.bn.0.weight"] == 2.0)
    assert torch.all(subnetwork_state(model, 1.0)["norms.0.bn.2.weight"] == 1.0)
    set_width(model, 0.3)
    with pytest.raises(ValueError, match="grid"):
        model(torch.randn(2, 1, 8, 8))


def test_executors_agree_on_a_slimmable_cnn_with_switchable_bn():
    torch.manual_seed(3)
    model = set_width(SlimmableCNN((1, 8, 8), 10, convs=2, widths=WIDTHS), 0.5)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    g = torch.Generator().manual_seed(1)
    clients = [
        ClientData(torch.randn(n, 1, 8, 8, generator=g), torch.randint(0, 10, (n,), generator=g)) for n in (24, 16)
    ]
    settings = TrainSettings(epochs=1, batch_size=8, lr=0.05, momentum=0.9, drop_last=True)
    gens = lambda: [np.random.default_rng(i) for i in range(2)]  # noqa: E731
    seq = local_train(model, start, clients, settings, generators=gens(), executor="sequential")
    bat = local_train(model, start, clients, settings, generators=gens(), executor="batched")
    for s, b in zip(seq, bat):
        for k in s:
            assert torch.allclose(s[k], b[k], atol=2e-5), k
    moved = [k for k in seq[0] if not torch.equal(seq[0][k], start[k])]
    assert "norms.0.bn.1.weight" in moved and "norms.0.bn.0.weight" not in moved  # only width 0.5's BN is trained


def test_text_lstm_widths():
    torch.manual_seed(0)
    model = SlimmableTextLSTM(vocab_size=50, n_classes=5, embed_dim=8, hidden=12)
    tokens = torch.randint(0, 50, (3, 7))
    for p in (0.5, 1.0):
        assert set_width(model, p)(tokens).shape == (3, 5)
    sub = subnetwork_state(model, 0.5)
    assert sub["lstm.weight_ih"].shape == (4 * 6, 8) and sub["lstm.weight_hh"].shape == (24, 6)


def test_registry_builds_aequa_models_and_subnetwork_state_keeps_width():
    from fairshare.learning.models import build_model

    model = set_width(build_model("aequa_cnn2", (3, 16, 16), 10, widths=WIDTHS), 0.5)
    subnetwork_state(model, 0.25)
    assert all(getattr(m, "width", 0.5) == 0.5 for m in model.modules())  # slicing does not switch the model
    assert build_model("aequa_lstm", (7,), 5, vocab_size=30, embed_dim=4, hidden=6)(
        torch.randint(0, 30, (2, 7))
    ).shape == (2, 5)


def test_width_one_equals_the_plain_layers():
    from torch import nn

    from fairshare.learning.slimmable import SlimmableConv2d, SlimmableLinear

    torch.manual_seed(1)
    lin, slim_lin = nn.Linear(6, 4), SlimmableLinear(6, 4)
    conv, slim_conv = nn.Conv2d(3, 5, 3, padding=1), SlimmableConv2d(3, 5, 3, padding=1)
    slim_lin.load_state_dict(lin.state_dict())
    slim_conv.load_state_dict(conv.state_dict())
    x, img = torch.randn(2, 6), torch.randn(2, 3, 7, 7)
    assert torch.allclose(set_width(slim_lin, 1.0)(x), lin(x))
    assert torch.allclose(set_width(slim_conv, 1.0)(img), conv(img))
    # width 0.5 of the linear layer = a plain layer made of the first ceil(0.5*C) rows and columns
    set_width(slim_lin, 0.5)
    sub = nn.Linear(3, 2)
    sub.load_state_dict({"weight": lin.weight[:2, :3], "bias": lin.bias[:2]})
    assert torch.allclose(slim_lin(x), sub(x[:, :3]))


@pytest.mark.parametrize("p", [1.0, 0.5, 0.34])
def test_lstm_width_p_equals_torch_lstm_built_from_the_nested_gate_slices(p):
    from torch import nn

    from fairshare.learning.slimmable import SlimmableLSTM

    torch.manual_seed(2)
    slim = SlimmableLSTM(5, 6)
    h = units(p, 6)
    sub = subnetwork_state(slim, p)
    ref = nn.LSTM(5, h, batch_first=True)
    ref.load_state_dict(
        {
            "weight_ih_l0": sub["weight_ih"],
            "weight_hh_l0": sub["weight_hh"],
            "bias_ih_l0": sub["bias"],
            "bias_hh_l0": torch.zeros(4 * h),
        }
    )
    x = torch.randn(3, 4, 5)
    out, _ = ref(x)
    assert torch.allclose(set_width(slim, p)(x), out[:, -1], atol=1e-6)
    # the sliced gate rows are the first h rows of each of the four gate blocks of the full matrix
    for g in range(4):
        assert torch.equal(sub["weight_ih"][g * h : (g + 1) * h], slim.weight_ih[g * 6 : g * 6 + h])


def _models():
    from fairshare.learning.slimmable import SlimmableMLP, SlimmableResNet18

    torch.manual_seed(0)
    return [
        (SlimmableCNN((1, 8, 8), 10, convs=2, widths=WIDTHS), torch.randn(4, 1, 8, 8)),
        (SlimmableMLP((12,), 3, hidden=(10, 7)), torch.randn(4, 12)),
        (SlimmableResNet18((3, 8, 8), 10, widths=WIDTHS, base=4), torch.randn(4, 3, 8, 8)),
        (SlimmableTextLSTM(vocab_size=20, n_classes=5, embed_dim=4, hidden=8), torch.randint(0, 20, (4, 6))),
    ]


@pytest.mark.parametrize("index", range(4))
def test_width_masks_mark_exactly_the_subnetwork_entries(index):
    from fairshare.learning.slimmable import width_masks

    model, x = _models()[index]
    full = {k: v.clone() for k, v in model.state_dict().items()}
    for p in (0.25, 0.5, 1.0):
        masks, sub = width_masks(model, p), subnetwork_state(model, p)
        assert set(masks) == set(full)
        assert set(sub) <= set(full)  # a complete reward model: every held entry, nothing else
        assert sum(int(masks[k].sum()) for k in full) == sum(v.numel() for v in sub.values())
        for key, tensor in sub.items():  # nesting: the sub-network entries are the masked entries, in order
            assert torch.equal(full[key][masks[key].bool()].flatten(), tensor.flatten())
        # perturbing everything outside the width-p masks leaves the width-p output unchanged
        set_width(model, p)
        model.eval()
        before = model(x)
        perturbed = {k: v + (1 - masks[k].to(v.dtype)) * 3.0 if v.is_floating_point() else v for k, v in full.items()}
        model.load_state_dict(perturbed)
        assert torch.allclose(model(x), before, atol=1e-5)
        model.load_state_dict(full)
    set_width(model, 1.0)


def test_resnet_switchable_bn_updates_only_the_active_widths_running_statistics():
    from fairshare.learning.slimmable import SlimmableResNet18

    torch.manual_seed(0)
    model = set_width(SlimmableResNet18((3, 8, 8), 10, widths=WIDTHS, base=4), 0.5)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    model.train()
    model(torch.randn(6, 3, 8, 8))
    after = model.state_dict()
    changed = {k for k in after if "running_mean" in k and not torch.equal(after[k], before[k])}
    assert changed and all(".bn.1." in k for k in changed)  # widths are sorted (0.25, 0.5, 1.0): index 1 is 0.5
    assert model.stem_bn.bn[2].running_mean.shape == (4,) and model.stem_bn.bn[1].running_mean.shape == (2,)
    assert set_width(model, 1.0)(torch.randn(2, 3, 8, 8)).shape == (2, 10)


@pytest.mark.parametrize("name", ["aequa_resnet18", "aequa_cnn2", "aequa_mlp"])
def test_set_width_reaches_every_slimmable_layer_and_at_width_restores_them(name):
    """The layer list is looked up once per model: every slimmable layer of the tree still switches, and each model
    keeps its own list."""
    from fairshare.learning.aequa import build_slimmable_model
    from fairshare.learning.cohort import at_width
    from fairshare.learning.slimmable import _Slimmable, slimmable_layers

    shapes = {"aequa_resnet18": (3, 32, 32), "aequa_cnn2": (3, 32, 32), "aequa_mlp": (8,)}
    model, other = (
        build_slimmable_model(name, shapes[name], 10, bn_widths=[0.25, 0.5, 1.0], resnet_base=8) for _ in range(2)
    )
    tree = [m for m in model.modules() if isinstance(m, _Slimmable)]
    assert len(tree) >= 3 and slimmable_layers(model) == tree
    assert all(a is not b for a, b in zip(slimmable_layers(model), slimmable_layers(other)))
    set_width(model, 0.5)
    assert {m.width for m in tree} == {0.5} and {m.width for m in slimmable_layers(other)} == {1.0}
    with at_width(model, 0.25):
        assert {m.width for m in tree} == {0.25}
    assert {m.width for m in tree} == {0.5}
