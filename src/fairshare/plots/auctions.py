"""Figures 7a and 7b: difference in recruited clients between tasks, and minimum recruited per task, vs budget."""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from fairshare.io import save_figure

LABELS = {"budget_fair": "Budget-Fair Auction", "maxmin_fair": "MMFL Max-Min Fair", "gmmfair": "GMMFair (NT)",
          "greedy_within_budget": "Greedy Within Budget (NT)", "random_within_budget": "Random Within Budget (NT)",
          "val_threshold_0.4": "valThreshold 0.4 (NB)", "val_threshold_0.6": "valThreshold 0.6 (NB)"}


def figure7(df: pd.DataFrame, outdir: Path, caption: str) -> None:
    for metric, name, ylabel in (("difference", "fig7a", "|recruited task 1 - recruited task 2|"), ("min_recruited", "fig7b", "min recruited clients per task")):
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for method, g in df.groupby("method", sort=False):
            stats = g.groupby("budget")[metric].agg(["mean", "min", "max"])
            ax.plot(stats.index, stats["mean"], marker="o", ms=3, label=LABELS.get(method, method), ls="--" if method.startswith("val") else "-")
            ax.fill_between(stats.index, stats["min"], stats["max"], alpha=0.15)
        ax.set_xlabel("budget B")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{'Fig. 7a' if name == 'fig7a' else 'Fig. 7b'}: 2 tasks, 100 clients, mean over seeds (band: min-max)", fontsize=9)
        ax.legend(fontsize=7)
        fig.text(0.01, 0.005, caption, fontsize=7, color="dimgrey")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        save_figure(fig, outdir / name)
        plt.close(fig)


def figure7c(per_round: pd.DataFrame, stem: str) -> None:
    """Minimum accuracy across the two tasks vs round, per recruitment mechanism (mean over seeds, min-max band)."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for method, g in per_round.groupby("method", sort=False):
        wide = g.pivot(index="round", columns="seed", values="min_acc")
        recruited = g.min_recruited.mean()
        ax.plot(wide.index, wide.mean(axis=1), ls=":", lw=1.8, label=f"{LABELS.get(method, method)} (min {recruited:.1f} clients/task)")
        ax.fill_between(wide.index, wide.min(axis=1), wide.max(axis=1), alpha=0.15)
    ax.set_xlabel("round")
    ax.set_ylabel("min accuracy across the two tasks")
    ax.set_title("Fig. 7c: FedFairMMFL on the clients each mechanism recruits (B = 29)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)
