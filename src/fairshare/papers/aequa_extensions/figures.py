"""Figures for the Aequa extensions: reward accuracy vs participation rate (Fig. 2) and every evaluation metric
over the rounds of training-time rewards against the baselines (Figs 3-4), and accuracy vs width at scale (Fig. 5).
Figures read tidy results; they never recompute them."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import MaxNLocator

from fairshare.io import save_figure
from fairshare.papers.aequa.figures import BAND, partition_title
from fairshare.plotting import LEGEND_SIZE, LINESTYLES, pearson_label, reference_line, round_axis, seed_band

__all__ = ["STYLE", "METRICS", "reward_vs_rate", "metrics_over_rounds", "scale_accuracy_vs_width", "scale_figure"]

STYLE = {
    "fedavg_ft": ("FedAvg-FT", "tab:blue", "o"),
    "cgsv": ("CGSV", "tab:green", "s"),
    "iafl": ("IAFL", "tab:purple", "^"),
    "aequa": ("Aequa", "tab:red", "D"),
    "aequa_cgsv": ("Aequa+CGSV", "tab:orange", "v"),
    "aequa_shapfed": ("Aequa+ShapFed", "tab:brown", "P"),
}
METRICS = {  # metric: (panel title, y-axis label); Pearson's ρ gets one small panel per method
    "accuracy": ("global accuracy", "accuracy"),
    "mcg": ("MCG: mean gain over standalone", "MCG"),
    "cgs": ("CGS (lower is fairer)", "CGS"),
    "pearson": ("Pearson ρ of reward with contribution", "ρ"),
}


def reward_vs_rate(per_client: pd.DataFrame, runs: pd.DataFrame, stem: str | Path) -> None:
    """One panel per dataset: every client's reward accuracy against its participation rate (seed 0), per method."""
    datasets = list(dict.fromkeys(per_client.dataset)) or ["(no runs)"]
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.4 * len(datasets), 3.4), squeeze=False)
    for ax, d in zip(axes[0], datasets):
        sub = per_client[(per_client.dataset == d) & (per_client.seed == per_client.seed.min())]
        for method, (label, color, marker) in STYLE.items():
            pts = sub[sub.method == method].sort_values("rate")
            if pts.empty:
                continue
            rho = runs[(runs.dataset == d) & (runs.method == method)].pearson.mean()
            ax.plot(
                pts.rate, pts.reward_acc, color=color, marker=marker, ms=4, lw=1, label=f"{label}: {pearson_label(rho)}"
            )
        ax.set_title(d, fontsize=10)
        ax.set_xlabel("participation rate")
        ax.set_ylabel("reward accuracy")
        ax.legend(fontsize=LEGEND_SIZE)
    fig.suptitle(
        "Participation rate as the contribution (Fig. 2): one point per client (first seed);\nρ: Pearson correlation of "
        "reward with rate, mean over seeds (undefined when every client gets the same reward)",
        fontsize=9,
    )
    fig.tight_layout()
    save_figure(fig, Path(stem))
    plt.close(fig)


def _method_style(k: int, method: str) -> dict:
    """A method's colour, marker and line style (STYLE; the style by its position, so curves part in grey print)."""
    name, color, marker = STYLE.get(method, (method, "grey", "o"))
    return {"label": name, "color": color, "marker": marker, "ls": LINESTYLES[k % len(LINESTYLES)]}


def _rho_panel(ax: plt.Axes, sub: pd.DataFrame, methods: list[str], method: str, k: int) -> None:
    """One method's per-round ρ (mean over seeds, min-max band) over the other methods' means in thin grey."""
    rho = sub[sub.metric == "pearson"]
    for other in methods:
        if other != method:
            curve = rho[rho.method == other].groupby("round").value.mean()
            ax.plot(curve.index, curve.to_numpy(float), color="0.78", lw=0.7, zorder=1)
    style = {**_method_style(k, method), "ls": "-"}  # one coloured curve per panel: solid reads best when small
    seed_band(ax, rho[rho.method == method], "round", "value", **style, markers=5)
    ax.axhline(0, color="k", lw=0.5)
    ax.set_ylim(-1.05, 1.05)
    ax.set_title(style["label"], fontsize=9)


def metrics_over_rounds(tidy: pd.DataFrame, stem: str | Path) -> None:
    """Figs. 3-4: per dataset, a row of accuracy, MCG and CGS against round (every method: mean over seeds, min-max
    band) and a row of small panels of Pearson's ρ, one per method (its band over the others' means in grey)."""
    datasets = list(dict.fromkeys(tidy.dataset)) or ["(no runs)"]
    methods = [m for m in STYLE if m in set(tidy.method)] or list(STYLE)
    fig = plt.figure(figsize=(max(10.5, 1.75 * len(methods)), 4.6 * len(datasets) + 0.9))
    grid = fig.add_gridspec(2 * len(datasets), 1, height_ratios=(1.3, 1) * len(datasets), hspace=0.55)
    for i, d in enumerate(datasets):
        sub = tidy[tidy.dataset == d]
        top = grid[2 * i].subgridspec(1, 3, wspace=0.3)
        for j, (metric, (title, ylabel)) in enumerate(list(METRICS.items())[:3]):
            ax = fig.add_subplot(top[j])
            for k, method in enumerate(methods):
                m = sub[(sub.method == method) & (sub.metric == metric)]
                if len(m):
                    seed_band(ax, m, "round", "value", **_method_style(k, method), markers=5)
            ax.set_title(f"{d}: {title}", fontsize=9)
            ax.set_ylabel(ylabel)
            round_axis(ax)
            ax.tick_params(labelsize=8)
            ax.grid(alpha=0.25)
        bottom = grid[2 * i + 1].subgridspec(1, len(methods), wspace=0.08)
        first = None
        for k, method in enumerate(methods):
            ax = fig.add_subplot(bottom[k], sharey=first)
            first = first or ax
            _rho_panel(ax, sub, methods, method, k)
            round_axis(ax)
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))  # a narrow panel: few round ticks
            ax.tick_params(labelsize=8, labelleft=k == 0)
            ax.grid(alpha=0.25)
        first.set_ylabel(f"{d}: Pearson ρ of\nreward, contribution", fontsize=9)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=max(1, len(labels)), fontsize=LEGEND_SIZE)
    partition = partition_title(tidy.partition.iloc[0], tidy.scheme.iloc[0]) if len(tidy) else ""
    fig.suptitle(
        f"Training-time rewards, {partition} partition (Figs. 3-4): line = mean over seeds, shaded = min-max over "
        "seeds.\nρ row: one panel per method, the others' means in grey; a round where every client gets the same "
        "reward has no ρ (not drawn)",
        fontsize=9,
    )
    fig.subplots_adjust(left=0.07, right=0.98, top=1 - 0.85 / fig.get_figheight(), bottom=0.9 / fig.get_figheight())
    save_figure(fig, Path(stem))
    plt.close(fig)


def scale_accuracy_vs_width(
    curves: pd.DataFrame, fedavg_global: float, fedavg_ft_client: float, title: str, stem: str | Path
) -> None:
    """Fig. 5: the slimmable model's accuracy at every width (mean over seeds, min-max band) against FedAvg's global
    model and FedAvg-FT's mean client model."""
    fig, ax = plt.subplots(figsize=(4.6, 3.4))
    if len(curves):
        seed_band(
            ax, curves, "width", "accuracy", color="tab:red", label="Aequa a(p), mean over seeds", band_label=BAND
        )
    reference_line(ax, fedavg_global, "fedavg", f"FedAvg (global): {fedavg_global:.3f}")
    reference_line(ax, fedavg_ft_client, "fedavg_ft", f"FedAvg-FT (mean client): {fedavg_ft_client:.3f}")
    ax.set_xlabel("width p")
    ax.set_ylabel("balanced accuracy")
    ax.set_title(f"Accuracy vs width at scale (Fig. 5): {title}", fontsize=9)
    ax.legend(fontsize=LEGEND_SIZE, loc="best")
    fig.tight_layout()
    save_figure(fig, Path(stem))
    plt.close(fig)


def scale_figure(curves: pd.DataFrame, scale: pd.DataFrame, title: str, stem: str | Path) -> None:
    """Fig. 5 from the scale runs' a(p) curves and their tidy results (FedAvg-FT's global and mean client accuracy)."""
    fedavg = scale[scale.method == "fedavg_ft"]
    scale_accuracy_vs_width(
        curves,
        float(fedavg.accuracy.mean()) if len(fedavg) else float("nan"),
        float(fedavg.mean_reward.mean()) if len(fedavg) else float("nan"),
        title,
        stem,
    )
