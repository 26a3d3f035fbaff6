"""Table II's printed cells (final average and minimum accuracy of Exp 2 with 6 and 10 tasks), one row per cell.

A cell is compared only on an experiment the profile runs at Table II's setting (``mmfl.table2_printed``, matched to
the table's columns by its number of tasks): reproduced when the 95 % interval of (per-seed value - printed value)
lies within ``mmfl.printed_tolerance`` (spec Sec. 5's reconstruction), differs when it lies wholly outside. Every
other profile gets each cell as "not run in this profile".
"""

from __future__ import annotations

import pandas as pd

from fairshare import verdicts as v
from fairshare.papers.mmfl.experiment import Experiment, Settings, final_rounds
from fairshare.report import Claim

__all__ = ["TABLE2", "table2_claims"]

PAPER = "mmfl"
# Table II as printed: tasks -> method -> (Avg Acc, Min Acc)
TABLE2 = {
    6: {"random": (0.789, 0.450), "round_robin": (0.782, 0.453), "fedfair": (0.783, 0.475)},
    10: {"random": (0.748, 0.386), "round_robin": (0.758, 0.406), "fedfair": (0.754, 0.452)},
}
NAMES = {"random": "Random", "round_robin": "Round Robin", "fedfair": "FedFairMMFL"}
COLUMNS = {"Avg Acc": "avg_acc", "Min Acc": "min_acc"}


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
