"""Measured properties of the recruitment mechanisms: misreporting gains (truthfulness, Theorem 8, Corollary 9) and
Corollary 10's no-user probabilities (FedFairMMFL paper, Section V-B; spec §3.4-3.5 and §6)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairshare.games.auctions import RANDOMIZED, Recruitment, budget_fair, maxmin_fair, run_mechanism


def utility(recruitment: Recruitment, costs: np.ndarray) -> np.ndarray:
    """Eq. (32) summed over tasks: u_i = sum_s (p_{i,s} - c_{i,s} x_{i,s}) (a fractional user bears x of its cost)."""
    return (recruitment.payments - np.asarray(costs) * recruitment.x).sum(axis=1)


def event_bidders(recruitment: Recruitment) -> set[tuple[int, int]]:
    """(task, user) pairs whose bid was a t-th bid in a re-allocation or fractional round of Algorithm 3: the rounds
    where Theorem 8 locates every profitable misreport (as the bid that needs budget, or a donor's bid that sets
    its surplus and, in the fractional round, its price)."""
    return {pair for event in recruitment.events if event.kind in ("reallocation", "fractional") for pair in event.recipients + event.donors}


@dataclass(frozen=True)
class Misreports:
    """One user's misreports of one task's bid over a grid, against its truthful bid (all other bids truthful).

    ``gain[k]`` is the change of the user's utility over all tasks (true costs) when it reports ``reports[k]``,
    ``task_gain[k]`` the change of its utility in the misreported task alone (u_{i,s} of Eq. 32, the quantity of
    Theorem 8; the two differ when budget moving between tasks changes its other payments), ``objective_change[k]``
    the change of the max-min objective (smallest take-up), ``in_event[k]`` whether the misreported bid was a t-th
    bid of a re-allocation or fractional round (:func:`event_bidders`; Algorithm 3 only); ``truthful_won`` whether
    the user wins the task when bidding truthfully.
    """

    user: int
    task: int
    reports: np.ndarray
    gain: np.ndarray
    task_gain: np.ndarray
    objective_change: np.ndarray
    in_event: np.ndarray
    truthful_won: bool


def misreport_grid(mechanism: str, costs: np.ndarray, budget: float, user: int, task: int, reports: np.ndarray, seed: int,
                   **switches: Any) -> Misreports:
    """Run ``mechanism`` once truthfully and once per misreport of b[user, task]. A randomized mechanism gets a fresh
    Generator from the same ``seed`` in every run (common random numbers, so its gain is the bid's effect alone);
    the others get none (ties, which have probability zero for continuous costs, go to the lower index)."""
    costs = np.asarray(costs, dtype=float)

    def run(bids: np.ndarray) -> Recruitment:
        rng = np.random.default_rng(seed) if mechanism in RANDOMIZED else None
        return run_mechanism(mechanism, bids, budget, rng, **switches)

    def user_utility(r: Recruitment) -> np.ndarray:
        return r.payments[user] - costs[user] * r.x[user]  # utility(r, costs) per task, for this user only

    honest = run(costs)
    u0 = user_utility(honest)
    gains, task_gains, changes, flags = [], [], [], []
    for report in reports:
        bids = costs.copy()
        bids[user, task] = report
        lie = run(bids)
        du = user_utility(lie) - u0
        gains.append(du.sum())
        task_gains.append(du[task])
        changes.append(lie.objective - honest.objective)
        flags.append((task, user) in event_bidders(lie))
    return Misreports(user, task, np.asarray(reports, dtype=float), np.array(gains), np.array(task_gains), np.array(changes),
                      np.array(flags, dtype=bool), bool(honest.x[user, task] > 0))


def misreport_profile(mechanism: str, costs: np.ndarray, budget: float, reports: np.ndarray, seed: int, tol: float = 1e-9,
                      **switches: Any) -> dict[str, float]:
    """Every user misreports each of its task bids over ``reports`` (one at a time, others truthful); aggregates.

    Counts misreports and profitable ones (gain > ``tol``) for the utility over all tasks and for the misreported
    task's utility alone, the largest gains, the largest drop of the max-min objective (over all misreports and over
    the profitable ones), how many same-task-profitable misreports did not take part in a re-allocation or
    fractional round (the exceptions to Theorem 8; Algorithm 3 only) and how many of those were under-bids by a
    user who loses when truthful.
    """
    costs = np.asarray(costs, dtype=float)
    out = dict.fromkeys(("misreports", "profitable", "max_gain", "profitable_same_task", "max_gain_same_task",
                         "same_task_outside_events", "same_task_outside_events_by_losers", "max_objective_drop", "max_objective_drop_profitable"), 0.0)
    for user in range(costs.shape[0]):
        for task in range(costs.shape[1]):
            m = misreport_grid(mechanism, costs, budget, user, task, reports, seed, **switches)
            win, win_task = m.gain > tol, m.task_gain > tol
            out["misreports"] += len(m.gain)
            out["profitable"] += int(win.sum())
            out["profitable_same_task"] += int(win_task.sum())
            outside = win_task & ~m.in_event
            out["same_task_outside_events"] += int(outside.sum())
            if not m.truthful_won:
                out["same_task_outside_events_by_losers"] += int((outside & (m.reports < costs[user, task])).sum())
            out["max_gain"] = max(out["max_gain"], float(m.gain.max()))
            out["max_gain_same_task"] = max(out["max_gain_same_task"], float(m.task_gain.max()))
            out["max_objective_drop"] = max(out["max_objective_drop"], float(-m.objective_change.min()))
            if win.any():
                out["max_objective_drop_profitable"] = max(out["max_objective_drop_profitable"], float(-m.objective_change[win].min()))
    return out


def corollary10(y: float) -> tuple[float, float]:
    """Corollary 10 for S = 2, minimum bids x_s ~ Exp(lambda), y = B lambda: P(some task gets no user) under the
    max-min auction, e^-y (1 + y), and under the budget-fair auction, e^-y (2 e^(y/2) - 1). The former is the
    smaller for y > 0 (the paper's text says "strictly greater": an erratum)."""
    return float(np.exp(-y) * (1 + y)), float(np.exp(-y) * (2 * np.exp(y / 2) - 1))


def corollary10_monte_carlo(y: float, draws: int, rng: np.random.Generator) -> tuple[float, float]:
    """The two probabilities of :func:`corollary10` estimated from ``draws`` pairs of Exp(1) minimum bids (B = y):
    P(x_1 + x_2 >= B) and P(max(x_1, x_2) >= B / 2)."""
    x = rng.exponential(1.0, size=(draws, 2))
    return float(np.mean(x.sum(axis=1) >= y)), float(np.mean(x.max(axis=1) >= y / 2))


def corollary10_auctions(y: float, users: int, draws: int, rng: np.random.Generator) -> tuple[float, float]:
    """The same probabilities from the auctions themselves: two tasks, ``users`` bids per task i.i.d. Exp(1/users)
    (so each task's minimum bid is Exp(1)), budget B = y; the share of draws where some task recruits no full user
    under :func:`maxmin_fair` (no fractional round, re-allocation when A < C) and under :func:`budget_fair`."""
    empty_mm = empty_bf = 0
    for _ in range(draws):
        bids = rng.exponential(float(users), size=(users, 2))
        empty_mm += int((maxmin_fair(bids, y, fractional=False).x >= 1).sum(axis=0).min() == 0)
        empty_bf += int(budget_fair(bids, y).take_up.min() == 0)
    return empty_mm / draws, empty_bf / draws


