"""Table II's printed cells (papers.mmfl.claims_table2): compared only on an experiment run at Table II's setting,
within ``printed_tolerance`` over seeds; otherwise "not run in this profile", always twelve rows."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fairshare.papers.mmfl import claims_exp2 as t2
from fairshare.papers.mmfl.experiment import Experiment, Settings
from fairshare.pipeline.config import load_config

SIX = Experiment("exp2_s6", "exp2", tuple("abcdef"), 20, 1.0, (400, 600), "iid", 0.5, 3, ("fedfair", "random", "round_robin"), (3.0,), 4)  # fmt: skip


def _settings(printed: tuple[str, ...]) -> Settings:
    return Settings(SimpleNamespace(alpha=3.0), (SIX,), (0.5,), ("exp2_s6",), "exp1", "exp4", 0.02, printed, 0.05, 0.2)


def _per_round(shift: float, noise: np.ndarray) -> pd.DataFrame:
    """Every method's final (round 3) accuracies at Table II's 6-task values plus ``shift`` and per-seed ``noise``."""
    rows = []
    for method, (avg, low) in t2.TABLE2[6].items():
        for seed, e in enumerate(noise):
            for r in (1, 2, 3):
                rows.append({"experiment": "exp2_s6", "method": method, "alpha": 3.0 if method == "fedfair" else np.nan,
                             "seed": seed, "round": r, "avg_acc": avg + shift + e if r == 3 else 0.1,
                             "min_acc": low + shift + e if r == 3 else 0.1, "var_acc": 0.01})  # fmt: skip
    return pd.DataFrame(rows)


QUIET = np.array([0.002, -0.001, 0.001, -0.002])
NOISY = np.array([0.1, -0.08, 0.09, -0.11])


@pytest.mark.parametrize(
    ("shift", "noise", "status"), [(0.0, QUIET, "match"), (0.2, QUIET, "differs"), (0.0, NOISY, "inconclusive")]
)
def test_table2_cells_compared_at_the_papers_setting(shift, noise, status):
    rows = t2.table2_claims(_per_round(shift, noise), _settings(("exp2_s6",)))
    assert len(rows) == 12 and all(r.kind == "printed" for r in rows)
    six = [r for r in rows if "6 tasks" in r.claim]
    assert {r.status for r in six} == {status}, [(r.claim, r.interval) for r in six]
    assert {r.status for r in rows if "10 tasks" in r.claim} == {"not run in this profile"}


def test_table2_cells_are_not_run_in_a_profile_without_the_setting():
    rows = t2.table2_claims(_per_round(0.0, QUIET), _settings(()))
    assert len(rows) == 12 and {r.status for r in rows} == {"not run in this profile"}
    assert rows[0].claim == "Random, 6 tasks, Avg Acc" and rows[0].paper_states == "0.789"


@pytest.mark.parametrize(
    ("files", "printed"),
    [
        (["config/config.yaml"], ()),
        (["config/config.yaml", "config/paper.yaml"], ("exp2_s6", "exp2_s10")),
        (["config/config.yaml", "config/paper.yaml", "config/cpu_scale.yaml"], ()),
    ],
)
def test_only_the_paper_profile_runs_table2s_setting(files, printed):
    settings = Settings.from_block(load_config(*files)["mmfl"])
    assert settings.table2_printed == printed
    assert sorted(len(settings.experiment(name).tasks) for name in printed) == sorted(t2.TABLE2)[: len(printed)]


def _exp2(name: str, tasks: int) -> Experiment:
    return Experiment(name, "exp2", tuple("abcdefghij"[:tasks]), 20, 1.0, (400, 600), "iid", 0.5, 3, ("fedfair", "random"), (3.0,), 4)  # fmt: skip


def _speeds(levels: dict[str, float], noise: np.ndarray) -> pd.DataFrame:
    """Minimum accuracy ``levels[experiment]`` at every round, every method, plus per-seed noise (FedFairMMFL only)."""
    rows = []
    for exp, level in levels.items():
        for method in ("fedfair", "random"):
            for seed, e in enumerate(noise):
                extra = e if method == "fedfair" else 0.0
                rows += [{"experiment": exp, "method": method, "alpha": 3.0 if method == "fedfair" else np.nan,
                          "seed": seed, "round": r, "min_acc": level + extra} for r in (1, 2, 3)]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("levels", "noise", "status"),
    [
        ({"s6": 0.5, "s10": 0.4}, QUIET, "match"),
        ({"s6": 0.4, "s10": 0.5}, QUIET, "differs"),
        ({"s6": 0.5, "s10": 0.5}, NOISY, "inconclusive"),
    ],
)
def test_training_slows_with_more_tasks(levels, noise, status):
    row = t2.more_tasks_claim(_speeds(levels, noise), [_exp2("s10", 10), _exp2("s6", 6)], 3.0)
    assert row.status == status and row.claim == t2.MORE_TASKS[0], row.interval


def test_more_tasks_is_not_run_with_one_task_count():
    row = t2.more_tasks_claim(_speeds({"s6": 0.5}, QUIET), [_exp2("s6", 6)], 3.0)
    assert row.status == "not run in this profile"
