"""Coalition valuation on real data (scikit-learn digits): the optimiser, the fixed initialisation, determinism,
checkpoint and resume, coalition data modes."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from fairshare import seeding
from fairshare.data.datasets import build_dataset
from fairshare.data.partition import label_range
from fairshare.learning.rounds import read_checkpoint
from fairshare.learning.valuation import Adam, coalition_indices, initial_model, train_and_score


@pytest.fixture(scope="module")
def digits():
    return build_dataset("digits", rng=seeding.generator(0, "dataset"))


def _score(ds, idx, seed=0, epochs=3, **kwargs):
    kwargs.setdefault("order_rng", np.random.default_rng(seed))
    return train_and_score(
        ds.x_train,
        ds.y_train,
        ds.x_test,
        ds.y_test,
        idx,
        n_classes=10,
        epochs=epochs,
        batch_size=64,
        lr=1e-3,
        init_seed=seed,
        **kwargs,
    )


def test_adam_matches_torch_optim_adam():
    ours = initial_model(20, 3, (8,), seed=1)
    reference = copy.deepcopy(ours)
    opt_ours, opt_ref = Adam(ours.parameters(), lr=1e-2), torch.optim.Adam(reference.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(0)
    for _ in range(30):
        x, y = torch.randn(16, 20, generator=g), torch.randint(0, 3, (16,), generator=g)
        for model, opt in ((ours, opt_ours), (reference, opt_ref)):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    for p, q in zip(ours.parameters(), reference.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-6, atol=1e-7)


def test_adam_state_round_trip():
    model = initial_model(6, 2, (4,), seed=0)
    opt = Adam(model.parameters())
    torch.nn.functional.cross_entropy(model(torch.ones(3, 6)), torch.tensor([0, 1, 1])).backward()
    opt.step()
    saved = opt.state_dict()
    fresh = Adam(initial_model(6, 2, (4,), seed=0).parameters())
    fresh.load_state_dict(saved)
    assert fresh.t == 1 and all(torch.equal(a, b) for a, b in zip(fresh.m + fresh.v, opt.m + opt.v))
    opt.step()  # the saved copy does not follow later steps
    assert not torch.equal(saved["m"][0], opt.m[0])


def test_checkpointed_training_equals_plain_training_and_resumes_a_finished_run(digits, tmp_path):
    parties = label_range(digits.y_train, [[0, 4], [5, 9]]).client_indices
    idx = coalition_indices(parties, 0b01)
    plain = _score(digits, idx)
    checkpoint, rng = tmp_path / "job.pt", np.random.default_rng(0)
    assert _score(digits, idx, order_rng=rng, checkpoint=checkpoint, settings="s") == plain
    assert read_checkpoint(checkpoint)["round"] == 3
    # a rerun finds every epoch done: it trains nothing, restores the model and the order generator's state
    again = np.random.default_rng(0)
    assert _score(digits, idx, order_rng=again, checkpoint=checkpoint, settings="s") == plain
    assert again.bit_generator.state == rng.bit_generator.state


def test_one_fixed_initialisation_that_leaves_the_global_rng_alone():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a, b, c = initial_model(64, 10, (64, 64), 5), initial_model(64, 10, (64, 64), 5), initial_model(64, 10, (64, 64), 6)
    assert torch.rand(1) == before
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a[1].weight, c[1].weight)
    assert a[1].in_features == 64 and a[-1].out_features == 10  # 64 inputs for 8x8 digits, 784 for MNIST


def test_deterministic_and_more_data_helps(digits):
    parties = label_range(digits.y_train, [[0, 2], [3, 5], [6, 9]]).client_indices
    one, everyone = coalition_indices(parties, 0b001), coalition_indices(parties, 0b111)
    a, b = _score(digits, one), _score(digits, one)
    assert a == b  # same initialisation, same order: identical on CPU
    share = np.isin(digits.y_test, [0, 1, 2]).mean()
    assert a <= share + 1e-12  # a model that saw labels 0-2 only is right on at most their test share
    assert _score(digits, everyone) > 0.6 > 2 * a


def test_concat_keeps_duplicates_union_does_not(digits):
    parties = label_range(digits.y_train, [[0, 3], [3, 5]]).client_indices
    concat, union = coalition_indices(parties, 0b11, "concat"), coalition_indices(parties, 0b11, "union")
    assert len(concat) - len(union) == np.sum(digits.y_train == 3)
    with pytest.raises(ValueError, match="empty coalition"):
        coalition_indices(parties, 0)
    with pytest.raises(ValueError, match="concat or union"):
        coalition_indices(parties, 1, "merge")
