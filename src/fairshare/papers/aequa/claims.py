"""Aequa's claims (Sec. 6.2-6.3, App. D), each tested as the paper states it on this run's tidy results.

A setting's value is its mean over seeds, as in the paper's tables; "in all cases" means every (dataset, partition)
setting that ran; a baseline with NaN (identical rewards) counts as below Aequa. Aequa's rows are those of the
configured allocation cost (the spec's sigma/mu unless configured otherwise), fitted on the validation split and read
on the test split. Properties that hold by construction are unit tests, not claims: IR when the allocation is fitted
on the split it is judged on, and rho(contribution, width) = 1 with continuous widths fitted on the same contributions
(tests/games/test_aequa_allocation.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fairshare.papers.aequa.settings import AequaSettings, describe_per_dataset
from fairshare.papers.aequa.tables import BASELINES, COLUMNS, with_cost
from fairshare.report import Claim

PAPER = "aequa"
Setting = tuple[str, str]  # (dataset, partition)


def _setting_means(tidy: pd.DataFrame, cost: str) -> pd.Series:
    """Mean over seeds per (dataset, partition, method, metric), Aequa's allocation metrics under ``cost``."""
    rows = with_cost(tidy, cost)
    return rows[rows.method != "standalone"].groupby(["dataset", "partition", "method", "metric"]).value.mean()


def _get(means: pd.Series, s: Setting, method: str, metric: str) -> float:
    return float(means.get((*s, method, metric), np.nan))


def _above_every_baseline(means: pd.Series, s: Setting, metric: str, value: float, higher: bool = True) -> bool:
    """Whether ``value`` beats every baseline's ``metric`` in setting ``s`` (a NaN baseline counts as beaten)."""
    others = [_get(means, s, b, metric) for b in BASELINES]
    return all(not (o >= value) for o in others) if higher else all(not (o <= value) for o in others)


def _settings_text(settings: list[Setting]) -> str:
    return ", ".join(f"{d}/{p}" for d, p in settings) or "none"


def _pearson_highest(means: pd.Series, settings: list[Setting]) -> Claim:
    """Tables 2 and 6: Aequa's Pearson correlation is the highest in all cases."""
    wins = [s for s in settings if _above_every_baseline(means, s, "pearson", _get(means, s, "aequa", "pearson"))]
    lost = [s for s in settings if s not in wins]
    return Claim.statement(
        paper=PAPER,
        artifact="Tables 2, 6",
        claim="Aequa's Pearson correlation is above every baseline's in every setting",
        paper_states="our algorithm outperforms all other methods in all cases (Table 6, 54/54)",
        reproduced=f"Aequa highest in {len(wins)}/{len(settings)} settings",
        holds=bool(settings) and not lost,
        note="not highest in: "
        + _settings_text(lost)
        + "; Aequa ρ per setting: "
        + ", ".join(f"{d}/{p} {_get(means, (d, p), 'aequa', 'pearson'):.3f}" for d, p in settings),
    )


def _accuracy_best_or_second(means: pd.Series, settings: list[Setting]) -> Claim:
    """Table 5 (and Table 1's text): Aequa has the highest accuracy or is second to FedAvg in every setting."""
    ranks, fails = [], []
    for s in settings:
        vals = {m: _get(means, s, m, "accuracy") for m in COLUMNS}
        order = sorted(vals, key=lambda m: -np.nan_to_num(vals[m], nan=-1))
        rank = order.index("aequa") + 1
        ranks.append(rank)
        if not (rank == 1 or (rank == 2 and order[0] == "fedavg_ft")):
            fails.append(s)
    return Claim.statement(
        paper=PAPER,
        artifact="Table 5, Table 1",
        claim="Aequa's accuracy is the best, or second to FedAvg, in every setting",
        paper_states="Aequa best in 36/54 settings and second-best (on par with FedAvg) in the remaining 18; FedAvg leads where Aequa does not",
        reproduced=f"best in {ranks.count(1)}, second in {ranks.count(2)}, lower in {sum(r > 2 for r in ranks)} of {len(ranks)}",
        holds=bool(settings) and not fails,
        note="failing: "
        + _settings_text(fails)
        + "; "
        + ", ".join(
            f"{d}/{p}: Aequa {_get(means, (d, p), 'aequa', 'accuracy'):.3f} vs FedAvg {_get(means, (d, p), 'fedavg_ft', 'accuracy'):.3f}"
            for d, p in settings
        ),
    )


def _individual_rationality(tidy: pd.DataFrame, cost: str) -> Claim:
    """Definition 1: every Aequa client's reward (test split) is at least its standalone accuracy (test split)."""
    rows = with_cost(tidy, cost)
    aequa = rows[rows.method == "aequa"]
    gains = aequa[aequa.metric == "min_gain"].value.to_numpy(float)
    infeasible = int(aequa[aequa.metric == "ir_infeasible"].value.sum())
    below = int(np.sum(gains < 0))
    return Claim.statement(
        paper=PAPER,
        artifact="Definition 1, Sec. 4.2",
        claim="individual rationality: every Aequa client's reward is at least its standalone accuracy",
        paper_states="IR by design (IPR = 1)",
        reproduced=f"{below} of {len(gains)} Aequa runs have a client below its standalone accuracy; smallest gain "
        f"{gains.min() if len(gains) else float('nan'):.4f}",
        holds=len(gains) > 0 and below == 0,
        note=f"rewards and contributions on the test split, allocation fitted on the held-out split; clients whose "
        f"contribution exceeds every sub-network on the fitted split (IR infeasible there, so the allocator could not "
        f"guarantee IR; judged on the test split like every client): {infeasible}",
    )


def _cgs_lowest_in_most(means: pd.Series, settings: list[Setting]) -> Claim:
    """Table 7 / Sec. 6.3: Aequa has the lowest collaboration gain spread in most settings."""
    wins = [s for s in settings if _above_every_baseline(means, s, "cgs", _get(means, s, "aequa", "cgs"), higher=False)]
    return Claim.statement(
        paper=PAPER,
        artifact="Table 7",
        claim="Aequa has the lowest collaboration gain spread in most settings",
        paper_states="best CGS in [lost] of 54 settings, fewer under quantity skew (Table 7)",
        reproduced=f"lowest CGS in {len(wins)}/{len(settings)}",
        holds=len(wins) > len(settings) / 2,
        note="not lowest in: " + _settings_text([s for s in settings if s not in wins]),
    )


def _mcg_where_cgs_not_lowest(means: pd.Series, settings: list[Setting]) -> Claim:
    """Table 7's text: where Aequa does not have the lowest CGS, its MCG is the highest."""
    cases = [
        s for s in settings if not _above_every_baseline(means, s, "cgs", _get(means, s, "aequa", "cgs"), higher=False)
    ]
    wins = [s for s in cases if _above_every_baseline(means, s, "mcg", _get(means, s, "aequa", "mcg"))]
    return Claim.statement(
        paper=PAPER,
        artifact="Table 7",
        claim="where Aequa's CGS is not the lowest, its MCG is the highest",
        paper_states="it significantly outperforms other methods in MCG (Table 7)",
        reproduced=f"highest MCG in {len(wins)}/{len(cases)} settings where its CGS is not the lowest",
        holds=None if not cases else len(wins) == len(cases),
        note="no such setting in this run"
        if not cases
        else "not highest in: " + _settings_text([s for s in cases if s not in wins]),
    )


def _lower_pmin_helps(means: pd.Series, settings: list[Setting], p_min_ablation) -> Claim | None:
    """Table 8: with p_min lowered, Aequa has the lowest CGS in more quantity-skew settings (or already in all)."""
    q = [s for s in settings if not np.isnan(_get(means, s, "aequa_pmin", "cgs"))]
    if not q:
        return None
    default = [s for s in q if _above_every_baseline(means, s, "cgs", _get(means, s, "aequa", "cgs"), higher=False)]
    lowered = [
        s for s in q if _above_every_baseline(means, s, "cgs", _get(means, s, "aequa_pmin", "cgs"), higher=False)
    ]
    return Claim.statement(
        paper=PAPER,
        artifact="Table 8",
        claim=f"with p_min lowered to {describe_per_dataset(p_min_ablation)}, Aequa has the lowest CGS in more quantity-skew settings "
        "(or in all of them)",
        paper_states="adjusting p_min, Aequa is best in [lost] of 12 quantity-skew cases, raising the total (Table 8)",
        reproduced=f"lowest CGS in {len(lowered)}/{len(q)} with the lower p_min, {len(default)}/{len(q)} with the default",
        holds=len(lowered) > len(default) or len(lowered) == len(q),
        note="lower p_min not lowest in: " + _settings_text([s for s in q if s not in lowered]),
    )


def _width_reward_rho(means: pd.Series, settings: list[Setting]) -> Claim:
    """Table 9: rho(contribution, allocated width) = 1.0 in every row, compared at the printed precision (0.1)."""
    values = {s: _get(means, s, "aequa", "pearson_width") for s in settings}
    off = [s for s, v in values.items() if not np.round(v, 1) == 1.0]
    return Claim.printed(
        paper=PAPER,
        artifact="Table 9",
        claim="width as the reward: Pearson(contribution, width) = 1.0 in every setting",
        paper_states="1.0 in every row of Table 9",
        reproduced="per setting: " + ", ".join(f"{d}/{p} {v:.3f}" for (d, p), v in values.items()),
        holds=bool(values) and not off,
        note="not 1.0 at one decimal: " + _settings_text(off),
    )


def _width_reward_accuracy(means: pd.Series, settings: list[Setting]) -> Claim:
    """App. D.6: with width as the reward, rho(contribution, accuracy) is still above every baseline's rho."""
    wins = [
        s for s in settings if _above_every_baseline(means, s, "pearson", _get(means, s, "aequa", "pearson_width_acc"))
    ]
    return Claim.statement(
        paper=PAPER,
        artifact="Table 9, App. D.6",
        claim="width as the reward: Pearson(contribution, accuracy) is above every baseline's in every setting",
        paper_states="still outperforms all baseline approaches (App. D.6)",
        reproduced=f"above every baseline in {len(wins)}/{len(settings)}",
        holds=bool(settings) and len(wins) == len(settings),
        note="not above in: " + _settings_text([s for s in settings if s not in wins]),
    )


def claims(results: Mapping[str, Any], settings: AequaSettings) -> list[Claim]:
    """Every Aequa claim of Sec. 6.2-6.3 and App. D on this run's tidy metrics (``results["tidy"]``, configured
    allocation cost); no rows without them."""
    if "tidy" not in results:
        return []
    tidy, cost, table9_datasets = results["tidy"], settings.allocation.spread, settings.tables.table9_datasets
    means = _setting_means(tidy, cost)
    cases = sorted({(d, p) for d, p, method, _ in means.index if method == "aequa"})
    table9 = [s for s in cases if s[0] in table9_datasets] if table9_datasets else cases
    rows = [
        _pearson_highest(means, cases),
        _accuracy_best_or_second(means, cases),
        _individual_rationality(tidy, cost),
        _cgs_lowest_in_most(means, cases),
        _mcg_where_cgs_not_lowest(means, cases),
        _lower_pmin_helps(means, cases, settings.p_min_ablation),
        _width_reward_rho(means, table9),
        _width_reward_accuracy(means, table9),
    ]
    return [row for row in rows if row is not None]
