"""Shared figure pieces: a grid of panels, and a mean-over-seeds curve with its min-max band."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd


def panel_grid(n_panels: int, max_cols: int, panel_size: tuple[float, float]) -> tuple[plt.Figure, np.ndarray]:
    """Figure with at most ``max_cols`` columns of ``panel_size`` (width, height) inches; panels beyond
    ``n_panels`` are hidden. ``axes`` is always 2-D."""
    cols = max(1, min(max_cols, n_panels))
    rows = max(1, math.ceil(n_panels / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(panel_size[0] * cols, panel_size[1] * rows), squeeze=False)
    for ax in axes.flat[n_panels:]:
        ax.axis("off")
    return fig, axes


def seed_band(ax: plt.Axes, frame: pd.DataFrame, x: str, y: str, *, color, label: str, ls: str = "-") -> None:
    """Mean of ``y`` over the ``seed`` column against ``x``, with the min-max band across seeds."""
    wide = frame.pivot_table(index=x, columns="seed", values=y)
    ax.plot(wide.index, wide.mean(axis=1), ls=ls, lw=1.8, color=color, label=label)
    ax.fill_between(wide.index, wide.min(axis=1), wide.max(axis=1), color=color, alpha=0.18, lw=0)
