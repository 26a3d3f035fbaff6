"""Figures for the Aequa extensions: reward accuracy vs participation rate (Fig. 2) and every evaluation metric
over the rounds of training-time rewards against the baselines (Figs 3-4), and accuracy vs width at scale (Fig. 5).
Figures read tidy results; they never recompute them."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from fairshare.io import save_figure
from fairshare.papers.aequa.figures import BAND, partition_title
from fairshare.plotting import LEGEND_SIZE, pearson_label, reference_line, round_axis, seed_band

__all__ = ["STYLE", "METRICS", "reward_vs_rate", "metrics_over_rounds", "scale_accuracy_vs_width", "scale_figure"]

STYLE = {
    "fedavg_ft": ("FedAvg-FT", "tab:blue", "o"),
    "cgsv": ("CGSV", "tab:green", "s"),
    "iafl": ("IAFL", "tab:purple", "^"),
    "aequa": ("Aequa", "tab:red", "D"),
    "aequa_cgsv": ("Aequa+CGSV", "tab:orange", "v"),
    "aequa_shapfed": ("Aequa+ShapFed", "tab:brown", "P"),
}
METRICS = {
    "accuracy": "global accuracy",
    "pearson": "Pearson ρ of reward with contribution",
    "mcg": "MCG (mean gain over standalone)",
    "cgs": "CGS (lower is fairer)",
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


def metrics_over_rounds(tidy: pd.DataFrame, stem: str | Path) -> None:
    """One row per dataset, one panel per metric: mean over seeds vs round, one line per method."""
    datasets = list(dict.fromkeys(tidy.dataset)) or ["(no runs)"]
    fig, axes = plt.subplots(
        len(datasets), len(METRICS), figsize=(3.4 * len(METRICS), 2.8 * len(datasets)), squeeze=False
    )
    for row, d in zip(axes, datasets):
        sub = tidy[tidy.dataset == d]
        for ax, (metric, label) in zip(row, METRICS.items()):
            for method, (name, color, marker) in STYLE.items():
                m = sub[(sub.method == method) & (sub.metric == metric)]
                if m.empty:
                    continue
                curve = m.groupby("round").value.mean()
                ax.plot(curve.index, curve.to_numpy(float), color=color, marker=marker, ms=3, lw=1.2, label=name)
            ax.set_title(f"{d}: {label}", fontsize=9)
            round_axis(ax)
            if metric == "pearson":
                ax.set_ylim(-1.05, 1.05)
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=max(1, len(labels)), fontsize=LEGEND_SIZE)
    partition = partition_title(tidy.partition.iloc[0], tidy.scheme.iloc[0]) if len(tidy) else ""
    fig.suptitle(
        f"Training-time rewards, {partition} partition (Figs. 3-4): mean over seeds per round. A round where every "
        "client gets the same reward has no ρ (a constant vector has no correlation): not drawn",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0.06, 1, 0.95))
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
