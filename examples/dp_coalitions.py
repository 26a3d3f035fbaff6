"""Data sharing with endogenous differential-privacy levels: which coalitions are stable, and for which sigma^2.

Five agents with privacy costs c = (0.05, 0.1, 0.2, 0.4, 0.8) and cost exponent alpha = 0.5. Prints the exact
sigma^2 window on which each coalition is a Nash equilibrium, the stable coalitions at one sigma^2, and the price of
stability against the designer's optimum (Section 3.2 of the paper).
Run: uv run python examples/dp_coalitions.py
"""

from __future__ import annotations

from fairshare.games.dp_coalitions import price_of_stability, stability_windows, stable_coalitions

COSTS = (0.05, 0.1, 0.2, 0.4, 0.8)
ALPHA = 0.5
SIGMA2 = 1.2


def main() -> None:
    windows = stability_windows(COSTS, ALPHA, "nash")
    print(f"{len(windows)} coalitions are Nash-stable for some sigma^2:")
    for w in windows[:8]:
        print(f"  members {w.members}: sigma^2 in [{w.lo:.4g}, {w.hi:.4g})")
    for notion in ("nash", "robust"):
        print(f"{notion} equilibria at sigma^2 = {SIGMA2}: {stable_coalitions(COSTS, ALPHA, SIGMA2, notion)}")
    pos_sc, pos_var = price_of_stability(COSTS, SIGMA2, ALPHA, "nash")
    print(f"price of stability at sigma^2 = {SIGMA2}: social cost {pos_sc:.4f}, variance {pos_var:.4f}")


if __name__ == "__main__":
    main()
