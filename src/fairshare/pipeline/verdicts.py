"""Verdicts on training results that are decided beyond seed noise (docs/verdicts.md).

A comparison of training results is made per seed and judged on an interval, never on a difference of means:

- ``paired(a, b)``: the per-seed differences ``a - b`` (the same seed trains both, so the pair shares its data split
  and initial model), their mean and a two-sided 95 % Student-t interval;
- ``higher`` / ``lower``: ``match`` when the interval lies on the paper's side of the margin, ``differs`` when it lies
  on the other side, ``inconclusive`` when it straddles it or fewer than two seeds ran;
- ``comparable``: an equivalence test against a tolerance fixed in the config before the run;
- ``increasing`` / ``decreasing``: a trend over a parameter, each neighbouring pair compared as above;
- ``every``: "in every setting", an intersection-union test for match and Holm's correction for differs;
- ``most``: "in most settings / on average", a pooled (stratified) paired test over settings x seeds;
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
    "detectable_ratio",
    "every",
    "higher",
    "holm",
    "increasing",
    "interval",
    "lower",
    "most",
    "not_run",
    "p_against",
    "paired",
    "reach_note",
    "spread_decreases",
    "POWER",
    "minimum_detectable_effect",
    "verdict_mde",
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
    #: A statement over settings (``every``): its settings' verdicts, so that an enclosing statement reaches each test.
    parts: tuple[tuple[str, Verdict], ...] = ()
    #: One-sided p-value of the paper's side where the verdict's own test computed it (``most``'s pooled test, the F
    #: test of ``spread_decreases``); else :func:`p_against` computes it from ``interval`` and ``bar``.
    p_against: float | None = None

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


#: The one-sided level of one comparison: a two-sided 95 % interval wholly on one side of its bar is a one-sided test
#: at 2.5 %. "In every setting" splits this level over its settings by Holm's step-down correction (:func:`holm`).
ALPHA_ONE_SIDED = (1 - CONFIDENCE) / 2


def holm(p_values: Mapping[str, float], alpha: float = ALPHA_ONE_SIDED) -> list[str]:
    """Holm's step-down procedure: the keys rejected at family-wise level ``alpha``. The i-th smallest p-value (i from
    0) is rejected while it and every smaller one are at most ``alpha / (k - i)``."""
    order = sorted(p_values, key=lambda key: p_values[key])
    rejected = []
    for i, key in enumerate(order):
        if not p_values[key] <= alpha / (len(order) - i):
            break
        rejected.append(key)
    return rejected


def _tails(mean: float, se: float, df: float, level: float) -> tuple[float, float]:
    """Student-t p-values of "the mean is below ``level``" and of "above ``level``" (a zero standard error decides by
    the sign of ``mean - level``, as :func:`interval`'s zero-width interval does)."""
    if se == 0.0:
        return (0.0 if mean < level else 1.0), (0.0 if mean > level else 1.0)
    z = (mean - level) / se
    return float(stats.t.cdf(z, df)), float(stats.t.sf(z, df))


def _stats(iv: Interval) -> tuple[float, float] | None:
    """(standard error, degrees of freedom) of a seed interval; None without an interval (under two or NaN seeds)."""
    x = np.asarray(iv.values, dtype=float)
    if x.size < 2 or not np.isfinite(x).all():
        return None
    return spread(x, ddof=1) / math.sqrt(x.size), x.size - 1.0


def p_against(verdict: Verdict) -> float:
    """One-sided p-value of the paper's side, from a comparison's interval and bar (Student t): a side test's
    "the mean is below the bar"; an equivalence test's "the mean is outside ±tolerance" (the two one-sided tests of
    TOST read the other way; the smaller p-value, as a single ``comparable`` differs when either is below 2.5 %). A
    pooled verdict (``most``) carries its own; a verdict by a rule of its own (no interval) counts as its status says:
    0 if it differs, else 1. Without an interval (under two or NaN seeds): 1."""
    if verdict.p_against is not None:
        return verdict.p_against
    if verdict.interval is None or verdict.test not in ("side", "equivalence"):
        return 0.0 if verdict.status == DIFFERS else 1.0
    st = _stats(verdict.interval)
    if st is None:
        return 1.0
    mean = verdict.interval.mean
    if verdict.test == "side":
        return _tails(mean, *st, verdict.bar)[0]
    return min(_tails(mean, *st, verdict.bar)[1], _tails(mean, *st, -verdict.bar)[0])


def _leaves(verdicts: Mapping[str, Verdict], prefix: str = "") -> dict[str, Verdict]:
    """The single tests under a statement over settings: a setting that is itself ``every`` over pairs contributes
    its pairs ("setting / pair")."""
    out: dict[str, Verdict] = {}
    for key, x in verdicts.items():
        out |= _leaves(dict(x.parts), f"{prefix}{key} / ") if x.parts else {f"{prefix}{key}": x}
    return out


def every(verdicts: Mapping[str, Verdict], what: str = "settings") -> Verdict:
    """ "In every setting" (all, always, consistently): match when every setting's own test decides for the paper (an
    intersection-union test: no correction); differs when some single test (a setting, or a pair within one) decides
    against the paper after Holm's correction over all of them (:func:`p_against`, :func:`holm`); else
    inconclusive."""
    statuses = [v.status for v in verdicts.values()]
    if not statuses:
        return Verdict(INCONCLUSIVE, f"no {what}", f"no {what}")
    leaves = _leaves(verdicts)
    p = {key: p_against(x) for key, x in leaves.items()}
    rejected = holm(p)
    if all(s == MATCH for s in statuses):
        status, why = MATCH, ""
    elif rejected:
        status, why = DIFFERS, ""
    else:
        status, why = INCONCLUSIVE, _open(verdicts)
        if DIFFERS in statuses:
            held = f"a setting differs on its own, not after Holm's correction over {len(p)} tests"
            why = "; ".join(x for x in (why, held) if x)
    holm_text = ""
    if rejected or DIFFERS in statuses:
        shown = ", ".join(f"{key} p={p[key]:.2g}" for key in (rejected or sorted(p, key=p.get)[:1]))
        holm_text = f"; Holm over {len(p)} one-sided tests at {ALPHA_ONE_SIDED:.1%}: " + (
            f"against the paper: {shown}" if rejected else f"none against the paper (smallest {shown})"
        )
    evidence = "every = each must match; " + _detail(verdicts, what) + holm_text
    return Verdict(status, evidence, why, parts=tuple(verdicts.items()))


def _pool(verdicts: Mapping[str, Verdict], what: str) -> Verdict:
    """The stratified paired test of "on average over the settings": each setting's per-seed values (oriented so the
    paper's side is up, less its bar; divided by it for an equivalence test whose tolerances differ) are averaged
    within the setting, the estimate is the mean of the setting means, its variance sum(s_j^2 / n_j) / k^2 (seed noise
    within the settings only: the settings are the paper's, fixed), its degrees of freedom Welch-Satterthwaite's.
    Settings without a seed interval (under two or NaN seeds, a rule of their own) are left out and named; when no
    setting has one, the settings' own statuses are counted instead (:func:`_count`)."""
    usable = {
        key: x
        for key, x in verdicts.items()
        if x.interval is not None and x.test in ("side", "equivalence") and _stats(x.interval) is not None
    }
    left = [key for key in verdicts if key not in usable]
    left_text = f"; left out (no seed interval): {', '.join(left)}" if left else ""
    tests = {x.test for x in usable.values()}
    if not usable:
        return _count(verdicts)
    if len(tests) > 1:
        why = "side and equivalence tests mixed: no pooled test"
        return Verdict(INCONCLUSIVE, why + left_text, why, p_against=1.0)
    test, bars = tests.pop(), {x.bar for x in usable.values()}
    bar = bars.pop() if len(bars) == 1 else (1.0 if test == "equivalence" else 0.0)
    columns = []
    for x in usable.values():
        values = np.asarray(x.interval.values, dtype=float)
        if len(bars) > 1:
            values = values / x.bar if test == "equivalence" else values - x.bar
        columns.append(values)
    a = np.array([spread(c, ddof=1) ** 2 / c.size for c in columns])
    k, mean = len(columns), float(np.mean([c.mean() for c in columns]))
    se = math.sqrt(float(a.sum())) / k
    if se == 0.0 and abs(mean) <= CONSTANT_RTOL * max(float(np.abs(c).max()) for c in columns):
        mean = 0.0  # settings that cancel exactly, up to rounding: a tie, not a sign from the last bit
    df = float(a.sum() ** 2 / np.sum(a**2 / np.array([c.size - 1 for c in columns]))) if a.sum() > 0 else 1e9
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, df)) * se
    pooled = np.concatenate(columns)
    iv = Interval(tuple(map(float, pooled)), mean, mean - half, mean + half)
    below, above = _tails(mean, se, df, bar)
    if test == "side":
        p, status = below, (MATCH if iv.low > bar else DIFFERS if iv.high < bar else INCONCLUSIVE)
        against = f"bar {bar:+g}"
    else:
        p = min(above, _tails(mean, se, df, -bar)[0])
        inside, outside = -bar <= iv.low and iv.high <= bar, iv.low > bar or iv.high < -bar
        status, against = (MATCH if inside else DIFFERS if outside else INCONCLUSIVE), f"tolerance ±{bar:g}"
    scaled = " (each setting less its bar)" if len(bars) > 1 and test == "side" else ""
    scaled += " (each setting over its tolerance)" if len(bars) > 1 and test == "equivalence" else ""
    evidence = (
        f"pooled{scaled} {mean:+.4f} [{iv.low:+.4f}, {iv.high:+.4f}] ({CONFIDENCE:.0%} stratified t, df {df:.3g}, "
        f"{k} {what} x {pooled.size // k if pooled.size % k == 0 else 'unequal'} seeds); {against}{left_text}"
    )
    why = "seed noise: the pooled interval includes no effect" if status == INCONCLUSIVE else ""
    return Verdict(status, evidence, why, interval=iv, bar=bar, test=test, p_against=p)


def _count(verdicts: Mapping[str, Verdict]) -> Verdict:
    """Settings decided by rules of their own (no seed interval to pool): match when more than half match; differs
    when more than half could not match even if every inconclusive one did; else inconclusive."""
    statuses = [x.status for x in verdicts.values()]
    matched, open_ = statuses.count(MATCH), statuses.count(INCONCLUSIVE)
    if matched > len(statuses) / 2:
        status = MATCH
    elif matched + open_ <= len(statuses) / 2:
        status = DIFFERS
    else:
        status = INCONCLUSIVE
    why = _open(verdicts) if status == INCONCLUSIVE else ""
    return Verdict(status, "no seed interval to pool: more than half of the settings by their own status", why)


def most(verdicts: Mapping[str, Verdict], what: str = "settings") -> Verdict:
    """ "In most settings" (usually, on average, generally): a pooled paired test over settings x seeds (:func:`_pool`),
    reported beside the per-setting counts. A setting that is itself a set of pairs ("above every baseline") is
    pooled pair by pair over the settings, and the pairs are joined as :func:`every` joins them."""
    statuses = [v.status for v in verdicts.values()]
    if not statuses:
        return Verdict(INCONCLUSIVE, f"no {what}", f"no {what}")
    composite = [x for x in verdicts.values() if x.parts]
    if composite:
        names = list(dict.fromkeys(name for x in composite for name, _ in x.parts))
        pooled = {
            name: most({key: dict(x.parts)[name] for key, x in verdicts.items() if name in dict(x.parts)}, what)
            for name in names
        }
        joined = every(pooled, "pairs")
        evidence = f"most = pooled over {what} and seeds, pair by pair: {joined.evidence}"
        result = Verdict(joined.status, evidence, joined.why, parts=joined.parts)
    else:
        result = _pool(verdicts, what)
    evidence = f"{result.evidence}; per setting: {_detail(verdicts, what)}"
    if composite:
        return Verdict(result.status, evidence, result.why, parts=result.parts)
    kept = dict(interval=result.interval, bar=result.bar, test=result.test, p_against=result.p_against)
    return Verdict(result.status, f"most = {evidence}", result.why, **kept)


#: A statement over this many settings or fewer shows every setting's evidence in full; above it, the settings that
#: do not match are still shown in full (each may decide the verdict), the matching ones by name and interval only.
DETAILED = 6


def _brief(verdict: Verdict) -> str:
    iv = verdict.interval
    if iv is None or iv.n < 2 or not math.isfinite(iv.low):
        return verdict.status
    return f"{iv.mean:+.3g} [{iv.low:+.3g}, {iv.high:+.3g}]"


def _detail(verdicts: Mapping[str, Verdict], what: str) -> str:
    """Counts, then every setting that is not a match in full (none is ever hidden: each may decide the verdict), and
    the matching ones in full when there are at most :data:`DETAILED` settings, else by name and interval."""
    statuses = [x.status for x in verdicts.values()]
    few = len(verdicts) <= DETAILED
    full = "; ".join(f"{k}: {x.status} {x.evidence}" for k, x in verdicts.items() if few or x.status != MATCH)
    brief = "" if few else ", ".join(f"{k} {_brief(x)}" for k, x in verdicts.items() if x.status == MATCH)
    parts = [x for x in (full, f"matching: {brief}" if brief else "") if x]
    return counts_text(statuses, what) + (f" ({'; '.join(parts)})" if parts else "")


def _open(verdicts: Mapping[str, Verdict]) -> str:
    """Why a statement over settings stays open: the reasons of its inconclusive settings, each once."""
    whys = (v.why for v in verdicts.values() if v.status == INCONCLUSIVE and v.why)
    return "; ".join(sorted({reason for why in whys for reason in why.split("; ")}))


def _trend(per_seed: Mapping[float, Mapping[object, float]], rising: bool, digits: int) -> Verdict:
    """A trend over a parameter is "every neighbouring step" (:func:`every`: Holm over the steps for differs)."""
    keys = sorted(per_seed)
    if len(keys) < 2:
        return Verdict(INCONCLUSIVE, f"one parameter value ({keys})", "one parameter value")
    steps = {}
    for lo, hi in zip(keys, keys[1:]):
        iv = paired(per_seed[hi], per_seed[lo])
        steps[f"{lo:g}->{hi:g}"] = higher(iv, digits=digits) if rising else lower(iv, digits=digits)
    return every(steps, "steps")


def reach_note(verdict: Verdict) -> str:
    """For a row's note: the equivalence tests under ``verdict`` ("comparable", "nearly the same") whose interval is
    wider than their tolerance, which can then never lie within it: "cannot match at N seeds: half-width H >
    margin M". Empty when every one can."""
    tests = _leaves(dict(verdict.parts)) if verdict.parts else {"": verdict}
    out = []
    for key, x in tests.items():
        iv = x.interval
        if x.test != "equivalence" or iv is None or iv.n < 2 or not math.isfinite(iv.high - iv.low):
            continue
        if (half := (iv.high - iv.low) / 2) > x.bar:
            where = f"{key}: " if key else ""
            out.append(f"{where}cannot match at {iv.n} seeds: half-width {half:.3g} > margin {x.bar:g}")
    return "; ".join(out)


def detectable_ratio(n_first: int, n_second: int) -> str:
    """For a row's note on "varies less over seeds" (:func:`spread_decreases`): the observed variance ratio
    var(second) / var(first) below which it can match at these seeds (the F interval's upper end below 1), and the
    true ratio it detects with 80 % probability."""
    if min(n_first, n_second) < 2:
        return f"no spread test at {n_first} and {n_second} seeds"
    df = (n_second - 1, n_first - 1)
    below = float(stats.f.ppf((1 - CONFIDENCE) / 2, *df))
    power = below / float(stats.f.ppf(0.80, *df))
    return (
        f"at {n_first} and {n_second} seeds it matches only for an observed variance ratio below {below:.3g}; "
        f"a true ratio of {power:.3g} is detected with 80 % probability"
    )


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
    p = float(stats.f.sf(ratio, b.size - 1, a.size - 1))  # of "the ratio is at most 1", for Holm in ``every``
    evidence = (
        f"variance ratio {ratio:.{digits}g} [{low:.{digits}g}, {high:.{digits}g}] ({CONFIDENCE:.0%} F, "
        f"{a.size} and {b.size} seeds)"
    )
    why = "seed noise: the interval includes a ratio of 1" if status == INCONCLUSIVE else ""
    return Verdict(status, evidence, why, p_against=p)


def not_run(reason: str) -> Verdict:
    """A comparison this profile did not run."""
    return Verdict(NOT_RUN, reason, reason)


#: The power at which :func:`minimum_detectable_effect` is stated (docs/verdicts.md, "The paper's effect as the
#: yardstick").
POWER = 0.80


def minimum_detectable_effect(iv: Interval) -> float:
    """The smallest true mean difference that a two-sided paired t test at :data:`CONFIDENCE` detects with
    probability :data:`POWER` on ``iv``'s seeds, from their SD: ``(t(0.975, n-1) + t(0.80, n-1)) * sd / sqrt(n)``
    (the usual normal-approximation formula with t quantiles). NaN with fewer than two seeds or a NaN seed value.
    Bonferroni-widened intervals give the same value: it is computed from the per-seed values, not the bounds."""
    x = np.asarray(iv.values, dtype=float)
    if x.size < 2 or not np.isfinite(x).all():
        return math.nan
    df = x.size - 1
    quantiles = float(stats.t.ppf(0.5 + CONFIDENCE / 2, df) + stats.t.ppf(POWER, df))
    return quantiles * spread(x, ddof=1) / math.sqrt(x.size)


def verdict_mde(verdict: Verdict) -> float:
    """The minimum detectable effect of what a verdict was decided on:

    - a single comparison: :func:`minimum_detectable_effect` of its seed interval;
    - a pooled verdict (one that carries its own p-value and interval, ``most``'s stratified test): from the pooled
      interval's half-width, ``half * (t(0.975) + t(0.80)) / t(0.975)``, with the quantiles at ``n - 1`` degrees of
      freedom for its ``n`` pooled values (the pooled test's Welch degrees of freedom are not kept: approximate);
    - a statement over settings that keeps its settings' verdicts (``every``): the largest MDE among its single tests
      (an intersection-union test must detect the effect in each);
    - anything else (a spread, a rule of its own): NaN."""
    if verdict.interval is None:
        found = [verdict_mde(x) for _, x in verdict.parts]
        found = [m for m in found if not math.isnan(m)]
        return max(found) if found else math.nan
    if verdict.p_against is None:
        return minimum_detectable_effect(verdict.interval)
    iv = verdict.interval
    if iv.n < 2 or not (math.isfinite(iv.low) and math.isfinite(iv.high)):
        return math.nan
    t975 = float(stats.t.ppf(0.5 + CONFIDENCE / 2, iv.n - 1))
    return (iv.high - iv.low) / 2 * (t975 + float(stats.t.ppf(POWER, iv.n - 1))) / t975
