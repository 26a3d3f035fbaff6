"""Model-sharing games (Donahue & Kleinberg, AAAI 2021): exact expected errors and stable coalitions.

Three players estimate a mean from 5, 5 and 25 samples (mu_e = 10, sigma^2 = 1: the paper's Table 2). Prints each
player's exact error alone and in the grand coalition under uniform federation, then every core-stable partition.
Run: uv run python examples/model_sharing.py
"""

from __future__ import annotations

from fairshare.games.model_sharing import errors
from fairshare.games.stability import describe, stable_partitions

SIZES = (5, 5, 25)
MU_E, SIGMA2 = 10, 1


def main() -> None:
    alone = [errors([n], mu_e=MU_E, sigma2=SIGMA2, method="uniform", exact=True)[0] for n in SIZES]
    grand = errors(SIZES, mu_e=MU_E, sigma2=SIGMA2, method="uniform", exact=True)
    print("player  samples  error alone  error in the grand coalition (uniform federation)")
    for name, n, a, g in zip("abc", SIZES, alone, grand):
        print(f"{name:>6}  {n:>7}  {float(a):>11.4f}  {float(g):>11.4f}")
    for notion in ("core", "individual"):
        found = stable_partitions(SIZES, mu_e=MU_E, sigma2=SIGMA2, method="uniform", notion=notion)
        print(f"{notion}-stable partitions: " + "; ".join(describe(p) for p in found))


if __name__ == "__main__":
    main()
