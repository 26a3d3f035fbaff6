"""Figs. 3-4 (training-time rewards): every panel says what its y axis is, each method's per-round ρ gets its own
panel with its spread over seeds, and markers are sparse (six methods with a marker every round were spaghetti)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fairshare.papers.aequa_extensions import figures  # noqa: E402


def _tidy(rounds: int = 20, seeds: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        [
            {
                "dataset": d,
                "partition": "homogeneous",
                "scheme": "homogeneous",
                "method": m,
                "seed": s,
                "round": r,
                "metric": metric,
                "value": rng.uniform(-1, 1),
            }
            for d in ("digits", "synthetic")
            for m in figures.STYLE
            for s in range(seeds)
            for r in range(1, rounds + 1)
            for metric in figures.METRICS
        ]
    )


def test_training_time_panels_have_y_labels_spread_over_seeds_and_sparse_markers(monkeypatch):
    drawn = []
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: drawn.append(fig))
    figures.metrics_over_rounds(_tidy(), "unused")
    (fig,) = drawn
    per_dataset = 3 + len(figures.STYLE)  # accuracy, MCG, CGS, then one ρ panel per method
    assert len(fig.axes) == 2 * per_dataset
    for start in (0, per_dataset):
        top, rho = fig.axes[start : start + 3], fig.axes[start + 3 : start + per_dataset]
        assert all(ax.get_ylabel() for ax in top)
        assert "ρ" in rho[0].get_ylabel()
        assert [ax.get_title() for ax in rho] == [name for name, _, _ in figures.STYLE.values()]
        for ax in top + rho:
            assert ax.collections, ax.get_title()  # a min-max band over seeds in every panel
        for ax in top:
            for line in ax.lines:
                start_at, step = line.get_markevery()
                assert len(range(start_at, len(line.get_xdata()), step)) <= 6
