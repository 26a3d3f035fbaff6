"""Training engine: the batched executor reproduces the sequential reference (same seeds, float tolerance)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from fairshare.learning.engine import ClientData, TrainSettings, batch_plan, choose_executor, decayed_lr, local_train
from fairshare.learning.evaluation import evaluate
from fairshare.learning.models import build_model

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _clients(shape, sizes, n_classes=10, seed=0, masks=False):
    g = torch.Generator().manual_seed(seed)
    out = []
    for n in sizes:
        y = torch.randint(0, n_classes, (n,), generator=g)
        cm = torch.zeros(n_classes, dtype=torch.bool)
        cm[y.unique()] = True
        out.append(ClientData(torch.randn(n, *shape, generator=g), y, cm if masks else None))
    return out


def _train(model, clients, settings, executor, start, chunk=None, vectorize=None, step_widths=None, width_loss="sum"):
    gens = [np.random.default_rng(100 + i) for i in range(len(clients))]
    return local_train(
        model,
        start,
        clients,
        settings,
        generators=gens,
        executor=executor,
        chunk=chunk,
        vectorize=vectorize,
        step_widths=step_widths,
        width_loss=width_loss,
    )


def _assert_agree(model, clients, settings, atol=2e-5, step_widths=None, width_loss="sum"):
    """Sequential reference vs the batched executor in both modes (vmapped, client by client)."""
    start = {k: v.clone() for k, v in model.state_dict().items()}
    seq = _train(model, clients, settings, "sequential", start, step_widths=step_widths, width_loss=width_loss)
    for vectorize in (True, False):
        bat = _train(
            model,
            clients,
            settings,
            "batched",
            start,
            vectorize=vectorize,
            step_widths=step_widths,
            width_loss=width_loss,
        )
        assert len(seq) == len(bat) == len(clients)
        for s, b in zip(seq, bat):
            assert set(s) == set(b) == set(start)
            assert any(not torch.equal(s[k], start[k]) for k in s)  # training moved the parameters
            for k in s:
                diff = float((s[k].double() - b[k].double()).abs().max())
                assert torch.allclose(s[k].double(), b[k].double(), atol=atol, rtol=1e-4), (vectorize, k, diff)
    return start, seq, bat


# clients of unequal sizes: different step counts, partial last batches, 2 epochs, momentum and weight decay
SIZES = [23, 17, 31]
SETTINGS = TrainSettings(epochs=2, batch_size=8, lr=0.05, momentum=0.9, weight_decay=1e-3)


@pytest.mark.parametrize(
    "name, shape, options, mask_fill",
    [
        ("mnist_cnn", (1, 12, 12), {}, None),
        ("mnist_cnn", (1, 12, 12), {"faithful": True}, 0.0),  # the authors' double softmax and absent-class masking
        ("small_cnn", (1, 8, 8), {}, None),
        ("mlp", (20,), {"hidden": (16,)}, None),
    ],
)
def test_batched_matches_sequential(name, shape, options, mask_fill):
    torch.manual_seed(1)
    model = build_model(name, shape, 10, **options)
    clients = _clients(shape, SIZES, masks=mask_fill is not None)
    _assert_agree(model, clients, TrainSettings(2, 8, 0.05, 0.9, 1e-3, absent_class_fill=mask_fill))


@pytest.mark.parametrize("track", [False, True])
def test_batched_matches_sequential_on_a_resnet(track):
    """Batch norm: batch statistics over exactly each client's samples (partial batches grouped by size), and with
    running statistics, per-client running means and variances."""
    torch.manual_seed(2)
    model = build_model("preact_resnet18", (3, 16, 16), 10, width=2, track_running_stats=track)
    _, seq, _ = _assert_agree(
        model, _clients((3, 16, 16), [15, 10], seed=3), TrainSettings(1, 4, 0.05, 0.9, 1e-3), atol=1e-4
    )
    if track:
        assert not torch.equal(seq[0]["bn.running_mean"], seq[1]["bn.running_mean"])


def test_slimmable_width_and_unused_parameters():
    """A slimmable CNN at width 0.5 with switchable batch norm: both executors train the width-0.5 slice and BN copy,
    and neither touches the other widths' BN copies (no gradient, so no weight decay either, as in torch SGD)."""
    from fairshare.learning.slimmable import SlimmableCNN, set_width

    torch.manual_seed(4)
    model = set_width(SlimmableCNN((1, 8, 8), 10, convs=2, widths=(0.25, 0.5, 1.0)), 0.5)
    start, seq, bat = _assert_agree(
        model, _clients((1, 8, 8), [16, 24], seed=5), TrainSettings(1, 8, 0.05, 0.9, 1e-2, drop_last=True)
    )
    for states in (seq, bat):
        assert not torch.equal(states[0]["norms.0.bn.1.weight"], start["norms.0.bn.1.weight"])
        assert torch.equal(states[0]["norms.0.bn.0.weight"], start["norms.0.bn.0.weight"])
        outside, before = states[0]["fc1.weight"][256:], start["fc1.weight"][256:]  # rows beyond width 0.5 of 512
        factor = float(outside[0, 0] / before[0, 0])
        assert 0.99 < factor < 1 and torch.allclose(outside, factor * before, rtol=1e-4, atol=1e-7)  # weight decay only


def test_results_do_not_depend_on_chunking_or_client_order():
    torch.manual_seed(2)
    model = build_model("mlp", (10,), 3, hidden=(8,))
    clients = _clients((10,), [9, 14, 5, 11], n_classes=3)
    settings = TrainSettings(epochs=1, batch_size=4, lr=0.1, momentum=0.5)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    whole = _train(model, clients, settings, "batched", start)
    parts = _train(model, clients, settings, "batched", start, chunk=3)
    assert all(torch.equal(a[k], b[k]) for a, b in zip(whole, parts) for k in a)
    # client 1 alone, with its own generator, gets the same result as inside the cohort
    alone = local_train(
        model, start, [clients[1]], settings, generators=[np.random.default_rng(101)], executor="batched"
    )
    assert all(torch.allclose(alone[0][k], whole[1][k], atol=1e-6) for k in alone[0])


def test_start_point_is_global_params_not_the_models_weights():
    torch.manual_seed(3)
    model = build_model("mlp", (6,), 2, hidden=(4,))
    clients = _clients((6,), [8], n_classes=2)
    start = {k: torch.zeros_like(v) for k, v in model.state_dict().items()}
    settings = TrainSettings(1, 8, 0.1)
    for executor in ("batched", "sequential"):
        out = _train(model, clients, settings, executor, start)[0]
        assert torch.equal(out["net.1.weight"], torch.zeros(4, 6))  # zero hidden layer: no gradient reaches it
        assert not torch.equal(out["net.3.bias"], torch.zeros(2))


def test_auto_executor_and_cumulative_batch_norm():
    assert choose_executor(build_model("mlp", (4,), 2), "cpu") == "batched"
    assert choose_executor(build_model("mnist_cnn", (1, 8, 8), 2), "cpu") == "batched"
    cumulative = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3, momentum=None), nn.Linear(3, 2))
    assert choose_executor(cumulative, "cpu") == "sequential"
    clients = _clients((4,), [8], n_classes=2)
    with pytest.raises(ValueError, match="momentum=None"):
        _train(cumulative, clients, TrainSettings(1, 4, 0.1), "batched", cumulative.state_dict())
    assert len(_train(cumulative, clients, TrainSettings(1, 4, 0.1), "auto", cumulative.state_dict())) == 1


def test_batch_plan_and_argument_checks():
    settings = TrainSettings(epochs=2, batch_size=4, lr=0.1)
    plan = batch_plan(10, settings, np.random.default_rng(0))
    assert [len(b) for b in plan] == [4, 4, 2, 4, 4, 2]
    assert sorted(np.concatenate(plan[:3])) == list(range(10))  # each epoch is a permutation
    assert [len(b) for b in batch_plan(10, TrainSettings(1, 4, 0.1, drop_last=True), np.random.default_rng(0))] == [
        4,
        4,
    ]
    model = build_model("mlp", (4,), 2)
    with pytest.raises(ValueError, match="executor"):
        local_train(
            model,
            model.state_dict(),
            _clients((4,), [4]),
            settings,
            generators=[np.random.default_rng(0)],
            executor="fast",
        )
    with pytest.raises(ValueError, match="Generator"):
        local_train(model, model.state_dict(), _clients((4,), [4]), settings, generators=[])


def test_decayed_lr_inert_quirk():
    assert decayed_lr(0.01, 0.98, 3) == pytest.approx(0.01 * 0.98**3)
    assert decayed_lr(0.01, 0.98, 3, inert=True) == 0.01  # the authors' StepLR, stepped once per fresh client optimiser


def test_evaluate_counts_correct_predictions():
    model = build_model("mlp", (2,), 2, hidden=())
    params = {"net.1.weight": torch.tensor([[1.0, 0.0], [0.0, 1.0]]), "net.1.bias": torch.zeros(2)}
    acc, loss = evaluate(
        model, params, torch.tensor([[2.0, 0.0], [0.0, 2.0], [1.0, 3.0]]), torch.tensor([0, 1, 0]), batch_size=2
    )
    assert acc == pytest.approx(2 / 3)
    expected = torch.nn.functional.cross_entropy(
        torch.tensor([[2.0, 0.0], [0.0, 2.0], [1.0, 3.0]]), torch.tensor([0, 1, 0])
    )
    assert loss == pytest.approx(float(expected), rel=1e-5)


@pytest.mark.parametrize("width_loss", ["sum", "mean"])
def test_per_step_widths_agree_between_executors(width_loss):
    """Aequa-style steps (full width + one width sampled per client and step, summed or averaged losses) on a slimmable
    CNN with switchable batch norm: the executors agree, and a width's batch-norm copy moves only for clients that
    used it."""
    from fairshare.learning.slimmable import SlimmableCNN, set_width

    grid = (0.25, 0.5, 1.0)
    torch.manual_seed(6)
    model = set_width(SlimmableCNN((1, 8, 8), 10, convs=1, widths=grid), 1.0)
    clients = _clients((1, 8, 8), [16, 24, 8], seed=7)
    sampled = np.random.default_rng(8).choice([0.25, 0.5], size=(3, 3))  # widths 0.25/0.5 per (client, step)
    sampled[2, 0] = 0.25  # client 2 (one step) never trains width 0.5
    widths = lambda i, t: [1.0, float(sampled[i, t])]  # noqa: E731
    start, _, bat = _assert_agree(
        model, clients, TrainSettings(1, 8, 0.05, 0.9, 1e-2, drop_last=True), step_widths=widths, width_loss=width_loss
    )
    assert all(m.width == 1.0 for m in model.modules() if hasattr(type(m), "width"))  # widths restored
    runs = {"batched": bat}
    client2 = runs["batched"][2]
    assert not torch.equal(client2["norms.0.bn.0.weight"], start["norms.0.bn.0.weight"])  # width 0.25: trained
    assert torch.equal(client2["norms.0.bn.1.weight"], start["norms.0.bn.1.weight"])  # width 0.5: never used


@pytest.mark.parametrize("momentum, weight_decay", [(0.0, 0.0), (0.9, 0.0), (0.9, 1e-3)])
def test_sequential_executor_is_torch_sgd_bit_for_bit(momentum, weight_decay):
    """The sequential executor's written-out SGD step gives exactly torch.optim.SGD's parameters."""
    torch.manual_seed(5)
    model = build_model("small_cnn", (1, 8, 8), 10)
    clients = _clients((1, 8, 8), [21, 13], seed=9)
    settings = TrainSettings(2, 8, 0.05, momentum, weight_decay)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    ours = _train(model, clients, settings, "sequential", start)
    for client, i, state in zip(clients, range(2), ours):
        model.load_state_dict(start)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=momentum, weight_decay=weight_decay)
        for idx in batch_plan(len(client), settings, np.random.default_rng(100 + i)):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(client.x[idx]), client.y[idx]).backward()
            opt.step()
        assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())


def test_step_count_is_the_number_of_planned_batches():
    from fairshare.learning.engine import step_count

    for n, settings in (
        (10, TrainSettings(2, 4, 0.1)),
        (12, TrainSettings(1, 4, 0.1)),
        (10, TrainSettings(3, 4, 0.1, drop_last=True)),
    ):
        assert step_count(n, settings) == len(batch_plan(n, settings, np.random.default_rng(0)))


# ------------------------------------------------------------------------------------------- precision and kernels
def _all_executors(model, clients, settings, start):
    runs = {"sequential": _train(model, clients, settings, "sequential", start)}
    for vectorize in (True, False):
        runs[f"batched-{vectorize}"] = _train(model, clients, settings, "batched", start, vectorize=vectorize)
    return runs


@pytest.mark.parametrize("name, options", [("mnist_cnn", {"faithful": True}), ("small_cnn", {}), ("mlp", {})])
def test_bf16_is_deterministic_on_cpu(name, options):
    """Same inputs, same bits, run to run, in every executor; evaluation too."""
    shape = (20,) if name == "mlp" else (1, 16, 16)  # 16x16: the CPU kernels apply (fairshare.learning.kernels)
    torch.manual_seed(7)
    model = build_model(name, shape, 10, **options)
    clients = _clients(shape, SIZES, masks=True, seed=8)
    settings = TrainSettings(2, 8, 0.05, 0.9, 1e-3, absent_class_fill=0.0, precision="bf16")
    start = {k: v.clone() for k, v in model.state_dict().items()}
    first, second = (_all_executors(model, clients, settings, start) for _ in range(2))
    for executor, states in first.items():
        assert all(torch.equal(a[k], b[k]) for a, b in zip(states, second[executor]) for k in a), executor
    x, y = clients[0].x, clients[0].y
    assert evaluate(model, first["sequential"][0], x, y, precision="bf16") == evaluate(
        model, first["sequential"][0], x, y, precision="bf16"
    )


def test_bf16_gives_fp32_results_of_the_same_shape_and_meaning():
    """bf16 changes arithmetic, not semantics: the same keys, shapes, float32 dtype and layout as fp32, parameters
    near fp32's after a few steps (not equal), the model's own weights left in their layout, evaluation in [0, 1]."""
    torch.manual_seed(9)
    model = build_model("mnist_cnn", (1, 16, 16), 10)
    clients = _clients((1, 16, 16), SIZES, seed=10)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    fp32 = _all_executors(model, clients, TrainSettings(1, 8, 0.01, 0.9, 1e-3), start)
    bf16 = _all_executors(model, clients, TrainSettings(1, 8, 0.01, 0.9, 1e-3, precision="bf16"), start)
    assert all(p.is_contiguous() for p in model.parameters())
    for executor in fp32:
        for a, b in zip(fp32[executor], bf16[executor]):
            assert set(a) == set(b)
            for k in a:
                assert b[k].shape == a[k].shape and b[k].dtype == a[k].dtype and b[k].is_contiguous()
                moved = (a[k] - start[k]).norm()
                assert (b[k] - a[k]).norm() <= 0.25 * moved + 1e-6, (executor, k)
            assert any(not torch.equal(a[k], b[k]) for k in a)
    x, y = clients[2].x, clients[2].y
    acc32, loss32 = evaluate(model, fp32["sequential"][2], x, y)
    acc16, loss16 = evaluate(model, fp32["sequential"][2], x, y, precision="bf16")
    assert 0 <= acc16 <= 1 and loss16 == pytest.approx(loss32, rel=0.05)


def test_fp32_is_unchanged_by_the_cpu_kernels_and_amp_is_cuda_only():
    """The sequential fp32 executor (channels-last pooling inside) equals a plain torch loop bit for bit on the
    authors' CNN with masked absent classes; ``amp=True`` on CPU is fp32, as before."""
    torch.manual_seed(11)
    model = build_model("mnist_cnn", (1, 16, 16), 10, faithful=True)
    clients = _clients((1, 16, 16), [21, 13], masks=True, seed=12)
    for c in clients:
        c.x[:, :, :4, :4] = -1.0  # a constant background: ties in the max-pooling windows
    settings = TrainSettings(2, 8, 0.05, 0.9, 1e-3, absent_class_fill=0.0)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    ours = _train(model, clients, settings, "sequential", start)
    gens = [np.random.default_rng(100 + i) for i in range(len(clients))]
    with_amp = local_train(model, start, clients, settings, generators=gens, executor="sequential", amp=True)
    for i, client in enumerate(clients):
        model.load_state_dict(start)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
        for idx in batch_plan(len(client), settings, np.random.default_rng(100 + i)):
            opt.zero_grad()
            out = model(client.x[idx]).masked_fill(~client.class_mask[None, :], 0.0)
            torch.nn.functional.cross_entropy(out, client.y[idx]).backward()
            opt.step()
        assert all(torch.equal(ours[i][k], v) for k, v in model.state_dict().items())
        assert all(torch.equal(with_amp[i][k], v) for k, v in model.state_dict().items())


@pytest.mark.parametrize(
    "name, shape, options",
    [
        ("mnist_cnn", (1, 28, 28), {"faithful": True}),
        ("mlp", (20,), {}),
        ("preact_resnet18", (3, 8, 8), {"width": 2, "track_running_stats": False}),  # batch statistics at eval
    ],
)
def test_evaluate_is_the_plain_batched_loop_bit_for_bit(name, shape, options):
    """evaluate's chunked forward passes (inference mode, channels-last pooling) give exactly the plain loop's
    accuracy and loss at the caller's batch size; a model whose eval output couples a batch's samples keeps whole
    batches."""
    torch.manual_seed(13)
    model = build_model(name, shape, 10, **options)
    g = torch.Generator().manual_seed(14)
    x, y = torch.randn(700, *shape, generator=g), torch.randint(0, 10, (700,), generator=g)
    params = {k: v.clone() for k, v in model.state_dict().items()}
    model.eval()
    correct, loss = 0, 0.0
    with torch.no_grad():
        for s in range(0, 700, 300):
            out = model(x[s : s + 300]).float()
            correct += int((out.argmax(1) == y[s : s + 300]).sum())
            loss += float(torch.nn.functional.cross_entropy(out, y[s : s + 300], reduction="sum"))
    assert evaluate(model, params, x, y, batch_size=300) == (correct / 700, loss / 700)


def test_unknown_precision_is_refused():
    model = build_model("mlp", (4,), 2)
    clients = _clients((4,), [4], n_classes=2)
    with pytest.raises(ValueError, match="precision"):
        _train(model, clients, TrainSettings(1, 4, 0.1, precision="fp16"), "sequential", model.state_dict())
    with pytest.raises(ValueError, match="precision"):
        evaluate(model, model.state_dict(), clients[0].x, clients[0].y, precision="fp16")


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_client_threads_give_every_client_its_one_thread_result(precision):
    """``client_threads=3`` trains five clients in three threads: every client's state equals the plain loop's bit for
    bit (this module runs torch on one thread, as each client thread does), the step widths reach the right clients,
    and torch's thread count is restored afterwards."""
    from fairshare.learning.slimmable import SlimmableCNN, set_width

    torch.manual_seed(11)
    model = set_width(SlimmableCNN((1, 16, 16), 10, convs=2, widths=(0.25, 0.5, 1.0)), 1.0)
    clients = _clients((1, 16, 16), [12, 20, 8, 16, 10], seed=12)
    sampled = np.random.default_rng(13).choice([0.25, 0.5], size=(5, 10))
    widths = lambda i, t: [1.0, float(sampled[i, t])]  # noqa: E731
    start = {k: v.clone() for k, v in model.state_dict().items()}
    runs = {}
    for threads in (1, 3):
        settings = TrainSettings(2, 8, 0.05, 0.9, 1e-3, precision=precision, client_threads=threads)
        runs[threads] = _train(model, clients, settings, "sequential", start, step_widths=widths)
    assert torch.get_num_threads() == 1
    for one, three in zip(runs[1], runs[3]):
        assert one.keys() == three.keys() and all(torch.equal(one[k], three[k]) for k in one)
    assert not torch.equal(runs[3][0]["convs.0.weight"], runs[3][1]["convs.0.weight"])


def test_client_threads_keep_the_plain_loop_for_dropout():
    """Dropout masks come from torch's global generator, which threads would draw from in any order: such models
    train client after client, so a seeded run gives the same bits with or without client threads."""
    model = nn.Sequential(nn.Flatten(), nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 10))
    clients = _clients((16,), [24, 16, 20], seed=14)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    runs = []
    for threads in (1, 2):
        torch.manual_seed(15)
        runs.append(_train(model, clients, TrainSettings(2, 8, 0.1, client_threads=threads), "sequential", start))
    assert all(torch.equal(a[k], b[k]) for a, b in zip(*runs) for k in a)
