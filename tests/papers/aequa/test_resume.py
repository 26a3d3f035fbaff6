"""Aequa's training jobs through the round driver: an Aequa job and a baseline job (CGSV) killed mid-run resume to
exactly the result of an uninterrupted run, and a checkpoint written under another config is discarded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.kill_resume import kill_mid_run, run_command

ROUNDS = 12


def _cfg(**train) -> str:
    """A tiny Aequa setting: 3 clients of digits, 12 rounds (enough that a kill lands mid-run)."""
    from fairshare.config import load_config

    aequa = load_config(REPO / "config" / "test.yaml")["aequa"]
    aequa.update(
        clients=3, max_train_samples={"default": 450}, test_subset=150, allocation={**aequa["allocation"], "iters": 300}
    )
    aequa["train"] = {**aequa["train"], "rounds": {"default": ROUNDS}, **train}
    return json.dumps({"seed": 3, "device": "cpu", "aequa": aequa})


def _args(tmp: Path, method: str, output: str, cfg: str, standalone: Path | None) -> list[str]:
    args = [
        "aequa",
        "run",
        "--dataset",
        "digits",
        "--dataset-file",
        str(tmp / "digits.npz"),
        "--partition",
        "homogeneous",
        "--method",
        method,
        "--seed-index",
        "0",
        "--output",
        str(tmp / output),
        "--checkpoint",
        str(tmp / f"{output}.pt"),
        "--cfg",
        cfg,
    ]
    return args + (["--standalone", str(standalone)] if standalone else [])


def _result(path: Path) -> dict:
    """A run's JSON without its wall-clock seconds and provenance (which differ between any two runs)."""
    out = json.loads(path.read_text())
    out.pop("seconds")
    out.pop("metadata")
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """The digits cache and the setting's standalone contributions."""
    from fairshare import seeding
    from fairshare.data.datasets import build_dataset, save_cache

    tmp = tmp_path_factory.mktemp("aequa_resume")
    save_cache(build_dataset("digits", rng=seeding.generator(3, "dataset")), tmp / "digits.npz")
    run_command(_args(tmp, "standalone", "standalone.json", _cfg(), None))
    return tmp


@pytest.mark.parametrize("method", ["aequa", "cgsv"])
def test_killed_job_resumes_bit_identically(workdir, method):
    cfg, standalone = _cfg(), workdir / "standalone.json"
    run_command(_args(workdir, method, f"{method}_whole.json", cfg, standalone))
    args = _args(workdir, method, f"{method}_killed.json", cfg, standalone)
    killed_at = kill_mid_run(args, workdir / f"{method}_killed.json.pt", ROUNDS)
    assert 1 <= killed_at < ROUNDS and not (workdir / f"{method}_killed.json").exists()
    rerun = run_command(args)
    assert "discarding" not in rerun.stderr
    assert _result(workdir / f"{method}_killed.json") == _result(workdir / f"{method}_whole.json")
    assert not (workdir / f"{method}_killed.json.pt").exists()  # removed once the output is written


def test_config_change_discards_the_stale_checkpoint(workdir):
    standalone = workdir / "standalone.json"
    changed = _cfg(lr=0.02)
    run_command(_args(workdir, "aequa", "changed_whole.json", changed, standalone))
    args = _args(workdir, "aequa", "stale.json", _cfg(), standalone)
    kill_mid_run(args, workdir / "stale.json.pt", ROUNDS)
    args[args.index("--cfg") + 1] = changed
    rerun = run_command(args)
    assert "discarding checkpoint" in rerun.stderr and "other settings" in rerun.stderr
    assert _result(workdir / "stale.json") == _result(workdir / "changed_whole.json")
