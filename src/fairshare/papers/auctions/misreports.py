"""The misreport sweep of Sec. V (truthfulness, Theorem 8, Corollary 9, and Sec. V-B's "un-truthful bids often miss
the winning set"): one user changes one task bid over a grid, every other bid stays truthful, and each run is
compared with the truthful one (docs/auctions.md, "Truthfulness")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairshare.games import auctions as au

__all__ = ["PROFILE_METRICS", "Misreports", "misreport_grid", "misreport_profile"]


@dataclass(frozen=True)
class Misreports:
    """One user's misreports of one task's bid over a grid, against its truthful bid (all other bids truthful).

    ``gain[k]`` is the change of the user's utility over all tasks (true costs) when it reports ``reports[k]``,
    ``task_gain[k]`` the change of its utility in the misreported task alone (u_{i,s} of Eq. 32, the quantity of
    Theorem 8; the two differ when budget moving between tasks changes its other payments), ``objective_change[k]``
    the change of the max-min objective (smallest take-up), ``in_event[k]`` whether the misreported bid was a t-th
    bid of a re-allocation or fractional round (``Recruitment.event_bidders``; Algorithm 3 only); ``truthful_won`` whether
    the user wins the task when bidding truthfully; ``advance[k]`` how many rounds earlier Algorithm 3 ends under the
    misreport than when truthful (``Recruitment.final_round``; Corollary 9's "at most one round earlier"; 0 for the other
    mechanisms).

    Sec. V-B's winning set: ``recruited[k]`` whether the misreported bid wins its task (participation x > 0, a
    fractional share included), ``recruited_any[k]`` whether the user is recruited by some task,
    ``truthful_recruited_any`` the latter when truthful; ``needs_budget[k]`` whether the misreported bid was the
    t-th bid of a task that could not afford it at Algorithm 3's round t (b > B_s^t / t: a recipient of a
    re-allocation, fractional or stopping round, :class:`fairshare.games.auctions.AuctionEvent`; Algorithm 3 only).
    """

    user: int
    task: int
    reports: np.ndarray
    gain: np.ndarray
    task_gain: np.ndarray
    objective_change: np.ndarray
    in_event: np.ndarray
    truthful_won: bool
    advance: np.ndarray
    recruited: np.ndarray
    recruited_any: np.ndarray
    truthful_recruited_any: bool
    needs_budget: np.ndarray


def misreport_grid(
    mechanism: str,
    costs: np.ndarray,
    budget: float,
    user: int,
    task: int,
    reports: np.ndarray,
    seed: int,
    **switches: Any,
) -> Misreports:
    """Run ``mechanism`` once truthfully and once per misreport of b[user, task]. A randomized mechanism gets a fresh
    Generator from the same ``seed`` in every run (common random numbers, so its gain is the bid's effect alone);
    the others get none (ties, which have probability zero for continuous costs, go to the lower index)."""
    costs = np.asarray(costs, dtype=float)

    def run(bids: np.ndarray) -> au.Recruitment:
        rng = np.random.default_rng(seed) if mechanism in au.RANDOMIZED else None
        return au.run_mechanism(mechanism, bids, budget, rng, **switches)

    def user_utility(r: au.Recruitment) -> np.ndarray:
        return r.payments[user] - costs[user] * r.x[user]  # Eq. (32) per task, for this user only

    honest = run(costs)
    u0, end0 = user_utility(honest), honest.final_round()
    gains, task_gains, changes, flags, advance = [], [], [], [], []
    recruited, anywhere, needs = [], [], []
    for report in reports:
        bids = costs.copy()
        bids[user, task] = report
        lie = run(bids)
        du = user_utility(lie) - u0
        gains.append(du.sum())
        task_gains.append(du[task])
        changes.append(lie.objective - honest.objective)
        flags.append((task, user) in lie.event_bidders())
        advance.append(end0 - lie.final_round())
        recruited.append(lie.x[user, task] > 0)
        anywhere.append(bool((lie.x[user] > 0).any()))
        needs.append(any((task, user) in e.recipients for e in lie.events))
    return Misreports(
        user,
        task,
        np.asarray(reports, dtype=float),
        np.array(gains),
        np.array(task_gains),
        np.array(changes),
        np.array(flags, dtype=bool),
        bool(honest.x[user, task] > 0),
        np.array(advance, dtype=int),
        np.array(recruited, dtype=bool),
        np.array(anywhere, dtype=bool),
        bool((honest.x[user] > 0).any()),
        np.array(needs, dtype=bool),
    )


#: The sweep's counts and extremes per profile and mechanism (results/auctions/truthfulness.csv's metrics)
PROFILE_METRICS = (
    "misreports",
    "profitable",
    "max_gain",
    "profitable_same_task",
    "profitable_other_task_only",
    "max_gain_same_task",
    "same_task_outside_events",
    "same_task_outside_events_by_losers",
    "max_objective_drop",
    "max_objective_drop_profitable",
    "max_final_round_advance",
    "max_final_round_advance_same_task",
    "same_task_advance_over_one",
    "liar_out",
    "liar_out_any_task",
    "theorem8_conditions",
    "theorem8_conditions_liar_out",
    "theorem8_conditions_liar_out_any_task",
    "theorem8_conditions_truthful_in",
)


def misreport_profile(
    mechanism: str, costs: np.ndarray, budget: float, reports: np.ndarray, seed: int, tol: float = 1e-9, **switches: Any
) -> dict[str, float]:
    """Every user misreports each of its task bids over ``reports`` (one at a time, others truthful); aggregates.

    Counts misreports and profitable ones (gain > ``tol``) for the utility over all tasks and for the misreported
    task's utility alone, the profitable ones that gain only through the user's other tasks, the largest gains, the
    largest drop of the max-min objective (over all misreports and over the profitable ones), how many
    same-task-profitable misreports did not take part in a re-allocation or fractional round (the exceptions to
    Theorem 8; Algorithm 3 only) and how many of those were under-bids by a user who loses when truthful; the most
    rounds by which a misreport brings Algorithm 3's end forward (:attr:`Misreports.advance`), over all misreports
    and over the same-task-profitable ones (Theorem 8's cases, Corollary 9's premise), and how many of the latter
    bring it forward by more than one round.

    Sec. V-B's winning set: how many misreported bids miss their task's winning set (``liar_out``; ``_any_task``:
    the user is recruited by no task), and the same over the misreports under Theorem 8's conditions
    (``theorem8_conditions``: over-bids, report > cost, whose bid its task cannot afford at its round t, so that
    Algorithm 3 reaches a re-allocation step for it; :attr:`Misreports.needs_budget`), with how many of those bids
    win their task when truthful (``theorem8_conditions_truthful_in``).
    """
    costs = np.asarray(costs, dtype=float)
    out = dict.fromkeys(PROFILE_METRICS, 0.0)
    for user in range(costs.shape[0]):
        for task in range(costs.shape[1]):
            m = misreport_grid(mechanism, costs, budget, user, task, reports, seed, **switches)
            win, win_task = m.gain > tol, m.task_gain > tol
            out["misreports"] += len(m.gain)
            out["profitable"] += int(win.sum())
            out["profitable_same_task"] += int(win_task.sum())
            out["profitable_other_task_only"] += int((win & ~win_task).sum())
            outside = win_task & ~m.in_event
            out["same_task_outside_events"] += int(outside.sum())
            if not m.truthful_won:
                out["same_task_outside_events_by_losers"] += int((outside & (m.reports < costs[user, task])).sum())
            out["max_gain"] = max(out["max_gain"], float(m.gain.max()))
            out["max_gain_same_task"] = max(out["max_gain_same_task"], float(m.task_gain.max()))
            out["max_objective_drop"] = max(out["max_objective_drop"], float(-m.objective_change.min()))
            if win.any():
                drop = float(-m.objective_change[win].min())
                out["max_objective_drop_profitable"] = max(out["max_objective_drop_profitable"], drop)
            out["max_final_round_advance"] = max(out["max_final_round_advance"], float(m.advance.max()))
            if win_task.any():
                ahead = float(m.advance[win_task].max())
                out["max_final_round_advance_same_task"] = max(out["max_final_round_advance_same_task"], ahead)
                out["same_task_advance_over_one"] += int((m.advance[win_task] > 1).sum())
            out["liar_out"] += int((~m.recruited).sum())
            out["liar_out_any_task"] += int((~m.recruited_any).sum())
            conditions = (m.reports > costs[user, task]) & m.needs_budget
            out["theorem8_conditions"] += int(conditions.sum())
            out["theorem8_conditions_liar_out"] += int((conditions & ~m.recruited).sum())
            out["theorem8_conditions_liar_out_any_task"] += int((conditions & ~m.recruited_any).sum())
            out["theorem8_conditions_truthful_in"] += int(conditions.sum()) if m.truthful_won else 0
    return out
