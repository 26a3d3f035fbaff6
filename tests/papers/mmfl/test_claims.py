"""The multi-model FL claim functions decide each row per seed (fairshare.pipeline.verdicts): fed generated results with several
seeds, a row matches when the statement holds beyond seed noise, differs when it is false beyond it, and is
inconclusive when the seeds disagree (or one seed ran); a baseline the experiment did not run gives a "not run" row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairshare.papers.mmfl import claims, claims_exp4
from fairshare.papers.mmfl.experiment import Experiment
from fairshare.pipeline import verdicts as v

SEEDS = 4
QUIET = np.array([0.002, -0.001, 0.001, -0.002])  # per-seed noise far below the effects
NOISY = np.array([0.1, -0.08, 0.09, -0.11])  # per-seed noise above them


def _exp(name: str, reproduces: str, methods: tuple[str, ...], clients: int = 10, alphas=(3.0,)) -> Experiment:
    return Experiment(
        name, reproduces, ("a", "b", "c"), clients, 1.0, (10, 20), "iid", 0.5, 12, methods, tuple(alphas), SEEDS
    )


def _status(rows, needle: str) -> str:
    found = [r.status for r in rows if needle in r.claim]
    assert len(found) == 1, (needle, [r.claim for r in rows])
    return found[0]


def _alpha(method: str) -> float:
    return np.nan if method in ("random", "round_robin") else 3.0


def _task_runs(exp: str, final: dict, clients: dict, noise: dict | None = None, rounds: int = 3) -> pd.DataFrame:
    """Per-task rows: accuracy rises linearly to ``final[method]`` (one value per task) plus the seed's
    ``noise[method]``; ``clients[method]`` per round (one list per task, or one such list per seed)."""
    rows = []
    for method, accs in final.items():
        for seed in range(SEEDS):
            acc = np.asarray(accs) + (noise or {}).get(method, np.zeros(SEEDS))[seed]
            counts = np.asarray(clients[method], dtype=float)
            counts = counts[seed] if counts.ndim == 2 else counts
            for r in range(1, rounds + 1):
                for task, (a, n) in enumerate(zip(acc, counts)):
                    rows.append({"experiment": exp, "method": method, "alpha": _alpha(method), "seed": seed, "round": r,
                                 "task": task, "task_name": f"t#{task}", "accuracy": a * r / rounds, "loss": 1.0,
                                 "clients": n, "collapsed": False})  # fmt: skip
    return pd.DataFrame(rows)


def _per_round(runs: pd.DataFrame) -> pd.DataFrame:
    keys = ["experiment", "method", "alpha", "seed", "round"]
    return runs.groupby(keys, dropna=False).accuracy.agg(min_acc="min", avg_acc="mean", var_acc="var").reset_index()


EXP1_FINAL = {"fedfair": [0.9, 0.82, 0.6], "random": [0.9, 0.8, 0.5], "round_robin": [0.91, 0.8, 0.45]}
EXP1_CLIENTS = {"fedfair": [[3, 3, 4], [3, 3, 5], [3, 3, 4], [3, 3, 5]], "random": [4, 3, 3], "round_robin": [3, 4, 3]}


def _exp1(final=EXP1_FINAL, clients=EXP1_CLIENTS, noise=None, methods=("fedfair", "random", "round_robin")):
    runs = _task_runs("e1", final, clients, {"fedfair": QUIET} if noise is None else noise)
    return claims._exp1(runs, _per_round(runs), _exp("e1", "exp1", methods), 3.0, 0.02)


def test_exp1_matches_when_fedfair_is_ahead_on_every_seed():
    rows = _exp1()
    assert len(rows) == 8 and all(r.status == "match" for r in rows), [(r.claim, r.interval) for r in rows]
    assert all("4 seeds" in r.interval for r in rows)


def test_exp1_differs_when_fedfair_is_behind_on_every_seed():
    worse = {**EXP1_FINAL, "fedfair": [0.85, 0.82, 0.45]}  # task 0 drops by 0.05, the worst task by 0.15
    rows = _exp1(worse, {**EXP1_CLIENTS, "fedfair": [4, 4, 2]})
    assert _status(rows, "higher minimum accuracy than random") == "differs"
    assert _status(rows, "worst under random more clients") == "differs"
    assert _status(rows, "higher accuracy than random on the task") == "differs"
    assert _status(rows, "other tasks at the same or a higher accuracy than random") == "differs"
    assert _status(rows, "higher minimum accuracy than round robin") == "inconclusive"  # 0.45 vs 0.45 up to noise


def test_exp1_is_inconclusive_when_the_seeds_disagree():
    near = {**EXP1_FINAL, "fedfair": [0.9, 0.8, 0.52]}
    rows = _exp1(near, noise={"fedfair": NOISY})
    assert _status(rows, "higher minimum accuracy than random") == "inconclusive"
    assert _status(rows, "higher accuracy than random on the task") == "inconclusive"
    row = [r for r in rows if "other tasks at the same or a higher accuracy than random" in r.claim][0]
    assert row.status == "inconclusive" and row.note.startswith("inconclusive: seed noise")
    assert "2 other tasks" in row.interval


def test_exp1_keeps_not_run_rows_for_a_baseline_not_run():
    rows = _exp1(methods=("fedfair", "random"))
    assert {r.status for r in rows if "round robin" in r.claim} == {"not run in this profile"}
    assert {r.status for r in rows if "round robin" not in r.claim} == {"match"}


def _curves(exp: str, values: dict, noise: dict | None = None, rounds: int = 12) -> pd.DataFrame:
    """Across-task rows from per-method functions of the round: {method: (min_acc(r), avg_acc(r), var_acc(r))}; the
    seed's ``noise[method]`` is added to both accuracies and scales the variance by (1 + noise)."""
    rows = []
    for method, (low, avg, var) in values.items():
        for seed in range(SEEDS):
            e = (noise or {}).get(method, np.zeros(SEEDS))[seed]
            for r in range(1, rounds + 1):
                rows.append({"experiment": exp, "method": method, "alpha": _alpha(method), "seed": seed, "round": r,
                             "min_acc": low(r) + e, "avg_acc": avg(r) + e, "var_acc": var(r) * (1 + e)})  # fmt: skip
    return pd.DataFrame(rows)


def _exp2_values():
    return {
        "fedfair": (lambda r: 0.04 * r, lambda r: 0.05 * r, lambda r: 0.05 / r),
        "random": (lambda r: 0.03 * r, lambda r: 0.05 * r, lambda r: 0.08 / r),
        "round_robin": (lambda r: 0.035 * r, lambda r: 0.051 * r, lambda r: 0.07 / r),
    }


E2 = _exp("e2", "exp2", ("fedfair", "random", "round_robin"))


def test_exp2_matches_beyond_seed_noise():
    rows = claims._exp2(_curves("e2", _exp2_values(), {"fedfair": QUIET}), E2, 3.0, True, 0.02, 0.0)
    assert len(rows) == 9 and all(r.status == "match" for r in rows), [(r.claim, r.interval) for r in rows]
    assert "3 methods" in rows[0].interval and "4 panels" in rows[1].interval
    assert len(claims._exp2(_curves("e2", _exp2_values()), E2, 3.0, False, 0.02, 0.0)) == 5  # no Table II rows


def test_exp2_differs_beyond_seed_noise():
    values = _exp2_values()
    values["round_robin"] = (
        values["round_robin"][0],
        values["round_robin"][1],
        lambda r: 0.01 if r == 2 else 0.07 / r if r < 12 else 0.04,
    )
    values["random"] = (lambda r: 0.045 * r, lambda r: 0.08 * r, lambda r: 0.001 if r == 6 else 0.08 / r)
    rows = claims._exp2(_curves("e2", values, {"fedfair": QUIET}), E2, 3.0, True, 0.02, 0.0)
    assert _status(rows, "Variance across tasks falls") == "differs"  # round robin's variance rises at the end
    assert _status(rows, "lower variance across tasks than random") == "differs"  # random is lower at round 6
    assert _status(rows, "lower variance across tasks than round robin") == "differs"  # and round robin at round 2
    assert _status(rows, "converges faster than random") == "differs"
    assert _status(rows, "higher final minimum accuracy than random") == "differs"
    assert _status(rows, "comparable with random") == "differs"  # 0.6 vs 0.96 at the last round
    assert _status(rows, "comparable with round robin") == "match"


def test_exp2_is_inconclusive_under_seed_noise():
    values = {**_exp2_values(), "fedfair": _exp2_values()["random"]}  # FedFairMMFL = random up to seed noise
    rows = claims._exp2(_curves("e2", values, {"fedfair": NOISY}), E2, 3.0, True, 0.02, 0.0)
    for needle in (
        "lower variance across tasks than random",
        "converges faster than random",
        "higher final minimum accuracy than random",
        "comparable with random",
    ):
        assert _status(rows, needle) == "inconclusive", needle
    flat = {m: (lo, avg, lambda r: 0.01) for m, (lo, avg, _) in _exp2_values().items()}  # no method's variance falls
    rows = claims._exp2(_curves("e2", flat, {"fedfair": NOISY}), E2, 3.0, False, 0.02, 0.0)
    assert _status(rows, "Variance across tasks falls") == "inconclusive"


def test_exp2_single_seed_is_inconclusive():
    one = _curves("e2", _exp2_values())
    rows = claims._exp2(one[one.seed == 0], E2, 3.0, True, 0.02, 0.0)
    assert {r.status for r in rows} == {"inconclusive"}
    assert all("too few seeds" in r.note for r in rows)


def test_fig3_checkpoints_skip_round_one_and_rounds_at_chance():
    frame = _curves("e2", _exp2_values())  # min accuracy 0.03 r (random): every method >= 0.2 from round 7
    assert claims._checkpoints(frame, 0.0) == [2, 6, 12]  # a twelfth of 12 rounds is round 1: moved to round 2
    assert claims._checkpoints(frame, 0.2) == [7, 12]  # the models leave chance after the paper's half-way round
    assert claims._checkpoints(frame, 0.9) == [12]  # never: the last round alone


def test_exp2_variance_at_chance_rounds_is_not_compared():
    values = _exp2_values()
    values["random"] = (values["random"][0], values["random"][1], lambda r: 0.001 if r < 7 else 0.08 / r)
    rows = claims._exp2(_curves("e2", values, {"fedfair": QUIET}), E2, 3.0, False, 0.02, 0.0)
    assert _status(rows, "lower variance across tasks than random") == "differs"  # random lower at rounds 2 and 6
    rows = claims._exp2(_curves("e2", values, {"fedfair": QUIET}), E2, 3.0, False, 0.02, 0.2)
    assert "round 2" not in rows[1].reproduced and "round 7" in rows[1].reproduced


F4 = _exp("f4", "fig4", ("fedfair", "qffl"))
F4_GOOD = {
    "fedfair": (lambda r: 0.05 * r, lambda r: 0.5, lambda r: 0.1),
    "qffl": (lambda r: 0.04 * r, lambda r: 0.5, lambda r: 0.1),
}


@pytest.mark.parametrize(
    ("qffl_slope", "noise", "status"),
    [(0.04, QUIET, "match"), (0.06, QUIET, "differs"), (0.05, NOISY, "inconclusive")],
)
def test_fig4_claims(qffl_slope, noise, status):
    values = {**F4_GOOD, "qffl": (lambda r: qffl_slope * r, lambda r: 0.5, lambda r: 0.1)}
    assert [r.status for r in claims._fig4(_curves("f4", values, {"fedfair": noise}), F4, 3.0)] == [status, status]


E3 = [
    _exp("k20", "exp3", ("fedfair", "random", "round_robin"), 20),
    _exp("k40", "exp3", ("fedfair", "random", "round_robin"), 40),
]
# the seeds' offsets of FedFairMMFL's final minimum accuracy at each K, times its spread (unrelated from K to K)
SPREAD = {"k20": np.array([0.5, -0.5, 0.5, -0.5]), "k40": np.array([0.5, 0.5, -0.5, -0.5])}


def _exp3_table(k40_final: float, k40_spread: float, baseline: float, k20_spread: float = 0.08) -> pd.DataFrame:
    """FedFairMMFL's minimum accuracy rises linearly to its final value (seeds spread at the last round), random's is
    ``baseline`` throughout and round robin's rises to 0.3."""
    frames = []
    for name, final, spread in (("k20", 0.5, k20_spread), ("k40", k40_final, k40_spread)):
        values = {"fedfair": (lambda r, f=final: f * r / 12, lambda r: 0.5, lambda r: 0.1),
                  "random": (lambda r: baseline, lambda r: 0.5, lambda r: 0.1),
                  "round_robin": (lambda r: 0.3 * r / 12, lambda r: 0.5, lambda r: 0.1)}  # fmt: skip
        frame = _curves(name, values)
        ours_last = (frame.method == "fedfair") & (frame["round"] == 12)
        frame.loc[ours_last, "min_acc"] += spread * SPREAD[name][frame.loc[ours_last, "seed"]]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_exp3_matches_beyond_seed_noise():
    rows = claims._exp3(_exp3_table(0.6, 0.01, 0.2), E3, 3.0)
    assert len(rows) == 6 and all(r.status == "match" for r in rows), [(r.claim, r.interval) for r in rows]


def test_exp3_differs_beyond_seed_noise():
    rows = claims._exp3(_exp3_table(0.3, 0.01, 0.7), E3, 3.0)  # random ahead at every round and at the end
    assert _status(rows, "outperforms random in final minimum accuracy and/or convergence (k20)") == "differs"
    assert _status(rows, "outperforms round robin in final minimum accuracy and/or convergence (k20)") == "match"
    assert _status(rows, "rises with the number of clients") == "differs"
    rows = claims._exp3(_exp3_table(0.6, 0.4, 0.2), E3, 3.0)
    assert _status(rows, "varies less over seeds") == "differs"


def test_exp3_is_inconclusive_under_seed_noise():
    rows = claims._exp3(_exp3_table(0.52, 0.06, 0.5), E3, 3.0)
    # final: 0.5 +- 0.04 vs random's 0.5 (open); over rounds: 0.27 vs 0.5 (lower): a loss is not outperforming
    assert _status(rows, "outperforms random in final minimum accuracy and/or convergence (k20)") == "differs"
    assert _status(rows, "rises with the number of clients") == "inconclusive"
    assert _status(rows, "varies less over seeds") == "inconclusive"


def test_exp3_with_one_client_count_has_no_trend_rows():
    rows = claims._exp3(_exp3_table(0.6, 0.01, 0.2), E3[:1], 3.0)
    assert {r.status for r in rows[-2:]} == {"not run in this profile"}


def _iv(mean: float, spread: float = 0.01) -> v.Interval:
    return v.interval(mean + spread * np.array([1.0, -1.0, 0.5, -0.5]))


def test_outperforms_needs_one_gain_and_no_loss():
    assert claims._outperforms(_iv(0.05), _iv(0.0, 0.05)).status == v.MATCH  # a gain, the other open
    assert claims._outperforms(_iv(0.0, 0.05), _iv(0.05)).status == v.MATCH
    assert claims._outperforms(_iv(0.05), _iv(-0.05)).status == v.DIFFERS  # a trade-off is not outperforming
    assert claims._outperforms(_iv(-0.05), _iv(-0.05)).status == v.DIFFERS
    open_ = claims._outperforms(_iv(0.0, 0.05), _iv(0.0, 0.05))
    assert open_.status == v.INCONCLUSIVE and "no interval excludes 0" in open_.why
    assert claims._outperforms(v.interval([0.1]), v.interval([0.1])).why == "too few seeds"


def test_outperforms_gives_one_chance_not_two():
    # per-seed gains whose 95 % interval lies just above 0 but whose 97.5 % (Bonferroni) interval does not
    gains = v.interval([0.01, 0.03, 0.02, 0.04])
    assert v.higher(gains).status == v.MATCH and claims._adjusted(gains, 2).low < 0
    assert claims._outperforms(gains, gains).status == v.INCONCLUSIVE
    assert "97.5% t (Bonferroni)" in claims._outperforms(gains, gains).evidence


EXP4 = _exp("sweep", "exp4", ("random", "fedfair"), alphas=(1.0, 3.0, 10.0))


def _sweep(shares_of_task2: list[float], noise: np.ndarray, seeds: int = SEEDS) -> pd.DataFrame:
    """One round per run: FedFairMMFL gives task 2 (the hardest under random) ``shares_of_task2`` per alpha, plus the
    seed's noise (with alternating sign from one alpha to the next), and splits the rest evenly."""
    rows = []
    for seed in range(seeds):
        runs = [("random", np.nan, 1 / 3)] + [
            ("fedfair", a, s + (-1) ** i * noise[seed])
            for i, (a, s) in enumerate(zip((1.0, 3.0, 10.0), shares_of_task2))
        ]
        for method, alpha, share in runs:
            rest = (1 - share) / 2
            for task, (acc, part) in enumerate(zip((0.9, 0.8, 0.4), (rest, rest, share))):
                rows.append({"experiment": "sweep", "method": method, "alpha": alpha, "seed": seed, "round": 1,
                             "task": task, "task_name": f"t#{task}", "accuracy": acc, "loss": 1.0,
                             "clients": part * 1000, "collapsed": False})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("shares", "noise", "seeds", "status"),
    [
        ([0.3, 0.45, 0.7], QUIET, SEEDS, "match"),
        ([0.3, 0.48, 0.45], QUIET, SEEDS, "differs"),
        ([0.3, 0.32, 0.5], NOISY, SEEDS, "inconclusive"),
        ([0.3, 0.45, 0.7], QUIET, 1, "inconclusive"),  # the configs' sweep: one seed per alpha
    ],
)
def test_exp4_claims(shares, noise, seeds, status):
    runs = _sweep(shares, noise, seeds)
    rows = claims_exp4.exp4_claims(runs, _per_round(runs), EXP4)
    assert [r.status for r in (rows[0], rows[2])] == [status, status], [(r.claim, r.interval) for r in rows]
    assert all(claims.BY_ALLOCATION in r.note for r in (rows[0], rows[2]))  # the two that follow from Eq. 5


def _exp4_rows(runs: pd.DataFrame) -> dict:
    return {r.claim: r for r in claims_exp4.exp4_claims(runs, _per_round(runs), EXP4)}


ALWAYS, LAG = (claims_exp4.EXP4_STATEMENTS[k][0] for k in ("always", "lag"))


def test_exp4_the_hardest_task_must_be_the_hardest_under_every_run():
    runs = _sweep([0.3, 0.45, 0.7], QUIET)
    assert _exp4_rows(runs)[ALWAYS].status == "match"  # task 2 (0.4) below 0.9 and 0.8 everywhere
    easy = runs.copy()
    easy.loc[(easy.alpha == 10.0) & (easy.task == 2), "accuracy"] = 0.85  # at alpha 10 task 1 is the hardest
    assert _exp4_rows(easy)[ALWAYS].status == "differs"


def test_exp4_the_other_tasks_must_lag_at_the_largest_alpha():
    runs = _sweep([0.3, 0.45, 0.7], QUIET)
    slow = runs.copy()
    slow.loc[(slow.alpha == 10.0) & (slow.task != 2), "accuracy"] -= 0.1 + 0.01 * slow.seed  # behind alpha = 1
    assert _exp4_rows(slow)[LAG].status == "match"
    fast = runs.copy()
    fast.loc[(fast.alpha == 10.0) & (fast.task == 0), "accuracy"] += 0.05 + 0.01 * fast.seed  # task 0 ahead
    assert _exp4_rows(fast)[LAG].status == "differs"


def test_exp4_without_random_is_not_run():
    runs = _sweep([0.3, 0.45, 0.7], QUIET)
    rows = claims_exp4.exp4_claims(runs, _per_round(runs), _exp("sweep", "exp4", ("fedfair",)))
    assert [r.status for r in rows] == ["not run in this profile"] * 5
    assert [r.claim for r in rows] == [text for text, _ in claims_exp4.EXP4_STATEMENTS.values()]


def _alpha_curves(values: dict, noise: np.ndarray) -> pd.DataFrame:
    """FedFairMMFL's across-task rows per alpha: {alpha: (min_acc(r), avg_acc(r), var_acc(r))}, plus seed noise."""
    frames = []
    for alpha, curve in values.items():
        frame = _curves("sweep", {"fedfair": curve}, {"fedfair": noise})
        frames.append(frame.assign(alpha=alpha))
    return pd.concat(frames, ignore_index=True)


ALPHA3 = {
    1.0: (lambda r: 0.03 * r, lambda r: 0.05 * r, lambda r: 0.08 / r),
    3.0: (lambda r: 0.04 * r, lambda r: 0.05 * r, lambda r: 0.05 / r),
    10.0: (lambda r: 0.04 * r, lambda r: 0.04 * r, lambda r: 0.04 / r),
}


@pytest.mark.parametrize(
    ("change", "noise", "status"),
    [
        ({}, QUIET, "match"),
        (
            {10.0: (lambda r: 0.04 * r, lambda r: 0.06 * r, lambda r: 0.04 / r)},
            QUIET,
            "differs",
        ),  # alpha 10 more efficient
        ({1.0: (lambda r: 0.045 * r, lambda r: 0.05 * r, lambda r: 0.08 / r)}, QUIET, "differs"),  # alpha 1 fairer
        ({1.0: ALPHA3[3.0], 10.0: ALPHA3[3.0]}, NOISY, "inconclusive"),
    ],
)
def test_alpha3_balances_fairness_and_efficiency(change, noise, status):
    rows = claims_exp4._alpha3(_alpha_curves({**ALPHA3, **change}, noise), EXP4)
    assert [r.status for r in rows] == [status], [(r.claim, r.interval) for r in rows]


def test_alpha3_is_not_run_without_alpha_1_3_and_a_larger_one():
    rows = claims_exp4._alpha3(
        _alpha_curves(ALPHA3, QUIET), _exp("sweep", "exp4", ("random", "fedfair"), alphas=(1.0, 10.0))
    )
    assert [r.status for r in rows] == ["not run in this profile"]


F4B = _exp("f4b", "fig4", ("fedfair", "qffl"))
F4B = Experiment(**{**F4B.__dict__, "tasks": ("mnist", "emnist", "fashion_mnist")})


@pytest.mark.parametrize(
    ("qffl_emnist", "noise", "status"),
    [(0.3, QUIET, "match"), (0.7, QUIET, "differs"), (0.5, NOISY, "inconclusive")],
)
def test_fig4b_emnist_converges_slower_under_qffl(qffl_emnist, noise, status):
    final = {"fedfair": [0.9, 0.5, 0.8], "qffl": [0.9, qffl_emnist, 0.8]}
    runs = _task_runs("f4b", final, {"fedfair": [3, 3, 3], "qffl": [3, 3, 3]}, {"fedfair": noise})
    assert claims._fig4b(runs, [F4, F4B], 3.0).status == status


def test_fig4b_is_not_run_without_emnist():
    runs = _task_runs("f4", {"fedfair": [0.9, 0.5, 0.8]}, {"fedfair": [3, 3, 3]})
    row = claims._fig4b(runs, [F4], 3.0)
    assert row.status == "not run in this profile" and row.claim == claims.FIG4B[0] and "f4 (a, b, c)" in row.reproduced


def test_a_collapsed_run_is_named_in_the_note_of_its_experiments_rows():
    runs = _task_runs("e1", EXP1_FINAL, EXP1_CLIENTS, {"fedfair": QUIET})
    runs.loc[(runs.method == "random") & (runs.seed == 1) & (runs.task == 2), "collapsed"] = True
    exp = _exp("e1", "exp1", ("fedfair", "random", "round_robin"))
    rows = claims._noting_collapses(claims._exp1(runs, _per_round(runs), exp, 3.0, 0.02), runs, [exp])
    assert all("collapsed runs" in r.note and "e1/random seed 1 t#2" in r.note for r in rows)
    clean = claims._noting_collapses(
        claims._exp1(runs.assign(collapsed=False), _per_round(runs), exp, 3.0, 0.02),
        runs.assign(collapsed=False),
        [exp],
    )
    assert not any("collapsed" in r.note for r in clean)


def test_exp2_lower_variance_rows_name_the_task_counts_the_profile_does_not_run():
    """ "Lowest variance for all settings": each Exp 2 setting has its own row, whose note names the paper's task
    counts (3, 4, 5, 6, 10) that the profile does not run; the verdict is the setting's own, false when it is."""
    frame = _curves("e2", _exp2_values(), {"fedfair": QUIET})
    for counts, text in (((6, 10), "not run in this profile: 3, 4, 5 tasks"), ((3, 4, 5, 6, 10), "every count")):
        rows = claims._exp2(frame, E2, 3.0, False, 0.02, 0.0, counts)
        lower = [r for r in rows if "lower variance across tasks than" in r.claim]
        assert len(lower) == 2 and all(text in r.note and r.status == "match" for r in lower), [r.note for r in lower]
    worse = {**_exp2_values(), "fedfair": (lambda r: 0.04 * r, lambda r: 0.05 * r, lambda r: 0.1 / r)}
    rows = claims._exp2(_curves("e2", worse, {"fedfair": QUIET}), E2, 3.0, False, 0.02, 0.0, (3, 4, 5, 6, 10))
    assert _status(rows, "lower variance across tasks than random") == "differs"
