"""Experiment 2 beyond Fig. 3's per-experiment rows (papers.mmfl.claims): training slows as tasks are added, and
Table II's printed cells (final average and minimum accuracy with 6 and 10 tasks), one row per cell.

A cell is compared only on an experiment the profile runs at Table II's setting (``mmfl.table2_printed``, matched to
the table's columns by its number of tasks): reproduced when the 95 % interval of (per-seed value - printed value)
lies within ``mmfl.printed_tolerance`` (spec Sec. 5's reconstruction), differs when it lies wholly outside. Every
other profile gets each cell as "not run in this profile".
"""

from __future__ import annotations

import pandas as pd

from fairshare.papers.mmfl.experiment import Experiment, Settings, final_rounds
from fairshare.pipeline import verdicts as v
from fairshare.pipeline.report import Claim

__all__ = ["MORE_TASKS", "TABLE2", "more_tasks_claim", "table2_claims"]

PAPER = "mmfl"
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


def more_tasks_claim(per_round: pd.DataFrame, experiments: list[Experiment], alpha: float) -> Claim:
    """Fig. 3e-g: the minimum accuracy across tasks averaged over rounds (the curves' area) is lower with the most
    tasks than with the fewest, for every method both ran, paired by seed index (the seeds are independent draws
    in each experiment, so the pairing only orders them). "Not run" with fewer than two task counts."""
    ordered = sorted(experiments, key=lambda e: len(e.tasks))
    if len(ordered) < 2 or len(ordered[0].tasks) == len(ordered[-1].tasks):
        return Claim.statement(
            paper=PAPER,
            artifact="Figure 3",
            claim=MORE_TASKS[0],
            paper_states=MORE_TASKS[1],
            reproduced=f"Exp 2 runs {len({len(e.tasks) for e in ordered})} task count(s)",
            holds=None,
        )
    few, many = ordered[0], ordered[-1]

    def speed(exp: Experiment) -> pd.DataFrame:
        frame = per_round[per_round.experiment == exp.name]
        frame = frame[frame.alpha.isna() | (frame.alpha == alpha)]
        return frame.groupby(["method", "seed"]).min_acc.mean().unstack("seed")

    a, b = speed(few), speed(many)
    methods = [m for m in few.methods if m in many.methods]
    parts = {m: v.higher(v.paired(a.loc[m].dropna(), b.loc[m].dropna())) for m in methods}
    seen = (
        f"minimum accuracy averaged over rounds (seed mean), {len(few.tasks)} / {len(many.tasks)} tasks: "
        + ", ".join(f"{m} {a.loc[m].mean():.4f} / {b.loc[m].mean():.4f}" for m in methods)
    )
    return Claim.comparison(
        paper=PAPER,
        artifact="Figure 3",
        claim=MORE_TASKS[0],
        paper_states=MORE_TASKS[1],
        reproduced=seen,
        verdict=v.every(parts, "methods"),
        note=f"{few.name} and {many.name} also differ in clients ({few.clients} / {many.clients})"
        if few.clients != many.clients
        else "",
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
