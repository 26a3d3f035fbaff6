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
