"""The multi-model FL claim functions follow the data: each statement is reported as failing when results contradict
it, and a baseline the experiment did not run gives a "not run" row."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairshare.papers.mmfl import claims
from fairshare.papers.mmfl.experiment import Experiment


def _exp(name: str, reproduces: str, methods: tuple[str, ...], clients: int = 10, alphas=(3.0,)) -> Experiment:
    return Experiment(
        name, reproduces, ("a", "b", "c"), clients, 1.0, (10, 20), "iid", 0.5, 12, methods, tuple(alphas), 2
    )


def _status(rows, needle: str) -> str:
    found = [r.status for r in rows if needle in r.claim]
    assert len(found) == 1, (needle, [r.claim for r in rows])
    return found[0]


def _task_runs(exp: str, final: dict, clients: dict, rounds: int = 3) -> pd.DataFrame:
    """Per-task rows: accuracy rises linearly to ``final[method]`` (one value per task), ``clients[method]`` per round."""
    rows = []
    for method, accs in final.items():
        alpha = np.nan if method in ("random", "round_robin") else 3.0
        for seed in (0, 1):
            for r in range(1, rounds + 1):
                for task, (acc, n) in enumerate(zip(accs, clients[method])):
                    rows.append({"experiment": exp, "method": method, "alpha": alpha, "seed": seed, "round": r, "task": task,
                                 "task_name": f"t#{task}", "accuracy": acc * r / rounds, "loss": 1.0, "clients": n})  # fmt: skip
    return pd.DataFrame(rows)


def _per_round(runs: pd.DataFrame) -> pd.DataFrame:
    keys = ["experiment", "method", "alpha", "seed", "round"]
    return runs.groupby(keys, dropna=False).accuracy.agg(min_acc="min", avg_acc="mean", var_acc="var").reset_index()


def test_exp1_claims_follow_the_data():
    exp = _exp("e1", "exp1", ("fedfair", "random", "round_robin"))
    final = {"fedfair": [0.9, 0.82, 0.6], "random": [0.9, 0.8, 0.5], "round_robin": [0.91, 0.8, 0.45]}
    clients = {"fedfair": [3, 3, 4], "random": [4, 3, 3], "round_robin": [3, 4, 3]}
    rows = claims._exp1(runs := _task_runs("e1", final, clients), _per_round(runs), exp, 3.0, 0.02)
    assert len(rows) == 8 and all(r.status == "match" for r in rows), [(r.claim, r.reproduced) for r in rows]

    worse = {**final, "fedfair": [0.85, 0.82, 0.5]}  # task 0 drops by 0.05; the worst task no better than random's
    rows = claims._exp1(runs := _task_runs("e1", worse, clients), _per_round(runs), exp, 3.0, 0.02)
    assert _status(rows, "higher minimum accuracy than random") == "differs"
    assert _status(rows, "higher accuracy than random on the task") == "differs"
    assert _status(rows, "other tasks at the same or a higher accuracy than random") == "differs"
    assert _status(rows, "higher minimum accuracy than round robin") == "match"  # 0.5 > 0.45
    even = {**clients, "fedfair": [3, 4, 3]}  # no more clients for the worst task than random gives it
    rows = claims._exp1(runs := _task_runs("e1", final, even), _per_round(runs), exp, 3.0, 0.02)
    assert _status(rows, "worst under random more clients") == "differs"

    no_rr = _exp("e1", "exp1", ("fedfair", "random"))
    rows = claims._exp1(runs := _task_runs("e1", final, clients), _per_round(runs), no_rr, 3.0, 0.02)
    assert {r.status for r in rows if "round robin" in r.claim} == {"not run in this profile"}


def _curves(exp: str, values: dict, rounds: int = 12) -> pd.DataFrame:
    """Across-task rows from per-method functions of the round: {method: (min_acc(r), avg_acc(r), var_acc(r))}."""
    rows = []
    for method, (low, avg, var) in values.items():
        alpha = np.nan if method in ("random", "round_robin") else 3.0
        for seed in (0, 1):
            for r in range(1, rounds + 1):
                rows.append({"experiment": exp, "method": method, "alpha": alpha, "seed": seed, "round": r,
                             "min_acc": low(r), "avg_acc": avg(r), "var_acc": var(r)})  # fmt: skip
    return pd.DataFrame(rows)


def _exp2_values():
    return {
        "fedfair": (lambda r: 0.04 * r, lambda r: 0.05 * r, lambda r: 0.05 / r),
        "random": (lambda r: 0.03 * r, lambda r: 0.05 * r, lambda r: 0.08 / r),
        "round_robin": (lambda r: 0.035 * r, lambda r: 0.051 * r, lambda r: 0.07 / r),
    }


def test_exp2_claims_follow_the_data():
    exp = _exp("e2", "exp2", ("fedfair", "random", "round_robin"))
    rows = claims._exp2(_curves("e2", _exp2_values()), exp, 3.0, True, 0.02)
    assert len(rows) == 9 and all(r.status == "match" for r in rows), [(r.claim, r.reproduced) for r in rows]
    assert len(claims._exp2(_curves("e2", _exp2_values()), exp, 3.0, False, 0.02)) == 5  # no Table II rows

    values = _exp2_values()
    values["round_robin"] = (
        values["round_robin"][0],
        values["round_robin"][1],
        lambda r: 0.03 if r == 1 else 0.07 / r if r < 12 else 0.04,
    )
    values["random"] = (lambda r: 0.045 * r, lambda r: 0.08 * r, lambda r: 0.001 if r == 6 else 0.08 / r)
    rows = claims._exp2(_curves("e2", values), exp, 3.0, True, 0.02)
    assert _status(rows, "Variance across tasks falls") == "differs"  # round robin's variance rises at the end
    assert _status(rows, "lower variance across tasks than random") == "differs"  # random is lower at round 6
    assert _status(rows, "lower variance across tasks than round robin") == "differs"
    assert _status(rows, "converges faster than random") == "differs"
    assert _status(rows, "higher final minimum accuracy than random") == "differs"
    assert _status(rows, "comparable with random") == "differs"  # 0.96 vs 0.6 at the last round
    assert _status(rows, "comparable with round robin") == "match"


def test_fig4_claims_follow_the_data():
    exp = _exp("f4", "fig4", ("fedfair", "qffl"))
    good = {
        "fedfair": (lambda r: 0.05 * r, lambda r: 0.5, lambda r: 0.1),
        "qffl": (lambda r: 0.04 * r, lambda r: 0.5, lambda r: 0.1),
    }
    assert [r.status for r in claims._fig4(_curves("f4", good), exp, 3.0)] == ["match", "match"]
    bad = {**good, "qffl": (lambda r: 0.06 * r, lambda r: 0.5, lambda r: 0.1)}
    assert [r.status for r in claims._fig4(_curves("f4", bad), exp, 3.0)] == ["differs", "differs"]


def test_exp3_claims_follow_the_data():
    exps = [
        _exp("k20", "exp3", ("fedfair", "random", "round_robin"), 20),
        _exp("k40", "exp3", ("fedfair", "random", "round_robin"), 40),
    ]

    def table(k40_final: float, k40_spread: float, baseline_speed: float) -> pd.DataFrame:
        frames = []
        for name, final, spread in (("k20", 0.5, 0.04), ("k40", k40_final, k40_spread)):
            values = {"fedfair": (lambda r, f=final: f * r / 12, lambda r: 0.5, lambda r: 0.1),
                      "random": (lambda r: baseline_speed, lambda r: 0.5, lambda r: 0.1),
                      "round_robin": (lambda r: 0.3 * r / 12, lambda r: 0.5, lambda r: 0.1)}  # fmt: skip
            frame = _curves(name, values)
            ours_last = (frame.method == "fedfair") & (frame["round"] == 12)
            frame.loc[ours_last, "min_acc"] += np.where(frame.loc[ours_last, "seed"] == 0, spread / 2, -spread / 2)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    rows = claims._exp3(table(0.6, 0.02, 0.2), exps, 3.0)
    assert len(rows) == 6 and all(r.status == "match" for r in rows), [(r.claim, r.reproduced) for r in rows]
    rows = claims._exp3(table(0.45, 0.06, 0.2), exps, 3.0)
    assert _status(rows, "rises with the number of clients") == "differs"
    assert _status(rows, "varies less over seeds") == "differs"
    rows = claims._exp3(table(0.6, 0.02, 0.7), exps, 3.0)  # random ahead at every round and at the end
    assert _status(rows, "outperforms random in final minimum accuracy and/or convergence (k20)") == "differs"
    assert _status(rows, "outperforms round robin in final minimum accuracy and/or convergence (k20)") == "match"
    assert {r.status for r in claims._exp3(table(0.6, 0.02, 0.2), exps[:1], 3.0)[-2:]} == {"not run in this profile"}


def test_exp4_claims_follow_the_data():
    exp = _exp("sweep", "exp4", ("random", "fedfair"), alphas=(1.0, 3.0, 10.0))

    def runs(shares_of_task2: list[float]) -> pd.DataFrame:
        rows = []
        for method, alpha, share in [("random", np.nan, 1 / 3)] + [
            ("fedfair", a, s) for a, s in zip((1.0, 3.0, 10.0), shares_of_task2)
        ]:
            rest = (1 - share) / 2
            for task, (acc, part) in enumerate(zip((0.9, 0.8, 0.4), (rest, rest, share))):
                rows.append({"experiment": "sweep", "method": method, "alpha": alpha, "seed": 0, "round": 1, "task": task,
                             "task_name": f"t#{task}", "accuracy": acc, "loss": 1.0, "clients": part * 1000})  # fmt: skip
        return pd.DataFrame(rows)

    assert [r.status for r in claims._exp4(runs([0.3, 0.45, 0.7]), exp)] == ["match", "match"]
    assert [r.status for r in claims._exp4(runs([0.3, 0.48, 0.45]), exp)] == ["differs", "differs"]
    assert [r.status for r in claims._exp4(runs([0.3, 0.45, 0.7]), _exp("sweep", "exp4", ("fedfair",)))] == [
        "not run in this profile"
    ]
