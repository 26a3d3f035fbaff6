"""Recruitment auctions (Section V of the FedFairMMFL paper): the ``auctions`` config block as typed settings,
Experiment 5 (take-up per task vs budget), the recruitment files of Experiment 6 and its training jobs, and the
measured properties the claims are computed from: the misreport sweep over random profiles (its per-misreport runs in
:mod:`~fairshare.papers.auctions.misreports`: truthfulness, Theorem 8, Corollary 9, Sec. V-B's winning set) and
Corollary 10 by Monte Carlo (Algorithm 3, Corollary 10 and Sec. VI of the paper; docs/auctions.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairshare import seeding
from fairshare.games import auctions as au
from fairshare.papers.auctions.misreports import Misreports, misreport_grid, misreport_profile

__all__ = [
    "BID_KEY",
    "Exp6",
    "Settings",
    "experiment_bids",
    "recruit_one",
    "exp5",
    "recruitment_record",
    "truthfulness",
    "THEOREM8_WITNESS",
    "Witness",
    "theorem8_witness",
    "corollary10_monte_carlo",
    "corollary10_auctions",
    "corollary10_table",
    "line5_table",
    "theorem11_table",
    "properties_table",
    "exp6_job",
    "exp6_per_round",
]

BID_KEY = 7  # seeding key of the Exp 5 / Exp 6 bid profiles


@dataclass(frozen=True)
class Exp6:
    """``auctions.exp6``: FedFairMMFL trained on each mechanism's recruits (Fig. 7c)."""

    budget: float
    tasks: tuple[str, ...]
    size_range: tuple[int, int]
    active_rate: float
    rounds: int
    local_epochs: int | None
    seeds: int
    nearly_same_tolerance: float
    mechanisms: tuple[str, ...]

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> Exp6:
        values = {f.name: block[f.name] for f in dataclasses.fields(cls)}
        return cls(
            **{
                **values,
                "tasks": tuple(values["tasks"]),
                "size_range": tuple(values["size_range"]),
                "mechanisms": tuple(values["mechanisms"]),
            }
        )

    def job_settings(self) -> dict[str, Any]:
        """The keys one training job reads (the budget and recruits come with its recruitment file)."""
        return {k: getattr(self, k) for k in ("tasks", "size_range", "active_rate", "rounds", "local_epochs")}


@dataclass(frozen=True)
class Settings:
    """The ``auctions`` block: Exp 5, the misreport sweep, Corollary 10 and ``exp6`` (Fig. 7c)."""

    users: int
    seeds: int
    budgets: tuple[float, ...]
    task1_mu: float
    task1_sigma: float
    mechanisms: tuple[str, ...]
    switches: Mapping[str, Any]  # the mechanisms' reading switches; each mechanism takes only its own
    constrained_budget_max: float
    truthfulness: Mapping[str, Any]
    corollary_draws: int
    corollary10: Mapping[str, Any]
    theorem11: Mapping[str, Any]
    nearly_same_margin: float
    exp6: Exp6

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> Settings:
        switches = {
            "fractional": block["fractional"],
            "strict": block["strict_reallocation"],
            "reallocation": block["reallocation"],
            "skip": block["skip_unaffordable"],
            "payment": block["budget_fair_payment"],
        }
        return cls(
            users=block["users"],
            seeds=block["seeds"],
            budgets=tuple(block["budgets"]),
            task1_mu=block["task1_mu"],
            task1_sigma=block["task1_sigma"],
            mechanisms=tuple(block["mechanisms"]),
            switches=switches,
            constrained_budget_max=block["constrained_budget_max"],
            truthfulness=block["truthfulness"],
            corollary_draws=block["corollary_draws"],
            corollary10=block["corollary10"],
            theorem11=block["theorem11"],
            nearly_same_margin=block["nearly_same_margin"],
            exp6=Exp6.from_block(block["exp6"]),
        )


def experiment_bids(settings: Settings, root: int, seed: int) -> np.ndarray:
    """Seed ``seed``'s Exp 5 bid profile (users x 2); Exp 6 recruits from the same profiles."""
    rng = seeding.generator(root, "game", BID_KEY, seed)
    return au.experiment5_bids(settings.users, rng, settings.task1_mu, settings.task1_sigma)


def recruit_one(
    settings: Settings, root: int, mechanism: str, seed: int, budget: float, bids: np.ndarray | None = None
) -> au.Recruitment:
    """Mechanism ``mechanism`` on seed ``seed``'s profile at ``budget`` (the same draw in Exp 5 and Exp 6)."""
    bids = experiment_bids(settings, root, seed) if bids is None else bids
    rng = seeding.generator(root, "sampling", BID_KEY, seed, int(round(budget * 1000)))
    return au.run_mechanism(mechanism, bids, budget, rng, **settings.switches)


def exp5(settings: Settings, root: int, progress: bool = True) -> pd.DataFrame:
    """Experiment 5 (Figs. 7a, 7b): take-up per task, difference, minimum and spending per mechanism, budget, seed."""
    from fairshare.learning.progress import progress_iter

    rows = []
    for seed in progress_iter(range(settings.seeds), settings.seeds, "auctions exp5", unit="seed", enabled=progress):
        bids = experiment_bids(settings, root, seed)
        for budget in settings.budgets:
            for mech in settings.mechanisms:
                r = recruit_one(settings, root, mech, seed, budget, bids)
                metrics = {f"take_up_task{s + 1}": float(n) for s, n in enumerate(r.take_up)}
                metrics.update(difference=r.difference, min_recruited=r.objective, spent=r.spent)
                rows += [
                    {
                        "paper": "auctions",
                        "experiment": "exp5",
                        "method": mech,
                        "seed": seed,
                        "round": 0,
                        "budget": float(budget),
                        "metric": k,
                        "value": v,
                    }
                    for k, v in metrics.items()
                ]
    return pd.DataFrame(rows)


def recruitment_record(settings: Settings, root: int, mechanism: str, seed: int, budget: float) -> dict[str, Any]:
    """The recruitment JSON Exp 6 trains on: winners per task, participation, payments, the bids and the switches."""
    from fairshare.io import run_metadata

    bids = experiment_bids(settings, root, seed)
    r = recruit_one(settings, root, mechanism, seed, budget, bids)
    return {
        "paper": "auctions",
        "experiment": "recruitment",
        "mechanism": mechanism,
        "seed": seed,
        "budget": budget,
        "switches": {k: v for k, v in settings.switches.items() if k in au.SWITCHES.get(mechanism, ())},
        "bid_distributions": {
            "task1": f"N({settings.task1_mu}, {settings.task1_sigma}^2) truncated to [0, 1]",
            "task2": "pdf 2x on [0, 1]",
        },
        **r.to_record(),
        "bids": bids.tolist(),
        "metadata": run_metadata(root, seed_index=seed),
    }


@dataclass(frozen=True)
class Witness:
    """One explicit misreport: ``costs`` (users x tasks, bids when truthful), budget B, the lying user, its task
    and its report."""

    costs: tuple[tuple[float, ...], ...]
    budget: float
    user: int
    task: int
    report: float


#: A fixed, seed-independent counterexample to Theorem 8, constructed from Algorithm 3's proportional-share rule:
#: B = 2, so B_s = 1 and both tasks are identical. Truthfully, two users per task win at price 1/2 and in round 3
#: both tasks fail (0.4 > 1/3, 0.45 > 1/3) with no surplus, so no re-allocation or fractional round happens. User 2
#: (cost 0.45 <= 1/2) loses; under-bidding task 0 to 0 displaces user 1 and is paid the price B_s/2 = 1/2, a gain of
#: 0.05 with its bid in no re-allocation or fractional round. The random sweep's exceptions under base seed 2026
#: (8 of 10,080 misreports, profiles 0 and 10) are of this kind: a losing user under-bids, displaces the last
#: winner and is paid B_s/t; this profile is the smallest instance of that pattern (found by hand from the rule,
#: checked against the minimised seed-2026 profile 0, which needed 10 users). Re-run on every run.
THEOREM8_WITNESS = Witness(costs=((0.1, 0.1), (0.4, 0.4), (0.45, 0.45)), budget=2.0, user=2, task=0, report=0.0)


def theorem8_witness(settings: Settings, witness: Witness = THEOREM8_WITNESS) -> Misreports:
    """The max-min auction (Algorithm 3, the configured switches) run on ``witness`` truthfully and with the lie."""
    return misreport_grid(
        "maxmin_fair",
        np.array(witness.costs),
        witness.budget,
        witness.user,
        witness.task,
        np.array([witness.report]),
        seed=0,
        **settings.switches,
    )


def truthfulness(settings: Settings, root: int, progress: bool = True) -> pd.DataFrame:
    """The misreport sweep over random profiles for every mechanism, plus budget-fair with the printed uniform price."""
    from fairshare.learning.progress import progress_iter

    t = settings.truthfulness
    reports = np.linspace(0.0, 1.0, t["grid_points"])
    variants = [(m, m, settings.switches) for m in au.MECHANISMS]
    variants.append(("budget_fair_uniform_price", "budget_fair", {**settings.switches, "payment": "uniform"}))
    rows = []
    for p in progress_iter(
        range(t["profiles"]), t["profiles"], "auctions truthfulness", unit="profile", enabled=progress
    ):
        rng = seeding.generator(root, "game", 9, p)
        costs = au.experiment5_bids(t["users"], rng, settings.task1_mu, settings.task1_sigma)
        budget = float(rng.uniform(*t["budget_range"]))
        for label, mech, options in variants:
            summary = misreport_profile(mech, costs, budget, reports, seed=p, **options)
            rows += [
                {
                    "paper": "auctions",
                    "experiment": "truthfulness",
                    "method": label,
                    "seed": p,
                    "round": 0,
                    "budget": budget,
                    "metric": k,
                    "value": float(v),
                }
                for k, v in summary.items()
            ]
    return pd.DataFrame(rows)


def corollary10_monte_carlo(y: float, draws: int, rng: np.random.Generator) -> tuple[float, float]:
    """The two probabilities of :func:`fairshare.games.auctions.corollary10` estimated from ``draws`` pairs of Exp(1)
    minimum bids (B = y): P(x_1 + x_2 >= B) and P(max(x_1, x_2) >= B / 2)."""
    x = rng.exponential(1.0, size=(draws, 2))
    return float(np.mean(x.sum(axis=1) >= y)), float(np.mean(x.max(axis=1) >= y / 2))


def corollary10_auctions(y: float, users: int, draws: int, rng: np.random.Generator) -> tuple[float, float]:
    """The same probabilities from the auctions themselves: two tasks, ``users`` bids per task i.i.d. Exp(1/users)
    (so each task's minimum bid is Exp(1)), budget B = y; the share of draws where some task recruits no full user
    under the max-min auction (no fractional round, re-allocation when A < C) and under the budget-fair auction."""
    empty_mm = empty_bf = 0
    for _ in range(draws):
        bids = rng.exponential(float(users), size=(users, 2))
        empty_mm += int((au.maxmin_fair(bids, y, fractional=False).x >= 1).sum(axis=0).min() == 0)
        empty_bf += int(au.budget_fair(bids, y).take_up.min() == 0)
    return empty_mm / draws, empty_bf / draws


def corollary10_table(settings: Settings, root: int) -> pd.DataFrame:
    """Corollary 10 per y = B lambda: closed forms, Monte Carlo on the minimum bids and on the auctions (with
    standard errors)."""
    c, out = settings.corollary10, []
    for k, y in enumerate(c["y_values"]):
        exact = au.corollary10(y)
        mc = corollary10_monte_carlo(y, settings.corollary_draws, seeding.generator(root, "game", 10, k))
        auc = corollary10_auctions(y, c["users"], c["auction_draws"], seeding.generator(root, "game", 11, k))
        sources = (
            ("closed_form", exact, 0),
            ("monte_carlo", mc, settings.corollary_draws),
            ("auctions", auc, c["auction_draws"]),
        )
        for method, values, draws in sources:
            for mech, value in zip(("maxmin", "budget_fair"), values):
                out.append({"method": method, "y": y, "metric": f"p_no_user_{mech}", "value": value})
                if draws:
                    se = float(np.sqrt(max(value * (1 - value), 1e-12) / draws))
                    out.append({"method": method, "y": y, "metric": f"se_{mech}", "value": se})
    frame = pd.DataFrame(out)
    frame.insert(0, "round", 0)
    frame.insert(0, "seed", 0)
    frame.insert(0, "experiment", "corollary10")
    frame.insert(0, "paper", "auctions")
    return frame[["paper", "experiment", "method", "seed", "round", "y", "metric", "value"]]


def _tidy(rows: list[dict[str, Any]], experiment: str) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame.insert(0, "round", 0)
    frame.insert(0, "experiment", experiment)
    frame.insert(0, "paper", "auctions")
    return frame


def line5_table(settings: Settings, root: int) -> pd.DataFrame:
    """Algorithm 3's line 5 read both ways on Exp 5's profiles at the budget-constrained budgets: the smallest take-up
    per task with the t-th smallest bid (as implemented), with the t-th biggest bid (as printed), and under the
    budget-fair auction it should start from (y = the budget)."""
    variants = {
        "line5_smallest": ("maxmin_fair", {**settings.switches, "line5": "smallest"}),
        "line5_biggest": ("maxmin_fair", {**settings.switches, "line5": "biggest"}),
        "budget_fair": ("budget_fair", settings.switches),
    }
    rows = []
    for seed in range(settings.seeds):
        bids = experiment_bids(settings, root, seed)
        for budget in (b for b in settings.budgets if b <= settings.constrained_budget_max):
            for label, (mech, switches) in variants.items():
                r = au.run_mechanism(mech, bids, budget, None, **switches)
                rows.append({"method": label, "seed": seed, "y": float(budget), "metric": "min_recruited",
                             "value": r.objective})  # fmt: skip
    return _tidy(rows, "algorithm3_line5")


def theorem11_table(settings: Settings, root: int) -> pd.DataFrame:
    """Sec. V-C's budget-fair join probability (the p^join of Theorem 11) against the auction: a user bidding b for
    task 2 (bids pdf 2x, CDF b^2) among ``users`` bidders, total budget B (y); closed form and the share of auction
    runs it wins, with the binomial standard error that share has if the closed form is right (``se``) and the
    share's own standard error (``se_own``, the first computation's, reported beside)."""
    c = settings.theorem11
    rows = []
    for k, budget in enumerate(c["budgets"]):
        rng = seeding.generator(root, "game", 12, k)
        for bid in c["bids"]:
            exact = au.budget_fair_join_probability(bid, budget, c["users"], 2, bid**2)
            wins = 0
            for _ in range(c["draws"]):
                bids = au.experiment5_bids(c["users"], rng, settings.task1_mu, settings.task1_sigma)
                bids[0, 1] = bid
                wins += int(au.budget_fair(bids, budget).x[0, 1] > 0)
            share = wins / c["draws"]
            se = float(np.sqrt(max(exact * (1 - exact), 1e-12) / c["draws"]))  # under the closed form (the null)
            se_own = float(np.sqrt(share * (1 - share) / c["draws"]))  # the win rate's own (the first computation)
            rows += [
                {
                    "method": "closed_form",
                    "seed": 0,
                    "y": float(budget),
                    "bid": bid,
                    "metric": "p_join",
                    "value": exact,
                },
                {"method": "auctions", "seed": 0, "y": float(budget), "bid": bid, "metric": "p_join", "value": share},
                {"method": "auctions", "seed": 0, "y": float(budget), "bid": bid, "metric": "se", "value": se},
                {"method": "auctions", "seed": 0, "y": float(budget), "bid": bid, "metric": "se_own", "value": se_own},
            ]
    return _tidy(rows, "theorem11")


def properties_table(settings: Settings, root: int) -> pd.DataFrame:
    """results/auctions/corollary10.csv: Corollary 10, the Algorithm 3 line-5 readings and Theorem 11's budget-fair
    join probability, told apart by ``experiment``."""
    parts = [corollary10_table(settings, root), line5_table(settings, root), theorem11_table(settings, root)]
    return pd.concat(parts, ignore_index=True)


def exp6_job(
    exp6: Exp6,
    training: Any,
    record: Mapping[str, Any],
    datasets: Mapping[str, Any],
    *,
    root: int,
    device: Any,
    checkpoint: str | Path | None,
    progress: bool = True,
    place: tuple[int, int] = (1, 1),
) -> pd.DataFrame:
    """Train the two tasks with FedFairMMFL on one recruitment (``record``: a recruitment JSON); ``training`` is the
    mmfl block's :class:`fairshare.papers.mmfl.experiment.Training`, local epochs overridden by ``exp6``. A client
    may train a task in a round with probability x[client, task] (Sec. VI, Exp 6). ``place``: (k, N), the job's k-th
    run of N, named in progress lines."""
    from fairshare.data.partition import mmfl_iid
    from fairshare.learning.device import seed_run
    from fairshare.learning.mmfl import run_mmfl
    from fairshare.learning.progress import numbered
    from fairshare.learning.rounds import settings_hash
    from fairshare.papers.mmfl.experiment import report_collapse

    if exp6.local_epochs is not None:
        training = dataclasses.replace(training, local_epochs=exp6.local_epochs)
    recruited = au.Recruitment.from_record(record)
    mechanism, seed = record["mechanism"], int(record["seed"])
    seed_run(root, "auctions_exp6", seed)
    tasks = []
    for s, name in enumerate(exp6.tasks):
        ds = datasets[name]
        part = mmfl_iid(
            ds.y_train, record["n_users"], exp6.size_range, seeding.generator(root, "partition", 70 + seed, s)
        )
        tasks.append(
            training.task(
                name,
                ds,
                part,
                position=s,
                root=root,
                init_key=70 + seed,
                test_key=20_000 + s,
                device=device,
                mask_absent=False,
            )
        )
    rows, _ = run_mmfl(
        tasks,
        n_clients=record["n_users"],
        active_rate=exp6.active_rate,
        rounds=exp6.rounds,
        policy="fedfair",
        alpha=training.alpha,
        weighted_aggregation=True,
        executor=training.executor,
        sampling_rng=lambda r: seeding.generator(root, "sampling", 80 + seed, r),
        order_rng=lambda r, s, c: seeding.generator(root, "data_order", 80 + seed, r, s, c),
        settings=settings_hash(training.job_settings(), exp6.job_settings(), mechanism, seed, root),
        checkpoint=checkpoint,
        eligibility=recruited.x,
        progress=progress,
        chunk=training.chunk,
        label=numbered(f"auctions exp6 {mechanism} budget={float(record['budget']):g} seed={seed}", *place),
    )
    frame = pd.DataFrame(rows)
    frame.insert(0, "recruited", [float(recruited.take_up[t]) for t in frame.task])
    frame.insert(0, "budget", float(record["budget"]))
    frame.insert(0, "seed", seed)
    frame.insert(0, "method", mechanism)
    frame.insert(0, "experiment", "exp6")
    report_collapse(frame, f"auctions exp6 {mechanism} seed={seed}")
    return frame


def exp6_per_round(runs: pd.DataFrame) -> pd.DataFrame:
    """Minimum accuracy across the two tasks and minimum recruits per task, per mechanism, seed and round."""
    agg = runs.groupby(["method", "seed", "round"]).agg(min_acc=("accuracy", "min"), min_recruited=("recruited", "min"))
    return agg.reset_index()
