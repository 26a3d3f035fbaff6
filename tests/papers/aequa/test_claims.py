"""Aequa's claims: the Pearson bar is checked on each setting's mean over seeds (as the paper's tables report), and
seeds below the bar are still named."""

from __future__ import annotations

import numpy as np

from fairshare.metrics import pearson
from fairshare.papers.aequa.claims import claims
from fairshare.papers.aequa.experiment import tidy_metrics

CONTRIBUTIONS = np.linspace(0.6, 0.9, 6)


def _aequa_run(seed: int, rewards: np.ndarray) -> dict:
    return {
        "method": "aequa",
        "dataset": "digits",
        "dataset_used": "digits",
        "partition": "qskew",
        "scheme": "quantity_skew",
        "seed": seed,
        "rounds": 1,
        "seconds": 0.0,
        "contributions": CONTRIBUTIONS.tolist(),
        "reward_acc": rewards.tolist(),
        "global_acc": float(rewards.max()),
        "width_reward_width": CONTRIBUTIONS.tolist(),
        "width_reward_acc": rewards.tolist(),
        "ir_infeasible": [False] * len(rewards),
        "curve": [0.5, float(rewards.max())],
    }


def _rho_claim(rewards_per_seed: list[np.ndarray]):
    runs = [_aequa_run(s, r) for s, r in enumerate(rewards_per_seed)]
    cfg = {"claims": {"pearson_min": 0.9}, "width_reward": {"normalization": "minmax"}, "p_min_ablation": 0.05}
    return claims(tidy_metrics(runs), runs, cfg)[0]


def test_pearson_bar_uses_the_mean_over_seeds_and_names_low_seeds():
    tight = CONTRIBUTIONS + 0.05
    loose = np.array([0.80, 0.80, 0.80, 0.80, 0.95, 0.95])  # IR holds, rank order kept only coarsely
    rho_loose = pearson(CONTRIBUTIONS, loose)
    assert 0.8 < rho_loose < 0.9 and (2 + rho_loose) / 3 >= 0.9
    row = _rho_claim([tight, loose, tight])
    assert row.holds is True and row.status == "match"
    assert f"digits/qskew seed 1 {rho_loose:.3f}" in row.note

    row = _rho_claim([loose, loose, tight])
    assert row.holds is False and row.status == "differs" and "below: digits/qskew" in row.note
