"""Figure 1 (exact step functions of the largest equilibrium coalition) and price-of-stability curves."""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairshare.io import save_figure

NARROW = 0.004  # pieces narrower than this (in sigma) get a marker so they stay visible at figure resolution


def figure1(df: pd.DataFrame, sigma_range: list[float], n: int, stem: Path) -> None:
    """Two panels (Nash, robust): max equilibrium size vs sigma, exact steps, no-equilibrium regions shaded."""
    lo_x, hi_x = sigma_range
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, notion in zip(axes, ("nash", "robust")):
        sub = df[df.notion == notion].sort_values("sigma_lo")
        for row in sub.itertuples():
            a, b = max(row.sigma_lo, lo_x), min(row.sigma_hi, hi_x)
            if a >= b:
                continue
            if row.max_size == 0:
                ax.axvspan(a, b, color="tab:red", alpha=0.18, lw=0)
            else:
                ax.hlines(row.max_size, a, b, color="tab:blue", lw=2.2)
                if b - a < NARROW:
                    ax.plot((a + b) / 2, row.max_size, marker="v", color="tab:orange", ms=7, zorder=4)
                    ax.annotate(f"width {b - a:.1e}", ((a + b) / 2, row.max_size), textcoords="offset points", xytext=(4, 8), fontsize=7, color="tab:orange")
        ax.set_xlim(lo_x, hi_x)
        ax.set_ylim(0, n + 0.5)
        ax.set_xlabel(r"$\sigma$")
        ax.set_title(f"{'Nash' if notion == 'nash' else 'robust'} stability")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("largest equilibrium coalition")
    handles = [plt.Rectangle((0, 0), 1, 1, color="tab:red", alpha=0.18), plt.Line2D([], [], color="tab:orange", marker="v", ls="")]
    fig.legend(handles, ["no equilibrium", f"window narrower than {NARROW} (marked)"], loc="lower center", ncol=2, fontsize=8)
    fig.suptitle(r"Figure 1: $\alpha$ = 1, 9 players (exact breakpoints)", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    save_figure(fig, stem)
    plt.close(fig)


def pos_curves(df: pd.DataFrame, stem: Path) -> None:
    """log-log PoS(SC) and PoS(Var) vs n per alpha (identical costs), with the theorems' reference slopes."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    alphas = sorted(df.alpha.unique())
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(alphas)))
    for ax, metric in zip(axes, ("pos_sc", "pos_var")):
        for color, alpha in zip(colors, alphas):
            sub = df[(df.alpha == alpha) & (df.notion == "robust")].sort_values("n")
            ax.loglog(sub.n, sub[metric], marker="o", ms=3, color=color, label=f"alpha={alpha:g}")
            expected = 2 / 3 if alpha <= -0.5 else (1 - 2 * alpha) / 3 if alpha <= 0.5 else 0.0
            n0, y0 = sub.n.iloc[-1], sub[metric].iloc[-1]
            ns = np.array([sub.n.iloc[0], n0])
            ax.loglog(ns, y0 * (ns / n0) ** expected, ls=":", color=color, lw=1)
        ax.set_xlabel("n (identical costs)")
        ax.set_title("PoS(SC)" if metric == "pos_sc" else "PoS(Var)")
    axes[0].legend(fontsize=7)
    fig.suptitle("Price of stability (robust; dotted: Theorems 3-4 orders). Not a paper figure.", fontsize=9)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)
