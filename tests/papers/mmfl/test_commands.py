"""`fairshare mmfl run` through the round driver: a job killed mid-run and rerun writes byte-identical outputs to an
uninterrupted run; a checkpoint written under another config or another number of rounds is discarded; a job that
trains several seeds writes, for each, the bytes a job of that seed alone writes, and resumes a kill in its second
seed without retraining the first. Only the killed runs are separate processes; the others run in this one (same
thread count, so the same floating point)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fairshare.cli import main
from fairshare.learning.rounds import read_checkpoint
from tests.conftest import REPO
from tests.support.kill_resume import kill_mid_run

ROUNDS = 6


def _cfg(rounds: int = ROUNDS, **training) -> str:
    """The test profile's mmfl block with one small experiment: 2 tasks, 4 clients, FedFairMMFL at alpha 3 and 5."""
    from fairshare.pipeline.config import load_config

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
        "seeds": 2,
    }
    mmfl.update(experiments=[experiment], test_subset=100, **training)
    return json.dumps({"seed": 3, "device": "cpu", "mmfl": mmfl})


def _args(
    tmp: Path,
    name: str,
    cfg: str,
    method: str = "fedfair",
    alpha: str | None = "5",
    seeds: tuple[int, ...] = (0,),
    tags: tuple[int, ...] | None = None,
) -> list[str]:
    """A job training ``seeds`` (``method`` and ``alpha``: one for all, or space-separated, one per run); each run's
    files are ``<name>_seed<tag>.{csv,npz,pt}``, its tag being its seed unless ``tags`` gives one per run."""
    tags = seeds if tags is None else tags
    files = {ext: [str(tmp / f"{name}_seed{k}.{ext}") for k in tags] for ext in ("csv", "npz", "pt")}
    args = ["mmfl", "run", "--experiment", "resume", "--method", *method.split(), "--seed-index", *map(str, seeds)]
    args += ["--datasets", f"digits={tmp / 'digits.npz'}", f"synthetic={tmp / 'synthetic.npz'}"]
    args += ["--output", *files["csv"], "--allocation", *files["npz"], "--checkpoint", *files["pt"], "--cfg", cfg]
    return args + (["--alpha", *alpha.split()] if alpha else [])


def _run_here(args: list[str]) -> None:
    assert main(args) == 0


def _outputs(tmp: Path, name: str, seed: int = 0) -> tuple[bytes, bytes]:
    return (tmp / f"{name}_seed{seed}.csv").read_bytes(), (tmp / f"{name}_seed{seed}.npz").read_bytes()


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
    killed_at = kill_mid_run(args, workdir / "killed_seed0.pt", ROUNDS)
    assert 1 <= killed_at < ROUNDS and not (workdir / "killed_seed0.csv").exists()
    _run_here(args)
    assert "discarding" not in capsys.readouterr().err
    assert _outputs(workdir, "killed") == _outputs(workdir, "whole")
    assert not (workdir / "killed_seed0.pt").exists()  # removed once the outputs are written
    with np.load(workdir / "whole_seed0.npz") as z:  # the allocation map carries its run's keys
        assert (str(z["experiment"]), str(z["method"]), float(z["alpha"]), int(z["seed"])) == (
            "resume",
            "fedfair",
            5.0,
            0,
        )
        assert z["allocation"].shape == (4, ROUNDS)


def test_a_job_of_several_seeds_writes_each_seeds_own_bytes_and_resumes_its_second_seed(workdir, capsys):
    """Seeds 0 and 1 in one job equal a job per seed, bit for bit; killed during seed 1, the job keeps seed 0's
    finished checkpoint (its outputs are written again from it, no retraining) and resumes seed 1."""
    cfg = _cfg()
    for seed in (0, 1):
        _run_here(_args(workdir, "alone", cfg, seeds=(seed,)))
    _run_here(_args(workdir, "both", cfg, seeds=(0, 1)))
    assert [_outputs(workdir, "both", k) for k in (0, 1)] == [_outputs(workdir, "alone", k) for k in (0, 1)]
    assert _outputs(workdir, "both", 0) != _outputs(workdir, "both", 1)
    args = _args(workdir, "grouped", cfg, seeds=(0, 1))
    assert 1 <= kill_mid_run(args, workdir / "grouped_seed1.pt", ROUNDS) < ROUNDS
    assert read_checkpoint(workdir / "grouped_seed0.pt")["round"] == ROUNDS  # kept until the job ends
    _run_here(args)
    assert "discarding" not in capsys.readouterr().err
    assert [_outputs(workdir, "grouped", k) for k in (0, 1)] == [_outputs(workdir, "both", k) for k in (0, 1)]
    assert not list(workdir.glob("grouped_seed*.pt"))


def test_a_job_of_several_methods_and_alphas_equals_a_job_per_run(workdir):
    """FedFairMMFL at alpha 3, FedFairMMFL at alpha 5 and Random in one command (as a job of runs_per_job `all` trains them) write
    the bytes of one job per run."""
    cfg = _cfg()
    runs = [("fedfair", "3"), ("fedfair", "5"), ("random", "none")]
    for k, (method, alpha) in enumerate(runs):
        _run_here(_args(workdir, f"single{k}", cfg, method=method, alpha=alpha, seeds=(1,)))
    methods, alphas = (" ".join(column) for column in zip(*runs))
    _run_here(_args(workdir, "mixed", cfg, method=methods, alpha=alphas, seeds=(1, 1, 1), tags=(0, 1, 2)))
    assert [_outputs(workdir, "mixed", k) for k in range(3)] == [_outputs(workdir, f"single{k}", 1) for k in range(3)]
    assert len({_outputs(workdir, "mixed", k) for k in range(3)}) == 3


def test_one_output_per_seed_is_required(workdir, capsys):
    args = _args(workdir, "short", _cfg(), seeds=(0, 1))
    args.remove(str(workdir / "short_seed1.csv"))
    assert main(args) == 2
    assert "one entry per run" in capsys.readouterr().err


@pytest.mark.parametrize("change", ["config", "rounds"])
def test_stale_checkpoint_is_discarded(workdir, capsys, change):
    """Killed mid-run, then rerun with another learning rate or with fewer rounds (issue 17: a run interrupted at round
    87 of 700 and rerun with 15 rounds reported 87): the rerun starts from round 0 and equals a clean run."""
    new = _cfg(lr=0.02) if change == "config" else _cfg(rounds=3)
    _run_here(_args(workdir, f"clean_{change}", new))
    args = _args(workdir, f"stale_{change}", _cfg())
    kill_mid_run(args, workdir / f"stale_{change}_seed0.pt", ROUNDS)
    args[args.index("--cfg") + 1] = new
    _run_here(args)
    err = capsys.readouterr().err
    assert "discarding checkpoint" in err and "other settings" in err
    assert _outputs(workdir, f"stale_{change}") == _outputs(workdir, f"clean_{change}")


def test_a_run_the_config_does_not_hold_is_refused(workdir, capsys):
    assert main(_args(workdir, "none", _cfg(), alpha="4")) == 2
    assert "has no run with method fedfair, alpha 4.0" in capsys.readouterr().err
    assert main(_args(workdir, "none", _cfg(), method="random", alpha="3")) == 2  # random runs have no alpha


def test_commands_joined_by_plus_keep_every_checkpoint_until_all_succeed(workdir, capsys):
    """`fairshare A + B` (one process, as the workflow's multi-model FL job): when B fails, A's outputs are written
    and its checkpoint kept (Snakemake reruns the whole job, and A then resumes from its final round); when both
    succeed, both write what they write alone and every checkpoint goes."""
    cfg = _cfg()
    _run_here(_args(workdir, "solo", cfg))
    first = _args(workdir, "chain", cfg)
    broken = _args(workdir, "chain_b", cfg, seeds=(1,))
    broken[broken.index("--experiment") + 1] = "missing"
    assert main([*first, "+", *broken]) == 2
    assert "experiment 'missing' is not in the mmfl config" in capsys.readouterr().err
    assert (workdir / "chain_seed0.pt").exists() and _outputs(workdir, "chain") == _outputs(workdir, "solo")
    _run_here([*first, "+", *_args(workdir, "chain_b", cfg, seeds=(1,))])
    assert _outputs(workdir, "chain") == _outputs(workdir, "solo")
    assert not list(workdir.glob("chain*.pt")) and (workdir / "chain_b_seed1.csv").exists()


def test_a_misspelt_command_in_a_chain_runs_nothing(workdir, capsys):
    args = _args(workdir, "typo", _cfg())
    with pytest.raises(SystemExit):
        main([*args, "+", "mmfl", "runn"])
    assert not (workdir / "typo_seed0.csv").exists()
    assert main([*args, "+"]) == 2
    assert "a command is missing before or after '+'" in capsys.readouterr().err
