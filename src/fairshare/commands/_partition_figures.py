"""Each configured partition drawn as one bar per client: its length is the client's sample count, its coloured
segments the classes it holds, so quantity skew (bar lengths) and label skew (segments) both show."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

from fairshare.data.partition import Partition
from fairshare.io import save_figure
from fairshare.plotting import LEGEND_SIZE, integer_ticks, panel_grid


def _class_colors(n_classes: int) -> list:
    """One colour per class: tab10 up to 10 classes, tab20 up to 20, then a cycle of tab20."""
    cmap = plt.cm.tab10 if n_classes <= 10 else plt.cm.tab20
    return [cmap(c % cmap.N) for c in range(n_classes)]


def partition_grid(drawn: Sequence[tuple[str, str, Partition]], stem: str) -> None:
    """One panel per (name, dataset, partition): a horizontal bar per client, split into its samples of each class
    (one colour per class, one legend for the figure)."""
    fig, axes = panel_grid(len(drawn), 3, (3.6, 2.9))
    if not drawn:
        axes[0, 0].text(0.5, 0.5, "no partitions configured", ha="center", va="center")
    n_classes = max((part.counts.shape[1] for _, _, part in drawn), default=0)
    colors = _class_colors(n_classes)
    for ax, (name, dataset, part) in zip(axes.flat, drawn):
        counts = np.asarray(part.counts)
        clients = np.arange(counts.shape[0])
        left = np.zeros(len(clients))
        for c in range(counts.shape[1]):
            ax.barh(clients, counts[:, c], left=left, height=0.8, color=colors[c], label=f"class {c}", lw=0)
            left += counts[:, c]
        ax.set_title(f"{name}\n{dataset}, {part.scheme.replace('_', ' ')} ({len(clients)} clients)", fontsize=9)
        ax.set_xlabel("samples held")
        ax.set_ylabel("client")
        ax.set_ylim(len(clients) - 0.5, -0.5)  # client 0 on top, as in a table
        integer_ticks(ax, "y")
        ax.tick_params(labelsize=8)
        ax.grid(axis="x", alpha=0.3)
        ax.margins(x=0.03)
    if drawn:
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=min(10, len(labels)), fontsize=LEGEND_SIZE)
    fig.suptitle(
        "Partitions: one bar per client, its length the client's samples, its segments their classes", fontsize=9
    )
    fig.tight_layout(rect=(0, 0.35 / fig.get_figheight(), 1, 1))
    save_figure(fig, stem)
    plt.close(fig)
