"""Training engine: the batched executor reproduces the sequential reference; aggregation; resume after a kill."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from fairshare.learning.aggregation import masked_average, uniform_average, weighted_average
from fairshare.learning.engine import ClientData, TrainSettings, evaluate, local_train
from fairshare.learning.models import build_model


def _clients(shape, sizes, n_classes=10, seed=0, masks=False):
    g = torch.Generator().manual_seed(seed)
    out = []
    for n in sizes:
        y = torch.randint(0, n_classes, (n,), generator=g)
        cm = torch.zeros(n_classes, dtype=torch.bool)
        cm[y.unique()] = True
        out.append(ClientData(torch.randn(n, *shape, generator=g), y, cm if masks else None))
    return out


def _run(model, clients, settings, executor, global_params=None):
    global_params = global_params or {k: v.clone() for k, v in model.state_dict().items()}
    gens = [np.random.default_rng(100 + i) for i in range(len(clients))]
    return local_train(model, global_params, clients, settings, generators=gens, executor=executor)


@pytest.mark.parametrize("name, shape, options, mask_fill", [
    ("mnist_cnn", (1, 12, 12), {}, None),
    ("mnist_cnn", (1, 12, 12), {"faithful": True}, 0.0),
    ("preact_resnet18", (3, 16, 16), {"track_running_stats": False, "width": 4}, None),
    ("mlp", (20,), {"hidden": (16,)}, None),
])
def test_batched_matches_sequential(name, shape, options, mask_fill):
    torch.manual_seed(1)
    model = build_model(name, shape, 10, **options)
    clients = _clients(shape, [23, 17, 31], masks=mask_fill is not None)
    settings = TrainSettings(epochs=2, batch_size=8, lr=0.05, momentum=0.9, weight_decay=1e-3, absent_class_fill=mask_fill,
                             drop_last=name == "preact_resnet18")
    start = {k: v.clone() for k, v in model.state_dict().items()}
    seq = _run(model, clients, settings, "sequential", start)
    bat = _run(model, clients, settings, "batched", start)
    for s, b in zip(seq, bat):
        assert any(not torch.equal(s[k], start[k]) for k in s)  # training moved the parameters
        for k in s:
            assert torch.allclose(s[k], b[k], atol=2e-5, rtol=1e-4), (name, k, float((s[k] - b[k]).abs().max()))


def test_batched_refuses_running_statistics():
    model = build_model("preact_resnet18", (3, 8, 8), 10, width=4)
    with pytest.raises(ValueError, match="running statistics"):
        _run(model, _clients((3, 8, 8), [8]), TrainSettings(1, 4, 0.1), "batched")


def test_batch_norm_with_partial_batches_is_refused_in_batched_mode():
    model = build_model("preact_resnet18", (3, 16, 16), 10, track_running_stats=False, width=4)
    with pytest.raises(ValueError, match="drop_last"):
        _run(model, _clients((3, 16, 16), [10]), TrainSettings(1, 4, 0.1), "batched")


def test_results_do_not_depend_on_chunking():
    torch.manual_seed(2)
    model = build_model("mlp", (10,), 3, hidden=(8,))
    clients = _clients((10,), [9, 14, 5, 11], n_classes=3)
    settings = TrainSettings(epochs=1, batch_size=4, lr=0.1)
    g = {k: v.clone() for k, v in model.state_dict().items()}
    whole = local_train(model, g, clients, settings, generators=[np.random.default_rng(i) for i in range(4)])
    parts = local_train(model, g, clients, settings, generators=[np.random.default_rng(i) for i in range(4)], chunk=3)
    assert all(torch.equal(a[k], b[k]) for a, b in zip(whole, parts) for k in a)


def test_aggregation_rules():
    a = {"w": torch.tensor([1.0, 2.0])}
    b = {"w": torch.tensor([3.0, 6.0])}
    assert torch.allclose(weighted_average([a, b], [1, 3])["w"], torch.tensor([2.5, 5.0]))
    assert torch.allclose(uniform_average([a, b])["w"], torch.tensor([2.0, 4.0]))
    masks = [{"w": torch.tensor([1.0, 0.0])}, {"w": torch.tensor([1.0, 0.0])}]
    out = masked_average([a, b], masks, fallback={"w": torch.tensor([9.0, 9.0])})
    assert torch.allclose(out["w"], torch.tensor([2.0, 9.0]))
    with pytest.raises(ValueError):
        weighted_average([a, b], [0, 0])


def test_evaluate_counts_correct_predictions():
    model = build_model("mlp", (2,), 2, hidden=())
    params = {"net.1.weight": torch.tensor([[1.0, 0.0], [0.0, 1.0]]), "net.1.bias": torch.zeros(2)}
    acc, _ = evaluate(model, params, torch.tensor([[2.0, 0.0], [0.0, 2.0], [1.0, 3.0]]), torch.tensor([0, 1, 0]))
    assert acc == pytest.approx(2 / 3)


def test_auto_executor_choice():
    from fairshare.learning.engine import choose_executor

    assert choose_executor(build_model("mlp", (4,), 2), "cpu") == "batched"
    assert choose_executor(build_model("mnist_cnn", (1, 8, 8), 2), "cpu") == "sequential"
    assert choose_executor(build_model("preact_resnet18", (3, 8, 8), 2, width=4), "cpu") == "sequential"
