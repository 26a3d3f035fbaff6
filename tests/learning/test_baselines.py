"""Baselines of the Aequa paper: standalone, FedAvg-FT, CGSV, IAFL (most fair)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fairshare.learning import baselines
from fairshare.learning.engine import ClientData, TrainSettings, local_train
from fairshare.learning.evaluation import balanced_accuracy_of
from fairshare.learning.rounds import run_rounds
from fairshare.learning.slimmable import SlimmableMLP

SETTINGS = TrainSettings(epochs=1, batch_size=16, lr=0.05, momentum=0.9)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def order(r, i):
    return np.random.default_rng([r, i])


@pytest.fixture(scope="module")
def setup():
    from sklearn.datasets import load_digits

    d = load_digits()
    x = torch.as_tensor(d.images.reshape(len(d.images), -1) / 8.0 - 1.0, dtype=torch.float32)
    y = torch.as_tensor(d.target, dtype=torch.long)
    clients = [ClientData(x[a:b], y[a:b]) for a, b in ((0, 200), (200, 300), (300, 340))]
    torch.manual_seed(0)
    model = SlimmableMLP((64,), 10, hidden=(32,))
    return model, {k: v.clone() for k, v in model.state_dict().items()}, clients, (x[1400:], y[1400:])


def _rounds(step, start, rounds: int):
    """A method's final state after ``rounds`` rounds of its step, as the pipeline (and a notebook) runs it."""
    return run_rounds(step, start, rounds, settings="", progress=False)[0]


def _fedavg(model, init, clients, rounds: int):
    return _rounds(baselines.fedavg_step(model, clients, SETTINGS, order, executor="sequential"), init, rounds)


def _iafl(model, init, clients, rounds: int, contributions, sampling, **options) -> dict:
    step = baselines.iafl_step(model, clients, SETTINGS, order, contributions, sampling, **options)
    return _rounds(step, baselines.iafl_start(init, clients), rounds)


def _cgsv(model, init, clients, rounds: int, **options) -> dict:
    step = baselines.cgsv_step(model, clients, SETTINGS, order, **options)
    return _rounds(step, baselines.cgsv_start(init, clients), rounds)


def _standalone(model, init, clients, epochs: int, lr_at=None) -> list:
    phases = baselines.standalone_phases(epochs, SETTINGS.lr, lr_at)
    step = baselines.standalone_step(model, clients, SETTINGS, order, phases, executor="sequential")
    return _rounds(step, [init] * len(clients), len(phases))


def _close(a, b, atol=1e-5):
    return all(torch.allclose(a[k], b[k], atol=atol) for k in a)


def test_sparsify_keeps_the_largest_fraction_per_tensor():
    upd = {"w": torch.tensor([[0.1, -5.0], [2.0, 0.3]]), "b": torch.tensor([1.0, -2.0, 3.0])}
    out = baselines.sparsify(upd, 0.5)
    assert out["w"].tolist() == [[0.0, -5.0], [2.0, 0.0]]
    assert out["b"].tolist() == [0.0, -2.0, 3.0]  # ceil(0.5 * 3) = 2 entries kept
    assert torch.equal(baselines.sparsify(upd, 1.0)["w"], upd["w"])


def test_standalone_is_local_training_for_all_epochs(setup):
    model, init, clients, _ = setup
    alone = _standalone(model, init, clients, 3)
    ref = local_train(
        model,
        init,
        clients,
        TrainSettings(3, 16, 0.05, 0.9),
        generators=[order(0, i) for i in range(3)],
        executor="sequential",
    )
    assert all(_close(a, r) for a, r in zip(alone, ref))
    staged = _standalone(model, init, clients, 3, lr_at=lambda e: 0.05 if e < 2 else 0.005)
    assert not _close(staged[0], alone[0])  # the learning-rate drop after epoch 2 changes the result


def test_iafl_with_equal_contributions_is_fedavg(setup):
    model, init, clients, _ = setup
    glob = _fedavg(model, init, clients, 2)
    state = _iafl(model, init, clients, 2, [0.8, 0.8, 0.8], lambda r: np.random.default_rng(r), executor="sequential")
    assert _close(state["server"], glob) and all(_close(s, glob) for s in state["locals"])


def test_iafl_low_contributors_receive_fewer_updates(setup):
    model, init, clients, (xt, yt) = setup
    state = _iafl(model, init, clients, 2, [0.9, 0.5, 0.1], lambda r: np.random.default_rng(r), executor="sequential")
    server, locals_ = state["server"], state["locals"]
    assert _close(locals_[0], server)  # the top contributor receives every update (gamma = 1)
    assert not _close(locals_[2], server)  # gamma = 1/9: only ceil(2/9) = 1 other update


def test_fedavg_ft_fine_tunes_the_global_model_on_each_client(setup):
    model, init, clients, _ = setup
    glob = _fedavg(model, init, clients, 2)
    tuned = baselines.finetune(model, glob, clients, SETTINGS, 1, order, 2, executor="sequential")
    ref = local_train(model, glob, clients, SETTINGS, generators=[order(2, i) for i in range(3)], executor="sequential")
    assert all(_close(t, r) for t, r in zip(tuned, ref)) and not _close(tuned[0], tuned[1])


def test_cgsv_reputations_and_contribution_dependent_rewards(setup):
    model, init, clients, (xt, yt) = setup
    state = _cgsv(model, init, clients, 3, gamma=0.5)
    server, locals_, reps = state["server"], state["locals"], np.array(state["history"])
    assert reps.shape == (3, 3) and np.allclose(reps.sum(axis=1), 1.0) and np.all(reps >= 1e-3 / 1.01)
    keys = [n for n, _ in model.named_parameters()]
    step = torch.cat([(server[k] - init[k]).flatten() for k in keys]).norm()
    assert step <= 3 * 0.5 + 1e-5  # three aggregated updates of normalised (norm-Gamma) uploads
    top = int(np.argmax(reps[-1]))
    assert _close(
        {k: locals_[top][k] for k in keys}, {k: server[k] for k in keys}
    )  # the top reputation gets the full update
    acc = balanced_accuracy_of(model, server, xt, yt, 10)
    assert 0.0 <= acc <= 1.0


def test_steps_through_the_round_driver_resume_exactly(setup, tmp_path):
    """A CGSV run interrupted after round 2 and resumed from its checkpoint reaches the uninterrupted run's state."""
    model, init, clients, _ = setup
    step = baselines.cgsv_step(model, clients, SETTINGS, order, gamma=0.5, executor="sequential")

    def interrupted(r, state):
        if r == 2:
            raise KeyboardInterrupt
        return step(r, state)

    whole, _ = run_rounds(step, baselines.cgsv_start(init, clients), 4, settings="s", progress=False)
    with pytest.raises(KeyboardInterrupt):
        run_rounds(
            interrupted,
            baselines.cgsv_start(init, clients),
            4,
            settings="s",
            checkpoint=tmp_path / "c.pt",
            progress=False,
        )
    part, _ = run_rounds(
        step, baselines.cgsv_start(init, clients), 4, settings="s", checkpoint=tmp_path / "c.pt", progress=False
    )
    assert all(torch.equal(part["server"][k], whole["server"][k]) for k in whole["server"])
    assert all(torch.equal(a[k], b[k]) for a, b in zip(part["locals"], whole["locals"]) for k in a)


@pytest.fixture(scope="module")
def bn_setup(digits_tensors):
    """A slimmable ResNet-18 (running statistics in every switchable batch norm) on three clients of 8x8 digits."""
    from fairshare.learning.slimmable import SlimmableResNet18

    x, y = digits_tensors
    x = x.expand(-1, 3, -1, -1).contiguous()
    clients = [ClientData(x[a:b], y[a:b]) for a, b in ((0, 32), (32, 48), (48, 56))]
    torch.manual_seed(0)
    model = SlimmableResNet18((3, 8, 8), 10, widths=[0.5, 1.0], base=2)
    return model, {k: v.clone() for k, v in model.state_dict().items()}, clients


def _bn_stats(state: dict) -> dict:
    """The full-width batch norms' running statistics (width 0.5's copies are never trained at full width)."""
    return {k: v for k, v in state.items() if ".bn.1.running_" in k or k.endswith(".bn.1.num_batches_tracked")}


def test_cgsv_carries_batch_norm_statistics_as_fedavg_does(bn_setup):
    """Issue 19: CGSV updated only named_parameters, so ResNet-18's running statistics never left their initial
    values. After one round the server and every reward model carry the clients' trained statistics, averaged by
    data size: FedAvg's statistics, bit for bit."""
    model, init, clients = bn_setup
    step = baselines.cgsv_step(model, clients, SETTINGS, order, gamma=0.5, executor="sequential")
    state, _, _ = step(0, baselines.cgsv_start(init, clients))
    expected = _bn_stats(baselines.fedavg_step(model, clients, SETTINGS, order, executor="sequential")(0, init)[0])
    assert expected
    for m in [state["server"], *state["locals"]]:
        stats = _bn_stats(m)
        assert all(not torch.equal(stats[k], init[k]) for k in stats if "running_" in k)  # every statistic moved
        assert _close(stats, expected, atol=0)


def test_iafl_carries_the_statistics_of_the_updates_each_client_receives(bn_setup):
    """IAFL: client i's statistics pool those of the clients whose updates it receives (contribution 0: its own
    only), the server's pool every participant's."""
    model, init, clients = bn_setup
    step = baselines.iafl_step(
        model, clients, SETTINGS, order, [0.9, 0.9, 0.0], lambda r: np.random.default_rng(r), executor="sequential"
    )
    state, _, _ = step(0, baselines.iafl_start(init, clients))
    trained = local_train(
        model, init, clients, SETTINGS, generators=[order(0, i) for i in range(3)], executor="sequential"
    )
    keys = list(_bn_stats(init))
    everyone = baselines.pooled_buffers(trained, [32, 16, 8], keys)
    assert _close(_bn_stats(state["server"]), everyone, atol=0)
    assert _close(_bn_stats(state["locals"][2]), _bn_stats(trained[2]), atol=0)  # gamma = 0: nobody else's update
    assert _close(_bn_stats(state["locals"][0]), everyone, atol=0)  # gamma = 1: every participant's update
    for m in [state["server"], *state["locals"]]:
        assert all(not torch.equal(m[k], init[k]) for k in keys if "running_" in k)


def test_iafl_with_all_contributions_zero_shares_fully(setup):
    """Chance-level standalone models can all score 0 (the smoke profile's stand-ins): equal contributions, so
    IAFL is FedAvg, as with any equal contributions (it used to fail on 0/0)."""
    model, init, clients, _ = setup
    zero = _iafl(model, init, clients, 1, [0.0, 0.0, 0.0], np.random.default_rng)["locals"]
    equal = _iafl(model, init, clients, 1, [0.5, 0.5, 0.5], np.random.default_rng)["locals"]
    assert all(_close(a, b, atol=0) for a, b in zip(zero, equal))
