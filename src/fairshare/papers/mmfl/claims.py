"""The paper's statements about FedFairMMFL (Section VI, Experiments 1-4) checked on this run's tidy tables.

Each experiment of the config names the paper experiment it reproduces (``reproduces``); every comparison the paper
makes in that experiment gets one row per baseline it names, whichever way it comes out: Exp 1 (Fig. 2) and Exp 2-3
(Figs. 3, 5, Table II) against random and round robin, Fig. 4 against q-FFL, Exp 4 (Fig. 6) over the whole alpha
sweep. Comparisons use seed means and the paper's alpha (``mmfl.alpha``) for FedFairMMFL and q-FFL; "higher" and
"lower" are strict. A baseline the experiment did not run gives a "not run in this profile" row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from fairshare.papers.mmfl.experiment import Experiment, Settings, final_rounds
from fairshare.report import Claim

PAPER = "mmfl"
FEDFAIR = "fedfair"
ARTIFACTS = {"exp1": "Figure 2", "exp2": "Figure 3", "fig4": "Figure 4", "exp3": "Figure 5", "exp4": "Figure 6"}
BASELINES = {
    "exp1": ("random", "round_robin"),
    "exp2": ("random", "round_robin"),
    "fig4": ("qffl",),
    "exp3": ("random", "round_robin"),
}
NAMES = {"random": "random", "round_robin": "round robin", "qffl": "q-FFL"}


def _compared(frame: pd.DataFrame, exp: Experiment, alpha: float) -> pd.DataFrame:
    """One experiment's rows of the runs compared: those without alpha and those at the paper's alpha."""
    rows = frame[frame.experiment == exp.name]
    return rows[rows.alpha.isna() | (rows.alpha == alpha)]


def _by_method(frame: pd.DataFrame, column: str) -> pd.Series:
    """Seed mean of ``column`` per method."""
    return frame.groupby("method")[column].mean()


def _checkpoints(last: int) -> list[int]:
    """Fig. 3's rounds 10, 60 and 120 of 120, as shares of this run's rounds."""
    return sorted({max(1, round(last / 12)), max(1, round(last / 2)), last})


def _fmt(values: pd.Series, digits: int = 3) -> str:
    return ", ".join(f"{NAMES.get(k, k)} {v:.{digits}f}" for k, v in values.items())


def _missing(exp: Experiment, baseline: str, claim: str, artifact: str, paper_states: str) -> Claim | None:
    """A "not run" row when the experiment did not run this baseline (or FedFairMMFL)."""
    if baseline in exp.methods and FEDFAIR in exp.methods:
        return None
    return Claim.statement(
        paper=PAPER,
        artifact=artifact,
        claim=claim,
        paper_states=paper_states,
        reproduced=f"{exp.name} runs {', '.join(exp.methods)}",
        holds=None,
    )


def _pairwise(
    exp: Experiment,
    values: pd.Series,
    artifact: str,
    claim: str,
    paper_states: str,
    what: str,
    better: str = "higher",
    baselines: tuple[str, ...] | None = None,
) -> list[Claim]:
    """FedFairMMFL's ``values`` (per method) against each baseline: strictly higher (or lower)."""
    rows = []
    for b in baselines or BASELINES[exp.reproduces]:
        text = claim.format(b=NAMES[b], exp=exp.name)
        missing = _missing(exp, b, text, artifact, paper_states)
        if missing:
            rows.append(missing)
            continue
        f, v = values[FEDFAIR], values[b]
        holds = f > v if better == "higher" else f < v
        rows.append(
            Claim.statement(
                paper=PAPER,
                artifact=artifact,
                claim=text,
                paper_states=paper_states,
                reproduced=f"{what}: FedFairMMFL {f:.4f}, {NAMES[b]} {v:.4f}",
                holds=bool(holds),
            )
        )
    return rows


def _exp1(runs: pd.DataFrame, per_round: pd.DataFrame, exp: Experiment, alpha: float, tolerance: float) -> list[Claim]:
    """Experiment 1 (Fig. 2): a higher minimum accuracy than each baseline; more clients and a higher accuracy for the
    task that is worst under the baseline; the other tasks the same (within ``tolerance``) or higher."""
    art, seeds = ARTIFACTS["exp1"], per_round[per_round.experiment == exp.name].seed.nunique()
    final = _compared(final_rounds(per_round), exp, alpha)
    rows = _pairwise(
        exp,
        _by_method(final, "min_acc"),
        art,
        "FedFairMMFL reaches a higher minimum accuracy than {b} ({exp})",
        "FedFairMMFL has a higher minimum accuracy than the random and round robin baselines (Fig. 2a)",
        f"minimum accuracy across tasks after the last round, mean over {seeds} seeds",
    )
    tasks = _compared(runs, exp, alpha)
    last = tasks[tasks["round"] == tasks["round"].max()]
    accuracy = last.groupby(["method", "task"]).accuracy.mean().unstack("task")
    clients = tasks.groupby(["method", "task"]).clients.sum().unstack("task")
    shares = clients.div(clients.sum(axis=1), axis=0)
    statements = (
        (
            "FedFairMMFL gives the task that is worst under {b} more clients than {b} does ({exp})",
            "FedFairMMFL adaptively allocates more clients to the prevailing worst-performing task",
        ),
        (
            "FedFairMMFL reaches a higher accuracy than {b} on the task that is worst under {b} ({exp})",
            "resulting in a higher accuracy for this task (Task 3: Fashion-MNIST), as seen in Fig. 2 b)",
        ),
        (
            "FedFairMMFL keeps the other tasks at the same or a higher accuracy than {b} ({exp})",
            "while maintaining the same or a slightly higher accuracy for the other tasks (see Fig. 2 c and d)",
        ),
    )
    for b in BASELINES["exp1"]:
        for k, (claim, states) in enumerate(statements):
            text = claim.format(b=NAMES[b], exp=exp.name)
            missing = _missing(exp, b, text, art, states)
            if missing:
                rows.append(missing)
                continue
            worst = int(accuracy.loc[b].idxmin())
            if k == 0:
                holds = shares.loc[FEDFAIR, worst] > shares.loc[b, worst]
                seen = f"task {worst}: share of client-rounds FedFairMMFL {shares.loc[FEDFAIR, worst]:.3f}, {NAMES[b]} {shares.loc[b, worst]:.3f}"
            elif k == 1:
                holds = accuracy.loc[FEDFAIR, worst] > accuracy.loc[b, worst]
                seen = f"task {worst}: final accuracy FedFairMMFL {accuracy.loc[FEDFAIR, worst]:.3f}, {NAMES[b]} {accuracy.loc[b, worst]:.3f}"
            else:
                gaps = (accuracy.loc[FEDFAIR] - accuracy.loc[b]).drop(worst)
                holds = bool((gaps >= -tolerance).all())
                seen = (
                    f"final accuracy FedFairMMFL minus {NAMES[b]} on the other tasks: "
                    + ", ".join(f"task {t} {g:+.3f}" for t, g in gaps.items())
                    + f"; 'the same' = within {tolerance:g}"
                )
            rows.append(
                Claim.statement(
                    paper=PAPER, artifact=art, claim=text, paper_states=states, reproduced=seen, holds=bool(holds)
                )
            )
    return rows


def _exp2(per_round: pd.DataFrame, exp: Experiment, alpha: float, table2: bool, tolerance: float) -> list[Claim]:
    """Experiment 2 (Fig. 3, Table II): variance across tasks falls with the rounds for every method; FedFairMMFL has
    the lowest variance (on average and at each of Fig. 3's rounds) and converges faster than each baseline; for
    Table II's experiments, a higher final minimum accuracy and a comparable (within ``tolerance``) average."""
    art = ARTIFACTS["exp2"]
    frame = _compared(per_round, exp, alpha)
    checkpoints = _checkpoints(int(frame["round"].max()))
    at = frame[frame["round"].isin(checkpoints)].groupby(["method", "round"]).var_acc.mean().unstack("round")
    falling = (at.diff(axis=1).iloc[:, 1:] < 0).all(axis=1)
    rows = [
        Claim.statement(
            paper=PAPER,
            artifact=art,
            claim=f"Variance across tasks falls as the rounds go on, for every method ({exp.name})",
            paper_states="with the increase in the round number, all algorithms' variance decreases (Fig. 3)",
            reproduced=f"variance at rounds {', '.join(map(str, checkpoints))} (seed mean): "
            + "; ".join(f"{NAMES.get(m, m)} " + ", ".join(f"{v:.4f}" for v in at.loc[m]) for m in at.index),
            holds=bool(falling.all()),
        )
    ]
    panels = pd.concat(
        [frame.groupby("method").var_acc.mean().rename("mean over rounds"), at.rename(columns=lambda r: f"round {r}")],
        axis=1,
    )
    for b in BASELINES["exp2"]:
        text = f"FedFairMMFL has a lower variance across tasks than {NAMES[b]} in every panel of Fig. 3 ({exp.name})"
        states = (
            "FedFairMMFL has the lowest variance for all settings (Fig. 3: on average, and at rounds 10, 60 and 120)"
        )
        missing = _missing(exp, b, text, art, states)
        if missing:
            rows.append(missing)
            continue
        lower = panels.loc[FEDFAIR] < panels.loc[b]
        seen = "; ".join(
            f"{p}: FedFairMMFL {panels.loc[FEDFAIR, p]:.4f}, {NAMES[b]} {panels.loc[b, p]:.4f}" for p in panels.columns
        )
        rows.append(
            Claim.statement(
                paper=PAPER, artifact=art, claim=text, paper_states=states, reproduced=seen, holds=bool(lower.all())
            )
        )
    rows += _pairwise(
        exp,
        frame.groupby("method").min_acc.mean(),
        art,
        "FedFairMMFL converges faster than {b} ({exp})",
        "FedFairMMFL converges faster than both baselines (Fig. 3 e-g)",
        "minimum accuracy across tasks averaged over all rounds (the area under Fig. 3e-g's curve), seed mean",
    )
    if not table2:
        return rows
    final = final_rounds(frame)
    rows += _pairwise(
        exp,
        _by_method(final, "min_acc"),
        "Table II",
        "FedFairMMFL reaches a higher final minimum accuracy than {b} ({exp})",
        "In terms of task fairness, FedFairMMFL achieves higher minimum accuracy across tasks (Table II)",
        "final minimum accuracy across tasks, seed mean",
    )
    average = _by_method(final, "avg_acc")
    for b in BASELINES["exp2"]:
        text = f"FedFairMMFL's final average accuracy is comparable with {NAMES[b]}'s ({exp.name})"
        states = "the average accuracy is not impacted much, and is comparable with the baselines (Table II)"
        missing = _missing(exp, b, text, "Table II", states)
        if missing:
            rows.append(missing)
            continue
        gap = average[FEDFAIR] - average[b]
        rows.append(
            Claim.statement(
                paper=PAPER,
                artifact="Table II",
                claim=text,
                paper_states=states,
                reproduced=f"final average accuracy FedFairMMFL {average[FEDFAIR]:.4f}, {NAMES[b]} {average[b]:.4f} "
                f"(difference {gap:+.4f}; 'comparable' = within {tolerance:g})",
                holds=bool(abs(gap) <= tolerance),
            )
        )
    return rows


def _fig4(per_round: pd.DataFrame, exp: Experiment, alpha: float) -> list[Claim]:
    """Fig. 4: FedFairMMFL converges faster than task-level q-FFL and reaches a higher minimum accuracy."""
    frame = _compared(per_round, exp, alpha)
    states = (
        "FedFairMMFL converges faster and achieves a higher minimum accuracy across tasks compared to q-Fel (Fig. 4)"
    )
    rows = _pairwise(
        exp,
        _by_method(final_rounds(frame), "min_acc"),
        ARTIFACTS["fig4"],
        "FedFairMMFL reaches a higher final minimum accuracy than {b} ({exp})",
        states,
        "final minimum accuracy across tasks, seed mean",
    )
    rows += _pairwise(
        exp,
        frame.groupby("method").min_acc.mean(),
        ARTIFACTS["fig4"],
        "FedFairMMFL converges faster than {b} ({exp})",
        states,
        "minimum accuracy across tasks averaged over all rounds, seed mean",
    )
    return rows


def _exp3(per_round: pd.DataFrame, experiments: list[Experiment], alpha: float) -> list[Claim]:
    """Experiment 3 (Fig. 5): per client count, FedFairMMFL beats each baseline in final minimum accuracy and/or
    convergence; over the client counts, its final minimum accuracy rises and its spread over seeds shrinks."""
    art, rows = ARTIFACTS["exp3"], []
    states = "FedFairMMFL outperforms the other two algorithms, either achieving a higher minimum accuracy, and/or a faster convergence"
    for exp in experiments:
        frame = _compared(per_round, exp, alpha)
        final, speed = _by_method(final_rounds(frame), "min_acc"), frame.groupby("method").min_acc.mean()
        for b in BASELINES["exp3"]:
            text = f"FedFairMMFL outperforms {NAMES[b]} in final minimum accuracy and/or convergence ({exp.name})"
            missing = _missing(exp, b, text, art, states)
            if missing:
                rows.append(missing)
                continue
            holds = final[FEDFAIR] > final[b] or speed[FEDFAIR] > speed[b]
            seen = (
                f"final minimum accuracy FedFairMMFL {final[FEDFAIR]:.4f}, {NAMES[b]} {final[b]:.4f}; averaged over rounds "
                f"FedFairMMFL {speed[FEDFAIR]:.4f}, {NAMES[b]} {speed[b]:.4f}"
            )
            rows.append(
                Claim.statement(
                    paper=PAPER, artifact=art, claim=text, paper_states=states, reproduced=seen, holds=bool(holds)
                )
            )
    ours = [e for e in sorted(experiments, key=lambda e: e.clients) if FEDFAIR in e.methods]
    finals = []
    for e in ours:
        final = final_rounds(_compared(per_round, e, alpha))
        finals.append(final[final.method == FEDFAIR].min_acc)
    means = pd.Series([f.mean() for f in finals], index=[e.clients for e in ours], dtype=float)
    spreads = pd.Series([f.max() - f.min() for f in finals], index=means.index, dtype=float)
    seeds = min((len(f) for f in finals), default=0)
    rows.append(
        Claim.statement(
            paper=PAPER,
            artifact=art,
            claim="FedFairMMFL's final minimum accuracy rises with the number of clients (Exp 3)",
            paper_states="Its performance is also further improved as the client number increases",
            reproduced="final minimum accuracy (seed mean) by clients: "
            + ", ".join(f"K={k} {v:.4f}" for k, v in means.items()),
            holds=bool(means.is_monotonic_increasing and means.is_unique) if len(ours) >= 2 else None,
        )
    )
    rows.append(
        Claim.statement(
            paper=PAPER,
            artifact=art,
            claim="FedFairMMFL's final minimum accuracy varies less over seeds as the number of clients grows (Exp 3)",
            paper_states="and is more stable among different random seeds",
            reproduced="max - min over seeds by clients: " + ", ".join(f"K={k} {v:.4f}" for k, v in spreads.items()),
            holds=bool(spreads.is_monotonic_decreasing and spreads.is_unique)
            if len(ours) >= 2 and seeds >= 2
            else None,
        )
    )
    return rows


def _exp4(runs: pd.DataFrame, exp: Experiment) -> list[Claim]:
    """Experiment 4 (Fig. 6): the hardest task's share of client-rounds grows with alpha over the whole sweep, and at
    the largest alpha most client-rounds go to one task."""
    art, sweep = ARTIFACTS["exp4"], runs[runs.experiment == exp.name]
    ours = sweep[sweep.method == FEDFAIR]
    alphas = sorted(ours.alpha.unique())
    if "random" not in exp.methods or len(alphas) < 2:
        reason = f"{exp.name} runs {', '.join(exp.methods)} at alpha {', '.join(f'{a:g}' for a in exp.alphas)}"
        return [
            Claim.statement(
                paper=PAPER,
                artifact=art,
                claim="The hardest task gets more clients as alpha grows (Exp 4)",
                paper_states="EMNIST (task 3) is always the hardest task, and therefore gets more clients as alpha increases",
                reproduced=reason,
                holds=None,
            )
        ]
    rand = sweep[sweep.method == "random"]
    hardest = int(rand[rand["round"] == rand["round"].max()].groupby("task").accuracy.mean().idxmin())
    clients = ours.groupby(["alpha", "task"]).clients.sum().unstack("task")
    shares = clients.div(clients.sum(axis=1), axis=0)
    hard = shares[hardest]
    rows = [
        Claim.statement(
            paper=PAPER,
            artifact=art,
            claim="The hardest task gets more clients as alpha grows, over the whole sweep (Exp 4)",
            paper_states="EMNIST (task 3) is always the hardest task, and therefore gets more clients as alpha increases",
            reproduced=f"hardest task = {hardest} (lowest final accuracy under random); its share of client-rounds: "
            + ", ".join(f"alpha={a:g} {v:.3f}" for a, v in hard.items()),
            holds=bool(hard.is_monotonic_increasing and hard.is_unique),
        )
    ]
    top = shares.loc[alphas[-1]]
    rows.append(
        Claim.statement(
            paper=PAPER,
            artifact=art,
            claim="At the largest alpha most client-rounds go to one task (Exp 4)",
            paper_states="When alpha is too high, most of the resources will be allocated to only one task (Fig. 6 g, h)",
            reproduced=f"alpha={alphas[-1]:g}: largest share {top.max():.3f} (task {int(top.idxmax())})",
            holds=bool(top.max() > 0.5),
        )
    )
    return rows


def claims(results: Mapping[str, Any], settings: Settings) -> list[Claim]:
    """Every claim row of the multi-model FL experiments, in the paper's order. ``results``: ``runs`` (every run's
    per-task rows) and ``across_tasks`` (per round: minimum, average and variance of accuracy across tasks)."""
    runs, per_round = results["runs"], results["across_tasks"]
    alpha, tol = settings.training.alpha, settings.comparable_tolerance
    role = {r: [e for e in settings.experiments if e.reproduces == r] for r in ARTIFACTS}
    rows = []
    for exp in role["exp1"]:
        rows += _exp1(runs, per_round, exp, alpha, tol)
    for exp in role["exp2"]:
        rows += _exp2(per_round, exp, alpha, exp.name in settings.table2_experiments, tol)
    for exp in role["fig4"]:
        rows += _fig4(per_round, exp, alpha)
    if role["exp3"]:
        rows += _exp3(per_round, role["exp3"], alpha)
    for exp in role["exp4"]:
        rows += _exp4(runs, exp)
    return rows
