"""The coalition-valuation job killed mid-run: the rerun resumes and ends as an uninterrupted run would; a rerun with
another config discards the stale checkpoint (issue 17). Real processes, SIGKILL, scikit-learn digits."""

from __future__ import annotations

import json
import subprocess

import pytest

from fairshare import seeding
from fairshare.data.datasets import build_dataset, save_cache
from tests.support.kill_resume import FAIRSHARE, kill_mid_run, run_command

EPOCHS = 12
#: Small batches make each epoch long enough (about 50 ms) for the killer to catch a checkpoint mid-run.
BLOCK = {
    "dataset": "digits",
    "label_ranges": [[0, 2], [3, 5], [6, 9]],
    "hidden": [16],
    "epochs": EPOCHS,
    "batch_size": 8,
    "lr": 0.001,
    "nu": 1.0,
    "data_mode": "concat",
}
MASK = 5


def _args(tmp, dataset, block, name):
    cfg = json.dumps({"seed": 3, "payoff_flows": block})
    return [
        "payoff-flows",
        "valuate",
        "--dataset",
        str(dataset),
        "--coalition",
        str(MASK),
        str(tmp / f"{name}.json"),
        str(tmp / f"{name}.pt"),
        "--cfg",
        cfg,
    ]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("valuation")
    dataset = tmp / "digits.npz"
    save_cache(build_dataset("digits", rng=seeding.generator(0, "dataset")), dataset)
    run_command(_args(tmp, dataset, BLOCK, "full"))
    assert not (tmp / "full.pt").exists()  # a finished job removes its checkpoint
    return tmp, dataset, (tmp / "full.json").read_bytes()


def test_killed_valuation_resumes_bit_identical(uninterrupted):
    tmp, dataset, full = uninterrupted
    args = _args(tmp, dataset, BLOCK, "killed")
    done = kill_mid_run(args, tmp / "killed.pt", EPOCHS)
    assert 1 <= done < EPOCHS and not (tmp / "killed.json").exists()
    out = run_command(args)
    assert "discarding" not in out.stderr
    assert (tmp / "killed.json").read_bytes() == full


def test_changed_config_discards_the_stale_checkpoint(uninterrupted):
    tmp, dataset, full = uninterrupted
    killed = kill_mid_run(_args(tmp, dataset, {**BLOCK, "lr": 0.01}, "changed"), tmp / "changed.pt", EPOCHS)
    assert killed >= 1
    out = run_command(_args(tmp, dataset, BLOCK, "changed"))
    assert "discarding checkpoint" in out.stderr and "other settings" in out.stderr
    assert (tmp / "changed.json").read_bytes() == full


def test_a_job_of_several_coalitions_writes_each_as_its_own_job_would(uninterrupted):
    tmp, dataset, full = uninterrupted
    args = _args(tmp, dataset, BLOCK, "first")
    args[args.index("--cfg") : args.index("--cfg")] = [
        "--coalition",
        str(MASK),
        str(tmp / "grouped.json"),
        str(tmp / "grouped.pt"),
    ]
    run_command(args)
    assert (tmp / "grouped.json").read_bytes() == full == (tmp / "first.json").read_bytes()


def test_an_out_of_range_coalition_is_one_line(uninterrupted):
    tmp, dataset, _ = uninterrupted
    args = _args(tmp, dataset, BLOCK, "bad")
    args[args.index("--coalition") + 1] = "32"
    out = subprocess.run(FAIRSHARE + args, capture_output=True, text=True, timeout=300)
    assert out.returncode == 2
    assert out.stderr.strip().endswith("coalition mask 32 is out of range for 3 parties (1..7)")
    assert "Traceback" not in out.stderr
