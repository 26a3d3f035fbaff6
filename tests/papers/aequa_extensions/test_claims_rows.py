"""Issue 28's extension rows: Table 3's clear margin, the participation identity that is a unit test rather than a row
(Aequa's rewards follow a linear map of the configured rates) and Table 3's printed rho (against the rounds joined).
Fig. 5's gap a(1) - a(p_min) is no row (issue 38): the configured p_min sets it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairshare.games.aequa_allocation import anneal
from fairshare.papers.aequa.tables import pearson
from fairshare.papers.aequa_extensions import claims as X
from fairshare.papers.aequa_extensions.experiment import participation_rates, rates_as_accuracies

NOISY = np.array([0.30, -0.25, 0.20, -0.15])
CLEAR = np.array([0.0, 0.004, -0.003, 0.002])


def _participation(aequa, iafl) -> pd.DataFrame:
    rows = []
    for m, x in (("aequa", aequa), ("iafl", iafl), ("cgsv", 0.1 + CLEAR), ("fedavg_ft", 0.0 + CLEAR)):
        rows += [
            {"dataset": "digits", "method": m, "seed": s, "accuracy": 0.9, "pearson": v, "pearson_joined": v}
            for s, v in enumerate(x)
        ]
    return pd.DataFrame(rows)


def _clear_margin_row(frame: pd.DataFrame):
    rows = X._participation_claims(frame, ["digits"], [0.2, 1.0], 0.1, nan_rho=0.0)
    return next(r for r in rows if "clear margin" in r.claim)


def test_clear_margin():
    assert _clear_margin_row(_participation(0.9 + CLEAR, 0.6 + CLEAR)).status == "match"
    assert _clear_margin_row(_participation(0.9 + CLEAR, 0.85 + CLEAR)).status == "differs"  # second, not by 0.1
    assert _clear_margin_row(_participation(0.9 + CLEAR, 0.8 + NOISY)).status == "inconclusive"


def _curve(gaps) -> pd.DataFrame:
    return pd.DataFrame(
        [{"seed": s, "width": w, "accuracy": 0.5 + g * w} for s, g in enumerate(gaps) for w in (0.1, 0.5, 1.0)]
    )


def test_rewards_fitted_on_mapped_rates_correlate_with_the_rates_by_construction():
    """Why Table 3's rho is not taken against the configured rates: the allocation of the rates mapped onto a
    monotone a(p) gives rewards whose rho with those rates is near 1 whatever was trained."""
    rates = participation_rates(10, 0.2, 1.0)
    curve = np.linspace(0.3, 0.9, 40) ** 0.5  # any increasing a(p)
    alloc = anneal(rates_as_accuracies(rates, curve), curve, np.random.default_rng(0), iters=3000)
    assert pearson(rates, curve[alloc.indices]) > 0.98


def test_table3_prints_rho_against_the_rounds_joined():
    """Table 3 prints the rho the rows judge (issue 38: it printed rho against the configured rates)."""
    from fairshare.papers.aequa_extensions.experiment import table3

    frame = _participation(0.9 + CLEAR, 0.5 + CLEAR).assign(pearson=1.0)
    table, markdown = table3(frame, ["digits"])
    assert table.loc[table.method == "Aequa", "digits pearson"].item() == np.mean(0.9 + CLEAR)
    assert "rounds each client joined" in markdown
