"""Verdicts on training results that are decided beyond seed noise (docs/verdicts.md).

A comparison of training results is made per seed and judged on an interval, never on a difference of means:

- ``paired(a, b)``: the per-seed differences ``a - b`` (the same seed trains both, so the pair shares its data split
  and initial model), their mean and a two-sided 95 % Student-t interval;
- ``higher`` / ``lower``: ``match`` when the interval lies on the paper's side of the margin, ``differs`` when it lies
  on the other side, ``inconclusive`` when it straddles it or fewer than two seeds ran;
- ``comparable``: an equivalence test against a tolerance fixed in the config before the run;
- ``increasing`` / ``decreasing``: a trend over a parameter, each neighbouring pair compared as above;
- ``every`` / ``most``: a statement over several settings, counting how many match, differ and are inconclusive;
- ``spread_decreases``: a statement about the seed-to-seed spread itself, on the F interval of a variance ratio.

Numerics (issue 42): a per-seed difference within rounding of the two values it compares
(:data:`fairshare.metrics.CONSTANT_RTOL` of their magnitude) is a tie, exactly 0; a spread at numerical zero
(:func:`fairshare.metrics.spread`) is exactly 0, and a variance ratio over a zero variance is refused
(inconclusive), never a ratio of 1e27; a NaN seed value leaves its comparison inconclusive and says so.

Each returns a :class:`Verdict`: the status and the evidence text (effect, interval, per-seed values) that the
scorecard's ``interval`` column shows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from fairshare.metrics import CONSTANT_RTOL, spread

__all__ = [
    "CONFIDENCE",
    "DIFFERS",
    "INCONCLUSIVE",
    "MATCH",
    "Interval",
    "NOT_RUN",
    "Verdict",
    "at_least",
    "comparable",
    "counts_text",
    "decreasing",
    "every",
    "higher",
    "increasing",
    "interval",
    "lower",
    "most",
    "not_run",
    "paired",
    "spread_decreases",
]

CONFIDENCE = 0.95
MATCH, DIFFERS, INCONCLUSIVE = "match", "differs", "inconclusive"
NOT_RUN = "not run in this profile"


@dataclass(frozen=True)
class Interval:
    """Per-seed values (usually paired differences), their mean and a two-sided Student-t interval at
    :data:`CONFIDENCE`; infinite with fewer than two values."""

    values: tuple[float, ...]
    mean: float
    low: float
    high: float

    @property
    def n(self) -> int:
        return len(self.values)

    def text(self, digits: int = 4) -> str:
        per_seed = " ".join(f"{v:+.{digits}f}" for v in self.values)
        if self.n < 2:
            return f"{self.mean:+.{digits}f} on {self.n} seed (no interval)"
        return (
            f"{self.mean:+.{digits}f} [{self.low:+.{digits}f}, {self.high:+.{digits}f}] "
            f"({CONFIDENCE:.0%} t, {self.n} seeds: {per_seed})"
        )


@dataclass(frozen=True)
class Verdict:
    """A status (match, differs, inconclusive, or not run) and the evidence that decided it."""

    status: str
    evidence: str
    why: str = ""  # for an inconclusive verdict: too few seeds, or an interval that includes no effect
    #: The interval that decided a single comparison, oriented so that the paper's side is up (``lower`` flips it),
    #: and the bar it had to clear on that side: ``higher``/``lower``/``at_least`` match when ``interval.low > bar``;
    #: ``comparable`` matches when the interval lies within ``±bar``. None for a statement over settings or seeds.
    interval: Interval | None = None
    bar: float = 0.0
    test: str = ""  # "side" (higher, lower, at_least), "equivalence" (comparable), "" for the others

    def __post_init__(self) -> None:
        if self.status not in (MATCH, DIFFERS, INCONCLUSIVE, NOT_RUN):
            raise ValueError(f"verdict status must be match, differs, inconclusive or not run, got {self.status!r}")


def interval(values: Iterable[float]) -> Interval:
    """Mean and Student-t interval of ``values`` (one per seed); the spread of numerically constant values is 0
    (:func:`fairshare.metrics.spread`); unbounded with a NaN value (the comparison is undefined on that seed)."""
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        return Interval((), math.nan, -math.inf, math.inf)
    if not np.isfinite(x).all():
        return Interval(tuple(map(float, x)), math.nan, -math.inf, math.inf)
    mean = float(x.mean())
    if x.size < 2:
        return Interval(tuple(map(float, x)), mean, -math.inf, math.inf)
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, x.size - 1) * spread(x, ddof=1) / math.sqrt(x.size))
    return Interval(tuple(map(float, x)), mean, mean - half, mean + half)


def _difference(a: float, b: float) -> float:
    """``a - b``, exactly 0 within rounding of the two (:data:`fairshare.metrics.CONSTANT_RTOL` of max |a|, |b|)."""
    d = a - b
    return 0.0 if abs(d) <= CONSTANT_RTOL * max(abs(a), abs(b)) else d


def paired(a: Mapping[object, float], b: Mapping[object, float]) -> Interval:
    """The interval of ``a[seed] - b[seed]`` over the seeds both ran (a pandas Series indexed by seed works); a
    difference within rounding of the values is a tie (0)."""
    seeds = [s for s in a.keys() if s in b.keys()]
    return interval(_difference(float(a[s]), float(b[s])) for s in sorted(seeds))


def _why(iv: Interval) -> str:
    if any(math.isnan(x) for x in iv.values):
        return "undefined on some seed (NaN)"
    return f"too few seeds ({iv.n})" if iv.n < 2 else "seed noise: the interval includes no effect"


def _side(iv: Interval, margin: float, evidence: str) -> Verdict:
    kept = dict(interval=iv, bar=margin, test="side")
    if iv.n >= 2 and iv.low > margin:
        return Verdict(MATCH, evidence, **kept)
    if iv.n >= 2 and iv.high < margin:
        return Verdict(DIFFERS, evidence, **kept)
    return Verdict(INCONCLUSIVE, evidence, _why(iv), **kept)


def higher(iv: Interval, margin: float = 0.0, digits: int = 4) -> Verdict:
    """ "A is higher than B" on the paired interval of A - B: match when it lies above ``margin``."""
    return _side(iv, margin, iv.text(digits) + (f"; margin {margin:g}" if margin else ""))


def lower(iv: Interval, margin: float = 0.0, digits: int = 4) -> Verdict:
    """ "A is lower than B" on the paired interval of A - B: match when it lies below ``-margin``."""
    flipped = Interval(tuple(-v for v in iv.values), -iv.mean, -iv.high, -iv.low)
    return _side(flipped, margin, iv.text(digits) + (f"; margin {margin:g}" if margin else ""))


def comparable(iv: Interval, tolerance: float, digits: int = 4) -> Verdict:
    """ "A is comparable with (the same as) B": match when the whole interval of A - B lies within ``±tolerance``,
    differs when it lies wholly outside, inconclusive otherwise (an equivalence test; the tolerance is a config value
    fixed before the run)."""
    evidence = f"{iv.text(digits)}; tolerance ±{tolerance:g}"
    kept = dict(interval=iv, bar=tolerance, test="equivalence")
    if iv.n >= 2 and -tolerance <= iv.low and iv.high <= tolerance:
        return Verdict(MATCH, evidence, **kept)
    if iv.n >= 2 and (iv.low > tolerance or iv.high < -tolerance):
        return Verdict(DIFFERS, evidence, **kept)
    return Verdict(INCONCLUSIVE, evidence, _why(iv), **kept)


def at_least(iv: Interval, tolerance: float, digits: int = 4) -> Verdict:
    """ "A is the same as or higher than B": match when the interval of A - B lies above ``-tolerance``."""
    return _side(iv, -tolerance, f"{iv.text(digits)}; 'the same' = within {tolerance:g}")


def counts_text(statuses: Sequence[str], what: str = "settings") -> str:
    n = {s: sum(1 for x in statuses if x == s) for s in (MATCH, DIFFERS, INCONCLUSIVE)}
    return f"{n[MATCH]} match, {n[DIFFERS]} differ, {n[INCONCLUSIVE]} inconclusive of {len(statuses)} {what}"


def every(verdicts: Mapping[str, Verdict], what: str = "settings") -> Verdict:
    """ "In every setting": match only if every setting matches; differs if any differs; else inconclusive."""
    statuses = [v.status for v in verdicts.values()]
    if not statuses:
        return Verdict(INCONCLUSIVE, f"no {what}", f"no {what}")
    status = DIFFERS if DIFFERS in statuses else (MATCH if all(s == MATCH for s in statuses) else INCONCLUSIVE)
    return Verdict(status, _detail(statuses, verdicts, what), _open(verdicts) if status == INCONCLUSIVE else "")


def most(verdicts: Mapping[str, Verdict], what: str = "settings") -> Verdict:
    """ "In most settings": match when more than half match; differs when more than half could not match even if
    every inconclusive one did; else inconclusive."""
    statuses = [v.status for v in verdicts.values()]
    matched, open_ = statuses.count(MATCH), statuses.count(INCONCLUSIVE)
    if matched > len(statuses) / 2:
        status = MATCH
    elif matched + open_ <= len(statuses) / 2:
        status = DIFFERS
    else:
        status = INCONCLUSIVE
    evidence = f"most = more than half; {_detail(statuses, verdicts, what)}"
    return Verdict(status, evidence, _open(verdicts) if status == INCONCLUSIVE else "")


#: At most this many settings are detailed in a statement's evidence: all when they are this few, else those that do
#: not match (the scorecard cell stays readable for a statement over 100 budgets).
DETAILED = 6


def _detail(statuses: Sequence[str], verdicts: Mapping[str, Verdict], what: str) -> str:
    shown = list(verdicts.items())
    if len(shown) > DETAILED:
        shown = [(k, v) for k, v in shown if v.status != MATCH]
    more = f"; {len(shown) - DETAILED} more not shown" if len(shown) > DETAILED else ""
    detail = "; ".join(f"{k}: {v.status} {v.evidence}" for k, v in shown[:DETAILED])
    return f"{counts_text(statuses, what)}" + (f" ({detail}{more})" if detail else "")


def _open(verdicts: Mapping[str, Verdict]) -> str:
    """Why a statement over settings stays open: the reasons of its inconclusive settings."""
    reasons = sorted({v.why for v in verdicts.values() if v.status == INCONCLUSIVE and v.why})
    return "; ".join(reasons)


def _trend(per_seed: Mapping[float, Mapping[object, float]], rising: bool, digits: int) -> Verdict:
    keys = sorted(per_seed)
    if len(keys) < 2:
        return Verdict(INCONCLUSIVE, f"one parameter value ({keys})", "one parameter value")
    steps = {}
    for lo, hi in zip(keys, keys[1:]):
        iv = paired(per_seed[hi], per_seed[lo])
        steps[f"{lo:g}->{hi:g}"] = higher(iv, digits=digits) if rising else lower(iv, digits=digits)
    return every(steps, "steps")


def increasing(per_seed: Mapping[float, Mapping[object, float]], digits: int = 4) -> Verdict:
    """A quantity rises over a parameter: ``per_seed[parameter][seed]``; every neighbouring step is a paired
    "higher" (monotone within the uncertainty)."""
    return _trend(per_seed, True, digits)


def decreasing(per_seed: Mapping[float, Mapping[object, float]], digits: int = 4) -> Verdict:
    """A quantity falls over a parameter; every neighbouring step a paired "lower"."""
    return _trend(per_seed, False, digits)


def spread_decreases(first: Sequence[float], second: Sequence[float], digits: int = 4) -> Verdict:
    """The seed-to-seed spread of ``second`` is smaller than that of ``first``: the F interval of the variance
    ratio var(second) / var(first) lies below 1 (match), above 1 (differs), or straddles it. A variance at numerical
    zero on the scale of both samples (:func:`fairshare.metrics.spread`) is 0: over a zero first variance the ratio
    is refused (inconclusive: a seed variance of 1e-29 from rounding would give a ratio of 1e27); a zero second
    variance against a positive first one is a ratio of 0. A NaN value leaves the comparison inconclusive."""
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.size < 2 or b.size < 2:
        n = min(a.size, b.size)
        return Verdict(INCONCLUSIVE, f"{n} seed(s): no spread to compare", f"too few seeds ({n})")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        why = "undefined on some seed (NaN)"
        return Verdict(INCONCLUSIVE, why, why)
    scale = float(max(np.abs(a).max(), np.abs(b).max()))
    va, vb = spread(a, ddof=1, scale=scale) ** 2, spread(b, ddof=1, scale=scale) ** 2
    if va == 0.0:
        why = "no spread in the first setting (zero up to rounding): no ratio to form"
        return Verdict(INCONCLUSIVE, why, why)
    ratio, tail = vb / va, (1 - CONFIDENCE) / 2
    low = ratio / float(stats.f.ppf(1 - tail, b.size - 1, a.size - 1))
    high = ratio / float(stats.f.ppf(tail, b.size - 1, a.size - 1))
    status = MATCH if high < 1 else (DIFFERS if low > 1 else INCONCLUSIVE)
    evidence = (
        f"variance ratio {ratio:.{digits}g} [{low:.{digits}g}, {high:.{digits}g}] ({CONFIDENCE:.0%} F, "
        f"{a.size} and {b.size} seeds)"
    )
    return Verdict(status, evidence, "seed noise: the interval includes a ratio of 1" if status == INCONCLUSIVE else "")


def not_run(reason: str) -> Verdict:
    """A comparison this profile did not run."""
    return Verdict(NOT_RUN, reason, reason)
