"""The reward-vs-contribution figure: every seed's clients are drawn, and each row's axes fit its own points, so a
partition whose contributions lie close together (label skew) is not squeezed into a pile."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fairshare.papers.aequa import figures  # noqa: E402


def _per_client() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    narrow = {"dir0.5": (0.3, 0.9), "oc3": (0.24, 0.30)}  # contributions of each partition
    return pd.DataFrame(
        [
            {
                "dataset": "digits",
                "partition": part,
                "method": method,
                "seed": seed,
                "client": client,
                "contribution": rng.uniform(*narrow[part]),
                "reward_acc": rng.uniform(0.6, 0.95),
            }
            for part in narrow
            for method in figures.METHODS
            for seed in range(3)
            for client in range(5)
        ]
    )


def test_reward_vs_contribution_draws_every_seed_and_fits_each_row(monkeypatch):
    drawn = []
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: drawn.append(fig))
    per_client = _per_client()
    figures.reward_vs_contribution(per_client, {"dir0.5": "dirichlet", "oc3": "label_skew"}, "unused")
    (fig,) = drawn
    axes = np.array(fig.axes).reshape(2, len(figures.METHODS))
    points = sum(len(c.get_offsets()) for ax in axes.flat for c in ax.collections)
    assert points == len(per_client)  # 3 seeds x 5 clients per panel, not the first seed only
    lo, hi = axes[1, 0].get_xlim()
    oc3 = per_client[per_client.partition == "oc3"].contribution
    assert lo <= oc3.min() and oc3.max() <= hi and hi - lo < 2 * (oc3.max() - oc3.min())
    assert all(ax.get_ylabel() == "reward accuracy" for ax in axes[:, 0])
