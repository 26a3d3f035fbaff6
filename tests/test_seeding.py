import numpy as np
import pytest

from fairshare import seeding


def test_streams_are_reproducible_and_independent():
    a = seeding.generator(5, "partition").random(4)
    assert np.array_equal(a, seeding.generator(5, "partition").random(4))
    assert not np.array_equal(a, seeding.generator(5, "init").random(4))
    assert not np.array_equal(a, seeding.generator(6, "partition").random(4))
    assert not np.array_equal(
        seeding.generator(5, "sampling", 0).random(4), seeding.generator(5, "sampling", 1).random(4)
    )


def test_integer_seed_range_and_stability():
    s = seeding.integer_seed(1, "init", 3)
    assert 0 <= s < 2**63 and s == seeding.integer_seed(1, "init", 3)


def test_negative_seed_rejected():
    with pytest.raises(ValueError, match="non-negative"):
        seeding.generator(-1, "init")
