"""bench/learning_curves.py: the rule that chooses a profile's rounds from probe learning curves (target, plateau,
cap), the projection of the profile's CPU time to the reference machine, the probe seed that no verdict run uses,
the round driver's per-round callback, and a tiny end-to-end probe of the test profile."""

from __future__ import annotations

import importlib.util
import sys

import pandas as pd
import pytest

from fairshare.errors import UserError
from fairshare.learning.rounds import run_rounds
from fairshare.papers.mmfl.experiment import Settings
from fairshare.pipeline.config import load_config
from tests.conftest import REPO

PROFILES = {
    "test": ["config/test.yaml"],
    "default": [],
    "cpu_scale": ["config/paper.yaml", "config/cpu_scale.yaml"],
    "paper": ["config/paper.yaml"],
}


@pytest.fixture(scope="module")
def lc():
    sys.path.insert(0, str(REPO / "bench"))  # as when run: its sibling calibrate.py is importable
    try:
        spec = importlib.util.spec_from_file_location("bench_learning_curves", REPO / "bench" / "learning_curves.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclass looks its module up there
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench_learning_curves", None)
        sys.path.remove(str(REPO / "bench"))


# ----------------------------------------------------------------------------------------------------- the rule
def test_a_task_that_reaches_its_target_takes_the_first_round_at_or_above_it(lc):
    curve = [0.10, 0.30, 0.50, 0.60, 0.70, 0.71, 0.72]
    assert lc.task_rounds(curve, 0.60, cap=7) == (4, "target")
    assert lc.task_rounds(curve, 0.65, cap=7) == (5, "target")
    assert lc.task_rounds(curve, 0.05, cap=7) == (1, "target")


def test_a_task_that_never_reaches_its_target_takes_its_plateau_round(lc):
    curve = [0.20, 0.40, 0.50, 0.520, 0.521, 0.522, 0.523, 0.524]  # flat from round 4 (+0.003 over 3 rounds)
    assert lc.task_rounds(curve, 0.90, cap=8) == (4, "plateau")
    assert lc.task_rounds(curve, None, cap=8) == (4, "plateau")  # no target: the plateau rule alone


def test_a_dip_is_not_a_plateau_when_accuracy_rises_within_the_window(lc):
    # round 1 is followed by two lower rounds and then a rise of 0.06: the best of the next 3 rounds counts
    assert lc.plateau_round([0.50, 0.49, 0.48, 0.56, 0.60, 0.64, 0.68]) is None
    assert lc.plateau_round([0.50, 0.501, 0.502, 0.503]) == 1
    assert lc.plateau_round([0.50, 0.501, 0.502]) is None  # round 1 has only 2 rounds after it


def test_a_task_that_never_plateaus_takes_the_cap(lc):
    rising = [0.1 + 0.01 * r for r in range(10)]  # +0.03 over every 3 rounds
    assert lc.task_rounds(rising, 0.99, cap=10) == (10, "cap")
    assert lc.task_rounds(rising, None, cap=10) == (10, "cap")


def test_the_cap_cuts_the_curve_before_the_rule_reads_it(lc):
    curve = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    assert lc.task_rounds(curve, 0.75, cap=8) == (8, "target")
    assert lc.task_rounds(curve, 0.75, cap=5) == (5, "cap")  # reached at 8, after the cap


def test_an_experiment_takes_its_slowest_task_and_at_least_two_rounds(lc):
    assert lc.experiment_rounds([1, 3, 2]) == 3
    assert lc.experiment_rounds([1, 1]) == 2  # round 1 allocates uniformly under every method
    with pytest.raises(ValueError, match="at least one task"):
        lc.experiment_rounds([])


def test_targets_are_the_mean_final_round_accuracy_per_dataset_over_runs(lc):
    rows = []
    for seed, finals in enumerate([(0.8, 0.6, 0.9), (0.7, 0.5, 0.6)]):
        for round_, scale in ((1, 0.5), (2, 1.0)):  # round 1 must not count
            for task, (name, final) in enumerate(zip(["digits", "synthetic", "digits"], finals)):
                rows.append(
                    {
                        "paper": "mmfl",
                        "experiment": "exp1",
                        "method": "random",
                        "alpha": float("nan"),
                        "seed": seed,
                        "round": round_,
                        "task": task,
                        "task_name": f"{name}#{task}",
                        "metric": "accuracy",
                        "value": final * scale,
                    }
                )
    rows.append({**rows[-1], "metric": "loss", "value": 9.0})  # another metric: ignored
    targets = lc.default_targets(pd.DataFrame(rows))
    assert targets == pytest.approx({"digits": (0.8 + 0.9 + 0.7 + 0.6) / 4, "synthetic": (0.6 + 0.5) / 2})


def test_targets_from_another_profiles_results_are_refused(lc, tmp_path):
    (tmp_path / "results" / "mmfl").mkdir(parents=True)
    (tmp_path / "results" / ".profile").write_text("cpu_scale\n")
    summary = tmp_path / "results" / "mmfl" / "summary.csv"
    summary.write_text("experiment,method,alpha,seed,round,task_name,metric,value\n")
    with pytest.raises(UserError, match="'cpu_scale' profile"):
        lc.read_targets(summary)


# ----------------------------------------------------------------------------------------------- the projection
def test_the_projection_counts_rounds_runs_set_up_and_jobs(lc):
    cost = lc.Cost("exp1", rounds=30, runs=9, jobs=1, round_cpu_s=12.0, setup_cpu_s=5.0, job_cpu_s=8.0)
    assert cost.cpu_s == 9 * (30 * 12.0 + 5.0) + 8.0
    assert lc.round_costs([20.0, 12.0, 11.0, 13.0, 12.5]) == (12.25, 7.75)  # median of rounds 2..; the rest: set-up
    assert lc.round_costs([9.0]) == (9.0, 0.0)
    assert lc.round_costs([3.0, 4.0, 4.0]) == (4.0, 0.0)  # never a negative set-up


def test_minutes_scale_to_the_reference_by_the_calibration_on_two_cores(lc):
    # 7,200 CPU-s on a machine of half the reference's speed: 3,600 CPU-s there, 30 minutes of wall on 2 cores
    assert lc.reference_minutes(7200.0, 1000.0) == pytest.approx(30.0)
    assert lc.reference_minutes(7200.0, 2000.0) == pytest.approx(60.0)


def test_the_verdict_says_whether_it_fits_and_by_how_much(lc):
    assert lc.verdict(40.0, 15.0).startswith("fits: 55.0 of 60 reference minutes (5.0 to spare)")
    over = lc.verdict(80.0, 20.0)
    assert over.startswith("does not fit: 100.0 of 60 reference minutes, over by 40.0")
    assert "shrink 2.00x" in over  # 80 minutes into the 40 left by the rest


def test_jobs_follow_runs_per_job(lc):
    assert lc.jobs_of({"runs_per_job": {"default": "all", "mmfl": 20}}, 33) == 2
    assert lc.jobs_of({"runs_per_job": {"default": "all", "mmfl": 20}}, 20) == 1
    assert lc.jobs_of({"runs_per_job": "all"}, 33) == 1


# --------------------------------------------------------------------------------------------- the probe seed
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_probe_seed_is_no_verdict_runs_seed(lc, profile):
    cfg = load_config(REPO / "config/config.yaml", *(REPO / f for f in PROFILES[profile]))
    verdict_keys = {run.seed for run in Settings.from_block(cfg["mmfl"]).runs()}
    exp6_seeds = cfg["auctions"]["exp6"]["seeds"]
    verdict_keys |= {k + s for k in (70, 80) for s in range(exp6_seeds)}  # Exp 6's partition / sampling keys
    probe = lc.probe_seed(cfg["seed"])
    assert probe not in verdict_keys
    assert probe > 10 * max(verdict_keys)
    assert probe == lc.probe_seed(cfg["seed"]) != lc.probe_seed(cfg["seed"] + 1)


def test_the_round_driver_calls_back_after_each_round_and_changes_nothing():
    def step(r, state):
        return state + r, {"value": float(state)}, 1

    calls = []
    plain = run_rounds(step, 0, 4, settings="s", progress=False)
    called = run_rounds(step, 0, 4, settings="s", progress=False, on_round=calls.append)
    assert calls == [1, 2, 3, 4]
    assert called == plain


# ------------------------------------------------------------------------------------------------- end to end
@pytest.mark.usefixtures("one_torch_thread")
def test_a_probe_of_the_test_profile_writes_its_curves_and_choice(lc, tmp_path, capsys):
    targets = tmp_path / "summary.csv"  # a default-profile summary whose digits target every probe reaches
    pd.DataFrame(
        [
            {"experiment": "e", "method": "random", "alpha": None, "seed": 0, "round": 1}
            | {"task": 0, "task_name": "digits#0", "metric": "accuracy", "value": 0.0}
        ]
    ).to_csv(targets, index=False)
    out, choice = tmp_path / "curves.csv", tmp_path / "choice.csv"
    lc.main(
        ["--configfile", str(REPO / "config/test.yaml"), "--out", str(out), "--max-rounds", "2"]
        + ["--experiments", "exp4", "--calibration", "1000", "--targets", str(targets)]
        + ["--summary", str(choice), "--cache-dir", str(tmp_path / "data")]
    )
    curves = pd.read_csv(out)
    assert list(curves.columns) == lc.CSV_COLUMNS
    assert len(curves) == 2 * 2  # rounds x tasks (digits, synthetic)
    assert set(curves.seed_key) == {lc.probe_seed(7)}  # config/test.yaml: seed 7
    assert curves.accuracy.between(0, 1).all() and (curves.round_cpu_s > 0).all()
    assert curves.groupby("round").round_cpu_s.nunique().eq(1).all()  # one figure per round
    assert curves.target.isna().tolist() == [False, True, False, True]  # synthetic: no default-profile target
    row = pd.read_csv(choice).iloc[0]
    # digits reaches its target (0.0) at round 1; synthetic has no target and 2 rounds cannot show a plateau: cap
    assert (row.experiment, row.rounds, row.reasons, row.runs) == ("exp4", 2, "0:target 1:cap", 3)
    assert "multi-model FL at the chosen rounds" in capsys.readouterr().out


def test_an_unknown_experiment_is_one_line(lc, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        lc.main(
            ["--configfile", str(REPO / "config/test.yaml"), "--out", str(tmp_path / "c.csv")]
            + ["--experiments", "nope"]
        )
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no mmfl experiment ['nope']" in err[0]


def test_the_authors_cnn_profile_trains_the_rounds_the_rule_gives_its_committed_probes(lc):
    """config/cpu_scale_faithful.yaml's rounds are the rule's, read from metrics/cpu_scale/learning_curves_faithful.csv
    (the probes of every experiment, 10-round cap), not typed in."""
    curves = pd.read_csv(REPO / "metrics" / "cpu_scale" / "learning_curves_faithful.csv")
    cfg = load_config(
        *(REPO / "config" / name for name in ("config.yaml", "paper.yaml", "cpu_scale.yaml", "cpu_scale_faithful.yaml"))
    )
    assert cfg["profile"] == "cpu_scale_faithful" and cfg["mmfl"]["fidelity"] == "faithful"
    chosen = {}
    for experiment, rows in curves.groupby("experiment"):
        tasks = [
            lc.task_rounds(task.sort_values("round")["accuracy"].tolist(), task["target"].iloc[0], cap=10)[0]
            for _, task in rows.groupby("task")
        ]
        chosen[experiment] = lc.experiment_rounds(tasks)
    assert chosen == {e["name"]: e["rounds"] for e in cfg["mmfl"]["experiments"]}
