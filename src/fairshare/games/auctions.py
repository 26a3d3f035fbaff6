"""Client-recruitment mechanisms for multi-model FL (Section V of the FedFairMMFL paper; docs/auctions.md).

Users i bid b[i, s] for training task s (in the simulations bids equal the private costs c[i, s]). Every mechanism
has the same call shape, ``mechanism(bids, budget, rng, **switches) -> Recruitment``: bids are a (users x tasks)
array, ``budget`` the total budget B shared by the tasks, ``rng`` a numpy Generator. Deterministic mechanisms use
``rng`` only to break ties between equal bids at random (never by user index); with ``rng=None`` ties go to the
lower index. A :class:`Recruitment` holds the participation x[i, s] in [0, 1] (fractional only in the max-min
auction's last round), the payments p[i, s] and, for the max-min auction, the rounds where budget moved between
tasks. Budgeted mechanisms spend at most B; every full winner is paid at least its bid, a fractional one x times it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = [
    "AuctionEvent",
    "Recruitment",
    "Mechanism",
    "ascending_order",
    "proportional_share",
    "budget_fair",
    "gmmfair",
    "waterfill",
    "maxmin_fair",
    "greedy_within_budget",
    "random_within_budget",
    "val_threshold",
    "MECHANISMS",
    "BUDGETED",
    "RANDOMIZED",
    "SWITCHES",
    "run_mechanism",
    "truncated_normal",
    "experiment5_bids",
    "utility",
    "corollary10",
    "budget_fair_join_probability",
    "winner_set_probabilities",
]


@dataclass(frozen=True)
class AuctionEvent:
    """A round of Algorithm 3 where some tasks could not afford their t-th user under proportional-share pricing.

    ``kind`` is "reallocation" (lines 15-16: the shortfall A was moved from the other tasks), "fractional"
    (lines 18-21: the surplus C was shared as fractional participation; the auction ends) or "stop" (the surplus
    did not cover the shortfall and fractional allocation was off or had nothing to share). ``recipients`` are the
    (task, user) pairs of the t-th bids that needed the event, ``donors`` those of the other tasks' t-th bids (they
    set the donors' surplus and, in the fractional round, their price); ``amount`` is A (reallocation) or C.
    """

    round: int
    kind: str
    recipients: tuple[tuple[int, int], ...]
    donors: tuple[tuple[int, int], ...]
    amount: float


@dataclass(frozen=True)
class Recruitment:
    """Outcome of a recruitment mechanism: participation ``x`` and ``payments`` (both users x tasks)."""

    x: np.ndarray
    payments: np.ndarray
    events: tuple[AuctionEvent, ...] = ()

    @property
    def take_up(self) -> np.ndarray:
        """Recruited users per task (a fractional user counts by its fraction)."""
        return self.x.sum(axis=0)

    @property
    def spent(self) -> float:
        return float(self.payments.sum())

    @property
    def objective(self) -> float:
        """The max-min objective (36): the smallest take-up over tasks."""
        return float(self.take_up.min())

    @property
    def difference(self) -> float:
        """Largest minus smallest take-up over tasks (|n1 - n2| for two tasks, Fig. 7a)."""
        return float(np.ptp(self.take_up))

    def event_bidders(self) -> set[tuple[int, int]]:
        """(task, user) pairs whose bid was a t-th bid in a re-allocation or fractional round of Algorithm 3: the rounds
        where Theorem 8 locates every profitable misreport (as the bid that needs budget, or a donor's bid that sets
        its surplus and, in the fractional round, its price)."""
        return {
            pair
            for event in self.events
            if event.kind in ("reallocation", "fractional")
            for pair in event.recipients + event.donors
        }

    def final_round(self) -> int:
        """The round where Algorithm 3 ends: its fractional round (Corollary 9's "fractional re-allocation round"), or
        the round it stopped with no surplus to share; n + 1 for n users when it never ends early (and for every other
        mechanism, which has no rounds)."""
        ends = [e.round for e in self.events if e.kind in ("fractional", "stop")]
        return ends[0] if ends else self.x.shape[0] + 1

    def winners(self, task: int) -> np.ndarray:
        """Users recruited (fully or fractionally) for ``task``, ascending user index."""
        return np.flatnonzero(self.x[:, task] > 0)

    @property
    def winners_per_task(self) -> list[np.ndarray]:
        return [self.winners(s) for s in range(self.x.shape[1])]

    def to_record(self) -> dict[str, Any]:
        """JSON-ready form: per task the winners with their participation and payment, plus totals and events."""
        tasks = []
        for s, users in enumerate(self.winners_per_task):
            tasks.append(
                {
                    "task": s,
                    "winners": users.tolist(),
                    "participation": self.x[users, s].tolist(),
                    "payments": self.payments[users, s].tolist(),
                    "take_up": float(self.x[:, s].sum()),
                }
            )
        return {
            "n_users": int(self.x.shape[0]),
            "n_tasks": int(self.x.shape[1]),
            "tasks": tasks,
            "spent": self.spent,
            "events": [
                {
                    "round": e.round,
                    "kind": e.kind,
                    "recipients": [list(r) for r in e.recipients],
                    "donors": [list(d) for d in e.donors],
                    "amount": e.amount,
                }
                for e in self.events
            ],
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Recruitment:
        """Inverse of :meth:`to_record` (extra keys in ``record`` are ignored)."""

        def pairs(items: list) -> tuple[tuple[int, int], ...]:
            return tuple((int(s), int(u)) for s, u in items)

        shape = (int(record["n_users"]), int(record["n_tasks"]))
        x, pay = np.zeros(shape), np.zeros(shape)
        for entry in record["tasks"]:
            users = np.asarray(entry["winners"], dtype=int)
            x[users, entry["task"]] = entry["participation"]
            pay[users, entry["task"]] = entry["payments"]
        events = tuple(
            AuctionEvent(int(e["round"]), e["kind"], pairs(e["recipients"]), pairs(e["donors"]), float(e["amount"]))
            for e in record.get("events", [])
        )
        return cls(x, pay, events)


class Mechanism(Protocol):
    def __call__(
        self, bids: np.ndarray, budget: float, rng: np.random.Generator | None = None, **switches: Any
    ) -> Recruitment: ...


def _check(bids: np.ndarray, budget: float) -> np.ndarray:
    b = np.asarray(bids, dtype=float)
    if b.ndim != 2 or b.shape[0] < 1 or b.shape[1] < 1:
        raise ValueError("bids must be a (users x tasks) array")
    if not np.all(np.isfinite(b)) or np.any(b < 0):
        raise ValueError("bids must be finite and non-negative")
    if not np.isfinite(budget) or budget < 0:
        raise ValueError(f"budget must be finite and non-negative, got {budget}")
    return b


def ascending_order(bids: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
    """Per task (column), users sorted by ascending bid; equal bids in random order (lower index first without rng)."""
    if rng is None:
        return np.argsort(bids, axis=0, kind="stable")
    tiebreak = rng.random(bids.shape)
    return np.column_stack([np.lexsort((tiebreak[:, s], bids[:, s])) for s in range(bids.shape[1])])


def proportional_share(
    bids: np.ndarray, budget: float, order: np.ndarray | None = None, payment: str = "threshold"
) -> tuple[np.ndarray, float]:
    """Proportional-share mechanism for one task: the k* cheapest users, k* = max{k : b_(k) <= budget / k}.

    ``payment`` "threshold" (Singer [43]) pays every winner min(budget / k*, b_(k*+1)), the highest bid with which it
    would still have won, so bidding the true cost is a dominant strategy. "uniform" pays budget / k* as Sec. V-A
    prints it ("paid B/(S(k-1))"): the task then spends exactly its budget, but a user just outside the winners can
    gain by under-bidding (see docs/auctions.md). Returns (winners, price); ``order`` is the ascending bid order.
    """
    if payment not in ("threshold", "uniform"):
        raise ValueError(f"payment must be 'threshold' or 'uniform', got '{payment}'")
    order = np.argsort(bids, kind="stable") if order is None else order
    affordable = np.flatnonzero(bids[order] <= budget / np.arange(1, len(bids) + 1))
    if len(affordable) == 0:
        return np.array([], dtype=int), 0.0
    k_star = int(affordable.max()) + 1
    price = budget / k_star
    if payment == "threshold" and k_star < len(bids):
        price = min(price, float(bids[order[k_star]]))
    return order[:k_star], price


def budget_fair(
    bids: np.ndarray, budget: float, rng: np.random.Generator | None = None, *, payment: str = "threshold"
) -> Recruitment:
    """Budget-Fair auction (Sec. V-A, Eqs. 33-35): budget B/S per task, proportional share per task.

    Truthful with Singer's threshold payments (default); ``payment="uniform"`` is the price B/(S k*) as printed.
    The winners, hence every take-up in Fig. 7, do not depend on ``payment``.
    """
    b = _check(bids, budget)
    order = ascending_order(b, rng)
    x, pay = np.zeros_like(b), np.zeros_like(b)
    for s in range(b.shape[1]):
        winners, price = proportional_share(b[:, s], budget / b.shape[1], order[:, s], payment)
        x[winners, s], pay[winners, s] = 1.0, price
    return Recruitment(x, pay)


def gmmfair(bids: np.ndarray, budget: float, rng: np.random.Generator | None = None) -> Recruitment:
    """GMMFair (Algorithm 2): add the t-th cheapest user to every task while B still covers all of them; pay as bid.

    Closed form: t* = max{t : sum_{j<=t} sum_s b_(j),s <= B}; each task gets its t* cheapest users. Solves the
    max-min problem (36) (Lemma 7) but is not truthful.
    """
    b = _check(bids, budget)
    order = ascending_order(b, rng)
    sorted_bids = np.take_along_axis(b, order, axis=0)
    t_star = int(np.searchsorted(np.cumsum(sorted_bids.sum(axis=1)), budget, side="right"))
    x, pay = np.zeros_like(b), np.zeros_like(b)
    for s in range(b.shape[1]):
        winners = order[:t_star, s]
        x[winners, s], pay[winners, s] = 1.0, b[winners, s]
    return Recruitment(x, pay)


def waterfill(surplus: np.ndarray, amount: float) -> np.ndarray:
    """Take ``amount`` from donors with surpluses ``surplus``: lower the largest ones to a common level lambda.

    Returns the amount each donor gives, max(0, surplus - lambda) with sum ``amount`` (requires amount <= sum).
    """
    if amount <= 0:
        return np.zeros_like(surplus)
    levels = np.sort(surplus)[::-1]
    lam = 0.0
    for k in range(1, len(levels) + 1):  # the k largest surpluses are lowered to lam
        lam = (levels[:k].sum() - amount) / k
        if k == len(levels) or lam >= levels[k]:
            break
    return np.maximum(0.0, surplus - max(lam, 0.0))


def maxmin_fair(
    bids: np.ndarray,
    budget: float,
    rng: np.random.Generator | None = None,
    *,
    fractional: bool = True,
    strict: bool = True,
    reallocation: str = "waterfill",
    line5: str = "smallest",
) -> Recruitment:
    """MMFL max-min fair auction (Algorithm 3) in a cleaned reading (docs/auctions.md, Algorithm 3 as implemented).

    Every task starts with B_s = B/S. In round t the t-th cheapest user of task s joins if b_(t),s <= B_s / t, and
    all winners of s are re-priced to B_s / t (proportional share). If some tasks F fail, their shortfall
    A = sum_F (t b_(t),s - B_s) is compared with the others' surplus C = sum (B_s - t b_(t),s):
    if A < C (``strict``; else A <= C) A is taken from the donors (``reallocation`` = "waterfill" lowers the
    largest surpluses first, "proportional" takes in proportion to surplus) and each failing task gets exactly
    t b_(t),s, i.e. price b_(t),s. Otherwise, with ``fractional``, C is split evenly over F: the t-th user of a
    failing task is paid min(C/|F|, b) for a participation min(1, C/(|F| b)), donors keep t b_(t),s (price
    b_(t),s), and the auction ends; without it the auction just ends. Take-ups then differ by less than one user.
    ``line5="biggest"`` reads line 5 as printed ("the t-th biggest bid": users taken in descending bid order; the
    Algorithm 3 erratum row, docs/auctions.md).
    """
    if reallocation not in ("waterfill", "proportional"):
        raise ValueError(f"reallocation must be 'waterfill' or 'proportional', got '{reallocation}'")
    if line5 not in ("smallest", "biggest"):
        raise ValueError(f"line5 must be 'smallest' or 'biggest', got '{line5}'")
    b = _check(bids, budget)
    n, n_tasks = b.shape
    order = ascending_order(b, rng)
    if line5 == "biggest":
        order = order[::-1]
    sorted_bids = np.take_along_axis(b, order, axis=0).tolist()  # row t-1: every task's t-th smallest bid
    ranked_users = order.tolist()
    tasks = range(n_tasks)
    budgets = [budget / n_tasks] * n_tasks  # B_s (plain floats: S is small and this loop is hot)
    count, price = [0] * n_tasks, [0.0] * n_tasks
    fraction: dict[int, tuple[int, float, float]] = {}  # task -> (user, participation, payment)
    events: list[AuctionEvent] = []
    for t in range(1, n + 1):
        bt = sorted_bids[t - 1]
        ok = [bt[s] <= budgets[s] / t for s in tasks]
        for s in tasks:
            if ok[s]:
                count[s], price[s] = t, budgets[s] / t
        if all(ok):
            continue
        failing, giving = [s for s in tasks if not ok[s]], [s for s in tasks if ok[s]]
        users = ranked_users[t - 1]
        recipients = tuple((s, users[s]) for s in failing)
        donors = tuple((s, users[s]) for s in giving)
        shortfall = sum(t * bt[s] - budgets[s] for s in failing)
        surplus = [budgets[s] - t * bt[s] for s in giving]
        total_surplus = sum(surplus)
        if shortfall < total_surplus or (not strict and shortfall <= total_surplus):
            take = (
                waterfill(np.array(surplus), shortfall)
                if reallocation == "waterfill"
                else [r * shortfall / total_surplus for r in surplus]
            )
            for s, given in zip(giving, take):
                budgets[s] -= float(given)
                price[s] = budgets[s] / t
            for s in failing:
                budgets[s] = t * bt[s]
                count[s], price[s] = t, bt[s]
            events.append(AuctionEvent(t, "reallocation", recipients, donors, shortfall))
            continue
        if fractional and total_surplus > 0:
            share = total_surplus / len(failing)
            for s, user in recipients:
                fraction[s] = (user, min(1.0, share / bt[s]), min(share, bt[s]))
            for s in giving:
                budgets[s], price[s] = t * bt[s], bt[s]
            events.append(AuctionEvent(t, "fractional", recipients, donors, total_surplus))
        else:
            events.append(AuctionEvent(t, "stop", recipients, donors, total_surplus))
        break
    x, pay = np.zeros_like(b), np.zeros_like(b)
    for s in tasks:
        winners = order[: count[s], s]
        x[winners, s], pay[winners, s] = 1.0, price[s]
        if s in fraction:
            user, part, paid = fraction[s]
            x[user, s], pay[user, s] = part, paid
    return Recruitment(x, pay, tuple(events))


def _within_budget(b: np.ndarray, budget: float, orders: np.ndarray, skip: bool) -> Recruitment:
    x, pay = np.zeros_like(b), np.zeros_like(b)
    for s in range(b.shape[1]):
        left = budget / b.shape[1]
        for user in orders[:, s]:
            if b[user, s] <= left:
                x[user, s], pay[user, s] = 1.0, b[user, s]
                left -= b[user, s]
            elif not skip:
                break
    return Recruitment(x, pay)


def greedy_within_budget(
    bids: np.ndarray, budget: float, rng: np.random.Generator | None = None, *, skip: bool = False
) -> Recruitment:
    """Greedy Within Budget (Exp 5 baseline): B/S per task, cheapest users first, pay as bid, until a bid does not fit.

    In ascending order no later bid fits either, so ``skip`` (keep looking) changes nothing here; it is accepted
    for symmetry with :func:`random_within_budget`.
    """
    b = _check(bids, budget)
    return _within_budget(b, budget, ascending_order(b, rng), skip)


def random_within_budget(
    bids: np.ndarray, budget: float, rng: np.random.Generator, *, skip: bool = False
) -> Recruitment:
    """Random Within Budget (Exp 5 baseline): as greedy, but each task's users are considered in a random order.

    Stops at the first bid that does not fit the task's remaining budget (``skip``: passes over it and goes on).
    """
    b = _check(bids, budget)
    if rng is None:
        raise ValueError("random_within_budget needs a numpy Generator")
    orders = np.column_stack([rng.permutation(b.shape[0]) for _ in range(b.shape[1])])
    return _within_budget(b, budget, orders, skip)


def val_threshold(bids: np.ndarray, threshold: float) -> Recruitment:
    """valThreshold (Exp 5 baseline, no budget): a posted price; every user with cost < threshold trains, paid it."""
    b = _check(bids, 0.0)
    x = (b < threshold).astype(float)
    return Recruitment(x, x * threshold)


def _posted_price(threshold: float) -> Mechanism:
    def mechanism(bids: np.ndarray, budget: float, rng: np.random.Generator | None = None) -> Recruitment:
        return val_threshold(bids, threshold)  # no budget (NB): ``budget`` is ignored

    mechanism.__doc__ = f"valThreshold {threshold}: posted price {threshold}, no budget."
    return mechanism


MECHANISMS: dict[str, Mechanism] = {
    "budget_fair": budget_fair,
    "maxmin_fair": maxmin_fair,
    "gmmfair": gmmfair,
    "greedy_within_budget": greedy_within_budget,
    "random_within_budget": random_within_budget,
    "val_threshold_0.4": _posted_price(0.4),
    "val_threshold_0.6": _posted_price(0.6),
}
BUDGETED = ("budget_fair", "maxmin_fair", "gmmfair", "greedy_within_budget", "random_within_budget")
RANDOMIZED = ("random_within_budget",)  # mechanisms whose outcome depends on the Generator beyond tie-breaking
SWITCHES = {
    "budget_fair": ("payment",),
    "maxmin_fair": ("fractional", "strict", "reallocation", "line5"),
    "greedy_within_budget": ("skip",),
    "random_within_budget": ("skip",),
}


def run_mechanism(
    name: str, bids: np.ndarray, budget: float, rng: np.random.Generator | None = None, **switches: Any
) -> Recruitment:
    """Run mechanism ``name``; ``switches`` that the mechanism does not take are dropped (one dict serves all)."""
    if name not in MECHANISMS:
        raise ValueError(f"unknown mechanism '{name}'; choose one of {', '.join(MECHANISMS)}")
    accepted = {k: v for k, v in switches.items() if k in SWITCHES.get(name, ())}
    return MECHANISMS[name](bids, budget, rng, **accepted)


def truncated_normal(
    n: int, mu: float, sigma: float, rng: np.random.Generator, low: float = 0.0, high: float = 1.0
) -> np.ndarray:
    """``n`` draws of N(mu, sigma^2) conditioned on [low, high] (rejection sampling)."""
    out = np.empty(0)
    while len(out) < n:
        draw = rng.normal(mu, sigma, size=2 * n)
        out = np.concatenate([out, draw[(draw >= low) & (draw <= high)]])
    return out[:n]


def experiment5_bids(n_users: int, rng: np.random.Generator, mu: float, sigma: float) -> np.ndarray:
    """Exp 5 bids (users x 2): task 1 ~ N(mu, sigma^2) truncated to [0, 1] (mu, sigma not in the paper); task 2 has
    the increasing linear density 2x on [0, 1], drawn as sqrt(U)."""
    return np.column_stack([truncated_normal(n_users, mu, sigma, rng), np.sqrt(rng.random(n_users))])


def utility(recruitment: Recruitment, costs: np.ndarray) -> np.ndarray:
    """Eq. (32) summed over tasks: u_i = sum_s (p_{i,s} - c_{i,s} x_{i,s}) (a fractional user bears x of its cost)."""
    return (recruitment.payments - np.asarray(costs) * recruitment.x).sum(axis=1)


def corollary10(y: float) -> tuple[float, float]:
    """Corollary 10 for S = 2, minimum bids x_s ~ Exp(lambda), y = B lambda: P(some task gets no user) under the
    max-min auction, e^-y (1 + y), and under the budget-fair auction, e^-y (2 e^(y/2) - 1). The former is the
    smaller for y > 0 (the paper's text says "strictly greater": an erratum)."""
    return float(np.exp(-y) * (1 + y)), float(np.exp(-y) * (2 * np.exp(y / 2) - 1))


def budget_fair_join_probability(bid: float, budget: float, users: int, tasks: int, cdf: float) -> float:
    """Sec. V-C: the probability that a user bidding ``bid`` joins a task under the budget-fair auction, when the
    other ``users - 1`` bids are i.i.d. with CDF value ``cdf`` = F(bid): sum_t P(bid is t-th smallest) 1{bid <= B/(S t)}
    with P(t-th smallest) = C(users-1, t-1) F^(t-1) (1 - F)^(users-t) (the paper writes the strict B/(S t) > b; the
    two agree for continuous bids)."""
    from math import comb

    return float(
        sum(
            comb(users - 1, t - 1) * cdf ** (t - 1) * (1 - cdf) ** (users - t)
            for t in range(1, users + 1)
            if bid <= budget / (tasks * t)
        )
    )


def winner_set_probabilities(join: np.ndarray) -> dict[tuple[int, ...], float]:
    """Theorem 11's J_W = prod_{i in W} p_i prod_{j not in W} (1 - p_j) for every winner set W (users independent,
    a Poisson binomial model of the auction's winners), keyed by the sorted tuple of W."""
    from itertools import combinations

    p = np.asarray(join, dtype=float)
    n = len(p)
    out = {}
    for k in range(n + 1):
        for w in combinations(range(n), k):
            inside = np.zeros(n, dtype=bool)
            inside[list(w)] = True
            out[w] = float(np.prod(np.where(inside, p, 1 - p)))
    return out
