"""The auction figures: report captions against what the figures plot, and Fig. 7a/7b curves that stay visible."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from fairshare.papers.auctions import figures  # noqa: E402
from fairshare.papers.auctions.figures import PANELS  # noqa: E402
from tests.conftest import REPO  # noqa: E402

# The words a caption uses for each quantity a Fig. 7 panel plots.
WORDS = {"difference": "difference", "min_recruited": "minimum number of clients recruited"}


def test_the_report_captions_of_figs_7a_and_7b_describe_what_each_plots():
    """Each Fig. 7 panel's manifest caption names the quantity on its y-axis, and not the other panel's."""
    entries = {e["id"]: e for e in yaml.safe_load((REPO / "workflow" / "manifest.yaml").read_text())}
    for panel, (metric, _, _) in PANELS.items():
        shows = entries[f"auctions_{panel}"]["shows"]
        other = next(words for quantity, words in WORDS.items() if quantity != metric)
        assert WORDS[metric] in shows and other not in shows, (panel, shows)


def test_fig7_shows_max_min_fair_over_gmmfair_and_keeps_posted_price_spreads_off_the_plot(monkeypatch):
    """Both mechanisms at 0 stay visible (max-min fair drawn later, as open circles, over GMMFair's crosses); the
    posted prices' spread is drawn as bars, not as bands across the whole budget axis."""
    rng = np.random.default_rng(0)
    rows = [
        {"method": m, "seed": s, "budget": b, "metric": "difference", "value": v}
        for m in figures.LABELS
        for s in range(3)
        for b in (1.0, 10.0, 50.0, 100.0)
        for v in [0.0 if m in ("maxmin_fair", "gmmfair") else 60 + rng.integers(0, 10)]
    ]
    drawn = []
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: drawn.append(fig))
    figures.figure7(pd.DataFrame(rows), {"fig7a": "unused"}, "caption", 29)
    (fig,) = drawn
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.lines}
    order = [line.get_label() for line in ax.lines]
    maxmin, gmm = lines[figures.LABELS["maxmin_fair"]], lines[figures.LABELS["gmmfair"]]
    assert order.index(maxmin.get_label()) > order.index(gmm.get_label())
    assert maxmin.get_markerfacecolor() == "none" and maxmin.get_marker() != gmm.get_marker()
    bands = [c for c in ax.collections if type(c).__name__.endswith("PolyCollection")]
    assert len(bands) == len(figures.LABELS) - len(figures.NO_BUDGET)  # no band for a posted price
    assert ax.get_ylabel() == figures.PANELS["fig7a"][2]
