"""Figure 1 (exact step functions of the largest equilibrium coalition) and price-of-stability curves."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairshare.plotting import LEGEND_SIZE

__all__ = ["TITLES", "POS_LABELS", "figure1", "pos_curves"]

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


POS_LABELS = {  # Section 3.2: the SC-optimal stable coalition against the designer's optimum
    "pos_sc": ("PoS(SC)", "PoS(SC) = SC(stable) / SC(optimum)"),
    "pos_var": ("PoS(Var)", "PoS(Var) = Var(stable) / Var(optimum)"),
}
ALPHA_MARKERS = "osD^vP*Xh"  # one marker per alpha beside its colour
NOTION_STYLES = {  # Nash: dashed with large open markers underneath; robust: solid with small filled markers on top,
    # so where the two equilibria agree each marker shows as a dot in a ring, and where they differ both lines show
    "nash": {"ls": "--", "ms": 7, "mfc": "none", "lw": 1.2, "zorder": 2},
    "robust": {"ls": "-", "ms": 3.5, "lw": 1.4, "zorder": 3},
}


def _coinciding(curves: dict[float, np.ndarray]) -> list[list[float]]:
    """Groups of two or more alphas whose curves are equal at every n (they would hide each other)."""
    groups: list[list[float]] = []
    for alpha, ys in curves.items():
        for group in groups:
            if np.allclose(curves[group[0]], ys, rtol=1e-9, atol=0):
                group.append(alpha)
                break
        else:
            groups.append([alpha])
    return [g for g in groups if len(g) > 1]


def _pos_panel(ax: plt.Axes, sub: pd.DataFrame, metric: str, colors: dict, theory: bool) -> None:
    """One cost, one metric: both notions' curves per alpha, the Theorems 3-4 orders (``theory``), and a note naming
    the alphas whose curves coincide."""
    markers = dict(zip(colors, ALPHA_MARKERS * 2))
    robust = {}
    for alpha, color in colors.items():
        for notion in ("nash", "robust"):
            rows = sub[(sub.alpha == alpha) & (sub.notion == notion)].sort_values("n")
            ax.loglog(rows.n, rows[metric], color=color, marker=markers[alpha], **NOTION_STYLES[notion])
        robust[alpha] = rows[metric].to_numpy(float)
        if theory:
            ns = rows.n.to_numpy(float)
            ax.loglog(ns, robust[alpha][-1] * (ns / ns[-1]) ** _expected_slope(alpha), ls=":", color=color, lw=1)
    for k, group in enumerate(_coinciding(robust)):
        rows = sub[(sub.alpha == group[0]) & (sub.notion == "robust")].sort_values("n")
        ax.annotate(
            "α = " + ", ".join(f"{a:g}" for a in group) + ": same curve",
            (rows.n.iloc[-1], rows[metric].iloc[-1]),
            xytext=(-4, 5 + 10 * k),
            textcoords="offset points",
            ha="right",
            va="bottom",
            fontsize=8,
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8},
        )
    ax.set_xlabel("n (players, identical costs)")
    ax.set_ylabel(POS_LABELS[metric][1], fontsize=9)
    ax.grid(alpha=0.3, which="major")


def pos_curves(df: pd.DataFrame) -> plt.Figure:
    """log-log PoS(SC) and PoS(Var) vs n per alpha, one row per identical cost; robust solid with filled markers,
    Nash dashed with open markers.

    Dotted lines: the Theorems 3-4 orders through the last point (first cost only, the asymptotic-regime one).
    """
    costs = list(dict.fromkeys(df.cost))
    alphas = sorted(df.alpha.unique())
    colors = dict(zip(alphas, plt.cm.viridis(np.linspace(0, 0.9, len(alphas)))))
    fig, axes = plt.subplots(len(costs), 2, figsize=(11, 3.8 * len(costs) + 0.9), squeeze=False)
    for r, cost in enumerate(costs):
        for ax, metric in zip(axes[r], ("pos_sc", "pos_var")):
            _pos_panel(ax, df[df.cost == cost], metric, colors, theory=r == 0)
            ax.set_title(f"{POS_LABELS[metric][0]}, c = {cost:g}, " rf"$\sigma^2$ = {df.sigma2.iloc[0]:g}", fontsize=9)
    handles = [
        plt.Line2D([], [], color=colors[a], marker=(ALPHA_MARKERS * 2)[k], ls="-", ms=5) for k, a in enumerate(alphas)
    ]
    labels = [rf"$\alpha$ = {a:g}" for a in alphas]
    handles += [
        plt.Line2D([], [], color="k", marker="o", **{k: v for k, v in NOTION_STYLES[notion].items() if k != "zorder"})
        for notion in ("robust", "nash")
    ]
    handles.append(plt.Line2D([], [], color="k", ls=":", lw=1))
    labels += ["robust equilibrium", "Nash equilibrium", "order of Theorems 3-4 (first cost only)"]
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=LEGEND_SIZE)
    fig.suptitle("Price of stability vs n (supporting figure, not in the paper)", fontsize=10)
    legend_rows = -(-len(labels) // 6)
    fig.tight_layout(rect=(0, 0.3 * legend_rows / fig.get_figheight(), 1, 1))
    return fig
