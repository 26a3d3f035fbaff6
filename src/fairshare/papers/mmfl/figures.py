"""Figures of the multi-model FL experiments from the tidy tables: minimum accuracy across tasks vs round (Figs. 2a,
3e-g, 4, 5), per-task accuracy (Fig. 2), variance across tasks (Fig. 3a-d) and allocation maps (Fig. 6)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

from fairshare.io import save_figure
from fairshare.plotting import panel_grid, seed_band

COLORS = {"fedfair": "tab:red", "random": "tab:blue", "round_robin": "tab:green", "qffl": "tab:purple"}


def _series(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame, str]]:
    """(label, rows, colour) per (method, alpha) in order of appearance; a method run at several alphas gets one
    curve per alpha, labelled and coloured by it."""
    out = []
    alphas = [None if pd.isna(a) else float(a) for a in frame.alpha]
    for i, (method, alpha) in enumerate(dict.fromkeys(zip(frame.method, alphas))):
        swept = frame[frame.method == method].alpha.nunique() > 1
        same_alpha = frame.alpha.isna() if alpha is None else frame.alpha == alpha
        rows = frame[(frame.method == method) & same_alpha]
        label = f"{method} (alpha = {alpha:g})" if swept else method
        colour = plt.cm.viridis(i / 8) if swept else COLORS.get(method, "grey")
        out.append((label, rows, colour))
    return out


def min_accuracy_curves(acc: pd.DataFrame, stem: str | Path) -> None:
    """Minimum accuracy across tasks vs round, one panel per experiment (mean over seeds, min-max band)."""
    per = (
        acc.groupby(["experiment", "method", "alpha", "seed", "round"], dropna=False)
        .accuracy.min()
        .rename("v")
        .reset_index()
    )
    exps = list(dict.fromkeys(per.experiment))
    fig, axes = panel_grid(len(exps), 4, (4, 3.2))
    for ax, exp in zip(axes.flat, exps):
        for label, rows, colour in _series(per[per.experiment == exp]):
            seed_band(ax, rows, "round", "v", color=colour, label=label, ls=":")
        ax.set_title(exp, fontsize=9)
        ax.set_xlabel("round")
        ax.set_ylabel("min accuracy across tasks")
        ax.legend(fontsize=6)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def per_task_curves(acc: pd.DataFrame, stem: str | Path) -> None:
    """Each task's test accuracy vs round (one experiment), one panel per task."""
    tasks = list(dict.fromkeys(acc.task))
    fig, axes = plt.subplots(1, max(1, len(tasks)), figsize=(4 * max(1, len(tasks)), 3.2), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        sub = acc[acc.task == task].rename(columns={"accuracy": "v"})
        for label, rows, colour in _series(sub):
            seed_band(ax, rows, "round", "v", color=colour, label=label, ls=":")
        ax.set_title(sub.task_name.iloc[0], fontsize=9)
        ax.set_xlabel("round")
    axes[0][0].set_ylabel("test accuracy")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def variance_bars(acc: pd.DataFrame, stem: str | Path) -> None:
    """Variance across tasks at 1/12, 1/2 and all of the rounds (the paper's rounds 10, 60, 120), seed error bars."""
    var = acc.groupby(["experiment", "method", "alpha", "seed", "round"], dropna=False).accuracy.var(ddof=0)
    var = var.rename("var").reset_index()
    exps = list(dict.fromkeys(var.experiment))
    fig, axes = plt.subplots(1, max(1, len(exps)), figsize=(4.2 * max(1, len(exps)), 3.2), squeeze=False)
    for ax, exp in zip(axes[0], exps):
        sub = var[var.experiment == exp]
        last = int(sub["round"].max())
        checkpoints = sorted({max(1, round(last / 12)), max(1, round(last / 2)), last})
        series = _series(sub)
        width = 0.8 / len(series)
        for i, (label, rows, colour) in enumerate(series):
            vals = [rows[rows["round"] == r]["var"] for r in checkpoints]
            x = np.arange(len(checkpoints)) + (i - (len(series) - 1) / 2) * width
            ax.bar(
                x,
                [v.mean() for v in vals],
                width,
                yerr=[v.std(ddof=0) for v in vals],
                color=colour,
                label=label,
                capsize=2,
            )
        ax.set_xticks(range(len(checkpoints)), [f"round {r}" for r in checkpoints])
        ax.set_title(exp, fontsize=9)
    axes[0][0].set_ylabel("variance of accuracy across tasks")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def allocation_maps(maps: Sequence[tuple[str, float | None, np.ndarray]], stem: str | Path) -> None:
    """Clients x rounds, colour = task (white: inactive); one panel per (method, alpha, map): the baselines first,
    then FedFairMMFL by increasing alpha (Fig. 6)."""
    ordered = sorted(maps, key=lambda m: (m[0] == "fedfair", m[1] or 0.0))
    n_tasks = int(max(m.max() for _, _, m in maps)) + 1
    cmap = ListedColormap(["white"] + list(plt.cm.tab10.colors[:n_tasks]))
    fig, axes = panel_grid(len(ordered), 4, (3.6, 3))
    for ax, (method, alpha, allocation) in zip(axes.flat, ordered):
        ax.imshow(allocation + 1, aspect="auto", cmap=cmap, vmin=-0.5, vmax=n_tasks + 0.5, interpolation="nearest")
        title = f"alpha = {alpha:g}" if method == "fedfair" else method
        ax.set_title(f"Allocation map: {title}", fontsize=9)
        ax.set_xlabel("round")
        ax.set_ylabel("client")
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(i + 1)) for i in range(n_tasks)]
    fig.legend(handles, [f"task {i}" for i in range(n_tasks)], loc="lower center", ncol=n_tasks, fontsize=8)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    save_figure(fig, stem)
    plt.close(fig)
