"""The price-of-stability figure: y labels that say which ratio is drawn, Nash and robust equilibria told apart by
line and marker, and alphas whose curves coincide named in the panel instead of hidden under one another."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from fairshare.papers.dp_coalitions.figures import POS_LABELS, pos_curves  # noqa: E402


def _pos() -> pd.DataFrame:
    """Two alphas with PoS = 1 at every n (they coincide), one rising; Nash above robust for the rising one."""
    rows = []
    for alpha in (-1.0, 0.5, 1.0):
        for n in (10, 100, 1000):
            for notion in ("nash", "robust"):
                value = 1.0 if alpha > 0 else n**0.5 * (1.5 if notion == "nash" else 1.0)
                rows.append(
                    {
                        "cost": 0.05,
                        "sigma2": 0.25,
                        "alpha": alpha,
                        "n": n,
                        "notion": notion,
                        "pos_sc": value,
                        "pos_var": value,
                    }
                )
    return pd.DataFrame(rows)


def test_price_of_stability_panels_label_y_tell_notions_apart_and_name_coinciding_alphas():
    fig = pos_curves(_pos())
    axes = fig.axes
    assert [ax.get_ylabel() for ax in axes] == [POS_LABELS["pos_sc"][1], POS_LABELS["pos_var"][1]]
    for ax in axes:
        dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
        solid = [line for line in ax.lines if line.get_linestyle() == "-"]
        assert len(dashed) == len(solid) == 3  # one Nash and one robust curve per alpha
        assert all(line.get_markerfacecolor() == "none" for line in dashed)
        assert not any(isinstance(line.get_markerfacecolor(), str) for line in solid)  # filled: an RGBA colour
        notes = [t.get_text() for t in ax.texts]
        assert notes == ["α = 0.5, 1: same curve"]
    plt.close(fig)
