"""The auction commands' files: Exp 5's tidy table and the per-mechanism recruitment JSONs that Experiment 6 trains
on describe the same draws, a recruitment JSON holds everything a training job needs, and an Exp 6 training job
killed mid-run resumes to byte-identical output (a checkpoint of another config is discarded)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairshare.cli import main
from fairshare.games import auctions as au
from fairshare.io import read_json
from fairshare.pipeline.config import validate_config
from tests.conftest import REPO
from tests.support.kill_resume import kill_mid_run

ROUNDS = 6


def _cfg() -> dict:
    config = validate_config({"auctions": {"users": 30, "seeds": 2, "budgets": [3, 8]}})
    return {"seed": 5, "auctions": config["auctions"]}


def _recruit(tmp: Path, runs: list[tuple[str, int]], budget: str = "8") -> list[Path]:
    paths = [tmp / f"B{budget}" / m / f"seed{s}.json" for m, s in runs]
    args = ["auctions", "recruit", "--budget", budget, "--mechanisms", *[m for m, _ in runs]]
    args += ["--seeds", *[str(s) for _, s in runs], "--outputs", *map(str, paths), "--cfg", json.dumps(_cfg())]
    assert main(args) == 0
    return paths


def test_recruitment_files_match_exp5_and_hold_the_winners(tmp_path):
    assert main(["auctions", "exp5", "--output", str(tmp_path / "exp5.csv"), "--cfg", json.dumps(_cfg())]) == 0
    exp5 = pd.read_csv(tmp_path / "exp5.csv")
    assert set(exp5.columns) == {"paper", "experiment", "method", "seed", "round", "budget", "metric", "value"}
    assert len(exp5) == 2 * 2 * len(au.MECHANISMS) * 5  # seeds x budgets x mechanisms x metrics

    runs = [(m, s) for m in ("maxmin_fair", "random_within_budget", "val_threshold_0.4") for s in (0, 1)]
    for (mech, seed), path in zip(runs, _recruit(tmp_path, runs)):
        record = read_json(path)
        r = au.Recruitment.from_record(record)
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


def test_recruit_needs_one_mechanism_and_seed_per_output(tmp_path, capsys):
    args = ["auctions", "recruit", "--budget", "8", "--mechanisms", "gmmfair", "--seeds", "0", "1"]
    args += ["--outputs", str(tmp_path / "a.json"), "--cfg", json.dumps(_cfg())]
    assert main(args) == 2
    assert "one entry per recruitment file" in capsys.readouterr().err


def _exp6_cfg(**exp6) -> str:
    """The test profile's mmfl block and a 6-round Exp 6 on 30 users."""
    from fairshare.pipeline.config import load_config

    config = load_config(REPO / "config" / "test.yaml")
    config["mmfl"]["test_subset"] = 100
    config["auctions"]["exp6"].update(rounds=ROUNDS, local_epochs=1, **exp6)
    return json.dumps(
        {"seed": 5, "device": "cpu", "mmfl": config["mmfl"], "auctions": {"exp6": config["auctions"]["exp6"]}}
    )


def _exp6_args(tmp: Path, recruitment: Path | list[Path], name: str, cfg: str) -> list[str]:
    """A job training on ``recruitment`` (one file, or several in turn: outputs ``<name>_<k>.csv``)."""
    files = recruitment if isinstance(recruitment, list) else [recruitment]
    stems = [name] if not isinstance(recruitment, list) else [f"{name}_{k}" for k in range(len(files))]
    args = ["auctions", "exp6", "--recruitment", *map(str, files)]
    args += ["--datasets", f"digits={tmp / 'digits.npz'}", f"synthetic={tmp / 'synthetic.npz'}"]
    args += ["--output", *[str(tmp / f"{stem}.csv") for stem in stems]]
    return args + ["--checkpoint", *[str(tmp / f"{stem}.pt") for stem in stems], "--cfg", cfg]


@pytest.fixture(scope="module")
def exp6_dir(tmp_path_factory) -> tuple[Path, Path]:
    """The two datasets and a max-min fair recruitment of 30 users at B = 8."""
    from fairshare import seeding
    from fairshare.data.datasets import build_dataset, save_cache

    tmp = tmp_path_factory.mktemp("exp6_resume")
    for name in ("digits", "synthetic"):
        save_cache(build_dataset(name, rng=seeding.generator(5, "dataset")), tmp / f"{name}.npz")
    return tmp, _recruit(tmp, [("maxmin_fair", 0), ("maxmin_fair", 1)])


def test_exp6_job_killed_mid_run_resumes_bit_identically(exp6_dir, capsys):
    tmp, (recruitment, _) = exp6_dir
    cfg = _exp6_cfg()
    assert main(_exp6_args(tmp, recruitment, "whole", cfg)) == 0
    args = _exp6_args(tmp, recruitment, "killed", cfg)
    assert 1 <= kill_mid_run(args, tmp / "killed.pt", ROUNDS) < ROUNDS
    assert main(args) == 0
    assert "discarding" not in capsys.readouterr().err
    assert (tmp / "killed.csv").read_bytes() == (tmp / "whole.csv").read_bytes()
    assert not (tmp / "killed.pt").exists()
    frame = pd.read_csv(tmp / "whole.csv")
    assert sorted(frame["round"].unique()) == list(range(1, ROUNDS + 1)) and set(frame.method) == {"maxmin_fair"}


def test_exp6_config_change_discards_the_stale_checkpoint(exp6_dir, capsys):
    tmp, (recruitment, _) = exp6_dir
    new = _exp6_cfg(size_range=[6, 9])
    assert main(_exp6_args(tmp, recruitment, "clean", new)) == 0
    args = _exp6_args(tmp, recruitment, "stale", _exp6_cfg())
    kill_mid_run(args, tmp / "stale.pt", ROUNDS)
    args[args.index("--cfg") + 1] = new
    assert main(args) == 0
    assert "discarding checkpoint" in capsys.readouterr().err
    assert (tmp / "stale.csv").read_bytes() == (tmp / "clean.csv").read_bytes()


def test_exp6_job_of_two_seeds_equals_a_job_per_seed(exp6_dir):
    """Seeds 0 and 1 in one job (as runs_per_job `all` trains every (mechanism, seed)) write the bytes
    of one job each."""
    tmp, recruitments = exp6_dir
    cfg = _exp6_cfg()
    for k, recruitment in enumerate(recruitments):
        assert main(_exp6_args(tmp, recruitment, f"single{k}", cfg)) == 0
    assert main(_exp6_args(tmp, recruitments, "grouped", cfg)) == 0
    for k in (0, 1):
        assert (tmp / f"grouped_{k}.csv").read_bytes() == (tmp / f"single{k}.csv").read_bytes()
    assert not list(tmp.glob("grouped_*.pt"))
    assert set(pd.read_csv(tmp / "grouped_1.csv").seed) == {1}
