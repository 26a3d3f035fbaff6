"""Aequa's training jobs through the round driver. A job trains several runs (seeds and methods of one setting):
each seed's results equal those of a job training that seed alone; a job killed mid-run (Snakemake then deletes
its outputs) resumes every run to exactly the result of an uninterrupted job, finished runs from the results kept
beside their checkpoints; a checkpoint or kept result written under another config is discarded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.kill_resume import kill_mid_run, run_command

ROUNDS = 12
METHODS = ("standalone", "cgsv", "aequa")


def _cfg(**train) -> str:
    """A tiny Aequa setting: 3 clients of digits, 12 rounds (enough that a kill lands mid-run)."""
    from fairshare.pipeline.config import load_config

    aequa = load_config(REPO / "config" / "test.yaml")["aequa"]
    aequa.update(
        clients=3, max_train_samples={"default": 450}, test_subset=150, allocation={**aequa["allocation"], "iters": 300}
    )
    aequa["train"] = {**aequa["train"], "rounds": {"default": ROUNDS}, **train}
    return json.dumps({"seed": 3, "device": "cpu", "aequa": aequa})


def _out(tmp: Path, tag: str, seed: int, method: str, suffix: str = "json") -> Path:
    return tmp / f"{tag}_{method}_seed{seed}.{suffix}"


def _args(tmp: Path, tag: str, seeds: list[int], cfg: str, methods=METHODS) -> list[str]:
    """`aequa run` of the given seeds and methods, outputs and checkpoints named after ``tag``."""
    args = ["aequa", "run", "--dataset", "digits", "--dataset-file", str(tmp / "digits.npz")]
    args += ["--partition", "homogeneous", "--cfg", cfg]
    for s in seeds:
        for m in methods:
            args += ["--run", str(s), m, str(_out(tmp, tag, s, m)), str(_out(tmp, tag, s, m, "pt"))]
    return args


def _result(path: Path) -> dict:
    """A run's JSON without its provenance (the libraries a job has imported so far, the git revision)."""
    out = json.loads(path.read_text())
    assert "seconds" not in out  # wall-clock time goes to the job's log, never into a result
    out.pop("metadata")
    return out


def _same(tmp: Path, tag: str, reference: str, seeds: list[int], methods=METHODS) -> bool:
    return all(_result(_out(tmp, tag, s, m)) == _result(_out(tmp, reference, s, m)) for s in seeds for m in methods)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """The digits cache and an uninterrupted job training seeds 0 and 1 (tag ``whole``)."""
    from fairshare import seeding
    from fairshare.data.datasets import build_dataset, save_cache

    tmp = tmp_path_factory.mktemp("aequa_resume")
    save_cache(build_dataset("digits", rng=seeding.generator(3, "dataset")), tmp / "digits.npz")
    run_command(_args(tmp, "whole", [0, 1], _cfg()))
    assert not list(tmp.glob("whole_*.pt"))  # every checkpoint removed once the job's outputs are written
    return tmp


def test_a_seed_trained_with_others_equals_a_job_of_its_own(workdir):
    run_command(_args(workdir, "alone", [1], _cfg()))
    assert _same(workdir, "alone", "whole", [1])


@pytest.mark.parametrize("method", ["aequa", "cgsv"])
def test_killed_job_resumes_bit_identically(workdir, method):
    args = _args(workdir, method, [0, 1], _cfg())
    killed_at = kill_mid_run(args, _out(workdir, method, 1, method, "pt"), ROUNDS)
    assert 1 <= killed_at < ROUNDS and _out(workdir, method, 0, "aequa").exists()
    assert _out(workdir, method, 0, "aequa", "pt").exists()  # a finished run's checkpoint is kept until the job ends
    for path in workdir.glob(f"{method}_*.json"):  # Snakemake deletes an incomplete job's outputs before its rerun
        if ".pt." not in path.name:  # the results kept beside the checkpoints are not outputs
            path.unlink()
    rerun = run_command(args)
    assert "discarding" not in rerun.stderr
    # seed 0's runs had finished: their results are kept, not evaluated again; the killed run is trained on
    kept = [line for line in rerun.stderr.splitlines() if "done before, its result kept beside the checkpoint" in line]
    assert all(any(f" {m} seed=0 " in line for line in kept) for m in METHODS)
    assert not any(f" {method} seed=1 " in line for line in kept)
    assert _same(workdir, method, "whole", [0, 1])
    assert not list(workdir.glob(f"{method}_*.pt*"))  # checkpoints, rows and kept results all removed


def test_config_change_discards_the_stale_checkpoint(workdir):
    changed, methods = _cfg(lr=0.02), ("standalone", "aequa")
    run_command(_args(workdir, "changed", [0], changed, methods))
    args = _args(workdir, "stale", [0], _cfg(), methods)
    kill_mid_run(args, _out(workdir, "stale", 0, "aequa", "pt"), ROUNDS)
    args[args.index("--cfg") + 1] = changed
    rerun = run_command(args)
    assert "discarding checkpoint" in rerun.stderr and "other settings" in rerun.stderr
    assert "discarding kept result" in rerun.stderr  # the standalone run finished under the old config
    assert _same(workdir, "stale", "changed", [0], methods)
