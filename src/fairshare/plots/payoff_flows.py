"""Figure 2 of the payoff paper: payoff bars, model-reward bars and payoff-flow heatmaps per budget scenario."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairshare.io import save_figure


def _payoff_panel(ax, sub: pd.DataFrame, title: str) -> None:
    x = np.arange(len(sub))
    ax.bar(x, sub.revenue, color="tab:green", label="incoming $p_{i,+}$")
    ax.bar(x, -sub.cost, color="tab:red", label="outgoing $-p_{i,-}$")
    ax.bar(x, sub.payoff, color="k", alpha=0.6, width=0.4, label="payoff $p_i$")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(x, sub.party, fontsize=7)
    ax.set_title(title, fontsize=9)


def _model_panel(ax, sub: pd.DataFrame, title: str) -> None:
    x = np.arange(len(sub))
    ax.bar(x, sub.model_value, color="tab:blue", alpha=0.45, label="model reward $v'_i(N)$")
    ax.bar(x, sub.v_single, color="tab:blue", label="own model $v(i)$")
    ax.axhline(sub.v_grand.iloc[0], color="grey", ls=":", lw=1, label="$v(N)$")
    ax.set_xticks(x, sub.party, fontsize=7)
    ax.set_ylim(0, sub.v_grand.iloc[0] * 1.12)
    ax.set_title(title, fontsize=9)


def _flow_panel(ax, flows: pd.DataFrame, parties: list[str], title: str) -> None:
    m = flows.pivot(index="payer", columns="payee", values="flow").loc[parties, parties].to_numpy()
    ax.imshow(m, cmap="Blues", vmin=0, vmax=max(m.max(), 1e-9))
    for (i, j), val in np.ndenumerate(m):
        ax.text(j, i, f"{val:.3f}", ha="center", va="center", fontsize=6, color="white" if val > 0.6 * m.max() else "black")
    ax.set_xticks(range(len(parties)), parties, fontsize=7)
    ax.set_yticks(range(len(parties)), parties, fontsize=7)
    ax.set_xlabel("payee", fontsize=8)
    ax.set_ylabel("payer", fontsize=8)
    ax.set_title(title, fontsize=9)


def figure2(alloc: pd.DataFrame, flows: pd.DataFrame, title: str, stem: str) -> None:
    """(a,b) unlimited budgets, (c,d,g) zero budgets, (e,f,h) budget 0.3 for the first party only."""
    scenarios = list(dict.fromkeys(alloc.scenario))
    parties = list(dict.fromkeys(alloc.party))
    fig, axes = plt.subplots(2, 4, figsize=(15, 6.4))
    letters = iter("abcdefgh")
    panels = [(s, kind) for s in scenarios for kind in ("payoff", "model")]
    for ax, (scenario, kind) in zip(axes.flat[:6], panels):
        sub = alloc[alloc.scenario == scenario]
        label = f"({next(letters)}) {scenario}: {'payoffs' if kind == 'payoff' else 'model rewards'}"
        (_payoff_panel if kind == "payoff" else _model_panel)(ax, sub, label)
    lims = [min(ax.get_ylim()[0] for ax in axes.flat[0:6:2]), max(ax.get_ylim()[1] for ax in axes.flat[0:6:2])]
    for ax in axes.flat[0:6:2]:
        ax.set_ylim(*lims)
    axes.flat[0].legend(fontsize=6, loc="upper left")
    axes.flat[1].legend(fontsize=6, loc="upper left")
    for ax, scenario in zip(axes.flat[6:], [s for s in scenarios if s != scenarios[0]]):
        _flow_panel(ax, flows[flows.scenario == scenario], parties, f"({next(letters)}) {scenario}: payoff flows")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_figure(fig, stem)
    plt.close(fig)
