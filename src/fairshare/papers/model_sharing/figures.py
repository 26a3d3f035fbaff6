"""Figures for "Model-sharing Games" (the paper has none): Monte Carlo vs closed form, error vs coalition size,
and a stability phase diagram over (n_small, n_large). Each reads only result CSVs."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

METHODS = ("local", "uniform", "coarse", "fine")
TASK_TITLES = {"mean": "mean estimation", "regression": "linear regression (D = 2, Gaussian inputs)"}


def monte_carlo(df: pd.DataFrame) -> plt.Figure:
    """Top: simulated vs closed-form error (parity). Bottom: relative deviation with ±2 s.e. bars, per method and player."""
    tasks = [t for t in TASK_TITLES if t in set(df.task)]
    fig, axes = plt.subplots(2, len(tasks), figsize=(5.2 * len(tasks), 7), squeeze=False)
    colors = dict(zip(METHODS, plt.cm.tab10.colors))
    for col, task in enumerate(tasks):
        sub = df[df.task == task]
        top, bottom = axes[0][col], axes[1][col]
        lo, hi = sub.exact.min() * 0.9, sub.exact.max() * 1.05
        top.plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls=":")
        for method in METHODS:
            rows = sub[sub.method == method]
            top.errorbar(
                rows.exact,
                rows.simulated,
                yerr=2 * rows.se,
                fmt="o",
                ms=4,
                capsize=2,
                color=colors[method],
                label=method,
            )
        top.set(
            title=f"{TASK_TITLES[task]}: {int(sub.worlds.iloc[0]):,} worlds",
            xlabel="closed-form expected MSE",
            ylabel="simulated MSE (±2 s.e.)",
        )
        top.legend(fontsize=7, loc="upper left")
        labels = []
        for k, (method, player) in enumerate(sub[["method", "player"]].itertuples(index=False)):
            row = sub[(sub.method == method) & (sub.player == player)].iloc[0]
            bottom.errorbar(
                k,
                100 * (row.simulated - row.exact) / row.exact,
                yerr=200 * row.se / row.exact,
                fmt="o",
                ms=4,
                capsize=2,
                color=colors[method],
            )
            labels.append(f"{method}\nn={int(row.n)}")
        bottom.axhline(0, color="k", lw=0.8)
        bottom.set_xticks(range(len(labels)), labels, fontsize=6)
        bottom.set_ylabel("(simulated - exact) / exact  [%]")
        bottom.set_title(f"max |z| = {np.abs(sub.z).max():.2f}", fontsize=9)
    fig.suptitle("Closed-form expected MSE (Thm 4.1-4.2, Cor 4.3-4.4) vs Monte Carlo", fontsize=11)
    fig.tight_layout()
    return fig


def error_vs_size(df: pd.DataFrame, *, threshold: float) -> plt.Figure:
    """Error of one player among M equal players, per method; one panel per sample size n (Lemmas 5.1, 6.4)."""
    sizes = sorted(df.n.unique())
    fig, axes = plt.subplots(1, len(sizes), figsize=(3.6 * len(sizes), 3.3), squeeze=False)
    styles = {
        "uniform": dict(marker="o", ls="-", ms=4),
        "coarse": dict(marker="s", ls="-", mfc="none", ms=6),
        "fine": dict(marker="x", ls="--", ms=4),
    }
    for ax, n in zip(axes[0], sizes):
        for method, style in styles.items():
            sub = df[(df.n == n) & (df.method == method)]
            ax.plot(sub.M, sub.error, label=method + (" (= coarse at equal n)" if method == "fine" else ""), **style)
        ax.axhline(sub.error.iloc[0], color="grey", ls=":", label="local (M = 1)")
        relation = "<" if n < threshold else ">" if n > threshold else "="
        ax.set_title(f"n = {n}  ({relation} mu_e/s2 = {threshold:g})", fontsize=10)
        ax.set_xlabel("coalition size M")
        ax.xaxis.get_major_locator().set_params(integer=True)
    axes[0][0].set_ylabel("expected MSE (mu_e = 10, s2 = 1)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def phase_diagram(df: pd.DataFrame, *, threshold: float) -> plt.Figure:
    """Stable typed partitions over (n_small, n_large), one panel per federation method.

    Colour = the shapes of the stable partitions (core for uniform and fine, strict core for optimal coarse); a black dot
    marks cells where the partition the paper's results construct is not in that set (there it is only individually
    stable: Thm 5.5).
    """
    labels = sorted(set(df.stable_shapes), key=lambda x: (x.count("&"), x))
    palette = list(plt.cm.tab20.colors)
    cmap = ListedColormap([palette[i % len(palette)] for i in range(len(labels))])
    methods = list(dict.fromkeys(df.method))
    populations = list(dict.fromkeys(zip(df.S, df.L)))
    n_s_values = np.arange(1, int(df.n_s.max()) + 1)
    n_l_values = np.array(sorted(df.n_l.unique()))
    fig, axes = plt.subplots(
        len(populations), len(methods), figsize=(4.6 * len(methods), 3.9 * len(populations)), squeeze=False
    )
    for ax_row, (S, L) in zip(axes, populations):
        for ax, method in zip(ax_row, methods):
            sub = df[(df.method == method) & (df.S == S) & (df.L == L)]
            grid = np.full((len(n_l_values), len(n_s_values)), np.nan)
            for row in sub.itertuples():
                grid[np.searchsorted(n_l_values, row.n_l), row.n_s - 1] = labels.index(row.stable_shapes)
            x_edges = np.arange(0.5, n_s_values[-1] + 1)
            y_edges = np.concatenate(
                [[n_l_values[0] / 1.1], np.sqrt(n_l_values[1:] * n_l_values[:-1]), [n_l_values[-1] * 1.1]]
            )
            ax.pcolormesh(x_edges, y_edges, np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=len(labels) - 0.5)
            off = sub[~sub.paper_partition_in_set.astype(bool)]
            if len(off):
                ax.scatter(off.n_s, off.n_l, s=4, color="k", label="paper's partition not in this set (only IS)")
                ax.legend(fontsize=7, loc="lower right")
            ax.axvline(threshold, color="k", lw=0.6, ls=":")
            ax.axhline(threshold, color="k", lw=0.6, ls=":")
            ax.set_yscale("log")
            notion = sub.notion.iloc[0].replace("_", " ")
            ax.set(title=f"{method} ({notion}), S={S}, L={L}", xlabel="n small", ylabel="n large")
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(i)) for i in range(len(labels))]
    fig.legend(
        handles,
        labels,
        loc="lower center",
        ncol=min(3, len(labels)),
        fontsize=7,
        title="stable partitions ('&': several are stable; 'small | large alone': all small together, every large player alone)",
    )
    legend_rows = int(np.ceil(len(labels) / 3))
    fig.tight_layout(rect=(0, min(0.45, (0.06 + 0.045 * legend_rows) / len(populations)), 1, 1))
    return fig
