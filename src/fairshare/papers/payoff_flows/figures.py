"""Figure 2 of the payoff paper: payoff bars, model-reward bars and payoff-flow heatmaps for three budget scenarios.

Panels as in the paper: (a, b) first scenario (b = inf), (c, d, g) second (b = 0), (e, f, h) third (b = 0.3 for
the first party). Payoff panels show incoming p_{i,+}, outgoing -p_{i,-} and the net payoff p_i; model panels show
v(i) in front of the model reward v'_i(N); heatmaps show the flows with rows = payers and columns = payees (the
paper's reading; the authors' plotting code has the axis labels swapped, docs/payoff_flows.md). Reads only the
allocations and flows tables; the caller saves the figure.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

__all__ = ["ANNOTATION_SIZE", "PAYOFF_COLOR", "figure2"]

ANNOTATION_SIZE = 8  # numbers over bars and in heatmap cells: readable at the figure's print size
TICK_SIZE = 8
LABEL_SIZE = 9
PAYOFF_COLOR = "0.15"


def _payoff_panel(ax, sub: pd.DataFrame, title: str) -> None:
    x = np.arange(len(sub))
    ax.bar(x, sub.revenue, color="tab:green", label="incoming $p_{i,+}$")
    ax.bar(x, -sub.cost, color="tab:red", label="outgoing $-p_{i,-}$")
    # opaque, so the net payoff over the green and red bars has the colour of its legend swatch
    ax.bar(x, sub.payoff, color=PAYOFF_COLOR, width=0.35, label="payoff $p_i$")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(x, sub.party, fontsize=TICK_SIZE)
    ax.set_ylabel("payoff (value units)", fontsize=LABEL_SIZE)
    ax.set_title(title, fontsize=9)


def _model_panel(ax, sub: pd.DataFrame, title: str) -> None:
    x = np.arange(len(sub))
    ax.bar(x, sub.model_value, color="tab:blue", alpha=0.45, label="model reward $v'_i(N)$")
    ax.bar(x, sub.v_single, color="tab:blue", label="own model $v(i)$")
    for xi, value in zip(x, sub.model_value):
        ax.text(xi, value + 0.01, f"{value:.3f}", ha="center", va="bottom", fontsize=ANNOTATION_SIZE)
    grand = sub.v_grand.iloc[0]
    ax.axhline(grand, color="grey", ls=":", lw=1, label="$v(N)$")
    ax.set_xticks(x, sub.party, fontsize=TICK_SIZE)
    ax.set_ylim(0, grand * 1.15)
    ax.set_ylabel("model value v", fontsize=LABEL_SIZE)
    ax.set_title(title, fontsize=9)


def _flow_panel(ax, matrix: np.ndarray, parties: list[str], vmax: float, title: str):
    image = ax.imshow(matrix, cmap="Blues", vmin=0, vmax=vmax, aspect="auto")
    for (i, j), value in np.ndenumerate(matrix):
        ax.text(
            j,
            i,
            f"{value:.3f}",
            ha="center",
            va="center",
            fontsize=ANNOTATION_SIZE,
            color="white" if value > 0.6 * vmax else "black",
        )
    ax.set_xticks(range(len(parties)), parties, fontsize=TICK_SIZE)
    ax.set_yticks(range(len(parties)), parties, fontsize=TICK_SIZE)
    ax.set_xlabel("payee (column)", fontsize=LABEL_SIZE)
    ax.set_ylabel("payer (row)", fontsize=LABEL_SIZE)
    ax.set_title(title, fontsize=9)
    return image


def figure2(alloc: pd.DataFrame, flows: pd.DataFrame, title: str) -> plt.Figure:
    """Draw panels a-h from the three scenarios in ``alloc``/``flows`` (scenario order = order of appearance)."""
    scenarios = list(dict.fromkeys(alloc.scenario))
    if len(scenarios) != 3:
        raise ValueError(f"Figure 2 has three budget scenarios, got {scenarios}")
    parties = list(dict.fromkeys(alloc.party))
    fig, axes = plt.subplots(2, 4, figsize=(15, 6.6))
    payoff_axes, model_axes = axes.flat[[0, 2, 4]], axes.flat[[1, 3, 5]]
    for letter_pay, letter_model, ax_pay, ax_model, scenario in zip("ace", "bdf", payoff_axes, model_axes, scenarios):
        sub = alloc[alloc.scenario == scenario]
        _payoff_panel(ax_pay, sub, f"({letter_pay}) {scenario}: payoffs")
        _model_panel(ax_model, sub, f"({letter_model}) {scenario}: model rewards")
    low = min(ax.get_ylim()[0] for ax in payoff_axes)
    high = max(ax.get_ylim()[1] for ax in payoff_axes)
    for ax in payoff_axes:
        ax.set_ylim(low, high)
    matrices = [
        flows[flows.scenario == s].pivot(index="payer", columns="payee", values="flow").loc[parties, parties].to_numpy()
        for s in scenarios[1:]
    ]
    vmax = max(max(m.max() for m in matrices), 1e-9)  # one colour scale so (g) and (h) compare directly
    for letter, ax, scenario, matrix in zip("gh", axes.flat[6:], scenarios[1:], matrices):
        image = _flow_panel(ax, matrix, parties, vmax, f"({letter}) {scenario}: payoff flows")
    fig.suptitle(title, fontsize=10)
    fig.subplots_adjust(left=0.05, right=0.93, top=0.9, bottom=0.14, wspace=0.3, hspace=0.4)
    last = axes.flat[7].get_position()
    colorbar = fig.colorbar(image, cax=fig.add_axes([last.x1 + 0.012, last.y0, 0.01, last.height]))
    colorbar.set_label("flow from payer (row) to payee (column)", fontsize=LABEL_SIZE)
    handles = [h for ax in (payoff_axes[0], model_axes[0]) for h in ax.get_legend_handles_labels()[0]]
    labels = [label for ax in (payoff_axes[0], model_axes[0]) for label in ax.get_legend_handles_labels()[1]]
    fig.legend(
        handles,
        labels,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.02),
        ncol=len(labels),
        fontsize=LABEL_SIZE,
        frameon=False,
    )
    fig.text(
        0.5,
        0.005,
        "parties are named by the classes their data hold",
        ha="center",
        fontsize=LABEL_SIZE,
        color="dimgrey",
    )
    return fig
