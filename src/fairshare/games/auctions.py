"""Client-recruitment mechanisms for multi-model FL (Section V of the FedFairMMFL paper; spec §3).

Every mechanism takes bids b[i, s] (users x tasks; bids equal private costs in the simulations), a total budget B
and returns a :class:`Recruitment`: participation x[i, s] in [0, 1] (fractional only for the max-min auction's last
round) and payments p[i, s]. Budgeted mechanisms spend at most B in total; winners are paid at least their bid.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MECHANISMS = ("budget_fair", "maxmin_fair", "gmmfair", "greedy_within_budget", "random_within_budget", "val_threshold_0.4", "val_threshold_0.6")


@dataclass(frozen=True)
class Recruitment:
    x: np.ndarray  # participation (users x tasks)
    payments: np.ndarray  # users x tasks

    @property
    def take_up(self) -> np.ndarray:
        """Recruited users per task (fractional participation counted by its fraction)."""
        return self.x.sum(axis=0)

    @property
    def spent(self) -> float:
        return float(self.payments.sum())

    def winners(self, task: int) -> np.ndarray:
        return np.flatnonzero(self.x[:, task] > 0)


def _check(bids: np.ndarray, budget: float) -> np.ndarray:
    b = np.asarray(bids, dtype=float)
    if b.ndim != 2 or b.shape[0] < 1 or b.shape[1] < 1:
        raise ValueError("bids must be a (users x tasks) array")
    if np.any(b < 0) or not np.all(np.isfinite(b)):
        raise ValueError("bids must be finite and non-negative")
    if budget < 0:
        raise ValueError(f"budget must be non-negative, got {budget}")
    return b


def proportional_share(bids: np.ndarray, budget: float) -> tuple[np.ndarray, float]:
    """Singer's mechanism for one task: the k* cheapest users with b_(k) <= budget / k, each paid budget / k*."""
    order = np.argsort(bids, kind="stable")
    k = np.arange(1, len(bids) + 1)
    ok = np.flatnonzero(bids[order] <= budget / k)
    if len(ok) == 0:
        return np.array([], dtype=int), 0.0
    k_star = int(ok.max()) + 1
    return order[:k_star], budget / k_star


def budget_fair(bids: np.ndarray, budget: float) -> Recruitment:
    """Budget-Fair auction (Sec. V-A): B/S per task, proportional-share mechanism per task (truthful)."""
    b = _check(bids, budget)
    n, s = b.shape
    x, pay = np.zeros_like(b), np.zeros_like(b)
    for task in range(s):
        winners, price = proportional_share(b[:, task], budget / s)
        x[winners, task] = 1.0
        pay[winners, task] = price
    return Recruitment(x, pay)


def gmmfair(bids: np.ndarray, budget: float) -> Recruitment:
    """GMMFair (Algorithm 2): add the next-cheapest user to every task while the budget covers all of them; pay as bid."""
    b = _check(bids, budget)
    n, s = b.shape
    order = np.argsort(b, axis=0, kind="stable")
    sorted_bids = np.take_along_axis(b, order, axis=0)
    cumulative = np.cumsum(sorted_bids.sum(axis=1))
    t_star = int(np.searchsorted(cumulative, budget, side="right"))  # largest t with sum_{j<=t} sum_s b_(j),s <= B
    x, pay = np.zeros_like(b), np.zeros_like(b)
    for task in range(s):
        winners = order[:t_star, task]
        x[winners, task] = 1.0
        pay[winners, task] = b[winners, task]
    return Recruitment(x, pay)


def maxmin_fair(bids: np.ndarray, budget: float, *, fractional: bool = True, strict: bool = True, reallocation: str = "waterfill") -> Recruitment:
    """MMFL max-min fair auction (Algorithm 3, the spec's cleaned reading).

    Each task starts with B/S and runs proportional-share pricing round by round (the t-th cheapest user joins if
    b_(t),s <= B_s / t; all winners of s are paid B_s / t). When some tasks cannot afford their t-th user, the
    surplus C of the tasks that can is moved to them if it covers the shortfall A (``strict``: A < C as printed,
    else A <= C), taken from donors by water-filling (or proportionally); otherwise the surplus is shared among the
    failing tasks as fractional participation (``fractional``) and the auction ends.
    """
    if reallocation not in ("waterfill", "proportional"):
        raise ValueError("reallocation must be 'waterfill' or 'proportional'")
    b = _check(bids, budget)
    n, s = b.shape
    order = np.argsort(b, axis=0, kind="stable")
    budgets = np.full(s, budget / s)
    count = np.zeros(s, dtype=int)
    price = np.zeros(s)
    frac_user, frac_x, frac_pay = {}, {}, {}
    for t in range(1, n + 1):
        users = order[t - 1]
        bt = b[users, np.arange(s)]
        ok = bt <= budgets / t
        failing = ~ok
        count[ok] = t
        price[ok] = budgets[ok] / t
        if not failing.any():
            continue
        shortfall = float(np.sum(t * bt[failing] - budgets[failing]))
        surplus_each = np.where(ok, budgets - t * bt, 0.0)
        surplus = float(surplus_each.sum())
        if (shortfall < surplus) if strict else (shortfall <= surplus):
            take = _waterfill(surplus_each[ok], shortfall) if reallocation == "waterfill" else surplus_each[ok] * shortfall / surplus
            budgets[ok] -= take
            price[ok] = budgets[ok] / t
            budgets[failing] = t * bt[failing]
            count[failing] = t
            price[failing] = bt[failing]
            continue
        if fractional and failing.any() and surplus > 0:
            q = surplus / failing.sum()
            for task in np.flatnonzero(failing):
                user = int(users[task])
                frac_user[task] = user
                frac_x[task] = min(1.0, q / bt[task]) if bt[task] > 0 else 1.0
                frac_pay[task] = min(q, bt[task])
            # donors keep just enough to pay their t-th users their bids
            budgets[ok] = t * bt[ok]
            price[ok] = bt[ok]
        break
    x, pay = np.zeros_like(b), np.zeros_like(b)
    for task in range(s):
        winners = order[: count[task], task]
        x[winners, task] = 1.0
        pay[winners, task] = price[task]
        if task in frac_user:
            x[frac_user[task], task] = frac_x[task]
            pay[frac_user[task], task] = frac_pay[task]
    return Recruitment(x, pay)


def _waterfill(surplus: np.ndarray, amount: float) -> np.ndarray:
    """Take ``amount`` from donors, lowering the largest surpluses first to a common level lambda."""
    if amount <= 0:
        return np.zeros_like(surplus)
    levels = np.sort(surplus)[::-1]
    for k in range(1, len(levels) + 1):
        lam = (levels[:k].sum() - amount) / k
        if k == len(levels) or lam >= levels[k]:
            break
    return np.maximum(0.0, surplus - max(lam, 0.0))


def _within_budget(b: np.ndarray, budget: float, order_of, skip: bool) -> Recruitment:
    n, s = b.shape
    x, pay = np.zeros_like(b), np.zeros_like(b)
    for task in range(s):
        left = budget / s
        for user in order_of(task):
            if b[user, task] <= left:
                x[user, task], pay[user, task] = 1.0, b[user, task]
                left -= b[user, task]
            elif not skip:
                break
    return Recruitment(x, pay)


def greedy_within_budget(bids: np.ndarray, budget: float, *, skip: bool = False) -> Recruitment:
    """B/S per task; cheapest users first, pay as bid, until the next bid does not fit (``skip``: keep looking)."""
    b = _check(bids, budget)
    return _within_budget(b, budget, lambda task: np.argsort(b[:, task], kind="stable"), skip)


def random_within_budget(bids: np.ndarray, budget: float, rng: np.random.Generator, *, skip: bool = False) -> Recruitment:
    """As greedy, but users are considered in random order."""
    b = _check(bids, budget)
    return _within_budget(b, budget, lambda task: rng.permutation(b.shape[0]), skip)


def val_threshold(bids: np.ndarray, threshold: float) -> Recruitment:
    """Posted price without budget: every user whose cost is below ``threshold`` trains the task, paid the price."""
    b = _check(bids, 0.0)
    x = (b < threshold).astype(float)
    return Recruitment(x, x * threshold)


def run_mechanism(name: str, bids: np.ndarray, budget: float, rng: np.random.Generator, **options) -> Recruitment:
    if name == "budget_fair":
        return budget_fair(bids, budget)
    if name == "maxmin_fair":
        return maxmin_fair(bids, budget, **options)
    if name == "gmmfair":
        return gmmfair(bids, budget)
    if name == "greedy_within_budget":
        return greedy_within_budget(bids, budget, skip=options.get("skip", False))
    if name == "random_within_budget":
        return random_within_budget(bids, budget, rng, skip=options.get("skip", False))
    if name.startswith("val_threshold_"):
        return val_threshold(bids, float(name.removeprefix("val_threshold_")))
    raise ValueError(f"unknown mechanism '{name}'; choose one of {', '.join(MECHANISMS)}")


def experiment5_bids(n_users: int, rng: np.random.Generator, mu: float, sigma: float) -> np.ndarray:
    """Exp 5 bids: task 1 truncated N(mu, sigma^2) on [0, 1] (parameters not given by the paper), task 2 pdf 2x on [0, 1]."""
    task1 = np.empty(n_users)
    filled = 0
    while filled < n_users:
        draw = rng.normal(mu, sigma, size=2 * n_users)
        draw = draw[(draw >= 0) & (draw <= 1)]
        take = min(len(draw), n_users - filled)
        task1[filled:filled + take] = draw[:take]
        filled += take
    task2 = np.sqrt(rng.random(n_users))  # inverse CDF of f(x) = 2x
    return np.column_stack([task1, task2])


def corollary10(y: float) -> tuple[float, float]:
    """P(some task gets no user) for S = 2 with x_s ~ Exp(lambda), y = B lambda: (max-min, budget-fair)."""
    return float(np.exp(-y) * (1 + y)), float(np.exp(-y) * (2 * np.exp(y / 2) - 1))
