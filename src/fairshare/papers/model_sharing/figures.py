"""Figures for "Model-sharing Games" (the paper has none): Monte Carlo vs closed form, error vs coalition size,
and a stability phase diagram over (n_small, n_large). Each reads only result CSVs."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.patches import Rectangle

from fairshare.plotting import LEGEND_SIZE, integer_ticks

__all__ = ["METHODS", "THRESHOLD", "TASK_TITLES", "monte_carlo", "error_vs_size", "phase_diagram"]

METHODS = {  # the paper's names of the four ways to learn (§3)
    "local": "local learning",
    "uniform": "uniform federation",
    "coarse": "coarse-grained federation",
    "fine": "fine-grained federation",
}
THRESHOLD = r"$\mu_e/\sigma^2$"
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
        top.plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls=":", label="simulated = closed form")
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
                label=METHODS[method],
            )
        top.set(
            title=f"{TASK_TITLES[task]}: {int(sub.worlds.iloc[0]):,} worlds",
            xlabel="closed-form expected MSE",
            ylabel="simulated MSE (bars: ±2 s.e.)",
        )
        top.legend(fontsize=LEGEND_SIZE, loc="upper left")
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
        bottom.set_ylabel("(simulated - exact) / exact  [%]  (bars: ±2 s.e.)")
        bottom.set_title(f"max |z| = {np.abs(sub.z).max():.2f}   (z = (simulated - exact) / s.e.)", fontsize=9)
    fig.suptitle(
        "Closed-form expected MSE (Thm 4.1-4.2, Cor 4.3-4.4) vs Monte Carlo; n: the player's samples", fontsize=11
    )
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
            label = METHODS[method] + (" (= coarse at equal n)" if method == "fine" else "")
            ax.plot(sub.M, sub.error, label=label, **style)
        ax.axhline(sub.error.iloc[0], color="grey", ls=":", label="local learning (M = 1)")
        relation = "<" if n < threshold else ">" if n > threshold else "="
        ax.set_title(f"n = {n} samples each  ({relation} {THRESHOLD} = {threshold:g})", fontsize=10)
        ax.set_xlabel("coalition size M")
        integer_ticks(ax, "x")
    axes[0][0].set_ylabel(r"expected MSE ($\mu_e$ = 10, $\sigma^2$ = 1)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=LEGEND_SIZE)
    fig.suptitle("Expected error of one player in a coalition of M players with n samples each", fontsize=11)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def phase_diagram(df: pd.DataFrame, *, threshold: float) -> plt.Figure:
    """Stable typed partitions over (n_small, n_large), one panel per federation method.

    Colour = the shapes of the stable partitions (core for uniform and fine, strict core for optimal coarse); a black dot
    marks cells where the partition the paper's results construct is not in that set (there it is only individually
    stable: Thm 5.5). Cells with n_large <= n_small are not computed (the large type holds more samples) and are
    hatched; dotted lines mark n = mu_e / sigma^2, the threshold of the paper's results.
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
    not_computed = {"facecolor": "white", "edgecolor": "0.7", "hatch": "////", "lw": 0}
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
            ax.add_patch(Rectangle((0, 0), 1, 1, transform=ax.transAxes, zorder=0, **not_computed))
            ax.pcolormesh(x_edges, y_edges, np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=len(labels) - 0.5)
            off = sub[~sub.paper_partition_in_set.astype(bool)]
            if len(off):
                ax.scatter(off.n_s, off.n_l, s=4, color="k")
            ax.axvline(threshold, color="k", lw=0.6, ls=":")
            ax.axhline(threshold, color="k", lw=0.6, ls=":")
            ax.set_yscale("log")
            integer_ticks(ax, "x")
            notion = sub.notion.iloc[0].replace("_", " ")
            ax.set(
                title=f"{METHODS[method]} ({notion})\nS = {S} small, L = {L} large players",
                xlabel="n small (samples per small player)",
                ylabel="n large (samples per large player)",
            )
    handles = [Rectangle((0, 0), 1, 1, color=cmap(i)) for i in range(len(labels))]
    handles += [Rectangle((0, 0), 1, 1, **not_computed), plt.Line2D([], [], color="k", lw=0.6, ls=":")]
    notes = ["n large <= n small: not computed (the large type holds more samples)", f"n = {THRESHOLD} = {threshold:g}"]
    if (~df.paper_partition_in_set.astype(bool)).any():  # the dots are drawn only where this happens
        handles.append(plt.Line2D([], [], color="k", marker="o", ms=2, ls=""))
        notes.append("the paper's partition is not in this set (only individually stable)")
    fig.legend(
        handles,
        labels + notes,
        loc="lower center",
        ncol=3,
        fontsize=LEGEND_SIZE,
        title="stable partitions: 'grand': all players together; 'small | large': one coalition per type; 'small | "
        "large alone': all small players together, every large player alone;\n'small + some large | rest alone': the "
        "small players with some large ones, the rest alone; 'all alone': no sharing; 'other': any other; "
        "'&': several are stable",
        title_fontsize=9,
    )
    legend_rows = int(np.ceil((len(labels) + len(notes)) / 3))
    fig.tight_layout(rect=(0, min(0.5, (0.08 + 0.05 * legend_rows) / len(populations)), 1, 1))
    return fig
