"""The mmfl settings and tables: alpha is a run parameter and a result column, never read back from a name."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairshare.papers.mmfl.experiment import Settings, summaries, table2_markdown
from fairshare.pipeline.config import validate_config


def _settings(**block) -> Settings:
    experiments = [
        {"name": "exp2_s6", "tasks": ["digits", "synthetic"], "clients": 4, "active_rate": 1.0, "size_range": [20, 30],
         "partition": "iid", "rounds": 2, "methods": ["fedfair", "random", "round_robin"]},
        {"name": "exp4", "tasks": ["digits", "synthetic"], "clients": 4, "active_rate": 1.0, "size_range": [20, 30],
         "partition": "iid", "rounds": 2, "methods": ["random", "fedfair"], "alphas": [1, 10], "seeds": 1},
    ]  # fmt: skip
    block = {"seeds": 2, "table2_experiments": ["exp2_s6"], "per_task_experiment": "exp2_s6", **block}
    config = validate_config({"mmfl": {"experiments": experiments, **block}})
    return Settings.from_block(config["mmfl"])


def test_runs_carry_alpha_as_a_value():
    runs = {(r.experiment, r.method, r.alpha, r.seed): r.label for r in _settings().runs()}
    assert runs == {
        ("exp2_s6", "fedfair", 3.0, 0): "fedfair",
        ("exp2_s6", "fedfair", 3.0, 1): "fedfair",
        ("exp2_s6", "random", None, 0): "random",
        ("exp2_s6", "random", None, 1): "random",
        ("exp2_s6", "round_robin", None, 0): "round_robin",
        ("exp2_s6", "round_robin", None, 1): "round_robin",
        ("exp4", "random", None, 0): "random",
        ("exp4", "fedfair", 1.0, 0): "fedfair_a1",
        ("exp4", "fedfair", 10.0, 0): "fedfair_a10",
    }
    assert _settings(alpha=2).run("exp2_s6", "fedfair", 2.0, 1).label == "fedfair"


def _runs() -> pd.DataFrame:
    """Two rounds, two tasks: fedfair at alpha 1 and 10 and random (no alpha) in exp4; the same shape in exp2_s6."""
    rows = []
    for exp, method, alpha, base in (("exp4", "fedfair", 1.0, 0.3), ("exp4", "fedfair", 10.0, 0.5), ("exp4", "random", np.nan, 0.4),
                                     ("exp2_s6", "fedfair", 3.0, 0.6), ("exp2_s6", "random", np.nan, 0.5)):  # fmt: skip
        for r in (1, 2):
            for task in (0, 1):
                acc = base + 0.1 * r - 0.2 * task
                rows.append({"experiment": exp, "method": method, "alpha": alpha, "seed": 0, "round": r, "task": task,
                             "task_name": f"t#{task}", "accuracy": acc, "loss": 1 - acc, "clients": 2})  # fmt: skip
    return pd.DataFrame(rows)


def test_tables_keep_runs_without_alpha_and_separate_alphas():
    tables = summaries(_runs(), _settings())
    across = tables["across_tasks"]
    assert len(across) == 5 * 2  # five runs (random without alpha included) x two rounds
    final = across[(across.experiment == "exp4") & (across["round"] == 2)].set_index(["method", "alpha"], drop=False)
    np.testing.assert_allclose(final.min_acc.to_numpy(), [0.3, 0.5, 0.4])
    np.testing.assert_allclose(final.var_acc, np.var([0.0, 0.2]))
    assert list(tables["table2"].method) == ["fedfair", "random"] and tables["table2"].alpha.isna().tolist() == [
        False,
        True,
    ]
    assert set(tables["summary"].columns) >= {
        "paper",
        "experiment",
        "method",
        "alpha",
        "seed",
        "round",
        "metric",
        "value",
    }
    assert len(tables["rounds_to_threshold"]) == 5 * 2  # runs x thresholds (0.5, 0.7)
    assert "| exp2_s6 | fedfair | 3 | 0.700 | 0.600 | 1 |" in table2_markdown(tables["table2"])


def test_training_defaults_to_faithful_and_chunk_stays_out_of_the_checkpoint_hash():
    import pytest

    from fairshare.pipeline.config import ConfigError

    train = _settings().training
    assert (train.fidelity, train.precision, train.chunk) == ("faithful", "fp32", None)
    assert train.lr_decay == {"default": 0.98, "cifar10": 1.0}
    assert "chunk" not in train.job_settings() and train.job_settings()["fidelity"] == "faithful"
    assert _settings(chunk=4).training.job_settings() == train.job_settings()  # memory only: a checkpoint stays valid
    assert _settings(precision="bf16").training.job_settings() != train.job_settings()
    with pytest.raises(ConfigError, match="fidelity"):
        _settings(fidelity="authors")


def test_jobs_hand_precision_and_chunk_to_the_engine(monkeypatch):
    """A multi-model FL run and an auctions Exp 6 run train their tasks at the block's precision, with its chunk."""
    from fairshare import seeding
    from fairshare.data.datasets import build_dataset
    from fairshare.games import auctions as au
    from fairshare.learning.mmfl import FIDELITY
    from fairshare.papers.auctions.experiment import Exp6, exp6_job
    from fairshare.papers.mmfl.experiment import run_job

    seen = []

    def fake_run_mmfl(tasks, **kwargs):
        seen.append(({t.settings.precision for t in tasks}, kwargs["chunk"], {t.fidelity for t in tasks}))
        return [
            {"round": 1, "task": 0, "task_name": "t", "accuracy": 0.5, "loss": 1.0, "clients": 1, "collapsed": False}
        ], None

    monkeypatch.setattr("fairshare.learning.mmfl.run_mmfl", fake_run_mmfl)
    datasets = {n: build_dataset(n, rng=seeding.generator(0, "dataset")) for n in ("digits", "synthetic")}
    settings = _settings(precision="bf16", chunk=3, fidelity="corrected")
    run_job(settings, settings.runs()[0], datasets, root=0, device="cpu", checkpoint=None)
    config = validate_config({"auctions": {"exp6": {"tasks": ["digits", "synthetic"], "seeds": 1}}})
    exp6 = Exp6.from_block(config["auctions"]["exp6"])
    x = np.ones((4, 2))
    record = {**au.Recruitment(x, x).to_record(), "mechanism": "gmmfair", "seed": 0, "budget": 1.0, "n_users": 4}
    exp6_job(exp6, settings.training, record, datasets, root=0, device="cpu", checkpoint=None)
    assert seen == [({"bf16"}, 3, {FIDELITY["corrected"]})] * 2
