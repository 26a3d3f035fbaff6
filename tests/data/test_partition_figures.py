"""The partitions overview: one bar per client whose length is its sample count and whose segments are its classes,
so a homogeneous partition shows as equal bars (not a one-colour matrix under a colour bar spanning 540-660)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

from fairshare.commands import _partition_figures  # noqa: E402
from fairshare.data.partition import Partition  # noqa: E402


def test_partition_bars_show_each_clients_size_and_classes(monkeypatch):
    drawn = []
    monkeypatch.setattr(_partition_figures, "save_figure", lambda fig, stem: drawn.append(fig))
    even = np.full((4, 3), 600)
    skewed = np.array([[2400, 2400, 0], [100, 0, 50], [0, 300, 0]])
    parts = [
        (name, "digits", Partition(name, [], counts)) for name, counts in (("homogeneous", even), ("skew", skewed))
    ]
    _partition_figures.partition_grid(parts, "unused")
    (fig,) = drawn
    for ax, (_, _, part) in zip(fig.axes, parts):
        widths = np.zeros(part.counts.shape[0])
        for bar in ax.patches:
            widths[round(bar.get_y() + bar.get_height() / 2)] += bar.get_width()
        np.testing.assert_array_equal(widths, part.counts.sum(axis=1))
        assert ax.get_xlabel() == "samples held" and ax.get_ylabel() == "client"
        assert all(label.get_fontsize() >= 8 for label in ax.get_xticklabels() + ax.get_yticklabels())
    assert [t.get_text() for t in fig.legends[0].texts] == ["class 0", "class 1", "class 2"]
    assert len(fig.axes) == 2  # no colour bars
