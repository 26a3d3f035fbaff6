"""Headline metrics for `dvc metrics show`: final round, mean over seeds, read from the tidy tables as written."""

from __future__ import annotations

import io

import pandas as pd

from fairshare.pipeline.headline import aequa_headline, auctions_headline, mmfl_headline

ACROSS = """experiment,method,alpha,seed,round,min_acc,avg_acc,var_acc
exp1,fedfair,3.0,0,1,0.1,0.2,0.0
exp1,fedfair,3.0,0,2,0.3,0.4,0.0
exp1,fedfair,3.0,1,2,0.5,0.4,0.0
exp1,random,,0,2,0.2,0.3,0.0
exp4,fedfair,1.0,0,2,0.6,0.6,0.0
exp4,fedfair,10.0,0,2,0.7,0.7,0.0
"""


def test_mmfl_final_min_accuracy_per_experiment_and_method():
    out = mmfl_headline(pd.read_csv(io.StringIO(ACROSS)))
    assert out == {
        "final_min_accuracy": {
            "exp1": {"fedfair": 0.4, "random": 0.2},
            "exp4": {"fedfair_alpha1": 0.6, "fedfair_alpha10": 0.7},
        }
    }


def test_aequa_mean_pearson_per_method_skips_undefined_values():
    frame = pd.DataFrame(
        {"method": ["aequa", "aequa", "cgsv", "cgsv"], "metric": ["pearson"] * 4, "value": [0.5, 0.7, None, 0.9]}
    )
    assert aequa_headline(frame) == {"mean_pearson": {"aequa": 0.6, "cgsv": 0.9}}


def test_auctions_exp6_final_min_accuracy_per_mechanism():
    frame = pd.DataFrame({"method": ["gmmfair"] * 3, "seed": [0, 0, 1], "round": [1, 2, 2], "min_acc": [0.1, 0.2, 0.4]})
    assert auctions_headline(frame) == {"exp6_final_min_accuracy": {"gmmfair": 0.3}}
