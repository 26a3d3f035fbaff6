"""Figure 7 of the FedFairMMFL paper: (a) difference in recruited clients between the two tasks vs budget, (b) minimum
recruited clients per task vs budget (Experiment 5), (c) minimum accuracy across the two tasks vs round (Experiment 6)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from fairshare.io import save_figure
from fairshare.papers.auctions.experiment import Settings
from fairshare.plotting import BAND_ALPHA, LEGEND_SIZE, round_axis

__all__ = [
    "LABELS",
    "NO_BUDGET",
    "COLORS",
    "MARKS",
    "STYLES",
    "DRAW_ORDER",
    "MARKERS",
    "LINESTYLES",
    "PANELS",
    "caption",
    "figure7",
    "figure7c",
]

LABELS = {
    "budget_fair": "Budget-Fair Auction",
    "maxmin_fair": "MMFL Max-Min Fair",
    "gmmfair": "GMMFair (NT)",
    "greedy_within_budget": "Greedy Within Budget (NT)",
    "random_within_budget": "Random Within Budget (NT)",
    "val_threshold_0.4": "valThreshold 0.4 (NB)",
    "val_threshold_0.6": "valThreshold 0.6 (NB)",
}
NO_BUDGET = ("val_threshold_0.4", "val_threshold_0.6")  # posted-price mechanisms: dashed
COLORS = dict(zip(LABELS, plt.cm.tab10.colors))  # one colour per mechanism in every panel
MARKS = "NT: not truthful; NB: no budget (a posted price)"
MARKERS = "oDs^vP*"  # Fig. 7c: one marker and line style per mechanism, so lines stay apart in grey print
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)))
# Figs. 7a/7b: a line style and marker per mechanism; max-min fair as large open circles, drawn over GMMFair's crosses,
# so the two stay visible where both are at 0.
STYLES = {
    "budget_fair": {"ls": "-", "marker": "o", "ms": 4},
    "maxmin_fair": {"ls": "-", "marker": "o", "ms": 7, "mfc": "none", "mew": 1.3},
    "gmmfair": {"ls": "--", "marker": "x", "ms": 5},
    "greedy_within_budget": {"ls": "-.", "marker": "s", "ms": 4},
    "random_within_budget": {"ls": ":", "marker": "^", "ms": 4},
    "val_threshold_0.4": {"ls": (0, (5, 2)), "marker": "v", "ms": 4},
    "val_threshold_0.6": {"ls": (0, (1, 1.5)), "marker": "D", "ms": 3.5},
}
DRAW_ORDER = [m for m in LABELS if m != "maxmin_fair"] + ["maxmin_fair"]  # max-min fair on top
PANELS = {
    "fig7a": ("difference", "Fig. 7a", "|recruited for task 1 - recruited for task 2|"),
    "fig7b": ("min_recruited", "Fig. 7b", "minimum recruited clients over the two tasks"),
}


def caption(settings: Settings) -> str:
    """What Figs. 7a/7b were drawn from: the reconstructed bid distributions, sizes and the constrained region."""
    return (
        f"Task-1 bids ~ N({settings.task1_mu:g}, {settings.task1_sigma:g}^2) truncated to [0, 1] (reconstruction: the "
        f"paper does not give them; chosen so task 1 is clearly cheaper, which reproduces the paper's ordering); task-2 "
        f"bids have pdf 2x on [0, 1]. {settings.users} clients, 2 tasks, {settings.seeds} seeds; shaded: budget-constrained "
        f"region B <= {settings.constrained_budget_max:g}."
    )


def _mechanism_curve(ax: plt.Axes, data: pd.DataFrame, method: str) -> None:
    """One mechanism's mean over seeds against budget; its min-max over seeds as a light band, or, for a posted price
    (no budget: the same value at every B), as thin bars at every third point (the posted prices take turns), which
    cover no other curve."""
    stats = data[data.method == method].groupby("budget").value.agg(["mean", "min", "max"])
    color = COLORS[method]
    ax.plot(stats.index, stats["mean"], lw=1.4, color=color, label=LABELS[method], zorder=3, **STYLES[method])
    if method in NO_BUDGET:
        ax.errorbar(
            stats.index,
            stats["mean"],
            yerr=[stats["mean"] - stats["min"], stats["max"] - stats["mean"]],
            fmt="none",
            errorevery=(NO_BUDGET.index(method), 3),
            ecolor=color,
            elinewidth=0.8,
            capsize=2,
            alpha=0.7,
            zorder=2,
        )
    else:
        ax.fill_between(stats.index, stats["min"], stats["max"], color=color, alpha=BAND_ALPHA, lw=0, zorder=1)


def figure7(exp5: pd.DataFrame, stems: Mapping[str, str | Path], caption: str, constrained_max: float) -> None:
    """Figures 7a and 7b (``stems``: panel name -> path without suffix) from the tidy exp5 table: seed mean (line)
    and min-max over seeds (band; bars for the posted prices) per mechanism."""
    for panel, stem in stems.items():
        metric, title, ylabel = PANELS[panel]
        data = exp5[exp5.metric == metric]
        fig, ax = plt.subplots(figsize=(9.6, 4.6))
        ax.axvspan(
            0, constrained_max, color="0.93", zorder=0, label=f"budget-constrained region (B <= {constrained_max:g})"
        )
        for method in [m for m in DRAW_ORDER if m in set(data.method)]:
            _mechanism_curve(ax, data, method)
        ax.set_xlabel("budget B")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{title}: 2 tasks, mean over seeds (band, bars: min-max over seeds)", fontsize=9)
        handles, labels = ax.get_legend_handles_labels()
        order = [labels.index(LABELS[m]) for m in LABELS if LABELS[m] in labels]
        ax.legend(
            [handles[0]] + [handles[i] for i in order],
            [labels[0]] + [labels[i] for i in order],
            fontsize=LEGEND_SIZE,
            title=MARKS,
            title_fontsize=LEGEND_SIZE,
            loc="upper left",
            bbox_to_anchor=(1.01, 1),
        )
        ax.grid(alpha=0.25)
        fig.text(0.01, 0.0, textwrap.fill(caption, 160), fontsize=8, color="dimgrey", va="top")
        fig.tight_layout()
        save_figure(fig, stem)
        plt.close(fig)


def _exp6_means(per_round: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per mechanism (in LABELS order), the rounds x seeds table of minimum accuracy."""
    methods = [m for m in LABELS if m in set(per_round.method)]
    methods += [m for m in dict.fromkeys(per_round.method) if m not in methods]
    return {m: per_round[per_round.method == m].pivot(index="round", columns="seed", values="min_acc") for m in methods}


def _exp6_label(per_round: pd.DataFrame, method: str) -> str:
    recruited = per_round[per_round.method == method].min_recruited.mean()
    return f"{LABELS.get(method, method)} (min {recruited:.1f} clients/task)"


def _exp6_overview(ax: plt.Axes, wides: dict[str, pd.DataFrame], per_round: pd.DataFrame) -> None:
    """Every mechanism's mean over seeds, each with its own colour, marker and line style (no bands)."""
    for k, (method, wide) in enumerate(wides.items()):
        ax.plot(
            wide.index,
            wide.mean(axis=1),
            color=COLORS.get(method),
            marker=MARKERS[k % len(MARKERS)],
            ms=5,
            lw=1.6,
            ls=LINESTYLES[k % len(LINESTYLES)],
            label=_exp6_label(per_round, method),
        )
    round_axis(ax)
    ax.set_ylabel("min accuracy across the two tasks")
    ax.grid(alpha=0.3)


def _exp6_band(ax: plt.Axes, wides: dict[str, pd.DataFrame], method: str) -> None:
    """One mechanism's mean and min-max band over seeds, the other mechanisms' means in thin grey."""
    for other, wide in wides.items():
        if other != method:
            ax.plot(wide.index, wide.mean(axis=1), color="0.75", lw=0.8)
    wide = wides[method]
    ax.fill_between(wide.index, wide.min(axis=1), wide.max(axis=1), color=COLORS.get(method), alpha=0.25, lw=0)
    ax.plot(wide.index, wide.mean(axis=1), color=COLORS.get(method), lw=1.8)
    ax.set_title(textwrap.fill(LABELS.get(method, method), 18), fontsize=8)
    ax.tick_params(labelsize=7)
    round_axis(ax)
    ax.xaxis.label.set_size(8)


def figure7c(per_round: pd.DataFrame, stem: str | Path, budgets: list[float]) -> None:
    """Minimum accuracy across the two tasks vs round, per recruitment mechanism: the seed means of every mechanism
    in one panel, then one small panel per mechanism with its min-max band over seeds."""
    wides = _exp6_means(per_round)
    cols = max(1, len(wides))
    fig = plt.figure(figsize=(max(9.6, 2.1 * cols), 6.4))
    grid = fig.add_gridspec(2, cols, height_ratios=(1.5, 1))
    top = fig.add_subplot(grid[0, :])
    _exp6_overview(top, wides, per_round)
    top.legend(
        fontsize=LEGEND_SIZE, title=MARKS, title_fontsize=LEGEND_SIZE, loc="upper left", bbox_to_anchor=(1.01, 1)
    )
    first = None
    for k, method in enumerate(wides):
        ax = fig.add_subplot(grid[1, k], sharey=first)
        first = first or ax
        _exp6_band(ax, wides, method)
        if k:
            ax.tick_params(labelleft=False)
        else:
            ax.set_ylabel("min accuracy", fontsize=8)
    at = f" at B = {', '.join(f'{b:g}' for b in budgets)}" if budgets else ""
    top.set_title(
        f"Fig. 7c: FedFairMMFL on the clients each mechanism recruits{at}\n"
        "top: mean over seeds; bottom: each mechanism's min-max band over seeds (grey: the others' means)",
        fontsize=9,
    )
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)
