"""Figure 1 (exact step functions of the largest equilibrium coalition) and price-of-stability curves."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairshare.plotting import LEGEND_SIZE

__all__ = ["TITLES", "figure1", "pos_curves"]

TITLES = {"nash": "Nash stability", "robust": "robust stability"}


def figure1(df: pd.DataFrame, sigma_range: list[float], n: int, narrow: float) -> plt.Figure:
    """Two panels (Nash, robust): max equilibrium size vs sigma as exact steps, no-equilibrium regions shaded.

    Pieces narrower than ``narrow`` (in sigma) would vanish at figure resolution: they get a marker and a label
    with their exact endpoints, and a thin vertical bar so the step is visible.
    """
    lo_x, hi_x = sigma_range
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, notion in zip(axes, ("nash", "robust")):
        sub = df[df.notion == notion].sort_values("sigma_lo")
        previous = None
        for row in sub.itertuples():
            a, b = max(row.sigma_lo, lo_x), min(row.sigma_hi, hi_x)
            if a >= b:
                continue
            if row.max_size == 0:
                ax.axvspan(a, b, color="tab:red", alpha=0.18, lw=0)
            else:
                ax.hlines(row.max_size, a, b, color="tab:blue", lw=2.2)
                if b - a < narrow:
                    ax.vlines((a + b) / 2, 0, row.max_size, color="tab:orange", lw=1.0)
                    ax.plot((a + b) / 2, row.max_size, marker="v", color="tab:orange", ms=7, zorder=4)
                    ax.annotate(
                        f"size {row.max_size}\n[{row.sigma_lo:.5f}, {row.sigma_hi:.5f})",
                        ((a + b) / 2, row.max_size),
                        textcoords="offset points",
                        xytext=(-4, 9),
                        ha="right",
                        fontsize=7,
                        color="tab:orange",
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8},
                    )
            if previous is not None and previous != row.max_size:
                ax.vlines(a, min(previous, row.max_size), max(previous, row.max_size), color="tab:blue", lw=0.8, ls=":")
            previous = row.max_size
        ax.set_xlim(lo_x, hi_x)
        ax.set_ylim(0, n + 0.5)
        ax.set_yticks(range(0, n + 1))
        ax.set_xlabel(r"$\sigma$")
        ax.set_title(TITLES[notion])
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("largest equilibrium coalition size")
    handles = [
        plt.Line2D([], [], color="tab:blue", lw=2.2),
        plt.Line2D([], [], color="tab:blue", lw=0.8, ls=":"),
        plt.Rectangle((0, 0), 1, 1, color="tab:red", alpha=0.18),
        plt.Line2D([], [], color="tab:orange", marker="v", ls=""),
    ]
    fig.legend(
        handles,
        [
            "largest equilibrium coalition on a σ interval",
            "jump between intervals",
            "no equilibrium",
            rf"interval narrower than {narrow:g} in $\sigma$ (marked, exact ends)",
        ],
        loc="lower center",
        ncol=4,
        fontsize=LEGEND_SIZE,
    )
    fig.suptitle(rf"Figure 1: $\alpha$ = 1, {n} players, exact breakpoints (closed form, Claims 5-6)", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def _expected_slope(alpha: float) -> float:
    return 2 / 3 if alpha <= -0.5 else (1 - 2 * alpha) / 3 if alpha <= 0.5 else 0.0


def pos_curves(df: pd.DataFrame) -> plt.Figure:
    """log-log PoS(SC) and PoS(Var) vs n per alpha, one row per identical cost; robust solid, Nash dashed.

    Dotted lines: the Theorems 3-4 orders through the last point (first cost only, the asymptotic-regime one).
    """
    costs = list(dict.fromkeys(df.cost))
    alphas = sorted(df.alpha.unique())
    colors = plt.cm.tab10(np.arange(len(alphas)) % 10)
    fig, axes = plt.subplots(len(costs), 2, figsize=(11, 3.6 * len(costs)), squeeze=False)
    for r, cost in enumerate(costs):
        for ax, metric in zip(axes[r], ("pos_sc", "pos_var")):
            for color, alpha in zip(colors, alphas):
                for notion, style in (("robust", "-"), ("nash", "--")):
                    sub = df[(df.cost == cost) & (df.alpha == alpha) & (df.notion == notion)].sort_values("n")
                    ax.loglog(
                        sub.n,
                        sub[metric],
                        ls=style,
                        marker="o" if notion == "robust" else None,
                        ms=3,
                        color=color,
                        label=rf"$\alpha$ = {alpha:g}" if notion == "robust" else None,
                    )
                if r == 0:
                    sub = df[(df.cost == cost) & (df.alpha == alpha) & (df.notion == "robust")].sort_values("n")
                    ns = sub.n.to_numpy(float)
                    y_last = sub[metric].iloc[-1]
                    ax.loglog(ns, y_last * (ns / ns[-1]) ** _expected_slope(alpha), ls=":", color=color, lw=1)
            ax.set_xlabel("n (identical costs)")
            ax.set_title(
                f"{'PoS(SC)' if metric == 'pos_sc' else 'PoS(Var)'}, c = {cost:g}, "
                rf"$\sigma^2$ = {df.sigma2.iloc[0]:g}",
                fontsize=9,
            )
            ax.grid(alpha=0.3, which="both")
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles += [
        plt.Line2D([], [], color="k", ls=style, marker=m, ms=3) for style, m in (("-", "o"), ("--", None), (":", None))
    ]
    labels += ["robust equilibrium", "Nash equilibrium", "order of Theorems 3-4 (first cost only)"]
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize=LEGEND_SIZE)
    fig.suptitle("Price of stability vs n (supporting figure, not in the paper)", fontsize=10)
    legend_rows = -(-len(labels) // 6)
    fig.tight_layout(rect=(0, 0.3 * legend_rows / fig.get_figheight(), 1, 1))
    return fig
