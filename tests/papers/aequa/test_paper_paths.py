"""The paper profile's Aequa jobs on tiny stand-ins with each dataset's exact layout: a CIFAR-10 job (slimmable
ResNet-18 with switchable batch norm on the width bucket) and an SST job (slimmable LSTM on int64 token ids) set up
and train every method through the command the rules call, with the config as the pipeline passes it (the merged
config/config.yaml + config/paper.yaml, as JSON). Issue 19: every CIFAR job used to crash at set-up (the width
bucket is a numpy array)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO

METHODS = ("standalone", "fedavg_ft", "cgsv", "iafl", "aequa")
TINY = {  # the paper profile's models and code paths, at a size a test can train
    "clients": 3,
    "resnet_base": 4,
    "lstm": {"embed_dim": 8, "hidden": 6},
    "test_subset": 30,
    "train": {"rounds": {"default": 1, "cifar10": 1, "cifar100": 1, "sst": 1}, "batch_size": 16},
    "allocation": {"iters": 100},
}


def _paper_cfg(executor: str) -> str:
    from fairshare.pipeline.config import load_config

    cfg = load_config(
        REPO / "config" / "config.yaml",
        REPO / "config" / "paper.yaml",
        overrides={"device": "cpu", "aequa": {**TINY, "executor": executor}},
    )
    return json.dumps({"seed": cfg["seed"], "device": cfg["device"], "aequa": cfg["aequa"]})


@pytest.mark.parametrize(
    "dataset, executor, model",
    [("cifar10", "auto", "aequa_resnet18"), ("sst", "auto", "aequa_lstm"), ("sst", "sequential", "aequa_lstm")],
)
def test_paper_profile_job_sets_up_and_trains_every_method(tmp_path, dataset, executor, model):
    from fairshare.cli import main
    from fairshare.data.datasets import save_cache
    from fairshare.data.stand_in import stand_in_dataset

    save_cache(stand_in_dataset(dataset, n_train=120, n_test=30, seed=1), tmp_path / f"{dataset}.npz")
    args = ["aequa", "run", "--dataset", dataset, "--dataset-file", str(tmp_path / f"{dataset}.npz")]
    args += ["--partition", "homogeneous", "--cfg", _paper_cfg(executor)]
    for m in METHODS:
        args += ["--run", "0", m, str(tmp_path / f"{m}.json"), str(tmp_path / f"{m}.pt")]
    assert main(args) == 0
    runs = {m: json.loads((tmp_path / f"{m}.json").read_text()) for m in METHODS}
    assert {r["model"] for r in runs.values()} == {model}
    assert runs["aequa"]["input_shape"] == ([3, 32, 32] if dataset == "cifar10" else [56])
    assert len(runs["aequa"]["reward_acc"]) == 3 and len(runs["cgsv"]["reward_acc"]) == 3
    if dataset == "cifar10":  # the width bucket p_min, p_min + 0.05, ..., 1 of the switchable batch norm
        assert runs["aequa"]["widths"][0] == 0.25 and runs["aequa"]["widths"][-1] == 1.0
        assert len(runs["aequa"]["widths"]) == 16
