"""Figure 2 of the payoff paper: numbers readable at print size, and the net-payoff bar in its legend colour."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from fairshare.papers.payoff_flows.figures import figure2  # noqa: E402


def _tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    parties = ["[0]", "[1-2]", "[3-9]"]
    alloc, flows = [], []
    for k, scenario in enumerate(("b = inf", "b = 0", "b = 0.3")):
        for i, party in enumerate(parties):
            alloc.append(
                {
                    "scenario": scenario,
                    "party": party,
                    "revenue": 0.2 * (i + 1),
                    "cost": 0.3,
                    "payoff": 0.2 * (i + 1) - 0.3,
                    "model_value": 0.5 + 0.1 * i,
                    "v_single": 0.2 + 0.1 * i,
                    "v_grand": 0.8,
                }
            )
            flows += [
                {"scenario": scenario, "payer": party, "payee": q, "flow": 0.01 * (k + j)}
                for j, q in enumerate(parties)
            ]
    return pd.DataFrame(alloc), pd.DataFrame(flows)


def test_figure2_numbers_are_readable_and_the_payoff_bar_matches_its_swatch():
    fig = figure2(*_tables(), "title")
    numbers = [t for ax in fig.axes for t in ax.texts]
    assert numbers and all(t.get_fontsize() >= 8 for t in numbers)
    payoff_axes = fig.axes[0]
    (legend_patch,) = [h for h, label in zip(*payoff_axes.get_legend_handles_labels()) if label == "payoff $p_i$"]
    drawn = legend_patch.patches  # the net-payoff bars; the legend draws its swatch from them
    swatch = to_rgba(drawn[0].get_facecolor())
    assert all(np.allclose(to_rgba(p.get_facecolor()), swatch) for p in drawn)
    assert swatch[3] == 1.0  # opaque: what is drawn over green or red bars keeps the swatch's colour
    plt.close(fig)
