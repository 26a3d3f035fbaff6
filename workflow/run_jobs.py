"""How many runs share a training job (config ``runs_per_job``): the jobs of one training step, for the rule files.

A *run* is one (setting, seed) of a training step, named by its wildcard values (a dict of strings), e.g.
``{"experiment": "exp1", "label": "fedfair", "seed": "0"}``. With one run per job the step is a single rule whose
wildcards name the run (one rule per output shape); otherwise the step's runs are dealt over ceil(n / runs_per_job)
jobs (run i to job i mod jobs), each a rule with fixed outputs. Either way every run writes the same files, so the
knob changes only which process computes what.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Run = dict[str, str]
PAPERS = ("mmfl", "auctions", "aequa", "payoff_flows")


def runs_per_job(config: Mapping, paper: str) -> int | None:
    """The knob for ``paper`` (one of :data:`PAPERS`): a number of runs, or None for every run of a step in one job."""
    value = config["runs_per_job"]
    if isinstance(value, Mapping):
        value = value.get(paper, value["default"])
    return None if value == "all" else int(value)


@dataclass(frozen=True)
class Job:
    """One training rule: its name, log stem and runs; a per-run rule holds one run of ``{wildcard}`` patterns."""

    name: str
    stem: str
    runs: tuple[Run, ...]
    shape: str = ""
    constraints: tuple[tuple[str, str], ...] = ()

    def runs_of(self, wildcards: Mapping[str, str]) -> list[Run]:
        """The runs a job of this rule trains: the rule's own, or (per-run rule) the one its wildcards name."""
        if self.constraints:
            return [{key: wildcards[key] for key, _ in self.constraints}]
        return list(self.runs)

    def holds(self, run: Run) -> bool:
        """Whether this job trains ``run`` (a per-run rule: whether the run's values fit its wildcard constraints)."""
        if self.constraints:
            return all(re.fullmatch(pattern, run[key]) for key, pattern in self.constraints)
        return run in self.runs


def rule_suffix(name: str) -> str:
    """A name as part of a rule name (``dir0.5`` -> ``dir0_5``)."""
    return re.sub(r"\W", "_", name)


def _by(runs: Sequence[Run], key: Callable[[Run], Hashable]) -> dict[Any, list[Run]]:
    """``runs`` by ``key``, in order of first appearance."""
    groups: dict[Any, list[Run]] = {}
    for run in runs:
        groups.setdefault(key(run), []).append(run)
    return groups


def settings(runs: Sequence[Run], *keys: str) -> dict[tuple[str, ...], list[Run]]:
    """``runs`` by their values of ``keys`` (a job runs one command per setting), in order of first appearance."""
    return _by(runs, lambda run: tuple(run[k] for k in keys))


def training_jobs(
    rule: str,
    runs: Sequence[Run],
    per_job: int | None,
    together: Callable[[Run], str] = lambda run: "",
    shape: Callable[[Run], str] = lambda run: "",
) -> list[Job]:
    """The jobs of one training step. ``runs``: the step's runs in config order. ``together``: runs with different
    keys never share a job (a job's --cfg then holds one partition). ``shape``: runs whose outputs differ in number
    (a per-run rule is made for each shape; the key becomes part of its name)."""
    if per_job == 1:
        jobs = []
        for key, members in _by(runs, shape).items():
            names = list(members[0])
            constraints = tuple(
                (k, "|".join(re.escape(v) for v in dict.fromkeys(r[k] for r in members))) for k in names
            )
            pattern = {k: f"{{{k}}}" for k in names}
            name = f"{rule}_{key}" if key else rule
            jobs.append(Job(name, f"{name}/" + "/".join(pattern.values()), (pattern,), key, constraints))
        return jobs
    jobs = []
    for key, members in _by(runs, together).items():
        count = math.ceil(len(members) / (per_job or len(members)))
        for k in range(count):
            name = "_".join([rule, *([rule_suffix(key)] if key else []), *([str(k)] if count > 1 else [])])
            jobs.append(Job(name, name, tuple(members[k::count]), shape(members[0])))
    return jobs
