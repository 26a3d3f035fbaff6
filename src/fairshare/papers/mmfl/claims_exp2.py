"""Experiment 2 beyond Fig. 3's per-experiment rows (papers.mmfl.claims): training slows as tasks are added (every
step between the task counts the profile runs), and Table II's printed cells (final average and minimum accuracy with 6 and 10 tasks), one row per cell.

A cell is compared only on an experiment the profile runs at Table II's setting (``mmfl.table2_printed``, matched to
the table's columns by its number of tasks): reproduced when the 95 % interval of (per-seed value - printed value)
lies within ``mmfl.printed_tolerance`` (spec Sec. 5's reconstruction), differs when it lies wholly outside. Every
other profile gets each cell as "not run in this profile".
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from fairshare.papers.mmfl.experiment import Experiment, Settings, final_rounds
from fairshare.pipeline import verdicts as v
from fairshare.pipeline.report import Claim

__all__ = ["MORE_TASKS", "PAPER_TASK_COUNTS", "TABLE2", "more_tasks_claim", "task_counts_note", "table2_claims"]

PAPER = "mmfl"
# Exp 2's settings: "we increase the number of tasks, from 3 to 4, 5, 6, and 10" (Sec. VI)
PAPER_TASK_COUNTS = (3, 4, 5, 6, 10)
# Table II as printed: tasks -> method -> (Avg Acc, Min Acc)
TABLE2 = {
    6: {"random": (0.789, 0.450), "round_robin": (0.782, 0.453), "fedfair": (0.783, 0.475)},
    10: {"random": (0.748, 0.386), "round_robin": (0.758, 0.406), "fedfair": (0.754, 0.452)},
}
NAMES = {"random": "Random", "round_robin": "Round Robin", "fedfair": "FedFairMMFL"}
COLUMNS = {"Avg Acc": "avg_acc", "Min Acc": "min_acc"}


MORE_TASKS = (
    "Training slows as the number of tasks grows, for every method (Exp 2)",
    "increase the number of tasks, which slows the training for all tasks as the clients are being shared among "
    "more tasks - see Fig. 3 (e), (f), and (g)",
)


def task_counts_note(counts: Iterable[int]) -> str:
    """Which of Exp 2's task counts (:data:`PAPER_TASK_COUNTS`) the profile runs (``counts``) and which it does not."""
    run = sorted(set(counts))
    missing = [c for c in PAPER_TASK_COUNTS if c not in run]
    text = f"this profile's Exp 2 runs {', '.join(map(str, run)) or 'no'} tasks"
    extra = [c for c in run if c not in PAPER_TASK_COUNTS]
    if extra:
        text += f" ({', '.join(map(str, extra))} not among the paper's)"
    if missing:
        return f"{text}; not run in this profile: {', '.join(map(str, missing))} tasks (the paper: 3, 4, 5, 6, 10)"
    return f"{text}: every count of the paper's (3, 4, 5, 6, 10)"


def more_tasks_claim(per_round: pd.DataFrame, experiments: list[Experiment], alpha: float) -> Claim:
    """Fig. 3e-g: "from 3 to 4, 5, 6, and 10" tasks, each increase slows training: the minimum accuracy across tasks
    averaged over rounds (the curves' area) is lower with more tasks at every step between consecutive task counts
    the profile runs, for every method both ran, paired by seed index (the seeds are independent draws in each
    experiment, so the pairing only orders them). "Not run" with fewer than two task counts."""
    by_count: dict[int, Experiment] = {}
    for exp in sorted(experiments, key=lambda e: len(e.tasks)):
        by_count.setdefault(len(exp.tasks), exp)
    ordered = list(by_count.values())
    counts = task_counts_note(by_count)
    if len(ordered) < 2:
        return Claim.statement(
            paper=PAPER,
            artifact="Figure 3",
            claim=MORE_TASKS[0],
            paper_states=MORE_TASKS[1],
            reproduced=f"Exp 2 runs {len(ordered)} task count(s); {counts}",
            holds=None,
        )

    def speed(exp: Experiment) -> pd.DataFrame:
        frame = per_round[per_round.experiment == exp.name]
        frame = frame[frame.alpha.isna() | (frame.alpha == alpha)]
        return frame.groupby(["method", "seed"]).min_acc.mean().unstack("seed")

    speeds = {exp.name: speed(exp) for exp in ordered}
    parts, clients = {}, {}
    for few, many in zip(ordered, ordered[1:]):
        a, b = speeds[few.name], speeds[many.name]
        step = f"{len(few.tasks)} -> {len(many.tasks)} tasks"
        for m in (m for m in few.methods if m in many.methods):
            parts[f"{m}, {step}"] = v.higher(v.paired(a.loc[m].dropna(), b.loc[m].dropna()))
        if few.clients != many.clients:
            clients[step] = f"{few.clients} / {many.clients}"
    methods = [m for m in ordered[0].methods if all(m in e.methods for e in ordered)]
    seen = (
        f"minimum accuracy averaged over rounds (seed mean) at {' / '.join(str(len(e.tasks)) for e in ordered)} "
        f"tasks: "
        + ", ".join(f"{m} " + " / ".join(f"{speeds[e.name].loc[m].mean():.4f}" for e in ordered) for m in methods)
        + f"; {counts}"
    )
    note = "; ".join(f"{step} also differs in clients ({c})" for step, c in clients.items())
    return Claim.comparison(
        paper=PAPER,
        artifact="Figure 3",
        claim=MORE_TASKS[0],
        paper_states=MORE_TASKS[1],
        reproduced=seen,
        verdict=v.every(parts, "steps and methods"),
        note=note,
    )


def _setting(settings: Settings, tasks: int) -> Experiment | None:
    """The experiment run at Table II's setting with ``tasks`` tasks, if the profile has one."""
    return next((e for e in settings.experiments if e.name in settings.table2_printed and len(e.tasks) == tasks), None)


def table2_claims(per_round: pd.DataFrame, settings: Settings) -> list[Claim]:
    """Every printed cell of Table II, compared or "not run in this profile"."""
    rows = []
    for tasks, methods in TABLE2.items():
        exp = _setting(settings, tasks)
        final = None
        if exp is not None:
            frame = per_round[per_round.experiment == exp.name]
            frame = frame[frame.alpha.isna() | (frame.alpha == settings.training.alpha)]
            final = final_rounds(frame)
        for method, printed in methods.items():
            for (column, key), value in zip(COLUMNS.items(), printed):
                claim = f"{NAMES[method]}, {tasks} tasks, {column}"
                states = f"{value:.3f}"
                if final is None or method not in exp.methods:
                    rows.append(
                        Claim.printed(
                            paper=PAPER,
                            artifact="Table II",
                            claim=claim,
                            paper_states=states,
                            reproduced="this profile does not run Table II's setting (mmfl.table2_printed: "
                            f"{', '.join(settings.table2_printed) or 'none'})",
                            holds=None,
                        )
                    )
                    continue
                seeds = final[final.method == method].groupby("seed")[key].mean()
                rows.append(
                    Claim.comparison(
                        paper=PAPER,
                        artifact="Table II",
                        claim=claim,
                        paper_states=states,
                        reproduced=f"{exp.name}: seed mean {seeds.mean():.3f} ({len(seeds)} seeds)",
                        verdict=v.comparable(v.interval(seeds - value), settings.printed_tolerance),
                        kind="printed",
                    )
                )
    return rows
