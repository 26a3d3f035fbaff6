"""FedAvg-FT's fine-tuning rate (issue 38, aequa.fedavg_ft.finetune_lr): the clients' initial rate by default, the
schedule's last rate as the registered alternative (workflow/tuned_settings.yaml, aequa_fedavg_ft_lr)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from fairshare.cli import main
from tests.conftest import REPO

METHODS = ("standalone", "fedavg_ft")


def _cfg(finetune_lr: str) -> str:
    """3 clients of digits, 4 rounds: the rate is divided by 10 twice (milestones at rounds 2 and 3)."""
    from fairshare.pipeline.config import load_config

    aequa = load_config(REPO / "config" / "test.yaml")["aequa"]
    aequa.update(clients=3, max_train_samples={"default": 300}, test_subset=120)
    aequa["train"] = {**aequa["train"], "rounds": {"default": 4}}
    aequa["fedavg_ft"] = {**aequa["fedavg_ft"], "finetune_lr": finetune_lr}
    return json.dumps({"seed": 5, "device": "cpu", "aequa": aequa})


def _fedavg_ft(tmp: Path, digits: Path, finetune_lr: str) -> dict:
    args = ["aequa", "run", "--dataset", "digits", "--dataset-file", str(digits), "--partition", "homogeneous"]
    args += ["--cfg", _cfg(finetune_lr)]
    for m in METHODS:
        args += ["--run", "0", m, str(tmp / f"{finetune_lr}_{m}.json"), str(tmp / f"{finetune_lr}_{m}.pt")]
    assert main(args) == 0
    return json.loads((tmp / f"{finetune_lr}_fedavg_ft.json").read_text())


def test_fine_tuning_at_the_initial_rate_moves_the_rewards_away_from_the_global_model(tmp_path, digits):
    initial = _fedavg_ft(tmp_path, digits, "initial")
    last = _fedavg_ft(tmp_path, digits, "last_round")
    assert initial["global_acc"] == last["global_acc"]  # the same FedAvg; only the fine-tuning differs
    spread = {
        name: float(np.mean(np.abs(np.asarray(run["reward_acc"]) - run["global_acc"])))
        for name, run in (("initial", initial), ("last_round", last))
    }
    assert spread["initial"] > spread["last_round"], spread
