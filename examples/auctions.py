"""Client recruitment for multi-model FL (Section V of the FedFairMMFL paper): auctions under one budget.

40 users bid for two tasks (task 1 cheaper, as in Exp 5); each mechanism recruits within budget B. Prints how many
users each task gets and the total payment, then Corollary 10's probabilities that some task gets no user.
Run: uv run python examples/auctions.py
"""

from __future__ import annotations

from fairshare import seeding
from fairshare.games.auctions import corollary10, experiment5_bids, run_mechanism

USERS, BUDGET, SEED = 40, 6.0, 0
MECHANISMS = ("budget_fair", "maxmin_fair", "greedy_within_budget", "random_within_budget")


def main() -> None:
    bids = experiment5_bids(USERS, seeding.generator(SEED, "game"), mu=0.2, sigma=0.2)
    print(f"{USERS} users, budget {BUDGET}: recruited per task (task 1, task 2) and total payment")
    for name in MECHANISMS:
        r = run_mechanism(name, bids, BUDGET, seeding.generator(SEED, "sampling"))
        take_up = ", ".join(f"{t:.2f}" for t in r.take_up)
        print(f"  {name:<22} ({take_up})  paid {r.payments.sum():.3f}")
    for y in (0.5, 1.0, 2.0):
        maxmin, fair = corollary10(y)
        print(f"Corollary 10, B*lambda = {y}: P(a task gets no user) max-min {maxmin:.4f}, budget-fair {fair:.4f}")


if __name__ == "__main__":
    main()
