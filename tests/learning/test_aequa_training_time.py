"""Aequa extensions on real data (scikit-learn digits): partial participation in every reward method, and
training-time rewards (Algorithm 2): scores, width mapping, masked averaging and a free-rider getting a smaller model."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fairshare.learning import baselines
from fairshare.learning.aequa import aequa_step
from fairshare.learning.aequa_training_time import (
    last_layer_keys,
    slice_scores,
    training_time_start,
    training_time_step,
    widths_from_contributions,
)
from fairshare.learning.engine import ClientData, TrainSettings
from fairshare.learning.rounds import run_rounds
from fairshare.learning.slimmable import SlimmableCNN, SlimmableMLP

SETTINGS = TrainSettings(epochs=1, batch_size=16, lr=0.05, momentum=0.9)


def _clients(x, y, n, size=120):
    return [ClientData(x[i * size : (i + 1) * size], y[i * size : (i + 1) * size]) for i in range(n)]


def _order(r, i):
    return np.random.default_rng([7, r, i])


def _rounds(step, start, rounds: int):
    """A method's final state after ``rounds`` rounds of its step, as the pipeline (and a notebook) runs it."""
    return run_rounds(step, start, rounds, settings="", progress=False)[0]


def _fedavg(model, init, clients, order, participants=None):
    step = baselines.fedavg_step(model, clients, SETTINGS, order, executor="sequential", participants=participants)
    return _rounds(step, init, 2)


def _aequa(model, init, clients, order, width_rng, participants=None):
    step = aequa_step(
        model, clients, SETTINGS, order_rng=order, width_rng=width_rng, p_min=0.3, participants=participants
    )
    return _rounds(step, init, 2)


def _mlp_and_init():
    """A small slimmable MLP with a fixed initialisation, and that initial state."""
    torch.manual_seed(0)
    model = SlimmableMLP((1, 8, 8), 10, hidden=(32,))
    return model, {k: v.clone() for k, v in model.state_dict().items()}


def test_widths_follow_normalised_contributions():
    assert np.allclose(widths_from_contributions([0.5, 1.0, 0.05], 0.2), [0.5, 1.0, 0.2])
    assert np.allclose(widths_from_contributions([0.5, 1.0, 0.05], 0.2, grid=[0.2, 0.45, 0.7, 1.0]), [0.45, 1.0, 0.2])
    assert np.allclose(widths_from_contributions([0.0, 0.0], 0.25), [1.0, 1.0])


def test_slice_scores_are_cosines_with_the_weighted_sum():
    u = [torch.tensor([1.0, 0.0]), torch.tensor([1.0, 0.0]), torch.tensor([-1.0, 0.0])]
    assert np.allclose(slice_scores(u, [1, 1, 1]), [1, 1, -1])
    assert np.allclose(
        slice_scores([torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])], [3, 1]), [3 / np.sqrt(10), 1 / np.sqrt(10)]
    )


def test_last_layer_keys_are_the_classifier_end():
    model = SlimmableCNN((1, 8, 8), 10, convs=1)
    names = [n for n, _ in model.named_parameters()]
    assert last_layer_keys(model, 1) == names[-2:]
    assert last_layer_keys(model, 2) == names[-4:]
    with pytest.raises(ValueError):
        last_layer_keys(model, 0)


def test_everyone_participating_equals_full_participation(digits_tensors):
    x, y = digits_tensors
    clients = _clients(x, y, 3)
    model, init = _mlp_and_init()
    plain = _fedavg(model, init, clients, _order)
    everyone = _fedavg(model, init, clients, _order, participants=lambda r: np.arange(3))
    for k in plain:
        assert torch.equal(plain[k], everyone[k])


def test_absent_clients_do_not_shape_the_model(digits_tensors):
    """A client that never joins leaves FedAvg, CGSV and Aequa exactly as if it did not exist."""
    x, y = digits_tensors
    clients = _clients(x, y, 3)
    model, init = _mlp_and_init()
    skip_first = lambda r: np.array([1, 2])  # noqa: E731
    shifted = lambda r, i: _order(r, i + 1)  # noqa: E731
    assert all(
        torch.equal(a, b)
        for a, b in zip(
            _fedavg(model, init, clients, _order, participants=skip_first).values(),
            _fedavg(model, init, clients[1:], shifted).values(),
        )
    )
    cgsv = baselines.cgsv_step(model, clients, SETTINGS, _order, executor="sequential", participants=skip_first)
    state = _rounds(cgsv, baselines.cgsv_start(init, clients), 2)
    locals_, reputation = state["locals"], np.array(state["history"])
    assert all(torch.equal(locals_[0][k], init[k]) for k in init)  # the absent client received nothing
    assert not any(torch.equal(locals_[1][k], init[k]) for k in init if k.endswith("weight"))
    assert reputation.shape == (2, 3) and np.isclose(reputation[-1].sum(), 1.0)
    width_rng = lambda r, i: np.random.default_rng([9, r, i])  # noqa: E731
    a = _aequa(model, init, clients, _order, width_rng, participants=skip_first)
    b = _aequa(model, init, clients[1:], shifted, lambda r, i: width_rng(r, i + 1))
    assert all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("ca", ["cgsv", "shapfed"])
def test_a_label_noise_free_rider_gets_the_smallest_model(digits_tensors, ca):
    """Client 0 trains on shuffled labels: its min-width update disagrees with the others', so its contribution and
    width fall below every honest client's, while honest clients keep (nearly) the full model."""
    x, y = digits_tensors
    clients = _clients(x, y, 4, size=150)
    noisy = clients[0].y[torch.randperm(len(clients[0].y), generator=torch.Generator().manual_seed(0))]
    clients[0] = ClientData(clients[0].x, noisy)
    torch.manual_seed(0)
    model = SlimmableCNN((1, 8, 8), 10, convs=1)
    init = {k: v.clone() for k, v in model.state_dict().items()}

    def algorithm_2() -> dict:
        step = training_time_step(
            model,
            clients,
            SETTINGS,
            order_rng=_order,
            width_rng=lambda r, i: np.random.default_rng([3, r, i]),
            p_min=0.2,
            ca=ca,
            beta=0.5,
        )
        seen = []

        def recorded(r, state):  # the state holds only the latest round's values; the test keeps every round's
            state, metrics, samples = step(r, state)
            seen.append((state["widths"].copy(), state["contributions"].copy(), np.asarray(state["scores"])))
            return state, metrics, samples

        run = _rounds(recorded, training_time_start(init, len(clients), 0.2), 6)
        return {**run, "widths_by_round": np.array([w for w, _, _ in seen]), "seen": seen}

    run = algorithm_2()
    widths = run["widths_by_round"]
    assert widths.shape == (6, 4) and all(c.shape == (4,) and sc.shape == (4,) for _, c, sc in run["seen"])
    final = widths[-1]
    assert np.all((final >= 0.2) & (final <= 1.0)) and final.max() == 1.0
    assert final[0] < final[1:].min()
    again = algorithm_2()
    assert all(torch.equal(run["model"][k], again["model"][k]) for k in run["model"])
