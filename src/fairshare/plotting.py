"""Shared figure pieces: a grid of panels, a mean-over-seeds curve with its min-max band, line styles and markers that
tell curves apart where their bands overlap, integer round axes, Pearson labels that say why a correlation is
undefined, and the legend size every figure uses (8 pt: readable in print)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

__all__ = [
    "LEGEND_SIZE",
    "BAND_ALPHA",
    "LINESTYLES",
    "MARKERS",
    "REFERENCE_STYLES",
    "series_style",
    "panel_grid",
    "reference_line",
    "seed_band",
    "integer_ticks",
    "round_axis",
    "pearson_label",
]

LEGEND_SIZE = 8
BAND_ALPHA = 0.12  # light enough that three overlapping bands still show the curves through them
# One line style and marker per series (cycled), so curves stay apart where colours and bands overlap, and in grey print.
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)), (0, (3, 1, 1, 1)))
MARKERS = "osD^vP*X"


def series_style(k: int) -> dict:
    """The line style and marker of the ``k``-th series of a panel (LINESTYLES, MARKERS, cycled)."""
    return {"ls": LINESTYLES[k % len(LINESTYLES)], "marker": MARKERS[k % len(MARKERS)]}


def panel_grid(n_panels: int, max_cols: int, panel_size: tuple[float, float]) -> tuple[plt.Figure, np.ndarray]:
    """Figure with at most ``max_cols`` columns of ``panel_size`` (width, height) inches; panels beyond
    ``n_panels`` are hidden. ``axes`` is always 2-D."""
    cols = max(1, min(max_cols, n_panels))
    rows = max(1, math.ceil(n_panels / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(panel_size[0] * cols, panel_size[1] * rows), squeeze=False)
    for ax in axes.flat[n_panels:]:
        ax.axis("off")
    return fig, axes


def seed_band(
    ax: plt.Axes,
    frame: pd.DataFrame,
    x: str,
    y: str,
    *,
    color,
    label: str,
    ls: str | tuple = "-",
    marker: str | None = None,
    markers: int = 6,
    band: bool = True,
    band_label: str | None = None,
) -> None:
    """Mean of ``y`` over the ``seed`` column against ``x``, with the min-max band across seeds (light, in the legend
    as ``band_label`` when given; none where ``band`` is false). A ``marker`` is drawn at about ``markers`` evenly
    spaced points, not at every x, so dense curves stay lines."""
    wide = frame.pivot_table(index=x, columns="seed", values=y)
    every = max(1, round(len(wide) / markers))
    ax.plot(
        wide.index,
        wide.mean(axis=1),
        ls=ls,
        lw=1.5,
        color=color,
        label=label,
        zorder=3,
        marker=marker,
        ms=4,
        markevery=(every // 2, every),
    )
    if band:
        ax.fill_between(
            wide.index, wide.min(axis=1), wide.max(axis=1), color=color, alpha=BAND_ALPHA, lw=0, label=band_label
        )


# Reference levels beside a curve: FedAvg's global model (thin dashed, on top) and FedAvg-FT's mean client model
# (wide, light, underneath), so that two equal levels show as a dashed line over a wide band, never as one line.
REFERENCE_STYLES = {
    "fedavg": {"color": "tab:blue", "ls": "--", "lw": 1.3, "zorder": 4},
    "fedavg_ft": {"color": "tab:cyan", "ls": "-", "lw": 4.0, "alpha": 0.45, "zorder": 2},
    "standalone": {"color": "grey", "ls": "-.", "lw": 1.0, "zorder": 2},
}


def reference_line(ax: plt.Axes, value: float, kind: str, label: str) -> None:
    """A horizontal reference level in the style of ``kind`` (REFERENCE_STYLES); nothing where ``value`` is NaN."""
    if not math.isnan(value):
        ax.axhline(value, label=label, **REFERENCE_STYLES[kind])


def integer_ticks(ax: plt.Axes, axis: str = "x") -> None:
    """Ticks only at whole numbers on ``axis`` ("x", "y" or "both"): rounds, clients and counts have no 2.5."""
    for name in ("x", "y") if axis == "both" else (axis,):
        getattr(ax, f"{name}axis").set_major_locator(MaxNLocator(integer=True))


def round_axis(ax: plt.Axes, label: str = "round") -> None:
    """Label the x axis as communication rounds, with whole-number ticks."""
    ax.set_xlabel(label)
    integer_ticks(ax, "x")


def pearson_label(rho: float, constant: str = "all rewards equal") -> str:
    """'ρ = 0.93' for a legend; where ρ is NaN, say why: Pearson's ρ is undefined when one of the two vectors is
    constant (``constant`` names which, e.g. every client got the same reward)."""
    return f"ρ undefined ({constant})" if math.isnan(rho) else f"ρ = {rho:.2f}"
