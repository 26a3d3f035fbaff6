"""The paper's effect as the yardstick of a training comparison (issue 42; docs/verdicts.md, "The paper's effect as
the yardstick").

A comparison that does not match says which of three things the run saw:

- ``differs``: its interval lies wholly on the other side of the bar (the verdict);
- "smaller than the paper's effect": its interval contains the bar but excludes the effect the paper reports, so
  the run had the power to see the paper's effect and did not;
- "underpowered": its interval contains both the bar and the paper's effect (the seeds cannot tell them apart);
- "inconclusive (other)": anything else, with the reason (the paper states no effect, the statement has no single
  interval, too few seeds, an equivalence interval that excludes the paper's gap, ...).

The paper's effects live in ``workflow/paper_effects.yaml``: one entry per (paper, artifact pattern, claim pattern),
``*`` the only wildcard, the first entry that matches a row wins. An entry gives either ``effect`` (a number in the row's
units, signed so that the paper's side is positive, as the verdict's interval) with its ``source``, or
``not_stated`` with the reason. The scorecard joins them (:func:`with_yardstick`); no effect is derived from a run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fairshare.errors import UserError
from fairshare.pipeline.seed_plan import MOST_SEEDS, Group, SeedPlan, matches
from fairshare.pipeline.verdicts import DIFFERS, INCONCLUSIVE, MATCH, NOT_RUN, Verdict

__all__ = [
    "Decision",
    "EFFECTS_FILE",
    "NO_INTERVAL",
    "OTHER",
    "PaperEffect",
    "SMALLER",
    "UNDERPOWERED",
    "YARDSTICK_KINDS",
    "classify",
    "counts",
    "decision_text",
    "effect_for",
    "kind_of",
    "load_effects",
    "parse_decision",
    "short_of_plan",
    "with_yardstick",
]

EFFECTS_FILE = "workflow/paper_effects.yaml"
SMALLER = "smaller than the paper's effect"
UNDERPOWERED = "underpowered"
OTHER = "inconclusive (other)"
#: How the scorecard counts training comparisons: match, then the kinds of non-match, then not run.
YARDSTICK_KINDS = (MATCH, DIFFERS, SMALLER, UNDERPOWERED, OTHER, NOT_RUN)
#: The ``decision`` of a comparison decided without one interval (over settings, a trend, a spread).
NO_INTERVAL = "no single interval"
_DECISION = re.compile(r"^(side|equivalence) \[(\S+), (\S+)\] bar (\S+)$")


@dataclass(frozen=True)
class Decision:
    """The interval a comparison was decided on, oriented so that the paper's side is up, and its bar: a side test
    matches when ``low > bar``, an equivalence test when ``-bar <= low`` and ``high <= bar``."""

    test: str
    low: float
    high: float
    bar: float


def decision_text(verdict: Verdict) -> str:
    """The ``decision`` column of a comparison: ``side [low, high] bar B`` or ``equivalence [low, high] bar B`` from
    the verdict's interval, else :data:`NO_INTERVAL`."""
    iv = verdict.interval
    if iv is None or verdict.test not in ("side", "equivalence"):
        return NO_INTERVAL
    return f"{verdict.test} [{iv.low:.6g}, {iv.high:.6g}] bar {verdict.bar:.6g}"


def parse_decision(text: str) -> Decision | None:
    """The :class:`Decision` of a ``decision`` cell; None for :data:`NO_INTERVAL` or an empty cell."""
    found = _DECISION.match(text.strip())
    if found is None:
        return None
    test, low, high, bar = found.groups()
    return Decision(test, float(low), float(high), float(bar))


@dataclass(frozen=True)
class PaperEffect:
    """The effect a paper reports for one statement, or why it states none."""

    effect: float | None
    source: str = ""
    not_stated: str = ""

    def text(self) -> str:
        if self.effect is None:
            return f"not stated: {self.not_stated}"
        return f"{self.effect:+.4g} ({self.source})"


def load_effects(path: str | Path) -> list[tuple[str, str, str, PaperEffect]]:
    """The entries of ``workflow/paper_effects.yaml`` as (paper, artifact, claim pattern, effect); a malformed entry
    raises :class:`UserError` naming it."""
    import yaml

    try:
        raw = yaml.safe_load(Path(path).read_text()) or []
    except (OSError, yaml.YAMLError) as exc:
        raise UserError(f"{path}: unreadable ({exc}); restore it from git") from None
    entries = []
    for number, item in enumerate(raw, start=1):
        where = f"{path}: entry {number}"
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("paper", "artifact", "claim")):
            raise UserError(f"{where} needs paper, artifact and claim (text)")
        has_effect, has_reason = "effect" in item, bool(item.get("not_stated"))
        if has_effect == has_reason:
            raise UserError(f"{where} ({item['claim'][:40]}) needs exactly one of effect (with source) or not_stated")
        if has_effect:
            if not isinstance(item["effect"], (int, float)) or not item.get("source"):
                raise UserError(f"{where} ({item['claim'][:40]}): effect must be a number, with its source")
            effect = PaperEffect(float(item["effect"]), str(item["source"]))
        else:
            effect = PaperEffect(None, not_stated=str(item["not_stated"]))
        entries.append((item["paper"], item["artifact"], item["claim"], effect))
    return entries


def effect_for(
    entries: Sequence[tuple[str, str, str, PaperEffect]], paper: str, artifact: str, claim: str
) -> PaperEffect | None:
    """The first entry that covers the row (artifact and claim patterns, ``*`` any text), or None."""
    for p, a, pattern, effect in entries:
        if p == paper and matches(a, artifact) and matches(pattern, claim):
            return effect
    return None


def _iv(d: Decision) -> str:
    return f"[{d.low:+.4f}, {d.high:+.4f}]"


def _bar(d: Decision) -> str:
    return "0" if d.bar == 0 else f"the bar {d.bar:+g}"


def classify(status: str, decision: Decision | None, effect: PaperEffect | None, mde: str = "") -> str:
    """The ``yardstick`` cell of a comparison: empty for a match or a row not run, ``differs``, or the kind of
    inconclusive (:data:`SMALLER`, :data:`UNDERPOWERED`, :data:`OTHER`) with what decides it."""
    if status in (MATCH, NOT_RUN):
        return ""
    if status == DIFFERS:
        return DIFFERS
    if status != INCONCLUSIVE:
        return ""
    if effect is None:
        return f"{OTHER}: no entry in {EFFECTS_FILE}"
    missing = [
        *(["the paper states no effect"] if effect.effect is None else []),
        *(["no single interval (a statement over settings, a trend or a spread)"] if decision is None else []),
    ]
    if missing:
        return f"{OTHER}: " + "; ".join(missing)
    if not (math.isfinite(decision.low) and math.isfinite(decision.high)):
        return f"{OTHER}: no interval (too few seeds or a NaN seed value)"
    e, power = effect.effect, f" (MDE {mde})" if mde else ""
    if decision.test == "side":
        if e <= decision.bar:
            return f"{OTHER}: the paper's own {e:+.4g} does not clear {_bar(decision)}"
        if decision.high < e:
            return f"smaller than the paper's {e:+.4g}: {_iv(decision)}"
        return f"{UNDERPOWERED}: {_iv(decision)} contains {_bar(decision)} and the paper's {e:+.4g}{power}"
    if abs(e) > decision.bar:
        return f"{OTHER}: the paper's own gap {e:+.4g} lies outside the tolerance ±{decision.bar:g}"
    if decision.low <= e <= decision.high:
        return f"{UNDERPOWERED}: {_iv(decision)} contains the paper's {e:+.4g} and crosses ±{decision.bar:g}{power}"
    return f"{OTHER}: unlike the paper's {e:+.4g}: {_iv(decision)}, not decided against ±{decision.bar:g}"


def kind_of(status: str, yardstick: str) -> str:
    """A comparison's kind for the counts (:data:`YARDSTICK_KINDS`), from its status and ``yardstick`` cell; empty for
    another status (a smoke run's "plumbing only")."""
    if status in (MATCH, NOT_RUN, DIFFERS):
        return status
    if status != INCONCLUSIVE:
        return ""
    if yardstick.startswith("smaller than the paper's"):
        return SMALLER
    return UNDERPOWERED if yardstick.startswith(UNDERPOWERED) else OTHER


def short_of_plan(kind: str, group: Group | None, seeds_run: int | None, mde: str = "") -> str:
    """An :data:`OTHER` ``yardstick`` cell as :data:`UNDERPOWERED` when the row's seed-plan group asks for more seeds
    than the profile ran (its budget's cap, :mod:`fairshare.pipeline.seed_plan`); any other cell as it is."""
    if not kind.startswith(OTHER) or group is None or seeds_run is None:
        return kind
    if group.required is not None and seeds_run >= group.required:
        return kind
    asks = f"{group.required}" if group.required is not None else f"more than {MOST_SEEDS}"
    power = f"; MDE {mde}" if mde else ""
    return (
        f"{UNDERPOWERED}: the seed plan asks for {asks} seeds to detect {group.target:g} ({group.name}, pilot SD "
        f"{group.pilot_sd:.3g}); this run has {seeds_run}{power}"
    )


def with_yardstick(
    card: pd.DataFrame,
    entries: Sequence[tuple[str, str, str, PaperEffect]],
    plan: SeedPlan | None = None,
    seeds_run: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """``card`` with the ``paper_effect`` and ``yardstick`` columns on its comparisons (rows with a ``decision``);
    empty on the other rows. Statuses are left as computed. With a seed ``plan`` (after its pilot) and the seeds this
    run gave each config key, an otherwise unexplained inconclusive row of a group the run gave fewer seeds than the
    plan asks for is :data:`UNDERPOWERED` (:func:`short_of_plan`)."""
    out = card.copy()
    effects, kinds = [], []
    piloted = plan is not None and all(g.pilot_sd is not None for g in plan.groups)
    for row in out.itertuples(index=False):
        if not row.decision:
            effects.append("")
            kinds.append("")
            continue
        effect = effect_for(entries, row.paper, row.artifact, row.claim)
        effects.append("" if effect is None else effect.text())
        kind = classify(row.status, parse_decision(row.decision), effect, row.mde)
        if piloted:
            group = plan.group_of(row.paper, row.artifact, row.claim)
            kind = short_of_plan(kind, group, (seeds_run or {}).get(group.config) if group else None, row.mde)
        kinds.append(kind)
    out["paper_effect"], out["yardstick"] = effects, kinds
    return out


def counts(card: pd.DataFrame) -> dict[str, dict[str, int]]:
    """The comparisons (rows with a ``decision``) per paper and :data:`YARDSTICK_KINDS`; {} for a scorecard without
    the yardstick columns (one written before them)."""
    if "yardstick" not in card.columns or "decision" not in card.columns:
        return {}
    rows = card[card["decision"] != ""]
    out = {}
    for paper, group in rows.groupby("paper", sort=False):
        found = [kind_of(s, y) for s, y in zip(group["status"], group["yardstick"])]
        if any(found):
            out[str(paper)] = {k: found.count(k) for k in YARDSTICK_KINDS}
    return out
