"""The seed plan: how many seeds each training experiment runs, by a rule stated before the verdict runs (issue 42
item 3; ``workflow/seed_plan.yaml``; docs/verdicts.md, "The seed plan").

A pilot (``config/pilot.yaml``: the default profile's training at a few seeds on a root seed of its own) estimates the
per-seed standard deviation of each group of comparisons. A group names the scorecard rows it covers, the config key
that sets their seeds, and the effect (or equivalence margin) its rows must detect, with the source of that number.
The rule: the fewest seeds ``n`` with ``(t(0.975, n-1) + t(0.80, n-1)) * sd / sqrt(n) <= target`` (a two-sided paired
t test at 95 % with 80 % power, the scorecard's minimum detectable effect). A config key takes the largest count its
groups ask for, capped by the profile's budget; the rows of a group whose count the cap cuts read ``underpowered``
with the count they needed. The config value ``plan`` (config/config.yaml) reads the planned count, so the pipeline's
seeds come from this file.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from fairshare.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PLAN",
    "PLAN_FILE",
    "Group",
    "SeedPlan",
    "fill_from_pilot",
    "load_plan",
    "matches",
    "mde_at",
    "per_seed_sds",
    "required_seeds",
    "resolve_seeds",
]

PLAN_FILE = Path(__file__).resolve().parents[3] / "workflow" / "seed_plan.yaml"
#: The config value that reads a seed count from the plan.
PLAN = "plan"
#: The most seeds the rule searches; a group needing more reads "more than" this.
MOST_SEEDS = 200
_PER_SEED = re.compile(r"\(95% t, (\d+) seeds: ([^)]*)\)")


def mde_at(n: int, sd: float) -> float:
    """The minimum detectable effect of a paired t test on ``n`` seeds with per-seed SD ``sd``: ``(t(0.975, n-1) +
    t(0.80, n-1)) * sd / sqrt(n)`` (as :func:`fairshare.pipeline.verdicts.minimum_detectable_effect`)."""
    from scipy import stats

    if n < 2:
        return math.inf
    df = n - 1
    return float(stats.t.ppf(0.975, df) + stats.t.ppf(0.80, df)) * sd / math.sqrt(n)


def required_seeds(sd: float, target: float, most: int = MOST_SEEDS) -> int | None:
    """The fewest seeds (at least 2) whose :func:`mde_at` is at most ``target``; None when more than ``most``."""
    if not (target > 0 and sd >= 0 and math.isfinite(sd)):
        raise ValueError(f"need a positive target and a finite SD, got target {target}, sd {sd}")
    return next((n for n in range(2, most + 1) if mde_at(n, sd) <= target), None)


def per_seed_sds(text: str) -> list[float]:
    """The SD (ddof 1) of each seed interval a scorecard cell prints ("(95% t, 3 seeds: +0.1 +0.2 +0.3)"); intervals
    with a NaN seed or fewer than two seeds are left out."""
    found = []
    for _, values in _PER_SEED.findall(text):
        seeds = [float(v) for v in values.split()]
        if len(seeds) >= 2 and all(math.isfinite(v) for v in seeds):
            found.append(statistics.stdev(seeds))
    return found


def matches(pattern: str, text: str) -> bool:
    """Whether ``text`` is ``pattern`` with each ``*`` standing for any text (the row patterns of the seed plan and
    of workflow/paper_effects.yaml)."""
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), text, re.DOTALL) is not None


@dataclass(frozen=True)
class Group:
    """One group of comparisons: the rows it covers, the config key of their seeds, what they must detect, and what
    the pilot measured (None before the pilot)."""

    name: str
    config: str
    rows: tuple[tuple[str, str, str], ...]
    target: float
    source: str
    pilot_sd: float | None = None
    pilot_intervals: int = 0
    pilot_rows: int = 0
    required: int | None = None

    def covers(self, paper: str, artifact: str, claim: str) -> bool:
        return any(p == paper and matches(a, artifact) and matches(c, claim) for p, a, c in self.rows)


@dataclass(frozen=True)
class SeedPlan:
    """The plan file: its groups, the cap per (profile, config key) with the reason, and the pilot's provenance."""

    groups: tuple[Group, ...]
    caps: Mapping[str, Mapping[str, int]]
    cap_reason: Mapping[str, str]
    pilot: Mapping[str, Any]

    def wanted(self, key: str) -> int | None:
        """The count the rule asks for at ``key`` (the largest over its groups); None before the pilot or when a
        group needs more than :data:`MOST_SEEDS`."""
        counts = [g.required for g in self.groups if g.config == key]
        if not counts or any(c is None for c in counts):
            return None
        return max(counts)

    def seeds(self, profile: str, key: str) -> int:
        """The seeds the profile runs at ``key``: the rule's count, capped by the profile's budget."""
        cap = self.caps.get(profile, {}).get(key)
        if cap is None:
            raise UserError(
                f"{PLAN_FILE.name} has no cap for {key} in the {profile!r} profile; give that profile a number of "
                f"seeds at {key} in its config file instead of '{PLAN}'"
            )
        wanted = self.wanted(key)
        return cap if wanted is None else min(wanted, cap)

    def group_of(self, paper: str, artifact: str, claim: str) -> Group | None:
        return next((g for g in self.groups if g.covers(paper, artifact, claim)), None)


def load_plan(path: str | Path = PLAN_FILE) -> SeedPlan:
    """The seed plan at ``path``; a missing or malformed file raises :class:`UserError` naming it."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise UserError(f"{path}: unreadable seed plan ({exc}); restore it from git") from None
    try:
        groups = tuple(
            Group(
                name=str(g["name"]),
                config=str(g["config"]),
                rows=tuple((str(r["paper"]), str(r["artifact"]), str(r["claim"])) for r in g["rows"]),
                target=float(g["target"]),
                source=str(g["source"]),
                pilot_sd=None if g.get("pilot_sd") is None else float(g["pilot_sd"]),
                pilot_intervals=int(g.get("pilot_intervals") or 0),
                pilot_rows=int(g.get("pilot_rows") or 0),
                required=None if g.get("required") is None else int(g["required"]),
            )
            for g in raw["groups"]
        )
        caps = {str(p): {str(k): int(v) for k, v in keys.items()} for p, keys in raw["caps"].items()}
        reasons = {str(p): str(r) for p, r in (raw.get("cap_reason") or {}).items()}
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{path}: malformed seed plan ({exc!r}); restore it from git") from None
    return SeedPlan(groups, caps, reasons, raw.get("pilot") or {})


def _get(config: Mapping[str, Any], key: str) -> Any:
    node: Any = config
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def resolve_seeds(config: dict[str, Any], plan: SeedPlan | None = None) -> dict[str, Any]:
    """``config`` with each seed count that reads :data:`PLAN` replaced by the plan's count for its profile (in
    place; returned for chaining). A config without such a value is returned as it is, and the plan is not read."""
    keys = sorted({g.config for g in (plan.groups if plan else ())} | _plan_keys(config))
    if not any(_get(config, key) == PLAN for key in keys):
        return config
    plan = plan or load_plan()
    profile = str(config.get("profile", "default"))
    for key in keys:
        if _get(config, key) == PLAN:
            *parents, last = key.split(".")
            node = config
            for part in parents:
                node = node[part]
            node[last] = plan.seeds(profile, key)
    return config


def _plan_keys(config: Mapping[str, Any], prefix: str = "") -> set[str]:
    """Every dotted key of ``config`` whose value is :data:`PLAN`."""
    found = set()
    for key, value in config.items():
        if isinstance(value, Mapping):
            found |= _plan_keys(value, f"{prefix}{key}.")
        elif value == PLAN:
            found.add(f"{prefix}{key}")
    return found


def fill_from_pilot(path: str | Path, pilot_card: pd.DataFrame, provenance: Mapping[str, Any]) -> dict[str, Any]:
    """The plan file's content with each group's pilot SD (the median over its rows of each row's median SD over the
    seed intervals it prints in the pilot's scorecard; a row belongs to the first group that covers it) and the seeds
    the rule asks for, and the pilot's provenance; the groups' rows, targets and the
    caps are kept as written (they are set before the pilot)."""
    path = Path(path)
    raw = yaml.safe_load(path.read_text())
    plan = load_plan(path)
    for entry, group in zip(raw["groups"], plan.groups):
        per_row = [
            per_seed_sds(str(row.interval))
            for row in pilot_card.itertuples(index=False)
            if plan.group_of(row.paper, row.artifact, row.claim) == group
        ]
        per_row = [sds for sds in per_row if sds]
        if not per_row:
            raise UserError(f"the pilot's scorecard has no seed interval for group {group.name!r}; rerun the pilot")
        # each row weighs the same: a statement checked at every round prints hundreds of intervals
        sd = statistics.median(statistics.median(sds) for sds in per_row)
        entry["pilot_sd"] = round(sd, 6)
        entry["pilot_intervals"] = sum(map(len, per_row))
        entry["pilot_rows"] = len(per_row)
        entry["required"] = required_seeds(sd, group.target)
    raw["pilot"] = dict(provenance)
    return raw
