"""Aequa's slimmable federated training: the local step, the SGD rule, switchable-BN aggregation, the width curve."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fairshare.learning import aequa as aq
from fairshare.learning.engine import ClientData, TrainSettings, local_train
from fairshare.learning.rounds import run_rounds
from fairshare.learning.slimmable import SlimmableCNN, SlimmableMLP, set_width, width_masks


@pytest.fixture(scope="module")
def digits_clients(digits_tensors):
    x, y = digits_tensors
    return [ClientData(x[i * 120 : (i + 1) * 120], y[i * 120 : (i + 1) * 120]) for i in range(3)], (x[1200:], y[1200:])


def test_sgd_step_matches_torch_optim_bit_for_bit():
    from fairshare.learning.engine import sgd_step

    torch.manual_seed(0)
    a, b = torch.nn.Linear(5, 3), torch.nn.Linear(5, 3)
    b.load_state_dict(a.state_dict())
    opt = torch.optim.SGD(a.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    buffers = [None, None]
    for _ in range(4):
        x = torch.randn(8, 5)
        opt.zero_grad()
        a(x).pow(2).sum().backward()
        opt.step()
        grads = torch.autograd.grad(b(x).pow(2).sum(), list(b.parameters()))
        sgd_step(list(b.parameters()), grads, buffers, 0.1, 0.9, 0.01)
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)


def test_full_width_only_equals_the_engines_sequential_executor(digits_clients):
    clients, _ = digits_clients
    torch.manual_seed(1)
    model = SlimmableCNN((1, 8, 8), 10, convs=1)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    settings = TrainSettings(epochs=1, batch_size=16, lr=0.05, momentum=0.9)
    gens = lambda: [np.random.default_rng(i) for i in range(3)]  # noqa: E731
    ours, used = aq.aequa_local_train(
        model,
        start,
        clients,
        settings,
        generators=gens(),
        width_generators=gens(),
        p_min=1.0,
        grid=[1.0],
        subwidth_mode="random_only",
    )
    ref = local_train(model, start, clients, settings, generators=gens(), executor="sequential")
    assert used == [{1.0}] * 3
    for s, r in zip(ours, ref):
        for k in s:
            assert torch.allclose(s[k], r[k], atol=1e-5), k


def test_local_training_trains_the_sampled_widths_and_is_deterministic(digits_clients):
    clients, _ = digits_clients
    torch.manual_seed(2)
    grid = [0.25, 0.5, 1.0]
    model = SlimmableCNN((1, 8, 8), 10, convs=1, widths=grid)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    settings = TrainSettings(epochs=1, batch_size=60, lr=0.05, momentum=0.9)

    def run():
        return aq.aequa_local_train(
            model,
            start,
            clients[:1],
            settings,
            generators=[np.random.default_rng(0)],
            width_generators=[np.random.default_rng(5)],
            p_min=0.25,
            grid=grid,
        )

    (s1,), (u1,) = run()
    (s2,), (u2,) = run()
    assert u1 == u2 and 1.0 in u1 and len(u1) <= 3  # full width plus one sampled width per minibatch (2 minibatches)
    assert all(torch.equal(s1[k], s2[k]) for k in s1)
    for j, p in enumerate(grid):  # a switchable-BN copy moves iff its width was trained
        moved = not torch.equal(s1[f"norms.0.bn.{j}.weight"], start[f"norms.0.bn.{j}.weight"])
        assert moved == (p in u1)
    with pytest.raises(ValueError, match="grid"):
        aq.aequa_local_train(
            model,
            start,
            clients[:1],
            settings,
            generators=[np.random.default_rng(0)],
            width_generators=[np.random.default_rng(0)],
            p_min=0.25,
        )


def test_aggregation_averages_each_bn_copy_over_the_clients_that_trained_it():
    grid = [0.5, 1.0]
    model = SlimmableCNN((1, 8, 8), 10, convs=1, widths=grid)
    g = {k: torch.zeros_like(v) for k, v in model.state_dict().items()}
    s1 = {k: torch.ones_like(v) for k, v in g.items()}
    s2 = {k: 3 * torch.ones_like(v) for k, v in g.items()}
    out = aq.aggregate(model, g, [s1, s2], [{1.0, 0.5}, {1.0}], weights=[1, 3])
    assert torch.all(out["convs.0.weight"] == 2.5)  # data-size weights 1:3
    assert torch.all(out["norms.0.bn.1.weight"] == 2.5)  # width 1.0: both clients
    assert torch.all(out["norms.0.bn.0.weight"] == 1.0)  # width 0.5: only client 1
    out = aq.aggregate(model, g, [s1, s2], [{1.0}, {1.0}], weights=[1, 1])
    assert torch.all(out["norms.0.bn.0.weight"] == 0.0)  # nobody trained width 0.5: the global copy stays


def test_training_learns_and_the_curve_spans_the_grid(digits_clients):
    clients, (xt, yt) = digits_clients
    torch.manual_seed(0)
    model = SlimmableMLP((1, 8, 8), 10, hidden=(64, 64))
    init = {k: v.clone() for k, v in model.state_dict().items()}
    step = aq.aequa_step(
        model,
        clients,
        TrainSettings(epochs=1, batch_size=16, lr=0.1, momentum=0.9),
        order_rng=lambda r, i: np.random.default_rng([r, i]),
        width_rng=lambda r, i: np.random.default_rng([9, r, i]),
        p_min=0.25,
    )
    state, _ = run_rounds(step, init, 5, settings="", progress=False)
    widths = aq.width_grid(0.25, 0.25)
    curve = aq.width_accuracy_curve(model, state, widths, xt, yt, 10)
    assert widths.tolist() == [0.25, 0.5, 0.75, 1.0] and curve.shape == (4,)
    before = aq.width_accuracy_curve(model, init, widths, xt, yt, 10)
    assert curve[-1] > 0.6 and curve[-1] > before[-1] + 0.4  # the full model learned (chance: 0.1)
    assert np.all(curve > before)  # every nested sub-network learned too (p_min was trained alongside)


def test_width_grid_and_model_factory():
    assert aq.width_grid(0.3, 0.2).tolist() == [0.3, 0.5, 0.7, 0.9, 1.0]
    with pytest.raises(ValueError):
        aq.width_grid(0.0, 0.1)
    net = aq.build_slimmable_model("aequa_resnet18", (3, 8, 8), 10, bn_widths=[0.5, 1.0], resnet_base=4)
    assert aq.has_switchable_bn(net) and aq.uses_batch_norm("aequa_resnet18")
    masks = width_masks(set_width(net, 1.0), 0.5)
    assert masks["fc.weight"].sum() == 10 * 16  # classifier keeps all classes, half of the 32 input features
    with pytest.raises(ValueError):
        aq.build_slimmable_model("aequa_resnet18", (3, 8, 8), 10)
