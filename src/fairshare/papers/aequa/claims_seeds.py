"""Per-seed comparisons shared by Aequa's claims and its extensions' claims (docs/verdicts.md, issue 26).

A method comparison is made seed by seed (the same seed trains every method of a setting on the same split) and
decided by :mod:`fairshare.pipeline.verdicts` on the interval of the paired differences, never on a difference of seed means.
A ranking statement ("Aequa highest", "IAFL second") is the set of pairwise comparisons it implies, all required.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from fairshare.pipeline import verdicts as v

__all__ = ["is_rho", "open_settings", "placed", "seed_mean", "seed_mean_text", "seed_values"]

# The NaN rule (``aequa.verdicts.nan_rho``, passed in as ``nan_rho``): a NaN Pearson correlation means identical
# rewards for every client (an input constant up to rounding, fairshare.metrics.numerically_constant): the reward
# carries no information about the contribution, so on its seed it counts as no correlation, 0 by default (not as -1,
# an anti-correlation no method showed, which would also inflate the seed-to-seed spread). A NaN method thus loses to
# any positive correlation on that seed and beats any negative one. 0 replaced -1 (commit bccb4b4, a minute before
# 09bc0ed in the same merge of issue 26); the history does not show whether a run was seen in between, so it is a
# registered tuned setting (workflow/tuned_settings.yaml, aequa_nan_rho, whose rerun counts NaN as -1).
# Issue 42 applies it to every rho column (is_rho), pearson_joined included.

Seeds = Mapping[object, float]  # seed -> value


def is_rho(metric: str) -> bool:
    """Whether a results column holds a Pearson correlation (pearson, pearson_fit, pearson_joined, pearson_crossfit,
    pearson_width_acc, ...): the one test of which columns the NaN rule applies to."""
    return metric.startswith("pearson")


def seed_values(values: pd.Series | Seeds, metric: str, nan_rho: float | None = None) -> dict[object, float]:
    """``seed -> value`` of one method in one setting on the column ``metric``; for a Pearson column
    (:func:`is_rho`) NaN becomes ``nan_rho`` (``aequa.verdicts.nan_rho``, required there), other columns keep NaN
    (their comparisons stay open)."""
    rho = is_rho(metric)
    if rho and nan_rho is None:
        raise ValueError(f"a rho column ({metric}) needs the NaN rule nan_rho (aequa.verdicts.nan_rho)")
    out = {seed: float(x) for seed, x in dict(values).items()}
    return {s: float(nan_rho) if rho and math.isnan(x) else x for s, x in out.items()}


def seed_mean(values: Seeds) -> float:
    """The mean over seeds that the tables print (NaN seeds left out, as pandas does), for readable text only."""
    finite = [x for x in values.values() if not math.isnan(x)]
    return sum(finite) / len(finite) if finite else math.nan


def seed_mean_text(values: Seeds, digits: int = 3) -> str:
    """:func:`seed_mean` as text, naming the NaN seeds it leaves out ("0.488 (NaN on 2 of 3 seeds)")."""
    nan = sum(math.isnan(x) for x in values.values())
    return f"{seed_mean(values):.{digits}f}" + (f" (NaN on {nan} of {len(values)} seeds)" if nan else "")


def placed(
    method: str,
    values: Mapping[str, Seeds],
    above: Sequence[str] = (),
    lower_is_better: bool = False,
    margin: float = 0.0,
) -> v.Verdict:
    """``method`` ranks right after ``above`` among ``values`` (method -> seed -> value): each method of ``above`` is
    better than it and it is better than every other method, each pair decided over seeds (``higher``, or ``lower``
    for a metric where lower is better, the pair then written "a < b"; ``margin``: by more than it); the pairs
    combined with ``every``."""
    better, sign = (v.lower, "<") if lower_is_better else (v.higher, ">")
    pairs = {f"{a} {sign} {method}": better(v.paired(values[a], values[method]), margin) for a in above}
    pairs |= {
        f"{method} {sign} {b}": better(v.paired(values[method], values[b]), margin)
        for b in values
        if b != method and b not in above
    }
    return v.every(pairs, "pairs")


def open_settings(verdicts: Mapping[str, v.Verdict]) -> str:
    """The settings a statement over settings does not match in, by status (for a row's note)."""
    parts = [
        f"{status} in: " + ", ".join(k for k, x in verdicts.items() if x.status == status)
        for status in (v.DIFFERS, v.INCONCLUSIVE)
        if any(x.status == status for x in verdicts.values())
    ]
    return "; ".join(parts) or "every setting matches"
