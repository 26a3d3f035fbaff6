"""The batched executor's stacked masked-width pass for slimmable MLPs (``fairshare.learning.cohort.Cohort.masked_width_steps``): every
client's Aequa step at once, each at its own width, against the client loop that slices each width."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

from fairshare import seeding
from fairshare.learning import aequa as aq
from fairshare.learning.engine import ClientData, TrainSettings, local_train, vmap_pays
from fairshare.learning.rounds import run_rounds
from fairshare.learning.slimmable import SlimmableCNN, SlimmableMLP, set_width, stacked_mlp_forward

REPO = Path(__file__).resolve().parents[2]
# float32 parameters after one local phase: the masked products add exact zeros in another order than the slices
TOLERANCE = 1e-6


class Killed(Exception):
    pass


def _clients(sizes, features=8, classes=10, seed=0, class_masks=False):
    g = torch.Generator().manual_seed(seed)
    out = []
    for n in sizes:
        x = torch.randn(n, features, generator=g)
        y = torch.randint(0, classes, (n,), generator=g)
        mask = torch.zeros(classes, dtype=torch.bool).index_fill_(0, y.unique(), True) if class_masks else None
        out.append(ClientData(x, y, mask))
    return out


def _state(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _widths(seed):
    def widths(i, t):  # full + one random width, or a lone random width (a client with one pass): a function of (i, t)
        p = float(np.random.default_rng([seed, i, t]).uniform(0.05, 1.0))
        return [1.0, p] if (i + t) % 3 else [p]

    return widths


def _train(model, start, clients, settings, executor, widths, width_loss="sum"):
    return local_train(
        model,
        start,
        clients,
        settings,
        generators=[np.random.default_rng(100 + i) for i in range(len(clients))],
        executor=executor,
        step_widths=widths,
        width_loss=width_loss,
    )


def _gap(a, b):
    return max((x[k] - y[k]).abs().max().item() for x, y in zip(a, b) for k in x)


def test_stacked_forward_equals_each_sliced_sub_network():
    torch.manual_seed(0)
    model = SlimmableMLP((8,), 10)
    widths = [1.0, 0.05, 0.31, 0.77]
    x = torch.randn(len(widths), 16, 8)
    stacked = {n: p.detach().expand(len(widths), *p.shape) for n, p in model.named_parameters()}
    out = stacked_mlp_forward(model, stacked, x, widths)
    for i, p in enumerate(widths):
        set_width(model, p)
        assert torch.allclose(out[i], model(x[i]), atol=1e-6), p
    set_width(model, 1.0)


@pytest.mark.parametrize("width_loss", ["sum", "mean"])
@pytest.mark.parametrize("class_masks", [False, True])
def test_stacked_pass_trains_what_the_client_loop_trains(width_loss, class_masks):
    torch.manual_seed(1)
    model = SlimmableMLP((8,), 10)
    start = _state(model)
    # uneven sizes: short last batches (padded in the stack) and clients that stop early
    clients = _clients([70, 33, 150, 9, 64], class_masks=class_masks)
    settings = TrainSettings(
        epochs=2,
        batch_size=32,
        lr=0.05,
        momentum=0.9,
        weight_decay=5e-4,
        absent_class_fill=0.0 if class_masks else None,
    )
    loop = _train(model, start, clients, settings, "sequential", _widths(3), width_loss)
    stacked = _train(model, start, clients, settings, "batched", _widths(3), width_loss)
    moved = _gap(loop, [start] * len(clients))
    assert moved > 1e-2  # training happened
    assert _gap(loop, stacked) < TOLERANCE


def test_a_wrong_width_is_seen():
    """The comparison above can fail: the stacked pass at other widths is far from the client loop."""
    torch.manual_seed(1)
    model = SlimmableMLP((8,), 10)
    start = _state(model)
    clients = _clients([64, 40])
    settings = TrainSettings(epochs=1, batch_size=32, lr=0.05, momentum=0.9)
    loop = _train(model, start, clients, settings, "sequential", lambda i, t: [1.0, 0.3])
    stacked = _train(model, start, clients, settings, "batched", lambda i, t: [1.0, 0.6])
    assert _gap(loop, stacked) > 100 * TOLERANCE


def test_each_client_in_the_stack_trains_as_it_would_alone():
    torch.manual_seed(2)
    model = SlimmableMLP((8,), 10)
    start = _state(model)
    clients = _clients([50, 90, 31])
    settings = TrainSettings(epochs=1, batch_size=32, lr=0.05, momentum=0.9)
    widths = _widths(5)
    together = _train(model, start, clients, settings, "batched", widths)
    for i, client in enumerate(clients):
        alone = local_train(
            model,
            start,
            [client],
            settings,
            generators=[np.random.default_rng(100 + i)],
            executor="batched",
            step_widths=lambda _, t, i=i: widths(i, t),
        )
        assert _gap(alone, [together[i]]) < TOLERANCE


def test_only_small_slimmable_mlps_stack_their_widths_on_cpu():
    assert vmap_pays(SlimmableMLP((8,), 10), "cpu", per_client_widths=True)
    assert not vmap_pays(SlimmableMLP((784,), 10), "cpu", per_client_widths=True)  # 118 k parameters: the loop
    assert not vmap_pays(SlimmableCNN((1, 8, 8), 10, convs=1), "cpu", per_client_widths=True)


def _aequa_run(checkpoint, rounds, kill_after=None):
    torch.manual_seed(0)
    model = aq.build_slimmable_model("aequa_mlp", (8,), 10)
    init = _state(model)
    step = aq.aequa_step(
        model,
        _clients([40, 75, 20, 60]),
        TrainSettings(epochs=1, batch_size=16, lr=0.05, momentum=0.9),
        order_rng=lambda r, i: seeding.generator(7, "order", r, i),
        width_rng=lambda r, i: seeding.generator(7, "width", r, i),
        p_min=0.1,
        executor="batched",
    )

    def on_round(done):
        if done == kill_after:
            raise Killed

    state, rows = run_rounds(
        step, init, rounds, settings="test", checkpoint=checkpoint, progress=False, on_round=on_round
    )
    return state


def test_a_killed_stacked_job_resumes_to_the_same_state(tmp_path):
    whole = _aequa_run(tmp_path / "whole.pt", 4)
    with pytest.raises(Killed):
        _aequa_run(tmp_path / "killed.pt", 4, kill_after=2)
    resumed = _aequa_run(tmp_path / "killed.pt", 4)
    assert all(torch.equal(whole[k], resumed[k]) for k in whole)


def test_the_bench_compares_both_ways_and_refuses_a_gap_above_its_tolerance(capsys):
    spec = importlib.util.spec_from_file_location("bench_aequa_stacking", REPO / "bench" / "aequa_stacking.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--rounds", "1", "--repeats", "1"])
    out = capsys.readouterr().out
    assert "client loop / stacked CPU-seconds:" in out
    with pytest.raises(SystemExit, match="more than --tolerance"):
        bench.main(["--rounds", "1", "--repeats", "1", "--tolerance", "0"])
