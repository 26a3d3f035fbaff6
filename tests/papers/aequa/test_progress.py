"""Aequa's progress lines (issue 39): each names the run's place in its job and the run's metric (the global model's
test accuracy; the clients' mean for standalone training), and computing that metric changes no result."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fairshare.cli import main
from fairshare.learning import rounds
from fairshare.learning.progress import Progress
from tests.conftest import REPO

METHODS = ("standalone", "fedavg_ft", "cgsv", "iafl", "aequa")


def _cfg() -> str:
    """A tiny Aequa setting: 3 clients of digits, 3 rounds."""
    from fairshare.pipeline.config import load_config

    aequa = load_config(REPO / "config" / "test.yaml")["aequa"]
    aequa.update(
        clients=3, max_train_samples={"default": 300}, test_subset=120, allocation={**aequa["allocation"], "iters": 200}
    )
    aequa["train"] = {**aequa["train"], "rounds": {"default": 3}}
    return json.dumps({"seed": 5, "device": "cpu", "aequa": aequa})


def _job(tmp: Path, digits: Path, tag: str) -> dict[str, dict]:
    """`aequa run` of seed 0's five methods in one job; each run's result without its provenance."""
    args = ["aequa", "run", "--dataset", "digits", "--dataset-file", str(digits), "--partition", "homogeneous"]
    args += ["--cfg", _cfg()]
    for m in METHODS:
        args += ["--run", "0", m, str(tmp / f"{tag}_{m}.json"), str(tmp / f"{tag}_{m}.pt")]
    assert main(args) == 0
    results = {m: json.loads((tmp / f"{tag}_{m}.json").read_text()) for m in METHODS}
    return {m: {k: v for k, v in out.items() if k != "metadata"} for m, out in results.items()}


def test_lines_name_the_run_and_its_metric_and_the_metric_changes_nothing(tmp_path, digits, monkeypatch, capsys):
    monkeypatch.setattr(rounds, "Progress", lambda *a, **k: Progress(*a, **{**k, "interval": 0.0}))  # every round
    shown = _job(tmp_path, digits, "shown")
    lines = [line for line in capsys.readouterr().err.splitlines() if ": round " in line]
    monkeypatch.setattr(rounds, "Progress", lambda *a, **k: Progress(*a, **{**k, "enabled": False}))  # never
    assert _job(tmp_path, digits, "quiet") == shown
    for k, method in enumerate(METHODS, start=1):
        mine = [line for line in lines if f" {method} seed=0 (run {k} of {len(METHODS)}): round " in line]
        metric = "mean client accuracy" if method == "standalone" else "accuracy"
        found = [re.search(rf"round (\d)/(\d), {metric} 0\.\d{{4}}, \d+ samples/s$", line) for line in mine]
        assert all(found) and [int(f[1]) for f in found] == list(range(1, int(found[0][2]) + 1)), mine
    assert len(lines) == sum(1 for line in lines if re.search(r"\(run [1-5] of 5\)", line)) >= 2 * len(METHODS)
    last = next(line for line in lines if " fedavg_ft " in line and "round 3/3" in line)
    assert f"accuracy {shown['fedavg_ft']['global_acc']:.4f}" in last  # the metric is the run's global accuracy
