"""The participation rows read rho against the rounds each client joined (``pearson_joined``); identical rewards
make it NaN, which counts as 0 there as in every rho column (issue 42), never a "+nan [+nan, +nan]" interval."""

from __future__ import annotations

import math

import numpy as np

from fairshare.papers.aequa_extensions.claims import _participation_claims
from fairshare.papers.aequa_extensions.experiment import participation_results

CLIENTS, SEEDS = 8, (0, 1, 2)
RATES = np.linspace(0.2, 0.9, CLIENTS)


def run(method: str, seed: int, rewards) -> dict:
    joined = (RATES * 40).round() + seed  # rounds each client joined, rising with its rate
    return {
        "dataset": "digits",
        "method": method,
        "seed": seed,
        "global_acc": 0.9 + 0.01 * seed,
        "rates": RATES.tolist(),
        "joined": joined.tolist(),
        "reward_acc": list(rewards),
    }


def test_identical_rewards_count_as_no_correlation_with_participation():
    follows = {s: (0.6 + 0.3 * RATES + np.random.default_rng(s).normal(0, 0.01, CLIENTS)).tolist() for s in SEEDS}
    # FedAvg-FT: one reward for every client on seeds 1 and 2 (np.std 1.1e-16: NaN), a weak correlation on seed 0
    fedavg = {0: (0.9 + 0.02 * np.sin(np.arange(CLIENTS))).tolist(), 1: [0.9513284517602851] * CLIENTS}
    fedavg[2] = [0.9829310273060272] * CLIENTS
    runs = [run("aequa", s, follows[s]) for s in SEEDS] + [run("fedavg_ft", s, fedavg[s]) for s in SEEDS]
    _, tidy = participation_results(runs)
    rho = tidy[tidy.method == "fedavg_ft"].set_index("seed").pearson_joined
    assert math.isnan(rho[1]) and math.isnan(rho[2]) and not math.isnan(rho[0])
    best = _participation_claims(tidy, ["digits"], [0.2, 0.9], 0.1, nan_rho=0.0)[0]
    assert best.status == "match" and "aequa > fedavg_ft" in best.interval and "nan" not in best.interval
    assert "FedAvg-FT" in best.reproduced and "(NaN on 2 of 3 seeds)" in best.reproduced
