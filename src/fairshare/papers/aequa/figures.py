"""Figures for Aequa: accuracy vs width of the slimmable global model against FedAvg / FedAvg-FT (Figs 1, 6),
and per-client reward accuracy vs contribution for every method (the correlation behind Tables 2 and 6). Figures read
the tidy results of ``aequa summarize``; they never recompute them."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairshare.io import save_figure
from fairshare.plotting import LEGEND_SIZE, panel_grid, reference_line, seed_band

__all__ = [
    "METHODS",
    "SCHEMES",
    "DATASET_MARKERS",
    "partition_title",
    "accuracy_vs_width",
    "reward_vs_contribution",
    "draw",
]

METHODS = {
    "fedavg_ft": ("FedAvg-FT", "tab:blue"),
    "cgsv": ("CGSV", "tab:green"),
    "iafl": ("IAFL", "tab:purple"),
    "aequa": ("Aequa", "tab:red"),
}
SCHEMES = {  # partition schemes in the paper's words (Sec. 6.1, App. D)
    "homogeneous": "homogeneous",
    "dirichlet": "Dirichlet",
    "quantity_skew": "quantity skew",
    "label_skew": "label skew, #OC",
}


def partition_title(name: str, scheme: str | None) -> str:
    """A configured partition's name, with the paper's word for its scheme where the name does not say it."""
    words = SCHEMES.get(scheme, scheme)
    return name if not words or name == scheme else f"{name} ({words})"


def _metric_mean(summary: pd.DataFrame, dataset: str, method: str, metric: str) -> float:
    v = summary[(summary.dataset == dataset) & (summary.method == method) & (summary.metric == metric)].value
    return float(v.mean()) if len(v) else float("nan")


def accuracy_vs_width(curves: pd.DataFrame, summary: pd.DataFrame, stem: Path) -> None:
    """One panel per dataset: Aequa's a(p) (mean over seeds, min-max band), FedAvg's global and FedAvg-FT's mean
    client accuracy as reference lines, and the mean standalone accuracy."""
    aequa = curves[curves.method == "aequa"]
    datasets = list(dict.fromkeys(aequa.dataset)) or ["(no runs)"]
    fig, axes = panel_grid(len(datasets), 3, (4.6, 3.8))
    for ax, d in zip(axes.flat, datasets):
        sub = aequa[aequa.dataset == d]
        if sub.empty:
            ax.text(0.5, 0.5, "no Aequa runs", ha="center", transform=ax.transAxes)
            continue
        seed_band(ax, sub, "width", "accuracy", color="tab:red", label="Aequa a(p), mean over seeds", band_label=BAND)
        fedavg = _metric_mean(summary, d, "fedavg_ft", "accuracy")
        ft = _metric_mean(summary, d, "fedavg_ft", "mcg")
        alone = _metric_mean(summary, d, "standalone", "mean_standalone")
        reference_line(ax, fedavg, "fedavg", "FedAvg (global)")
        reference_line(ax, alone + ft, "fedavg_ft", "FedAvg-FT (mean client)")
        reference_line(ax, alone, "standalone", "standalone (mean)")
        schemes = summary[summary.dataset == d].scheme.dropna()
        ax.set_title(f"{d}, {partition_title(sub.partition.iloc[0], schemes.iloc[0] if len(schemes) else None)}")
        ax.set_xlabel("width p")
        ax.set_ylabel("balanced accuracy")
    handles, labels = max((ax.get_legend_handles_labels() for ax in axes.flat), key=lambda hl: len(hl[1]))
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=LEGEND_SIZE)
    fig.suptitle("Accuracy of the width-p sub-network of Aequa's final model (Figs. 1 and 6)", fontsize=10)
    fig.tight_layout(rect=(0, 0.13 / axes.shape[0], 1, 1))
    save_figure(fig, stem)
    plt.close(fig)


BAND = "Aequa a(p), min-max over seeds"
DATASET_MARKERS = "osD^vP"  # one marker per dataset beside its colour


def _rho(c: np.ndarray, a: np.ndarray) -> float:
    """Pearson's ρ of one seed's clients; NaN where one vector is constant (ρ is undefined there)."""
    if np.std(c) == 0 or np.std(a) == 0:
        return float("nan")
    return float(np.corrcoef(c, a)[0, 1])


def _mean_rho(pts: pd.DataFrame) -> str:
    """The mean over seeds of each seed's ρ across clients, for a panel title; 'n/a' where no seed has one."""
    rhos = [_rho(g.contribution.to_numpy(float), g.reward_acc.to_numpy(float)) for _, g in pts.groupby("seed")]
    defined = [r for r in rhos if not np.isnan(r)]
    return f"{np.mean(defined):.2f}" if defined else "n/a"


def _limits(values: np.ndarray) -> tuple[float, float]:
    """Axis limits around ``values`` with 6% padding (a little more where they are all equal)."""
    lo, hi = (float(np.nanmin(values)), float(np.nanmax(values))) if len(values) else (0.0, 1.0)
    pad = 0.06 * (hi - lo) or 0.02
    return lo - pad, hi + pad


def _scatter_panel(ax: plt.Axes, sub: pd.DataFrame, datasets: list[str], title: str) -> None:
    """One method on one partition: a point per client, seed and dataset, the reward = contribution line where it
    crosses the panel, the mean over seeds of ρ per dataset in the title."""
    rhos = []
    for k, d in enumerate(datasets):
        pts = sub[sub.dataset == d]
        if pts.empty:
            continue
        colour, marker = plt.cm.tab10(k % 10), DATASET_MARKERS[k % len(DATASET_MARKERS)]
        ax.scatter(pts.contribution, pts.reward_acc, s=14, color=colour, marker=marker, label=d, alpha=0.7, lw=0)
        rhos.append(_mean_rho(pts))
    ax.set_title(f"{title}\nρ = {' / '.join(rhos) or '-'}", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(alpha=0.25)


def _diagonal(ax: plt.Axes) -> bool:
    """Draw the individual-rationality line reward = contribution across the panel's (fixed) limits; False where it
    passes below the panel (every client's reward above every contribution)."""
    (x0, x1), (y0, _) = ax.get_xlim(), ax.get_ylim()
    ax.plot([x0, x1], [x0, x1], color="grey", lw=0.8, ls=":", scalex=False, scaley=False)
    return x1 >= y0


def reward_vs_contribution(per_client: pd.DataFrame, schemes: dict[str, str], stem: Path) -> None:
    """Rows: partitions (``schemes``: partition -> scheme); columns: methods; points: the clients of every seed, one
    colour and marker per dataset (one legend for the figure), each dataset's ρ (mean over seeds) in the panel
    title. Each row has its own axes, fitted to its points, so a partition whose contributions lie close together
    (label skew) spreads over the panel; the dotted diagonal is reward = contribution."""
    partitions = list(dict.fromkeys(per_client.partition)) or ["(no runs)"]
    methods = [m for m in METHODS if m in set(per_client.method)] or list(METHODS)
    datasets = list(dict.fromkeys(per_client.dataset))
    seeds = sorted(per_client.seed.unique()) if len(per_client) else []
    fig, axes = plt.subplots(
        len(partitions), len(methods), figsize=(2.6 * len(methods), 2.5 * len(partitions) + 1.1), squeeze=False
    )
    for i, part in enumerate(partitions):
        row = per_client[(per_client.partition == part) & per_client.method.isin(methods)]
        xlim, ylim = _limits(row.contribution.to_numpy(float)), _limits(row.reward_acc.to_numpy(float))
        for j, method in enumerate(methods):
            ax = axes[i, j]
            title = f"{METHODS[method][0]}, {partition_title(part, schemes.get(part))}"
            _scatter_panel(ax, row[row.method == method], datasets, title)
            ax.set_xlim(xlim)
            ax.set_ylim(ylim)
            shown = _diagonal(ax)
            if j:
                ax.tick_params(labelleft=False)
        axes[i, 0].set_ylabel("reward accuracy", fontsize=9)
        below = "" if shown else "\n(reward = contribution lies below this row)"
        axes[i, 0].set_xlabel(f"contribution (standalone acc.){below}", fontsize=8)
    handles, labels = max((ax.get_legend_handles_labels() for ax in axes.flat), key=lambda hl: len(hl[1]))
    fig.legend(handles, labels, loc="lower center", ncol=max(1, len(labels)), fontsize=9, markerscale=1.6)
    order = " / ".join(datasets)
    fig.suptitle(
        f"Reward accuracy vs contribution (standalone accuracy): one point per client and seed ({len(seeds)} seeds); "
        "each row its own axes.\nDotted: reward = contribution (below it a client does worse than training alone). "
        f"ρ: Pearson correlation across clients, mean over seeds, per dataset ({order});\nn/a where every client "
        "gets the same reward or contribution in every seed (a constant vector has no correlation).",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0.45 / fig.get_figheight(), 1, 1), h_pad=1.2)
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
    named = summary.dropna(subset=["scheme"])
    reward_vs_contribution(per_client, dict(zip(named.partition, named.scheme)), scatter_stem)
