"""Figures for "Model-sharing Games": Monte Carlo vs exact, error vs coalition size, stability phase diagram."""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

from fairshare.io import save_figure

METHODS = ("local", "uniform", "coarse", "fine")


def monte_carlo(df: pd.DataFrame, stem: Path) -> None:
    """Simulated mean error (±2 s.e.) against the closed form, per task, method and player."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, task in zip(axes, ("mean", "regression")):
        sub = df[df.task == task]
        players = sorted(sub.player.unique())
        width = 0.8 / len(players)
        for k, player in enumerate(players):
            rows = sub[sub.player == player].set_index("method").loc[list(METHODS)]
            x = np.arange(len(METHODS)) + (k - (len(players) - 1) / 2) * width
            ax.errorbar(x, rows.simulated, yerr=2 * rows.se, fmt="o", ms=4, capsize=3, label=f"player n={int(rows.n.iloc[0])} (simulated ±2 s.e.)")
            ax.scatter(x, rows.exact, marker="_", s=200, color="k", zorder=3, label="closed form" if k == 0 else None)
        ax.set_xticks(np.arange(len(METHODS)), METHODS)
        ax.set_title("mean estimation" if task == "mean" else "linear regression (D=2)")
        ax.set_ylabel("expected MSE")
    axes[0].legend(fontsize=7)
    fig.suptitle("Closed-form errors (Thm 4.1-4.4) vs Monte Carlo", fontsize=10)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def error_vs_size(df: pd.DataFrame, stem: Path) -> None:
    """Error of one player among M equal players, per method; one panel per sample size n (threshold mu_e/s2 = 10)."""
    sizes = sorted(df.n.unique())
    fig, axes = plt.subplots(1, len(sizes), figsize=(3.4 * len(sizes), 3.2), sharey=False, squeeze=False)
    for ax, n in zip(axes[0], sizes):
        for method in ("uniform", "coarse", "fine"):
            sub = df[(df.n == n) & (df.method == method)]
            ax.plot(sub.M, sub.error, marker="o", ms=3, label=method)
        ax.axhline(10 / n, color="grey", ls=":", label="local")
        ax.set_title(f"n = {n} ({'<' if n < 10 else '>' if n > 10 else '='} mu_e/s2)")
        ax.set_xlabel("coalition size M")
    axes[0][0].set_ylabel("expected MSE (mu_e=10, s2=1)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def phase_diagram(df: pd.DataFrame, stem: Path) -> None:
    """Which named partitions are stable over (n_small, n_large), one panel per federation method."""
    labels = sorted(df.stable.unique())
    cmap = ListedColormap(plt.cm.tab10.colors[: len(labels)])
    methods = list(dict.fromkeys(df.method))
    fig, axes = plt.subplots(1, len(methods), figsize=(4 * len(methods), 3.8), squeeze=False)
    n_max = int(df.n_l.max())
    for ax, method in zip(axes[0], methods):
        sub = df[df.method == method]
        grid = np.full((n_max + 1, n_max + 1), np.nan)
        for row in sub.itertuples():
            grid[row.n_l, row.n_s] = labels.index(row.stable)
        ax.imshow(grid, origin="lower", cmap=cmap, vmin=-0.5, vmax=len(labels) - 0.5, interpolation="nearest")
        ax.axvline(10, color="k", lw=0.6, ls=":")
        ax.axhline(10, color="k", lw=0.6, ls=":")
        ax.set_xlim(0.5, n_max + 0.5)
        ax.set_ylim(0.5, n_max + 0.5)
        ax.set_title(f"{method} ({sub.notion.iloc[0].replace('_', ' ')})")
        ax.set_xlabel("n small")
        ax.set_ylabel("n large")
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(i)) for i in range(len(labels))]
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, title="stable partitions (two types)")
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    save_figure(fig, stem)
    plt.close(fig)
