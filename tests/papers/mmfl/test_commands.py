"""`fairshare mmfl run` through the round driver: a job killed mid-run and rerun writes byte-identical outputs to an
uninterrupted run; a checkpoint written under another config or another number of rounds is discarded. Only the
killed run is a separate process; the others run in this one (same thread count, so the same floating point)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fairshare.cli import main
from tests.conftest import REPO
from tests.support.kill_resume import kill_mid_run

ROUNDS = 6


def _cfg(rounds: int = ROUNDS, **training) -> str:
    """The test profile's mmfl block with one small experiment: 2 tasks, 4 clients, FedFairMMFL at alpha 3 and 5."""
    from fairshare.config import load_config

    mmfl = load_config(REPO / "config" / "test.yaml")["mmfl"]
    experiment = {
        "name": "resume",
        "tasks": ["digits", "synthetic"],
        "clients": 4,
        "active_rate": 1.0,
        "size_range": [20, 30],
        "partition": "iid",
        "rounds": rounds,
        "methods": ["fedfair", "random"],
        "alphas": [3, 5],
    }
    mmfl.update(experiments=[experiment], test_subset=100, **training)
    return json.dumps({"seed": 3, "device": "cpu", "mmfl": mmfl})


def _args(tmp: Path, name: str, cfg: str, method: str = "fedfair", alpha: str | None = "5") -> list[str]:
    args = [
        "mmfl",
        "run",
        "--experiment",
        "resume",
        "--method",
        method,
        "--seed-index",
        "0",
        "--datasets",
        f"digits={tmp / 'digits.npz'}",
        f"synthetic={tmp / 'synthetic.npz'}",
        "--output",
        str(tmp / f"{name}.csv"),
        "--allocation",
        str(tmp / f"{name}.npz"),
        "--checkpoint",
        str(tmp / f"{name}.pt"),
        "--cfg",
        cfg,
    ]
    return args + (["--alpha", alpha] if alpha else [])


def _run_here(args: list[str]) -> None:
    assert main(args) == 0


def _outputs(tmp: Path, name: str) -> tuple[bytes, bytes]:
    return (tmp / f"{name}.csv").read_bytes(), (tmp / f"{name}.npz").read_bytes()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    from fairshare import seeding
    from fairshare.data.datasets import build_dataset, save_cache

    tmp = tmp_path_factory.mktemp("mmfl_resume")
    for name in ("digits", "synthetic"):
        save_cache(build_dataset(name, rng=seeding.generator(3, "dataset")), tmp / f"{name}.npz")
    return tmp


def test_killed_job_resumes_bit_identically(workdir, capsys):
    cfg = _cfg()
    _run_here(_args(workdir, "whole", cfg))
    args = _args(workdir, "killed", cfg)
    killed_at = kill_mid_run(args, workdir / "killed.pt", ROUNDS)
    assert 1 <= killed_at < ROUNDS and not (workdir / "killed.csv").exists()
    _run_here(args)
    assert "discarding" not in capsys.readouterr().err
    assert _outputs(workdir, "killed") == _outputs(workdir, "whole")
    assert not (workdir / "killed.pt").exists()  # removed once the outputs are written
    with np.load(workdir / "whole.npz") as z:  # the allocation map carries its run's keys
        assert (str(z["experiment"]), str(z["method"]), float(z["alpha"]), int(z["seed"])) == (
            "resume",
            "fedfair",
            5.0,
            0,
        )
        assert z["allocation"].shape == (4, ROUNDS)


@pytest.mark.parametrize("change", ["config", "rounds"])
def test_stale_checkpoint_is_discarded(workdir, capsys, change):
    """Killed mid-run, then rerun with another learning rate or with fewer rounds (issue 17: a run interrupted at round
    87 of 700 and rerun with 15 rounds reported 87): the rerun starts from round 0 and equals a clean run."""
    new = _cfg(lr=0.02) if change == "config" else _cfg(rounds=3)
    _run_here(_args(workdir, f"clean_{change}", new))
    args = _args(workdir, f"stale_{change}", _cfg())
    kill_mid_run(args, workdir / f"stale_{change}.pt", ROUNDS)
    args[args.index("--cfg") + 1] = new
    _run_here(args)
    err = capsys.readouterr().err
    assert "discarding checkpoint" in err and "other settings" in err
    assert _outputs(workdir, f"stale_{change}") == _outputs(workdir, f"clean_{change}")


def test_a_run_the_config_does_not_hold_is_refused(workdir, capsys):
    assert main(_args(workdir, "none", _cfg(), alpha="4")) == 2
    assert "has no run with method fedfair, alpha 4.0" in capsys.readouterr().err
    assert main(_args(workdir, "none", _cfg(), method="random", alpha="3")) == 2  # random runs have no alpha
