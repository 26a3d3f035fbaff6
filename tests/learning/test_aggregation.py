"""Server aggregation: data-size weighting, uniform averaging, masked per-coordinate averaging of sub-networks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fairshare.learning.aggregation import masked_average, uniform_average, weighted_average

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _states(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [
        {"w": torch.randn(3, 4, generator=g), "b": torch.randn(4, generator=g), "count": torch.tensor(5 + k)}
        for k in range(n)
    ]


def test_weighted_average_by_data_size():
    a = {"w": torch.tensor([1.0, 2.0])}
    b = {"w": torch.tensor([3.0, 6.0])}
    assert torch.allclose(
        weighted_average([a, b], [1, 3])["w"], torch.tensor([2.5, 5.0])
    )  # (1*1 + 3*3) / 4, (2 + 18) / 4
    states, sizes = _states(4), [120, 80, 300, 7]
    out = weighted_average(states, sizes)
    expected = sum(n * s["w"].double() for n, s in zip(sizes, states)) / sum(sizes)
    assert torch.allclose(out["w"].double(), expected, atol=1e-6)
    assert out["w"].dtype == torch.float32 and out["count"].dtype == states[0]["count"].dtype
    assert int(out["count"]) == round(sum(n * (5 + k) for k, n in enumerate(sizes)) / sum(sizes))  # integers rounded
    # scaling all weights does not change the result; a zero weight removes a client
    assert torch.allclose(weighted_average(states, [10 * n for n in sizes])["w"], out["w"])
    assert torch.allclose(weighted_average(states, [1, 0, 0, 0])["w"], states[0]["w"])


def test_uniform_average_is_the_mean():
    states = _states(5, seed=1)
    assert torch.allclose(uniform_average(states)["b"], torch.stack([s["b"] for s in states]).mean(0), atol=1e-6)


@pytest.mark.parametrize("weights", [[0, 0], [1], [-1, 2]])
def test_weighted_average_rejects_bad_weights(weights):
    with pytest.raises(ValueError):
        weighted_average(_states(2), weights)
    with pytest.raises(ValueError):
        weighted_average([], [])


def test_masked_average_of_nested_subnetworks():
    """Clients hold the first 1, 2 or 4 of 4 columns (nested widths): each coordinate is averaged over its holders,
    weighted by their sample counts; a coordinate nobody holds keeps the previous global value."""
    rng = np.random.default_rng(0)
    states = [{"w": torch.as_tensor(rng.normal(size=(2, 4)))} for _ in range(3)]
    held, sizes = [1, 2, 3], [10.0, 30.0, 60.0]
    masks = []
    for h, n in zip(held, sizes):
        m = torch.zeros(2, 4, dtype=torch.float64)
        m[:, :h] = n
        masks.append({"w": m})
    previous = {"w": torch.full((2, 4), 7.0, dtype=torch.float64)}
    out = masked_average(states, masks, previous)["w"]
    for col in range(4):
        holders = [k for k in range(3) if held[k] > col]
        if not holders:
            assert torch.all(out[:, col] == 7.0)
            continue
        expected = sum(sizes[k] * states[k]["w"][:, col] for k in holders) / sum(sizes[k] for k in holders)
        assert torch.allclose(out[:, col], expected)
    # with full masks it is the weighted average
    full = [{"w": torch.full((2, 4), n, dtype=torch.float64)} for n in sizes]
    assert torch.allclose(masked_average(states, full, previous)["w"], weighted_average(states, sizes)["w"])
    with pytest.raises(ValueError):
        masked_average(states, masks[:2], previous)
