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
    clients = [ClientData(torch.randn(n, 1, 8, 8, generator=g), torch.randint(0, 10, (n,), generator=g)) for n in (24, 16)]
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
    assert build_model("aequa_lstm", (7,), 5, vocab_size=30, embed_dim=4, hidden=6)(torch.randint(0, 30, (2, 7))).shape == (2, 5)
