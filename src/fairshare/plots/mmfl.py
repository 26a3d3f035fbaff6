"""Figures for fair multi-model FL: min accuracy vs round, per-task curves, variance bars, allocation maps."""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

from fairshare.io import save_figure
from fairshare.plotting import panel_grid, seed_band

COLORS = {"fedfair": "tab:red", "random": "tab:blue", "round_robin": "tab:green", "qffl": "tab:purple"}


def min_accuracy_curves(acc: pd.DataFrame, stem: Path) -> None:
    per = acc.groupby(["experiment", "method", "seed", "round"]).accuracy.min().rename("v").reset_index()
    exps = list(dict.fromkeys(per.experiment))
    fig, axes = panel_grid(len(exps), 4, (4, 3.2))
    for ax, exp in zip(axes.flat, exps):
        sub = per[per.experiment == exp]
        for i, method in enumerate(dict.fromkeys(sub.method)):
            seed_band(ax, sub[sub.method == method], "round", "v", color=COLORS.get(method, plt.cm.viridis(i / 8)), label=method, ls=":")
        ax.set_title(exp, fontsize=9)
        ax.set_xlabel("round")
        ax.set_ylabel("min accuracy across tasks")
        ax.legend(fontsize=6)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def per_task_curves(acc: pd.DataFrame, stem: Path) -> None:
    tasks = list(dict.fromkeys(acc.task))
    fig, axes = plt.subplots(1, max(1, len(tasks)), figsize=(4 * max(1, len(tasks)), 3.2), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        sub = acc[acc.task == task].rename(columns={"accuracy": "v"})
        for method in dict.fromkeys(sub.method):
            seed_band(ax, sub[sub.method == method], "round", "v", color=COLORS.get(method, "grey"), label=method, ls=":")
        ax.set_title(sub.task_name.iloc[0], fontsize=9)
        ax.set_xlabel("round")
    axes[0][0].set_ylabel("test accuracy")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def variance_bars(acc: pd.DataFrame, stem: Path) -> None:
    """Variance across tasks at 1/12, 1/2 and all of the rounds (the paper's rounds 10, 60, 120), seed error bars."""
    var = acc.groupby(["experiment", "method", "seed", "round"]).accuracy.var(ddof=0).rename("var").reset_index()
    exps = list(dict.fromkeys(var.experiment))
    fig, axes = plt.subplots(1, max(1, len(exps)), figsize=(4.2 * max(1, len(exps)), 3.2), squeeze=False)
    for ax, exp in zip(axes[0], exps):
        sub = var[var.experiment == exp]
        last = int(sub["round"].max())
        checkpoints = sorted({max(1, round(last / 12)), max(1, round(last / 2)), last})
        methods = list(dict.fromkeys(sub.method))
        width = 0.8 / len(methods)
        for i, method in enumerate(methods):
            vals = [sub[(sub.method == method) & (sub["round"] == r)]["var"] for r in checkpoints]
            x = np.arange(len(checkpoints)) + (i - (len(methods) - 1) / 2) * width
            ax.bar(x, [v.mean() for v in vals], width, yerr=[v.std(ddof=0) for v in vals], color=COLORS.get(method, "grey"), label=method, capsize=2)
        ax.set_xticks(range(len(checkpoints)), [f"round {r}" for r in checkpoints])
        ax.set_title(exp, fontsize=9)
    axes[0][0].set_ylabel("variance of accuracy across tasks")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def _alpha_key(name: str) -> tuple[int, float]:
    return (1, float(name.removeprefix("fedfair_a"))) if name.startswith("fedfair_a") else (0, 0.0)


def allocation_maps(maps: dict[str, np.ndarray], stem: Path) -> None:
    """Clients x rounds, colour = task (white: inactive), one panel per method/alpha."""
    names = sorted(maps, key=_alpha_key)
    n_tasks = int(max(m.max() for m in maps.values())) + 1
    cmap = ListedColormap(["white"] + list(plt.cm.tab10.colors[:n_tasks]))
    fig, axes = panel_grid(len(names), 4, (3.6, 3))
    for ax, name in zip(axes.flat, names):
        ax.imshow(maps[name] + 1, aspect="auto", cmap=cmap, vmin=-0.5, vmax=n_tasks + 0.5, interpolation="nearest")
        title = f"alpha = {name.removeprefix('fedfair_a')}" if name.startswith("fedfair_a") else name
        ax.set_title(f"Allocation map: {title}", fontsize=9)
        ax.set_xlabel("round")
        ax.set_ylabel("client")
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(i + 1)) for i in range(n_tasks)]
    fig.legend(handles, [f"task {i}" for i in range(n_tasks)], loc="lower center", ncol=n_tasks, fontsize=8)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    save_figure(fig, stem)
    plt.close(fig)
