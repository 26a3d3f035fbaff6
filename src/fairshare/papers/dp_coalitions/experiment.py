"""Data sharing with endogenous DP levels (arXiv 2602.09357): config block -> settings -> exact tidy results.

Figure 1's step functions and every stability window come from the paper's own 9-player instance; the Lemma 3-5
worked examples are recomputed beside their printed numbers; the price-of-stability table (not a paper figure)
sweeps identical costs, alphas and n from the settings. Everything is closed form and deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from fairshare.games import dp_coalitions as dp

PAPER = "dp_coalitions"


@dataclass(frozen=True)
class Settings:
    """The ``dp_coalitions`` config block (defaults filled by the schema) and the run's root seed."""

    seed: int
    claims_instances: int
    monte_carlo_repetitions: int
    sigma_range: tuple[float, float]
    narrow_window: float
    pos_costs: tuple[float, ...]
    pos_sigma2: float
    pos_alphas: tuple[float, ...]
    pos_n_values: tuple[int, ...]

    @classmethod
    def from_config(cls, block: Mapping[str, Any], seed: int) -> Settings:
        return cls(
            seed=int(seed),
            claims_instances=block["claims_instances"],
            monte_carlo_repetitions=block["monte_carlo_repetitions"],
            sigma_range=tuple(block["figure1"]["sigma_range"]),
            narrow_window=block["figure1"]["narrow_window"],
            pos_costs=tuple(block["pos"]["costs"]),
            pos_sigma2=block["pos"]["sigma2"],
            pos_alphas=tuple(block["pos"]["alphas"]),
            pos_n_values=tuple(int(n) for n in block["pos"]["n_values"]),
        )


def coalitions_text(coalitions) -> str:
    """Coalitions as the paper writes them: 1-based players, e.g. {1,2,3,4};{1,2,3,5}; 'none' if empty."""
    return ";".join("{" + ",".join(str(i + 1) for i in s) + "}" for s in sorted(coalitions)) or "none"


def figure1(ref: Mapping[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(largest equilibrium size per sigma piece, every coalition's stability window) for ``ref``'s ``figure1``."""
    rows, windows = [], []
    for notion in dp.NOTIONS:
        for lo, hi, size in dp.max_equilibrium_size(ref["costs"], ref["alpha"], notion):
            rows.append({"notion": notion, "sigma_lo": lo, "sigma_hi": hi, "max_size": size})
        for w in dp.stability_windows(ref["costs"], ref["alpha"], notion):
            windows.append(
                {
                    "notion": notion,
                    "members": coalitions_text([w.members]),
                    "size": w.size,
                    "sigma2_lo": w.lo,
                    "sigma2_hi": w.hi,
                    "sigma_lo": np.sqrt(w.lo),
                    "sigma_hi": np.sqrt(w.hi),
                }
            )
    return pd.DataFrame(rows), pd.DataFrame(windows)


def _match(value: float, printed: str) -> bool:
    """True when ``value`` rounds to the printed decimal string (same number of decimals)."""
    digits = -Decimal(printed).as_tuple().exponent
    return f"{value:.{digits}f}" == printed


def worked_examples(ref: Mapping[str, Any]) -> pd.DataFrame:
    """The Lemma 3, 4 and 5 examples (``ref``: the whole reference YAML), one row per printed quantity."""
    l4 = ref["lemma4"]
    c = dp.sorted_costs(l4["costs"])
    alpha, sigma2 = l4["alpha"], l4["sigma2"]
    rows = []
    for u in l4["coalitions"]:
        idx = [m - 1 for m in u["members"]]
        k = len(idx)
        eps = dp.eps_decentralized(c[idx], k, alpha)
        var = dp.variance(sigma2, eps)
        b_in = dp.burdens(c[idx], eps, sigma2, alpha)
        outsiders = [j for j in range(len(c)) if j not in idx]
        b_out = [dp.entrant_burden(c[idx], c[j], sigma2, alpha) for j in outsiders]
        items = [(f"eps_{i + 1}", e, p) for i, e, p in zip(idx, eps, u["eps"])] + [("Var", var, u["variance"])]
        items += [(f"B_{i + 1}", b, p) for i, b, p in zip(idx, b_in, u["burden_members"])]
        items += [(f"B_{j + 1} if joining", b, p) for j, b, p in zip(outsiders, b_out, u["burden_outsiders_joining"])]
        rows += [
            {
                "example": f"Lemma 4, {u['name']}",
                "quantity": q,
                "printed": p,
                "reproduced": f"{v:.4f}",
                "match": _match(v, p),
            }
            for q, v, p in items
        ]
    printed_sets = coalitions_text([tuple(m - 1 for m in u["members"]) for u in l4["coalitions"]])
    for notion in dp.NOTIONS:
        text = coalitions_text(dp.stable_coalitions(c, alpha, sigma2, notion))
        rows.append(
            {
                "example": "Lemma 3",
                "quantity": f"{notion}-stable coalitions at sigma2={sigma2}",
                "printed": printed_sets,
                "reproduced": text,
                "match": text == printed_sets,
            }
        )
    u2 = [m - 1 for m in l4["coalitions"][1]["members"]]
    out_cheaper = [(i, j) for i in range(len(c)) if i not in u2 for j in u2 if c[i] <= c[j]]
    stable = all(dp.is_stable_direct(c, alpha, sigma2, u2, notion) for notion in dp.NOTIONS)
    rows.append(
        {
            "example": "Lemma 4",
            "quantity": "U_2 stable (Defs 7, 8) with an outsider cheaper than a member",
            "printed": "player 4 out, player 5 in",
            "reproduced": ", ".join(f"player {i + 1} out, player {j + 1} in" for i, j in out_cheaper),
            "match": stable and (3, 4) in out_cheaper,
        }
    )
    l5 = ref["lemma5"]
    for sigma, expect in ((l5["nash_exists_at_sigma"], True), (l5["no_nash_at_sigma"], False)):
        stable_sets = dp.stable_coalitions(l5["costs"], l5["alpha"], sigma**2, "nash")
        rows.append(
            {
                "example": "Lemma 5",
                "quantity": f"Nash-stable coalitions at sigma={sigma}",
                "printed": "some" if expect else "none",
                "reproduced": coalitions_text(stable_sets),
                "match": bool(stable_sets) == expect,
            }
        )
    return pd.DataFrame(rows)


def price_of_stability(settings: Settings) -> pd.DataFrame:
    """Centralized and decentralized optima and PoS for identical costs, per cost, alpha, n and notion."""
    rows = []
    for cost in settings.pos_costs:
        for alpha in settings.pos_alphas:
            for n in settings.pos_n_values:
                for notion in dp.NOTIONS:
                    out = dp.identical_cost_outcome(n, cost, settings.pos_sigma2, alpha, notion)
                    rows.append(
                        {
                            "cost": cost,
                            "sigma2": settings.pos_sigma2,
                            "alpha": alpha,
                            "n": n,
                            "notion": notion,
                            "k_centralized": out.k_centralized,
                            "sc_centralized": out.sc_centralized,
                            "var_centralized": out.var_centralized,
                            "k_decentralized": out.k_decentralized,
                            "sc_decentralized": out.sc_decentralized,
                            "var_decentralized": out.var_decentralized,
                            "pos_sc": out.pos_sc,
                            "pos_var": out.pos_var,
                        }
                    )
    return pd.DataFrame(rows)
