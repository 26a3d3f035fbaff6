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
from fairshare.plotting import BAND_ALPHA, LEGEND_SIZE, integer_ticks, panel_grid, round_axis, seed_band, series_style

__all__ = [
    "METHODS",
    "PAPER_EXPERIMENTS",
    "ALPHA_COLORS",
    "BAND_NOTE",
    "METHOD_STYLES",
    "SWEEP_NOTE",
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
    "qffl": ("q-FFL", "tab:purple"),
}
PAPER_EXPERIMENTS = {  # the paper's name of each experiment and the setting its panels vary (Figs. 3-5)
    "exp1": ("Exp. 1", None),
    "exp2": ("Exp. 2", "tasks"),
    "fig4": ("Fig. 4", "tasks"),
    "exp3": ("Exp. 3", "clients"),
    "exp4": ("Exp. 4", None),
}
METHOD_STYLES = {  # one line style and marker per method, the same in every panel
    "fedfair": {"ls": "-", "marker": "o"},
    "random": {"ls": "--", "marker": "s"},
    "round_robin": {"ls": "-.", "marker": "^"},
    "qffl": {"ls": ":", "marker": "D"},
}
ALPHA_COLORS = plt.cm.plasma  # sequential: one clearly different shade per alpha of a sweep, dark = small alpha
BAND_NOTE = "line: mean over seeds; shaded: min-max over seeds (the paper's Figs. 2-5 draw the mean dotted)"
SWEEP_NOTE = "α sweep: means only, its spread over seeds at the last round in the panel after it"


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
    return [(label, rows, colour) for label, rows, colour, _ in _styled_series(frame)]


def _styled_series(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame, str, dict]]:
    """:func:`_series` with each series' line style and marker: a method's own (METHOD_STYLES) where it runs at one
    alpha, one per alpha's rank (plotting.series_style) across a sweep."""
    plain, swept = [], []
    for method in dict.fromkeys(frame.method):
        rows = frame[frame.method == method]
        alphas = sorted(rows.alpha.dropna().unique())
        if len(alphas) <= 1:
            colour = METHODS.get(method, (None, "grey"))[1]
            plain.append((_method_label(method), rows, colour, METHOD_STYLES.get(method, series_style(len(plain)))))
            continue
        for rank, alpha in enumerate(alphas):
            colour = ALPHA_COLORS(0.85 * rank / (len(alphas) - 1))
            swept.append((_method_label(method, alpha), rows[rows.alpha == alpha], colour, series_style(rank)))
    return plain + swept


def _swept_methods(frame: pd.DataFrame) -> list[str]:
    """The methods of ``frame`` run at several alphas (FedFairMMFL in the paper's Exp. 4)."""
    counts = frame.groupby("method").alpha.nunique()
    return list(counts.index[counts > 1])


def _is_sweep(frame: pd.DataFrame) -> bool:
    """Whether one method of ``frame`` runs at several alphas."""
    return bool(_swept_methods(frame))


def _in_config_order(experiments: pd.Series, titles: Mapping[str, str]) -> list[str]:
    """The experiments present, in the order of the config (the order of ``titles``), unknown ones last."""
    present = list(dict.fromkeys(experiments))
    return [e for e in titles if e in present] + [e for e in present if e not in titles]


def _figure_legend(fig: plt.Figure, axes, height: float) -> None:
    """One legend below the panels with every curve label once (in order of first appearance); the panels' bottom
    edge is raised by ``height`` inches to make room."""
    seen = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    fig.legend(seen.values(), seen.keys(), loc="lower center", ncol=min(5, len(seen)), fontsize=LEGEND_SIZE)
    fig.tight_layout(rect=(0, height / fig.get_figheight(), 1, 1))


def _curves(ax: plt.Axes, frame: pd.DataFrame, band: bool = True) -> None:
    """Every (method, alpha) series of ``frame`` (columns round, seed, v): mean over seeds in its colour, line style
    and marker, its min-max band over seeds where ``band`` (a sweep's many overlapping bands would hide each other)."""
    for label, rows, colour, style in _styled_series(frame):
        seed_band(ax, rows, "round", "v", color=colour, label=label, band=band, **style)


def _sweep_at_last_round(ax: plt.Axes, frame: pd.DataFrame, title: str) -> None:
    """The swept method's value at the last round against alpha (mean, min-max bar over seeds, in its curve's colour)
    beside the other methods' last-round mean (line) and min-max over seeds (light band)."""
    last = frame[frame["round"] == frame["round"].max()]
    swept = set(_swept_methods(frame))
    for label, rows, colour, style in _styled_series(last):
        stats = rows.v.agg(["mean", "min", "max"])
        if rows.method.iloc[0] in swept:
            ax.errorbar(
                rows.alpha.iloc[0],
                stats["mean"],
                yerr=[[stats["mean"] - stats["min"]], [stats["max"] - stats["mean"]]],
                color=colour,
                marker=style["marker"],
                ms=5,
                capsize=3,
                zorder=3,
            )
        else:
            ax.axhline(stats["mean"], color=colour, ls=style["ls"], lw=1.5, label=label)
            ax.axhspan(stats["min"], stats["max"], color=colour, alpha=BAND_ALPHA, lw=0)
    alphas = sorted(frame.alpha.dropna().unique())
    ax.set_xscale("log")
    ax.set_xticks(alphas, [f"{a:g}" for a in alphas])
    ax.minorticks_off()
    ax.set_xlabel("α of FedFairMMFL")
    ax.set_title(f"{title}: round {int(last['round'].max())}, bar: min-max over seeds", fontsize=9)


def min_accuracy_curves(acc: pd.DataFrame, titles: Mapping[str, str], stem: str | Path) -> None:
    """Minimum accuracy across tasks vs round, one panel per experiment (``titles``: experiment -> panel title); an
    experiment that sweeps alpha draws means only and gets a second panel: the last round against alpha, with the
    spread over seeds (Figs. 3e-g, 4, 5)."""
    per = (
        acc.groupby(["experiment", "method", "alpha", "seed", "round"], dropna=False)
        .accuracy.min()
        .rename("v")
        .reset_index()
    )
    exps = _in_config_order(per.experiment, titles)
    panels = [(exp, kind) for exp in exps for kind in ("curves", "sweep")[: 1 + _is_sweep(per[per.experiment == exp])]]
    fig, axes = panel_grid(len(panels), 4, (3.3, 2.7))
    for k, (ax, (exp, kind)) in enumerate(zip(axes.flat, panels)):
        sub, title = per[per.experiment == exp], titles.get(exp, exp)
        if kind == "sweep":
            _sweep_at_last_round(ax, sub, title)
        else:
            _curves(ax, sub, band=not _is_sweep(sub))
            ax.set_title(title + (" (means only)" if _is_sweep(sub) else ""), fontsize=9)
            round_axis(ax)
        if k % axes.shape[1] == 0:
            ax.set_ylabel("min accuracy across tasks")
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.25)
    notes = BAND_NOTE + (f";\n{SWEEP_NOTE}" if any(kind == "sweep" for _, kind in panels) else "")
    fig.suptitle(f"Minimum test accuracy across tasks; {notes}", fontsize=9)
    _figure_legend(fig, axes.flat, 0.6)
    save_figure(fig, stem)
    plt.close(fig)


def per_task_curves(acc: pd.DataFrame, datasets: Sequence[str], title: str, stem: str | Path) -> None:
    """Each task's test accuracy vs round (one experiment, ``title``; ``datasets``: its tasks' datasets by task
    index), one panel per task."""
    tasks = list(dict.fromkeys(acc.task))
    names = task_titles(list(datasets))
    fig, axes = panel_grid(max(1, len(tasks)), 4, (3.6, 3.1))
    for ax, task in zip(axes.flat, tasks):
        _curves(ax, acc[acc.task == task].rename(columns={"accuracy": "v"}))
        ax.set_title(names[task], fontsize=9)
        round_axis(ax)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.25)
    for row in axes:
        row[0].set_ylabel("test accuracy")
    fig.suptitle(f"{title}: accuracy of each task;\n{BAND_NOTE}", fontsize=9)
    _figure_legend(fig, axes.flat, 0.35)
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
