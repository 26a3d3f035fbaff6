"""Smoke-profile stand-ins have each paper dataset's exact layout and are reproducible."""

from __future__ import annotations

import numpy as np
import pytest

from fairshare.data.stand_in import IMAGE_LAYOUTS, stand_in_dataset


@pytest.mark.parametrize("name", sorted(IMAGE_LAYOUTS))
def test_image_stand_in_has_the_dataset_layout(name):
    ds = stand_in_dataset(name, n_train=12, n_test=5, seed=3)
    shape, n_classes = IMAGE_LAYOUTS[name]
    assert ds.x_train.shape == (12, *shape) and ds.x_test.shape == (5, *shape)
    assert ds.x_train.dtype == np.uint8 and ds.y_train.dtype == np.int64
    assert ds.n_classes == n_classes and ds.y_train.max() < n_classes
    again = stand_in_dataset(name, n_train=12, n_test=5, seed=3)
    assert np.array_equal(ds.x_train, again.x_train) and np.array_equal(ds.y_test, again.y_test)
    assert not np.array_equal(ds.x_train[:5], ds.x_test)  # train and test draw different images


def test_text_stand_in_has_sst_layout():
    ds = stand_in_dataset("sst", n_train=20, n_test=6, seed=0)
    assert ds.x_train.shape == (20, 56) and ds.x_train.dtype == np.int64 and ds.n_classes == 5


def test_unknown_dataset_is_refused():
    with pytest.raises(ValueError, match="no stand-in"):
        stand_in_dataset("imagenet", n_train=1, n_test=1, seed=0)
