"""Whether a setting's contributions can be measured well enough to judge a rho row (issue 38).

Every rho of this paper is taken against the clients' contributions (standalone accuracies) measured on a finite
split. A contribution measured with error e, against contributions that spread s over the clients, caps any
measurable rho near sqrt(s^2 / (s^2 + e^2)) (errors-in-variables attenuation). A setting is not judged, and says
so, when e >= s (the split cannot tell the clients apart) or when that ceiling is below the row's bar (a level such
as "near-perfect"); comparisons of methods have no level and use only the first test. The error is the one of the
split the rho is read on: for the test split, a half's error (``crossfit_error``) over sqrt(2), or without the halves
the validation-vs-test difference (``contribution_error``, an upper estimate). A run that recorded neither is judged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from fairshare.papers.aequa.claims_seeds import seed_mean
from fairshare.pipeline import verdicts as v

__all__ = ["ceiling", "split_error", "unmeasured"]

Setting = tuple[str, str]
Runs = Mapping[tuple[str, str, str, str], Mapping[object, float]]


def ceiling(spread: float, error: float) -> float:
    """The largest rho measurable against contributions with ``error`` that spread ``spread``."""
    return math.sqrt(spread**2 / (spread**2 + error**2)) if spread > 0 else 0.0


def split_error(runs: Runs, s: Setting) -> float:
    """Seed-mean error of one client's contribution on the test split (NaN when the runs recorded none)."""
    half = seed_mean(runs.get((*s, "aequa", "crossfit_error"), {}))
    if not math.isnan(half):
        return half / math.sqrt(2)
    return seed_mean(runs.get((*s, "aequa", "contribution_error"), {}))


def unmeasured(runs: Runs, s: Setting, bar: float | None = None, error: float | None = None) -> v.Verdict | None:
    """An inconclusive verdict naming why setting ``s``'s contributions cannot carry a rho row (``error``: default
    the test split's), or None when they can (or when the runs recorded no error)."""
    e = split_error(runs, s) if error is None else error
    spread = seed_mean(runs.get((*s, "aequa", "contribution_spread"), {}))
    if math.isnan(e) or math.isnan(spread):
        return None
    if not e < spread:
        why = f"contribution not measurable: error {e:.3f} >= spread {spread:.3f}"
    elif bar is not None and ceiling(spread, e) < bar:
        why = f"contribution not measurable: ceiling sqrt(s²/(s²+e²)) = {ceiling(spread, e):.3f} below the bar {bar:g}"
    else:
        return None
    return v.Verdict(v.INCONCLUSIVE, why, why)
