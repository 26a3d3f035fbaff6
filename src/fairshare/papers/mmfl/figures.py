"""Figures of the multi-model FL experiments from the tidy tables: minimum accuracy across tasks vs round (Figs. 2a,
3e-g, 4, 5), per-task accuracy (Fig. 2), variance across tasks (Fig. 3a-d) and allocation maps (Fig. 6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

from fairshare.io import save_figure
from fairshare.plotting import LEGEND_SIZE, integer_ticks, panel_grid, round_axis, seed_band

__all__ = [
    "METHODS",
    "PAPER_EXPERIMENTS",
    "ALPHA_COLORS",
    "BAND_NOTE",
    "experiment_titles",
    "task_titles",
    "min_accuracy_curves",
    "per_task_curves",
    "variance_bars",
    "allocation_maps",
]

if TYPE_CHECKING:
    from fairshare.papers.mmfl.experiment import Experiment

METHODS = {  # the paper's names and this project's colours
    "fedfair": ("FedFairMMFL", "tab:red"),
    "random": ("Random", "tab:blue"),
    "round_robin": ("Round Robin", "tab:green"),
    "qffl": ("q-Fel", "tab:purple"),
}
PAPER_EXPERIMENTS = {  # the paper's name of each experiment and the setting its panels vary (Figs. 3-5)
    "exp1": ("Exp. 1", None),
    "exp2": ("Exp. 2", "tasks"),
    "fig4": ("Fig. 4", "tasks"),
    "exp3": ("Exp. 3", "clients"),
    "exp4": ("Exp. 4", None),
}
ALPHA_COLORS = plt.cm.plasma  # sequential: one clearly different shade per alpha of a sweep, dark = small alpha
BAND_NOTE = "line: mean over seeds; shaded: min-max over seeds (the paper's Figs. 2-5 draw the mean dotted)"


def experiment_titles(experiments: Sequence[Experiment]) -> dict[str, str]:
    """Panel title per configured experiment, in the paper's words: the experiment it reproduces ("Exp. 2") and the
    setting the paper varies across its panels (S tasks for Exp. 2 and Fig. 4, K clients for Exp. 3); an entry that
    reproduces nothing, or shares both with another entry, is also named by its config name."""
    titles = {}
    for e in experiments:
        name, varied = PAPER_EXPERIMENTS.get(e.reproduces, (e.name, None))
        parts = [name]
        if varied == "tasks":
            parts.append(f"S = {len(e.tasks)} tasks")
        elif varied == "clients":
            parts.append(f"K = {e.clients} clients")
        titles[e.name] = ", ".join(parts)
    counts = Counter(titles.values())
    return {name: f"{t} ({name})" if counts[t] > 1 else t for name, t in titles.items()}


def task_titles(datasets: Sequence[str]) -> list[str]:
    """Readable names for an experiment's tasks (``datasets``: each task's dataset, by task index): the dataset alone
    where it is unambiguous, else the dataset and its 1-based task number (the paper's "Task 3")."""
    return [d if datasets.count(d) == 1 else f"{d} (task {i + 1})" for i, d in enumerate(datasets)]


def _method_label(method: str, alpha: float | None = None) -> str:
    name = METHODS.get(method, (method, None))[0]
    return name if alpha is None else f"{name}, α = {alpha:g}"


def _series(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame, str]]:
    """(label, rows, colour) per (method, alpha): the methods in order of appearance in their own colours; a method
    run at several alphas gets one curve per alpha, after the others, coloured by the alpha's rank on a sequential
    map so every alpha of a sweep has a distinct shade."""
    plain, swept = [], []
    for method in dict.fromkeys(frame.method):
        rows = frame[frame.method == method]
        alphas = sorted(rows.alpha.dropna().unique())
        if len(alphas) <= 1:
            plain.append((_method_label(method), rows, METHODS.get(method, (None, "grey"))[1]))
            continue
        for rank, alpha in enumerate(alphas):
            colour = ALPHA_COLORS(0.85 * rank / (len(alphas) - 1))
            swept.append((_method_label(method, alpha), rows[rows.alpha == alpha], colour))
    return plain + swept


def _in_config_order(experiments: pd.Series, titles: Mapping[str, str]) -> list[str]:
    """The experiments present, in the order of the config (the order of ``titles``), unknown ones last."""
    present = list(dict.fromkeys(experiments))
    return [e for e in titles if e in present] + [e for e in present if e not in titles]


def _curve_legend(ax: plt.Axes, inside: int = 3) -> None:
    """A panel's legend: inside its empty upper-left corner for up to ``inside`` lines (curves rise from the lower
    left), below the axes for more (the α sweep), where it covers no line."""
    n = len(ax.get_legend_handles_labels()[1])
    if n <= inside:
        ax.legend(fontsize=LEGEND_SIZE, loc="upper left")
    else:
        ax.legend(fontsize=LEGEND_SIZE, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)


def min_accuracy_curves(acc: pd.DataFrame, titles: Mapping[str, str], stem: str | Path) -> None:
    """Minimum accuracy across tasks vs round, one panel per experiment (``titles``: experiment -> panel title)."""
    per = (
        acc.groupby(["experiment", "method", "alpha", "seed", "round"], dropna=False)
        .accuracy.min()
        .rename("v")
        .reset_index()
    )
    exps = _in_config_order(per.experiment, titles)
    fig, axes = panel_grid(len(exps), 4, (4.2, 3.4))
    for ax, exp in zip(axes.flat, exps):
        for label, rows, colour in _series(per[per.experiment == exp]):
            seed_band(ax, rows, "round", "v", color=colour, label=label)
        ax.set_title(titles.get(exp, exp), fontsize=10)
        round_axis(ax)
        ax.set_ylabel("min accuracy across tasks")
        _curve_legend(ax)
    fig.suptitle(f"Minimum test accuracy across tasks; {BAND_NOTE}", fontsize=9)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def per_task_curves(acc: pd.DataFrame, datasets: Sequence[str], title: str, stem: str | Path) -> None:
    """Each task's test accuracy vs round (one experiment, ``title``; ``datasets``: its tasks' datasets by task
    index), one panel per task."""
    tasks = list(dict.fromkeys(acc.task))
    names = task_titles(list(datasets))
    fig, axes = plt.subplots(1, max(1, len(tasks)), figsize=(4 * max(1, len(tasks)), 3.4), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        sub = acc[acc.task == task].rename(columns={"accuracy": "v"})
        for label, rows, colour in _series(sub):
            seed_band(ax, rows, "round", "v", color=colour, label=label)
        ax.set_title(names[task], fontsize=10)
        round_axis(ax)
    axes[0][0].set_ylabel("test accuracy")
    axes[0][0].legend(fontsize=LEGEND_SIZE)
    fig.suptitle(f"{title}: accuracy of each task; {BAND_NOTE}", fontsize=9)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def variance_bars(acc: pd.DataFrame, titles: Mapping[str, str], stem: str | Path) -> None:
    """Variance across tasks at 1/12, 1/2 and all of the rounds (the paper's rounds 10, 60, 120 of 120): mean over
    seeds, error bars from the smallest to the largest seed's variance (Fig. 3a-d)."""
    var = acc.groupby(["experiment", "method", "alpha", "seed", "round"], dropna=False).accuracy.var(ddof=0)
    var = var.rename("var").reset_index()
    exps = _in_config_order(var.experiment, titles)
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
                yerr=[[v.mean() - v.min() for v in vals], [v.max() - v.mean() for v in vals]],
                color=colour,
                label=label,
                capsize=2,
            )
        ax.set_xticks(range(len(checkpoints)), [f"round {r}" for r in checkpoints])
        ax.set_title(titles.get(exp, exp), fontsize=10)
    axes[0][0].set_ylabel("variance of accuracy across tasks")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=LEGEND_SIZE)
    fig.suptitle("Variance across tasks: bar = mean over seeds, error bar = min-max over seeds", fontsize=9)
    fig.tight_layout(rect=(0, 0.35 / fig.get_figheight(), 1, 1))
    save_figure(fig, stem)
    plt.close(fig)


def allocation_maps(
    maps: Sequence[tuple[str, float | None, np.ndarray]], tasks: Sequence[str], title: str, stem: str | Path
) -> None:
    """Clients x rounds, colour = the task a client trains (``tasks``: the experiment's datasets by task index; white:
    not active that round); one panel per (method, alpha, map): the baselines first, then FedFairMMFL by increasing
    alpha, lettered as the paper's Fig. 6 panels."""
    ordered = sorted(maps, key=lambda m: (m[0] == "fedfair", m[1] or 0.0))
    n_tasks = len(tasks)
    cmap = ListedColormap(["white"] + list(plt.cm.tab10.colors[:n_tasks]))
    fig, axes = panel_grid(len(ordered), 4, (3.6, 3))
    for ax, letter, (method, alpha, allocation) in zip(axes.flat, "abcdefghijklmnopqrstuvwxyz", ordered):
        clients, rounds = allocation.shape
        ax.imshow(
            allocation + 1,
            aspect="auto",
            cmap=cmap,
            vmin=-0.5,
            vmax=n_tasks + 0.5,
            interpolation="nearest",
            extent=(0.5, rounds + 0.5, clients - 0.5, -0.5),
        )
        ax.set_title(f"({letter}) {_method_label(method, alpha if method == 'fedfair' else None)}", fontsize=10)
        round_axis(ax)
        integer_ticks(ax, "y")
        ax.set_ylabel("client")
    labels = task_titles(list(tasks))
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(i + 1)) for i in range(n_tasks)]
    if any((m < 0).any() for _, _, m in maps):
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="grey"))
        labels.append("not active this round")
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize=LEGEND_SIZE)
    fig.suptitle(f"{title}: task each client trains per round (seed 0)", fontsize=10)
    fig.tight_layout(rect=(0, 0.35 / fig.get_figheight(), 1, 1))
    save_figure(fig, stem)
    plt.close(fig)
