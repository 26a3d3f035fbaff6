"""workflow/run_jobs.py: how `runs_per_job` groups a training step's runs into jobs."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("run_jobs", REPO / "workflow" / "run_jobs.py")
run_jobs = sys.modules.setdefault("run_jobs", importlib.util.module_from_spec(_spec))  # dataclasses look it up
_spec.loader.exec_module(run_jobs)

MASKS = [{"mask": str(m)} for m in range(1, 32)]
AEQUA = [{"dataset": d, "partition": p, "seed": s} for p in ("iid", "qskew") for d in ("a", "b") for s in ("0", "1")]


@pytest.mark.parametrize(
    ("value", "paper", "expected"),
    [("all", "mmfl", None), (3, "aequa", 3), ({"default": "all", "payoff_flows": 16}, "payoff_flows", 16)],
)
def test_the_knob_is_one_value_or_a_value_per_paper(value, paper, expected):
    assert run_jobs.runs_per_job({"runs_per_job": value}, paper) == expected
    assert run_jobs.runs_per_job({"runs_per_job": {"default": 2, "mmfl": 1}}, "auctions") == 2


def test_runs_are_dealt_over_ceil_n_over_k_jobs():
    jobs = run_jobs.training_jobs("valuate", MASKS, 16)
    assert [j.name for j in jobs] == ["valuate_0", "valuate_1"]
    assert [r["mask"] for r in jobs[1].runs] == [str(m) for m in range(2, 32, 2)]  # coalition m in job (m - 1) mod 2
    (job,) = run_jobs.training_jobs("valuate", MASKS, None)
    assert (job.name, job.stem, job.runs_of({}), job.constraints) == ("valuate", "valuate", MASKS, ())


def test_one_run_per_job_is_a_rule_whose_wildcards_name_the_run():
    (job,) = run_jobs.training_jobs("valuate", MASKS, 1)
    assert job.runs == ({"mask": "{mask}"},) and job.stem == "valuate/{mask}"
    assert dict(job.constraints)["mask"].split("|") == [str(m) for m in range(1, 32)]
    assert job.runs_of({"mask": "7"}) == [{"mask": "7"}]


def test_runs_kept_apart_never_share_a_job_and_each_output_shape_has_its_rule():
    grouped = run_jobs.training_jobs(
        "run", AEQUA, None, together=lambda r: r["partition"], shape=lambda r: r["partition"]
    )
    assert [(j.name, j.shape, len(j.runs)) for j in grouped] == [("run_iid", "iid", 4), ("run_qskew", "qskew", 4)]
    single = run_jobs.training_jobs("run", AEQUA, 1, shape=lambda r: "pmin" if r["partition"] == "qskew" else "")
    assert [(j.name, dict(j.constraints)["partition"]) for j in single] == [("run", "iid"), ("run_pmin", "qskew")]


def test_settings_keep_the_order_of_first_appearance():
    assert list(run_jobs.settings(AEQUA, "dataset", "partition")) == [
        ("a", "iid"),
        ("b", "iid"),
        ("a", "qskew"),
        ("b", "qskew"),
    ]
