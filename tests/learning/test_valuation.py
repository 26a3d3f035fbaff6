"""Coalition valuation on real data (scikit-learn digits): determinism, same init, data modes."""
from __future__ import annotations

import numpy as np
import pytest

from fairshare import seeding
from fairshare.data.datasets import build_dataset
from fairshare.data.partition import label_range
from fairshare.learning.valuation import coalition_indices, train_and_score


@pytest.fixture(scope="module")
def digits():
    return build_dataset("digits", rng=seeding.generator(0, "dataset"))


def _score(ds, idx, seed=0):
    return train_and_score(ds.x_train, ds.y_train, ds.x_test, ds.y_test, idx, n_classes=10, epochs=3, batch_size=64, lr=1e-3,
                           init_seed=seed, order_rng=np.random.default_rng(seed))


def test_deterministic_and_more_data_helps(digits):
    parties = label_range(digits.y_train, [[0, 2], [3, 5], [6, 9]]).client_indices
    one = coalition_indices(parties, 0b001)
    everyone = coalition_indices(parties, 0b111)
    a, b = _score(digits, one), _score(digits, one)
    assert a == b  # same init, same order: bit-identical on CPU
    assert a <= 0.35  # a model that saw only labels 0-2 cannot exceed their test share by much
    assert _score(digits, everyone) > 0.6 > 2 * a  # all ten classes: far above any one party


def test_concat_keeps_duplicates_union_does_not(digits):
    parties = label_range(digits.y_train, [[0, 3], [3, 5]]).client_indices
    concat, union = coalition_indices(parties, 0b11, "concat"), coalition_indices(parties, 0b11, "union")
    assert len(concat) - len(union) == np.sum(digits.y_train == 3)
    with pytest.raises(ValueError, match="empty coalition"):
        coalition_indices(parties, 0)
