"""The auction commands' files: Exp 5's tidy table and the per-mechanism recruitment JSONs that Experiment 6 trains
on must describe the same draws, and a recruitment JSON must hold everything a training rule needs."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from fairshare.cli import main
from fairshare.papers.auctions.commands import read_recruitment
from fairshare.config import validate_config
from fairshare.games import auctions as au


def _cfg() -> dict:
    config = validate_config({"auctions": {"users": 30, "seeds": 2, "budgets": [3, 8]}})
    return {"seed": 5, "auctions": config["auctions"]}


def test_recruitment_files_match_exp5_and_hold_the_winners(tmp_path):
    cfg = json.dumps(_cfg())
    assert main(["auctions", "exp5", "--output", str(tmp_path / "exp5.csv"), "--cfg", cfg]) == 0
    exp5 = pd.read_csv(tmp_path / "exp5.csv")
    assert set(exp5.columns) == {"paper", "experiment", "method", "seed", "round", "budget", "metric", "value"}
    assert len(exp5) == 2 * 2 * len(au.MECHANISMS) * 5  # seeds x budgets x mechanisms x metrics

    paths = [tmp_path / "B8" / m / f"seed{s}.json" for m in ("maxmin_fair", "random_within_budget", "val_threshold_0.4") for s in (0, 1)]
    assert main(["auctions", "recruit", "--budget", "8", "--outputs", *map(str, paths), "--cfg", cfg]) == 0
    for path in paths:
        record, r = read_recruitment(path)
        mech, seed = path.parent.name, int(path.stem[4:])
        assert (record["mechanism"], record["seed"], record["budget"]) == (mech, seed, 8.0)
        rows = exp5[(exp5.method == mech) & (exp5.seed == seed) & (exp5.budget == 8)].set_index("metric").value
        np.testing.assert_allclose(r.take_up, [rows["take_up_task1"], rows["take_up_task2"]])  # the same draw as Exp 5
        np.testing.assert_allclose(r.spent, rows["spent"])
        bids = np.array(record["bids"])
        assert bids.shape == (30, 2)
        for entry in record["tasks"]:
            s, winners = entry["task"], np.array(entry["winners"], dtype=int)
            assert np.all(np.array(entry["participation"]) > 0)
            np.testing.assert_array_equal(r.winners(s), winners)
            assert np.all(np.array(entry["payments"]) >= np.array(entry["participation"]) * bids[winners, s] - 1e-12)


def test_recruit_rejects_a_path_without_mechanism_and_seed(tmp_path, capsys):
    assert main(["auctions", "recruit", "--budget", "8", "--outputs", str(tmp_path / "x.json"), "--cfg", json.dumps(_cfg())]) == 2
    assert "expected .../<mechanism>/seed<n>.json" in capsys.readouterr().err
