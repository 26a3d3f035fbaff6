"""Heatmaps of client x class counts, one panel per configured partition."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

from fairshare.data.partition import Partition
from fairshare.io import save_figure
from fairshare.plotting import integer_ticks, panel_grid


def partition_grid(drawn: Sequence[tuple[str, str, Partition]], stem: str) -> None:
    """One heatmap per (name, dataset, partition); colour = samples of that class held by that client."""
    fig, axes = panel_grid(len(drawn), 3, (4.2, 3.4))
    if not drawn:
        axes[0, 0].text(0.5, 0.5, "no partitions configured", ha="center", va="center")
    for ax, (name, dataset, part) in zip(axes.flat, drawn):
        im = ax.imshow(part.counts, aspect="auto", cmap="viridis", interpolation="nearest")
        ax.set_title(f"{name}\n{dataset}, {part.scheme.replace('_', ' ')} ({part.counts.shape[0]} clients)", fontsize=9)
        ax.set_xlabel("class")
        ax.set_ylabel("client")
        ax.set_xticks(np.arange(part.counts.shape[1]))
        integer_ticks(ax, "y")
        ax.tick_params(labelsize=6)
        fig.colorbar(im, ax=ax, label="samples")
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)
