"""Shapley-fair payoffs and payoff flows under budgets (Trade-off between Payoff and Model Rewards).

Three parties with a synthetic value table v(S) (a bitmask game: entry S is the value of coalition S). Prints the
Shapley values, the payoffs and flows without budgets (Lemmas 3.1, 3.7), then with a budget per party: the cost
scaling lambda* (Lemma 4.1) and the model reward each party then gets.
Run: uv run python examples/payoff_flows.py
"""

from __future__ import annotations

import numpy as np

from fairshare.games.payoff_flows import allocate

# v(S) for S = {}, {0}, {1}, {0,1}, {2}, {0,2}, {1,2}, {0,1,2}: e.g. the test accuracy of a model trained on S's data
VALUES = np.array([0.0, 0.60, 0.70, 0.80, 0.75, 0.84, 0.86, 0.90])
BUDGETS = (0.05, 0.05, 0.05)


def main() -> None:
    free = allocate(VALUES)
    print("Shapley values:", np.round(free.shapley, 4))
    print("payoffs without budgets (positive: receives):", np.round(free.payoff, 4))
    print("payoff flows (row pays column):\n", np.round(free.flows, 4))
    tight = allocate(VALUES, BUDGETS)
    print(f"with budgets {BUDGETS}: lambda* = {np.round(tight.lam, 4)}")
    print("model rewards (value of each party's model):", np.round(tight.model_value, 4))


if __name__ == "__main__":
    main()
