"""Figures for Aequa: accuracy vs width of the slimmable global model against FedAvg / FedAvg-FT (Figs 1, 6),
and per-client reward accuracy vs contribution for every method (the correlation behind Tables 2 and 6). Figures read
the tidy results of ``aequa summarize``; they never recompute them."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairshare.io import save_figure
from fairshare.plotting import panel_grid, seed_band

METHODS = {
    "fedavg_ft": ("FedAvg-FT", "tab:blue"),
    "cgsv": ("CGSV", "tab:green"),
    "iafl": ("IAFL", "tab:purple"),
    "aequa": ("Aequa", "tab:red"),
}


def _metric_mean(summary: pd.DataFrame, dataset: str, method: str, metric: str) -> float:
    v = summary[(summary.dataset == dataset) & (summary.method == method) & (summary.metric == metric)].value
    return float(v.mean()) if len(v) else float("nan")


def accuracy_vs_width(curves: pd.DataFrame, summary: pd.DataFrame, stem: Path) -> None:
    """One panel per dataset: Aequa's a(p) (mean over seeds, min-max band), FedAvg's global and FedAvg-FT's mean
    client accuracy as reference lines, and the mean standalone accuracy."""
    aequa = curves[curves.method == "aequa"]
    datasets = list(dict.fromkeys(aequa.dataset)) or ["(no runs)"]
    fig, axes = panel_grid(len(datasets), 3, (4.2, 3.3))
    for ax, d in zip(axes.flat, datasets):
        sub = aequa[aequa.dataset == d]
        if sub.empty:
            ax.text(0.5, 0.5, "no Aequa runs", ha="center", transform=ax.transAxes)
            continue
        seed_band(ax, sub, "width", "accuracy", color="tab:red", label="Aequa a(p)")
        fedavg = _metric_mean(summary, d, "fedavg_ft", "accuracy")
        ft = _metric_mean(summary, d, "fedavg_ft", "mcg")
        alone = _metric_mean(summary, d, "standalone", "mean_standalone")
        if not math.isnan(fedavg):
            ax.axhline(fedavg, color="tab:blue", ls="--", lw=1.2, label="FedAvg (global)")
        if not (math.isnan(ft) or math.isnan(alone)):
            ax.axhline(alone + ft, color="tab:blue", ls=":", lw=1.2, label="FedAvg-FT (mean client)")
        if not math.isnan(alone):
            ax.axhline(alone, color="grey", ls="-.", lw=1.0, label="standalone (mean)")
        ax.set_title(f"{d} ({sub.partition.iloc[0]})", fontsize=9)
        ax.set_xlabel("width p")
        ax.set_ylabel("balanced accuracy")
        ax.legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def reward_vs_contribution(per_client: pd.DataFrame, stem: Path) -> None:
    """Rows: partitions; columns: methods; points: clients of seed 0, one colour per dataset, Pearson in the legend."""
    partitions = list(dict.fromkeys(per_client.partition)) or ["(no runs)"]
    methods = [m for m in METHODS if m in set(per_client.method)] or list(METHODS)
    datasets = list(dict.fromkeys(per_client.dataset))
    colours = {d: plt.cm.tab10(i % 10) for i, d in enumerate(datasets)}
    first_seed = per_client[per_client.seed == per_client.seed.min()] if len(per_client) else per_client
    fig, axes = plt.subplots(
        len(partitions), len(methods), figsize=(3.2 * len(methods), 2.8 * len(partitions)), squeeze=False
    )
    for i, part in enumerate(partitions):
        for j, method in enumerate(methods):
            ax = axes[i, j]
            sub = first_seed[(first_seed.partition == part) & (first_seed.method == method)]
            for d in datasets:
                pts = sub[sub.dataset == d]
                if pts.empty:
                    continue
                c, a = pts.contribution.to_numpy(float), pts.reward_acc.to_numpy(float)
                rho = np.corrcoef(c, a)[0, 1] if np.std(c) > 0 and np.std(a) > 0 else float("nan")
                ax.scatter(c, a, s=14, color=colours[d], label=f"{d} ρ={rho:.2f}")
            lo = np.nanmin(sub[["contribution", "reward_acc"]].to_numpy(float)) if len(sub) else 0.0
            hi = np.nanmax(sub[["contribution", "reward_acc"]].to_numpy(float)) if len(sub) else 1.0
            ax.plot([lo, hi], [lo, hi], color="grey", lw=0.6, ls=":")  # the individual-rationality line
            ax.set_title(f"{METHODS[method][0]} — {part}", fontsize=8)
            ax.set_xlabel("contribution (standalone acc.)", fontsize=7)
            ax.set_ylabel("reward accuracy", fontsize=7)
            ax.tick_params(labelsize=6)
            if len(sub):
                ax.legend(fontsize=5, loc="lower right")
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)


def draw(
    summary: pd.DataFrame,
    per_client: pd.DataFrame,
    curves: pd.DataFrame,
    curve_partition: str,
    width_stem: Path,
    scatter_stem: Path,
) -> None:
    """Both figures: accuracy vs width on ``curve_partition`` (Figs 1 and 6) and reward vs contribution."""
    accuracy_vs_width(
        curves[curves.partition == curve_partition], summary[summary.partition == curve_partition], width_stem
    )
    reward_vs_contribution(per_client, scatter_stem)
