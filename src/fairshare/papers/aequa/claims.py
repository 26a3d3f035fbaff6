"""Aequa's claims (Sec. 6.2-6.3, App. D), each tested as the paper states it on this run's tidy results.

Every comparison of methods is made per seed and decided over seeds (:mod:`fairshare.pipeline.verdicts`, issue 26): in a
setting, "Aequa above every baseline" is a paired ``higher`` (or ``lower`` for CGS) against each baseline, all
required (``every`` over baselines); "in all cases" is ``every`` over the (dataset, partition) settings that ran, "in
most settings" ``most``. The ``reproduced`` text keeps the seed means of the paper's tables. A NaN Pearson
correlation (identical rewards) counts as ``aequa.verdicts.nan_rho`` (0, no correlation, by default; a tuned setting)
on its seed, in every rho column (:func:`claims_seeds.seed_values`, docs/verdicts.md). Aequa's rows are those of the configured allocation cost (the
spec's sigma/mu unless configured otherwise), fitted on the validation split and read on the test split. Two rows are
not method comparisons and stay as they were: individual rationality (a property of every fitted allocation, one
counterexample refutes it) and Table 9's printed rho(contribution, width) = 1.0. Properties that hold by construction
are unit tests, not claims: IR when the allocation is fitted on the split it is judged on, and rho(contribution,
width) = 1 with continuous widths fitted on the same contributions (tests/games/test_aequa_allocation.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fairshare.papers.aequa.claims_measure import unmeasured
from fairshare.papers.aequa.claims_participants import per_participant_claims
from fairshare.papers.aequa.claims_seeds import open_settings, placed, seed_mean, seed_values
from fairshare.papers.aequa.claims_text import text_claims, width_accuracy_monotone
from fairshare.papers.aequa.settings import AequaSettings, describe_per_dataset, lookup
from fairshare.papers.aequa.tables import BASELINES, with_cost
from fairshare.pipeline import verdicts as v
from fairshare.pipeline.report import Claim

__all__ = ["BUCKETED_MODELS", "PAPER", "claims"]

PAPER = "aequa"
Setting = tuple[str, str]  # (dataset, partition)
# Models trained on a discrete width bucket (switchable batch norm): ``learning.aequa.uses_batch_norm``, named here
# because that module imports torch, which a job that does not train never does (a unit test keeps the two equal).
BUCKETED_MODELS = ("aequa_resnet18",)
Runs = dict[tuple[str, str, str, str], dict[object, float]]  # (dataset, partition, method, metric) -> seed -> value


def _per_seed(tidy: pd.DataFrame, cost: str) -> Runs:
    """Each (dataset, partition, method, metric)'s value per seed, Aequa's allocation metrics under ``cost``."""
    rows = with_cost(tidy, cost)
    rows = rows[rows.method != "standalone"]
    keys = ["dataset", "partition", "method", "metric"]
    return {key: dict(zip(g.seed, g.value.astype(float))) for key, g in rows.groupby(keys)}


def _mean(runs: Runs, s: Setting, method: str, metric: str) -> float:
    return seed_mean(runs.get((*s, method, metric), {}))


def _beats_baselines(
    runs: Runs,
    s: Setting,
    metric: str,
    mine: tuple[str, str] = ("aequa", ""),
    lower: bool = False,
    margin: float = 0.0,
    nan_rho: float | None = None,
) -> v.Verdict:
    """Aequa (``mine`` = (method, metric), default Aequa's ``metric``) better than each baseline that ran in setting
    ``s`` on ``metric`` (by more than ``margin``), paired over seeds; a NaN Pearson counts as ``nan_rho``."""
    method, own = mine[0], mine[1] or metric
    key = method if own == metric else f"{method} {own}"
    values = {b: seed_values(runs[(*s, b, metric)], metric, nan_rho) for b in BASELINES if (*s, b, metric) in runs}
    values[key] = seed_values(runs.get((*s, method, own), {}), own, nan_rho)
    return placed(key, values, lower_is_better=lower, margin=margin)


def _per_setting(runs: Runs, settings: list[Setting], metric: str, **kw) -> dict[str, v.Verdict]:
    """Aequa above every baseline per setting; a rho row (``metric`` pearson) leaves a setting whose contributions are
    not measurable unjudged (:func:`claims_measure.unmeasured`)."""
    rho = metric.startswith("pearson")
    return {
        f"{d}/{p}": (rho and unmeasured(runs, (d, p))) or _beats_baselines(runs, (d, p), metric, **kw)
        for d, p in settings
    }


def _mean_wins(runs: Runs, settings: list[Setting], metric: str, own: str, lower: bool = False) -> int:
    """Settings whose seed mean of Aequa's ``own`` beats every baseline's mean of ``metric`` (readable text only)."""

    def wins(s: Setting) -> bool:
        mine, others = _mean(runs, s, "aequa", own), [_mean(runs, s, b, metric) for b in BASELINES]
        return all(not (o <= mine) for o in others) if lower else all(not (o >= mine) for o in others)

    return sum(wins(s) for s in settings)


def _pearson_highest(runs: Runs, settings: list[Setting], nan_rho: float) -> Claim:
    """Tables 2 and 6: Aequa's Pearson correlation is the highest in all cases (a NaN rho counts as ``nan_rho``)."""
    per = _per_setting(runs, settings, "pearson", nan_rho=nan_rho)
    return Claim.comparison(
        paper=PAPER,
        artifact="Tables 2, 6",
        claim="Aequa's Pearson correlation is above every baseline's in every setting",
        paper_states="our algorithm outperforms all other methods in all cases (Table 6, 54/54)",
        reproduced=f"Aequa's mean ρ highest in {_mean_wins(runs, settings, 'pearson', 'pearson')}/{len(settings)} "
        "settings; Aequa mean ρ per setting: "
        + ", ".join(f"{d}/{p} {_mean(runs, (d, p), 'aequa', 'pearson'):.3f}" for d, p in settings),
        verdict=v.every(per),
        note=open_settings(per),
    )


def _accuracy_best_or_second(runs: Runs, settings: list[Setting]) -> Claim:
    """Table 5 (and Table 1's text): Aequa has the highest accuracy or is second to FedAvg in every setting, i.e.
    Aequa's accuracy is above every baseline's but FedAvg-FT's (which may be above or below it)."""
    per = {
        f"{d}/{p}": placed(
            "aequa",
            {
                m: seed_values(runs[(d, p, m, "accuracy")], "accuracy")
                for m in ("aequa", *BASELINES)
                if m != "fedavg_ft" and (d, p, m, "accuracy") in runs
            },
        )
        for d, p in settings
    }
    return Claim.comparison(
        paper=PAPER,
        artifact="Table 5, Table 1",
        claim="Aequa's accuracy is the best, or second to FedAvg, in every setting",
        paper_states="Aequa best in 36/54 settings and second-best (on par with FedAvg) in the remaining 18; FedAvg leads where Aequa does not",
        reproduced=_accuracy_ranks(runs, settings),
        verdict=v.every(per),
        note=open_settings(per)
        + "; mean accuracy: "
        + ", ".join(
            f"{d}/{p}: Aequa {_mean(runs, (d, p), 'aequa', 'accuracy'):.3f} vs FedAvg "
            f"{_mean(runs, (d, p), 'fedavg_ft', 'accuracy'):.3f}"
            for d, p in settings
        ),
    )


def _accuracy_ranks(runs: Runs, settings: list[Setting]) -> str:
    """Aequa's rank by seed-mean accuracy per setting, counted (readable text only)."""
    ranks = []
    for s in settings:
        means = {m: _mean(runs, s, m, "accuracy") for m in ("aequa", *BASELINES)}
        ranks.append(1 + sum(x > means["aequa"] for m, x in means.items() if m != "aequa"))
    return (
        f"by seed means: best in {ranks.count(1)}, second in {ranks.count(2)}, lower in "
        f"{sum(r > 2 for r in ranks)} of {len(ranks)}"
    )


def _individual_rationality(tidy: pd.DataFrame, cost: str, split: str = "test") -> Claim:
    """Definition 1: every Aequa client's reward is at least its standalone accuracy, both on ``split``
    (``aequa.verdicts.ir_split``: test, or validation, the split the allocation is fitted on).

    Not a comparison of methods: a property of each fitted allocation, checked on every run (every seed), so one
    client below its standalone accuracy on one run refutes it; it stays a count over runs."""
    rows = with_cost(tidy, cost)
    aequa = rows[rows.method == "aequa"]
    gains = aequa[aequa.metric == ("min_gain" if split == "test" else "min_gain_fit")].value.to_numpy(float)
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
        note=f"rewards and contributions on the {split} split (aequa.verdicts.ir_split; switched to test after the "
        f"check on the validation split failed), allocation fitted on the held-out split; clients whose "
        f"contribution exceeds every sub-network on the fitted split (IR infeasible there, so the allocator could not "
        f"guarantee IR; judged on the test split like every client): {infeasible}",
    )


def _cgs_lowest_in_most(runs: Runs, settings: list[Setting]) -> Claim:
    """Table 7 / Sec. 6.3: Aequa has the lowest collaboration gain spread in most settings (``most`` over settings
    of a paired ``lower`` against every baseline)."""
    per = _per_setting(runs, settings, "cgs", lower=True)
    return Claim.comparison(
        paper=PAPER,
        artifact="Table 7",
        claim="Aequa has the lowest collaboration gain spread in most settings",
        paper_states="Aequa consistently outperforms other approaches in [lost] out of [lost] scenarios (Sec. 6.3, "
        "Table 7)",
        reproduced=f"lowest mean CGS in {_mean_wins(runs, settings, 'cgs', 'cgs', lower=True)}/{len(settings)}",
        verdict=v.most(per),
        note=open_settings(per) + "; 'consistently ... in [lost] of 54' is a count below 54 (Table 8 raises it), so "
        "'most', not 'every'; the partitions named 'consistently' are the next rows",
    )


def _cgs_lowest_in_named_partitions(runs: Runs, settings: list[Setting], schemes: dict[str, str]) -> Claim:
    """App. D.4: "the partitioning strategies where Aequa consistently outperforms all methods include homogeneous,
    Dirichlet [lost], quantity skew [lost] and label skew [lost]": the lowest CGS in every setting of the
    homogeneous partition and of label skew (the paper's only label skew, #OC = 3 of 10 classes); which Dirichlet
    alpha and which quantity skew are named is lost, so those are not tested (inventory)."""
    named = [s for s in settings if schemes.get(s[1]) in ("homogeneous", "label_skew")]
    per = _per_setting(runs, named, "cgs", lower=True)
    return Claim.comparison(
        paper=PAPER,
        artifact="Table 7, App. D.4",
        claim="Aequa's collaboration gain spread is the lowest in every homogeneous and label-skew setting",
        paper_states="The partitioning strategies where Aequa consistently outperforms all methods include "
        "homogeneous, Dirichlet [lost], quantity skew [lost], and label skew [lost]",
        reproduced=f"lowest mean CGS in {_mean_wins(runs, named, 'cgs', 'cgs', lower=True)}/{len(named)}",
        verdict=v.every(per) if per else v.not_run("no homogeneous or label-skew setting in this profile"),
        note=open_settings(per) + "; the Dirichlet alpha and quantity skew named are lost (not tested)",
    )


def _cgs_not_lowest_only_when_extreme(runs: Runs, settings: list[Setting], schemes: dict[str, str]) -> Claim:
    """App. D.4: the cases where Aequa's CGS is not the lowest "occur in extreme heterogeneous settings": outside
    label skew (the extremely heterogeneous partition of App. D.4's CGSV sentence), Aequa's CGS is the lowest in
    every setting."""
    calm = [s for s in settings if schemes.get(s[1]) != "label_skew"]
    per = _per_setting(runs, calm, "cgs", lower=True)
    return Claim.comparison(
        paper=PAPER,
        artifact="Table 7, App. D.4",
        claim="outside label skew, Aequa's collaboration gain spread is the lowest in every setting",
        paper_states="For cases where Aequa does not achieve the lowest CGS ... Such cases occur in extreme "
        "heterogeneous settings",
        reproduced=f"lowest mean CGS in {_mean_wins(runs, calm, 'cgs', 'cgs', lower=True)}/{len(calm)}",
        verdict=v.every(per) if per else v.not_run("every setting of this profile is label skew"),
        note=open_settings(per),
    )


def _either(first: v.Verdict, second: v.Verdict) -> v.Verdict:
    """ "first or second": match if either matches, differs if both differ, else inconclusive."""
    statuses = {first.status, second.status}
    status = v.MATCH if v.MATCH in statuses else (v.DIFFERS if statuses == {v.DIFFERS} else v.INCONCLUSIVE)
    why = "; ".join(sorted({x.why for x in (first, second) if x.status == v.INCONCLUSIVE and x.why}))
    return v.Verdict(status, f"CGS lowest: {first.status}; MCG highest: {second.status} ({second.evidence})", why)


def _mcg_where_cgs_not_lowest(runs: Runs, settings: list[Setting], margin: float = 0.0) -> Claim:
    """Table 7's text: where Aequa does not have the lowest CGS, it "significantly" outperforms every baseline in MCG:
    its MCG above each baseline's by more than ``margin`` (``aequa.verdicts.mcg_margin``). The settings are those
    whose CGS verdict is not a match; in each, "CGS lowest or MCG highest by the margin" must hold (so a setting
    whose CGS is inconclusive and whose MCG is not highest stays inconclusive)."""
    cgs = _per_setting(runs, settings, "cgs", lower=True)
    mcg = _per_setting(runs, settings, "mcg", margin=margin)
    per = {k: _either(cgs[k], mcg[k]) for k in cgs if cgs[k].status != v.MATCH}
    verdict = v.every(per) if per else v.not_run("no such setting in this run")
    return Claim.comparison(
        paper=PAPER,
        artifact="Table 7",
        claim="where Aequa's CGS is not the lowest, its MCG is the highest",
        paper_states="it significantly outperforms other methods in MCG (by [lost]) (Table 7)",
        reproduced=f"{len(per)} of {len(settings)} settings where Aequa's CGS is not established lowest",
        verdict=verdict,
        note=(open_settings(per) if per else "no such setting in this run")
        + f"; 'significantly' = the paired interval above a margin of {margin:g} (aequa.verdicts.mcg_margin)",
    )


def _lower_pmin_helps(runs: Runs, settings: list[Setting], p_min_ablation) -> Claim | None:
    """Table 8: with p_min lowered, Aequa has the lowest CGS in more quantity-skew settings (or already in all).
    Each setting's "lowest CGS" is paired over seeds for both p_min; the counts are then compared as ``most`` does:
    match when the lowered p_min matches in every setting, or in more settings than the default could even with its
    inconclusive ones; differs when neither can hold even if every inconclusive setting matched."""
    q = [s for s in settings if not np.isnan(_mean(runs, s, "aequa_pmin", "cgs"))]
    if not q:
        return None
    default = _per_setting(runs, q, "cgs", lower=True)
    lowered = _per_setting(runs, q, "cgs", mine=("aequa_pmin", "cgs"), lower=True)
    verdict = _more_or_all(lowered, default)
    return Claim.comparison(
        paper=PAPER,
        artifact="Table 8",
        claim=f"with p_min lowered to {describe_per_dataset(p_min_ablation)}, Aequa has the lowest CGS in more quantity-skew settings "
        "(or in all of them)",
        paper_states="adjusting p_min, Aequa is best in [lost] of 12 quantity-skew cases, raising the total (Table 8)",
        reproduced=f"lowest mean CGS in {_mean_wins(runs, q, 'cgs', 'cgs', lower=True)}/{len(q)} with the default "
        f"p_min; lower p_min: {v.counts_text([x.status for x in lowered.values()])}",
        verdict=verdict,
        note="lower p_min: " + open_settings(lowered),
    )


def _more_or_all(lowered: dict[str, v.Verdict], default: dict[str, v.Verdict]) -> v.Verdict:
    """ "``lowered`` matches in more settings than ``default``, or in all of them", bounded over inconclusive ones."""

    def count(verdicts: dict[str, v.Verdict], status: str) -> int:
        return sum(x.status == status for x in verdicts.values())

    every, every_default = v.every(lowered), v.every(default)
    low_match, low_open = count(lowered, v.MATCH), count(lowered, v.INCONCLUSIVE)
    if every.status == v.MATCH or low_match > count(default, v.MATCH) + count(default, v.INCONCLUSIVE):
        status = v.MATCH
    elif every.status == v.DIFFERS and low_match + low_open <= count(default, v.MATCH):
        status = v.DIFFERS
    else:
        status = v.INCONCLUSIVE
    evidence = f"lower p_min: {every.evidence}; default p_min: {every_default.evidence}"
    why = "; ".join(sorted({x.why for x in (every, every_default) if x.why}))
    return v.Verdict(status, evidence, why if status == v.INCONCLUSIVE else "")


def _width_reward_rho(runs: Runs, settings: list[Setting], bucketed: set[str]) -> Claim:
    """Table 9: rho(contribution, allocated width) = 1.0 in every row, compared at the printed precision (0.1), with
    the contributions the widths were fitted on (App. D.6: the allocation's "input" against its "output"). With
    continuous widths this holds by construction (tests/games/test_aequa_allocation.py), so the row is judged only on
    datasets whose model takes a discrete width bucket (``bucketed``; switchable batch norm), where it can fail."""
    mine = [s for s in settings if s[0] in bucketed]
    values = {s: _mean(runs, s, "aequa", "pearson_width_fit") for s in mine}
    off = [s for s, x in values.items() if not np.round(x, 1) == 1.0]
    return Claim.printed(
        paper=PAPER,
        artifact="Table 9",
        claim="width as the reward: Pearson(contribution, width) = 1.0 in every setting",
        paper_states="1.0 in every row of Table 9",
        reproduced="per setting: " + ", ".join(f"{d}/{p} {x:.3f}" for (d, p), x in values.items()),
        holds=(not off) if values else None,
        note=(
            "ρ against the contributions the widths were fitted on; not 1.0 at one decimal: "
            + (", ".join(f"{d}/{p}" for d, p in off) or "none")
            if values
            else "no model with a discrete width bucket in this profile: with continuous widths ρ = 1 by construction "
            "(unit test tests/games/test_aequa_allocation.py)"
        ),
    )


def _width_reward_accuracy(runs: Runs, settings: list[Setting], nan_rho: float) -> Claim:
    """App. D.6: with width as the reward, rho(contribution, accuracy) is still above every baseline's rho, in every
    setting (per seed: Aequa's width-reward rho against each baseline's rho of the same seed; NaN counts as
    ``nan_rho``)."""
    per = _per_setting(runs, settings, "pearson", mine=("aequa", "pearson_width_acc"), nan_rho=nan_rho)
    return Claim.comparison(
        paper=PAPER,
        artifact="Table 9, App. D.6",
        claim="width as the reward: Pearson(contribution, accuracy) is above every baseline's in every setting",
        paper_states="still outperforms all baseline approaches (App. D.6)",
        reproduced=f"mean above every baseline's in "
        f"{_mean_wins(runs, settings, 'pearson', 'pearson_width_acc')}/{len(settings)}",
        verdict=v.every(per),
        note=open_settings(per),
    )


def claims(results: Mapping[str, Any], settings: AequaSettings) -> list[Claim]:
    """Every Aequa claim of Sec. 6.2-6.3 and App. D on this run's tidy metrics (``results["tidy"]``, configured
    allocation cost); no rows without them."""
    if "tidy" not in results:
        return []
    tidy, cost, table9_datasets = results["tidy"], settings.allocation.spread, settings.tables.table9_datasets
    margins = settings.tables.verdicts
    runs = _per_seed(tidy, cost)
    cases = sorted({(d, p) for d, p, method, _ in runs if method == "aequa"})
    table9 = [s for s in cases if s[0] in table9_datasets] if table9_datasets else cases
    bucketed = {d for d, _ in cases if lookup(settings.models, d) in BUCKETED_MODELS}
    schemes = {p.name: p.scheme for p in settings.partitions}
    rows = [
        _pearson_highest(runs, cases, margins.nan_rho),
        _accuracy_best_or_second(runs, cases),
        _individual_rationality(tidy, cost, margins.ir_split),
        _cgs_lowest_in_most(runs, cases),
        _cgs_lowest_in_named_partitions(runs, cases, schemes),
        _cgs_not_lowest_only_when_extreme(runs, cases, schemes),
        _mcg_where_cgs_not_lowest(runs, cases, margins.mcg_margin),
        _lower_pmin_helps(runs, cases, settings.p_min_ablation),
        _width_reward_rho(runs, table9, bucketed),
        _width_reward_accuracy(runs, table9, margins.nan_rho),
        *text_claims(runs, cases, schemes, margins),
        width_accuracy_monotone(results.get("curves"), settings.tables.curve_partition),
        *per_participant_claims(runs, cases, schemes, margins.on_par_tolerance),
    ]
    return [row for row in rows if row is not None]
