"""The Aequa extensions' experiments: participation rate as the contribution (Sec. 6.4, Table 3, Fig. 2),
training-time rewards (Sec. 4.3 and 6.5, Algorithm 2, Figs 3-4) and a writer-scale federation with partial
participation (Sec. 6.6, Table 4, Fig. 5).

Settings come from the ``aequa`` block (shared with the main experiments through ``papers.aequa.experiment``, so
a training-time setting reuses the main experiments' standalone contributions). Every run's rounds go through
``fairshare.learning.rounds.run_rounds`` (:class:`~fairshare.papers.aequa.experiment.Job`); per-round evaluation
(training-time rewards) is the round step's metrics. A job may train several runs (``*_runs``: seeds and methods),
each seeded and set up exactly as a job of its own, as in the main experiments.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from fairshare import seeding
from fairshare.config import ConfigError
from fairshare.papers.aequa.experiment import (
    Contributions,
    Job,
    Run,
    Setting,
    aequa_step,
    annealing_options,
    cgsv_step,
    contribution_fields,
    contributions_of,
    data_fingerprint,
    fedavg_ft_states,
    finished,
    fit_curve,
    iafl_step,
    job_order,
    partition_entry,
    pearson,
    prepare,
    read_contributions,
    standalone_states,
    train_aequa,
    width_curve,
    width_curve_rows,
)

PARTICIPATION_METHODS = ("fedavg_ft", "cgsv", "iafl", "aequa")
TRAINING_TIME_METHODS = ("fedavg_ft", "cgsv", "iafl", "aequa", "aequa_cgsv", "aequa_shapfed")
SCALE_METHODS = ("standalone", "fedavg_ft", "aequa")
LABELS = {
    "fedavg_ft": "FedAvg-FT",
    "cgsv": "CGSV",
    "iafl": "IAFL",
    "aequa": "Aequa",
    "aequa_cgsv": "Aequa+CGSV",
    "aequa_shapfed": "Aequa+ShapFed",
}
ROUND_METRICS = ("accuracy", "pearson", "mcg", "cgs", "ipr")


# ----------------------------------------------------------------------------------------------- participation
def participation_rates(n: int, low: float, high: float) -> np.ndarray:
    """Client i's probability of joining a round: evenly spaced over [low, high] (Sec. 6.4 "a mild but controlled
    variation"; the formula is lost, reconstruction [spec §2.6])."""
    return np.linspace(low, high, n)


def participants_schedule(
    rates: np.ndarray, rng_of_round: Callable[[int], np.random.Generator]
) -> Callable[[int], np.ndarray]:
    """round -> indices of the clients that join it (independent Bernoulli(rate_i) draws per round)."""
    return lambda r: np.flatnonzero(rng_of_round(r).random(len(rates)) < rates)


def rates_as_accuracies(rates: np.ndarray, curve: np.ndarray) -> np.ndarray:
    """Participation rates min-max mapped onto the accuracy range [a(p_min), a(1)] of the trained model, so the
    allocation's gains compare like with like (App. D.6-style normalisation, reconstruction [spec §2.6])."""
    lo, hi = float(np.min(curve)), float(np.max(curve))
    span = rates.max() - rates.min()
    if span <= 0:
        return np.full_like(rates, hi)
    return lo + (hi - lo) * (rates - rates.min()) / span


def run_participation(cfg: dict, st: Setting, method: str, job: Job) -> dict:
    """One method with Bernoulli participation; the rates are the contributions. The run's result fields."""
    from fairshare.games.aequa_allocation import anneal
    from fairshare.learning import baselines

    rates = participation_rates(len(st.clients), *cfg["participation"]["rate_range"])
    joins = participants_schedule(
        rates, lambda r: seeding.generator(st.root, f"aequa/participation/{st.key}", st.seed, r)
    )
    joined = np.bincount(
        np.concatenate([joins(r) for r in range(st.rounds)] + [np.array([], int)]), minlength=len(rates)
    )
    out: dict[str, Any] = {"rates": rates.tolist(), "joined": joined.tolist()}
    if method == "fedavg_ft":
        glob, tuned = fedavg_ft_states(cfg, st, job, participants=joins)
        out.update(global_acc=st.acc(glob), reward_acc=[st.acc(x) for x in tuned])
    elif method == "cgsv":
        state, _ = job.rounds(
            cgsv_step(cfg, st, participants=joins), baselines.cgsv_start(st.init, st.clients), st.rounds, desc="cgsv"
        )
        out.update(global_acc=st.acc(state["server"]), reward_acc=[st.acc(x) for x in state["locals"]])
    elif method == "iafl":
        step = iafl_step(cfg, st, rates, f"aequa/participation/sampling/{st.key}", participants=joins)
        state, _ = job.rounds(step, baselines.iafl_start(st.init, st.clients), st.rounds, desc="iafl")
        out.update(global_acc=st.acc(state["server"]), reward_acc=[st.acc(x) for x in state["locals"]])
    else:
        state = train_aequa(cfg, st, job, "aequa_participation", participants=joins)
        curve = width_curve(st, state)
        fitted = fit_curve(st, state, curve)
        target = rates_as_accuracies(rates, fitted)
        alloc = anneal(
            target,
            fitted,
            seeding.generator(st.root, f"aequa/participation/game/{st.key}", st.seed),
            **annealing_options(cfg),
        )
        out.update(
            global_acc=float(curve[-1]),
            reward_acc=curve[alloc.indices].tolist(),
            allocated_width=st.widths[alloc.indices].tolist(),
            widths=st.widths.tolist(),
            curve=curve.tolist(),
            allocation_target=target.tolist(),
        )
    return out


def participation_runs(
    cfg: dict, root: int, device_name: str, dataset: str, dataset_file: str, runs: Sequence[Run], cfg_id: str
) -> Iterator[tuple[Run, dict]]:
    """Train the participation runs of one job (dataset), yielding each run's result fields when it is done."""
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import settings_hash

    entry = partition_entry(cfg, cfg["participation"]["partition"])
    for run in runs:
        started = time.perf_counter()
        set_deterministic(
            seeding.integer_seed(root, f"aequa/participation/torch/{dataset}/{run.method}", run.seed) % 2**31
        )
        st = prepare(cfg, root, device_name, dataset, dataset_file, entry, run.seed)
        digest = settings_hash(cfg_id, "participation", dataset, run.method, run.seed, data_fingerprint(st))
        out = {**st.info, "method": run.method, **run_participation(cfg, st, run.method, Job(run.checkpoint, digest))}
        yield run, finished(out, st, started)


def participation_results(runs: list[dict]):
    """(per-client rates and rewards, per-run accuracy and Pearson(rate, reward)) of the participation runs."""
    import pandas as pd

    per_client = pd.DataFrame(
        [
            {
                "dataset": r["dataset"],
                "method": r["method"],
                "seed": r["seed"],
                "client": i,
                "rate": rate,
                "joined": j,
                "reward_acc": a,
            }
            for r in runs
            for i, (rate, j, a) in enumerate(zip(r["rates"], r["joined"], r["reward_acc"]))
        ]
    )
    tidy = pd.DataFrame(
        [
            {
                "dataset": r["dataset"],
                "method": r["method"],
                "seed": r["seed"],
                "accuracy": r["global_acc"],
                "pearson": pearson(r["rates"], r["reward_acc"]),
            }
            for r in runs
        ]
    )
    return per_client, tidy


def table3(tidy, datasets: list[str]):
    """Table 3: (CSV frame, Markdown) of every method's accuracy and Pearson correlation per dataset."""
    import pandas as pd

    means = tidy.groupby(["dataset", "method"])[["accuracy", "pearson"]].mean()
    rows, lines = [], []
    header = "| Method | " + " | ".join(f"{d} Acc. | {d} ρ" for d in datasets) + " |"
    lines += [
        f"Table 3 (reproduction): participation rate as the contribution; accuracy of the global model and Pearson "
        f"correlation between participation rates and reward accuracies, mean over {tidy.seed.nunique()} seed(s)",
        "",
        header,
        "|---|" + "---|---|" * len(datasets),
    ]
    for m in PARTICIPATION_METHODS:
        if not any((d, m) in means.index for d in datasets):
            continue
        rec = {"method": LABELS[m]}
        for d in datasets:
            acc, rho = means.loc[(d, m)] if (d, m) in means.index else (np.nan, np.nan)
            rec[f"{d} accuracy"], rec[f"{d} pearson"] = float(acc), float(rho)
        rows.append(rec)
        lines.append(
            f"| {LABELS[m]} | "
            + " | ".join(f"{rec[f'{d} accuracy']:.3f} | {rec[f'{d} pearson']:.3f}" for d in datasets)
            + " |"
        )
    return pd.DataFrame(rows), "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------- training-time rewards
def evaluation(contributions: np.ndarray, reward_acc, global_acc: float, extra: dict | None = None) -> dict:
    """One evaluated round: global accuracy, Pearson, MCG, CGS, IPR and the rewards themselves."""
    from fairshare import metrics as m

    a = np.asarray(reward_acc, float)
    return {
        "accuracy": global_acc,
        "pearson": pearson(contributions, a),
        "mcg": m.mean_collaboration_gain(a, contributions),
        "cgs": m.collaboration_gain_spread(a, contributions),
        "ipr": m.incentivized_participation_rate(a, contributions),
        "reward_acc": a.tolist(),
        **(extra or {}),
    }


def _evaluated(step, measure: Callable[[int, Any], dict], due: Callable[[int], bool]):
    """``step`` whose metrics are ``measure(r, state)`` after every round ``due(r)`` (one row of columns)."""

    def wrapped(r: int, state: Any) -> tuple[Any, list[dict], int]:
        state, _, samples = step(r, state)
        return state, [measure(r, state)] if due(r) else [], samples

    return wrapped


def run_training_time(cfg: dict, st: Setting, method: str, contributions: Contributions, job: Job) -> list[dict]:
    """Train one method, evaluating its rewards every ``eval_every`` rounds (and the last) against the test split's
    contributions: the evaluated rounds. Algorithms fit on ``contributions.fit`` (the validation split's)."""
    from fairshare.games.aequa_allocation import anneal
    from fairshare.learning import baselines
    from fairshare.learning.aequa_training_time import training_time_start, training_time_step
    from fairshare.learning.engine import balanced_accuracy_of
    from fairshare.learning.slimmable import set_width

    tt, c = cfg["training_time"], contributions.test
    due = lambda r: (r + 1) % tt["eval_every"] == 0 or r == st.rounds - 1  # noqa: E731
    if method == "fedavg_ft":
        step = baselines.fedavg_step(
            st.model,
            st.clients,
            st.train,
            st.order_rng,
            lr_at=st.lr_at,
            executor=st.executor,
            weighted=cfg["train"]["weighted_aggregation"],
        )

        def measure(r, state):
            tuned = baselines.finetune(
                st.model,
                state,
                st.clients,
                st.train,
                cfg["fedavg_ft"]["finetune_epochs"],
                st.order_rng,
                r + 1,
                lr_at=st.lr_at,
                executor=st.executor,
            )
            return evaluation(c, [st.acc(x) for x in tuned], st.acc(state))

        initial = st.init
    elif method in ("cgsv", "iafl"):
        if method == "cgsv":
            step, initial = cgsv_step(cfg, st), baselines.cgsv_start(st.init, st.clients)
        else:
            step, initial = (
                iafl_step(cfg, st, contributions.fit, f"aequa/sampling/{st.key}"),
                baselines.iafl_start(st.init, st.clients),
            )

        def measure(r, state):
            return evaluation(c, [st.acc(x) for x in state["locals"]], st.acc(state["server"]))
    elif method == "aequa":  # post-training allocation, applied to the model of every evaluated round
        step, initial = aequa_step(cfg, st, "aequa"), st.init

        def measure(r, state):
            curve = width_curve(st, state)
            alloc = anneal(
                contributions.fit,
                fit_curve(st, state, curve),
                seeding.generator(st.root, f"aequa/training_time/game/{st.key}", st.seed, r),
                **annealing_options(cfg),
            )
            return evaluation(c, curve[alloc.indices], float(curve[-1]), {"widths": st.widths[alloc.indices].tolist()})
    else:
        grid = None if st.bn_grid is None else st.bn_grid.tolist()
        step = training_time_step(
            st.model,
            st.clients,
            st.train,
            order_rng=st.order_rng,
            width_rng=lambda r, i: seeding.generator(
                st.root, f"aequa/training_time/widths/{st.key}/{method}", st.seed, r, i
            ),
            p_min=st.p_min,
            ca=method.split("_", 1)[1],
            beta=tt["beta"],
            last_k=tt["last_k"],
            min_score=tt["min_score"],
            grid=grid,
            subwidth_mode=cfg["subwidth_mode"],
            lr_at=st.lr_at,
            weighted=cfg["train"]["weighted_aggregation"],
            width_loss=cfg["width_loss"],
            executor=st.executor,
        )
        initial = training_time_start(st.init, len(st.clients), st.p_min, grid)

        def measure(r, run):
            st.model.load_state_dict(run["model"])
            accs = []
            for p in run["widths"]:
                set_width(st.model, float(p))
                accs.append(balanced_accuracy_of(st.model, None, *st.test, st.n_classes))
            set_width(st.model, 1.0)
            return evaluation(c, accs, st.acc(run["model"]), {"widths": run["widths"].tolist()})

    _, history = job.rounds(_evaluated(step, measure, due), initial, st.rounds, desc=method)
    return history


def training_time_runs(
    cfg: dict,
    root: int,
    device_name: str,
    dataset: str,
    dataset_file: str,
    partition: str,
    runs: Sequence[Run],
    standalone: Mapping[int, str],
    cfg_id: str,
) -> Iterator[tuple[Run, dict]]:
    """Train the training-time runs of one job (setting), yielding each run's result fields when it is done;
    ``standalone``: seed -> the main experiments' standalone run of that seed (the contributions)."""
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import settings_hash

    entry = partition_entry(cfg, partition)
    for run in runs:
        if run.seed not in standalone:
            raise ConfigError(f"seed {run.seed} of {dataset}/{partition} needs its standalone run (the contributions)")
        started = time.perf_counter()
        set_deterministic(
            seeding.integer_seed(root, f"aequa/training_time/torch/{dataset}/{partition}/{run.method}", run.seed)
            % 2**31
        )
        st = prepare(cfg, root, device_name, dataset, dataset_file, entry, run.seed)
        contributions = read_contributions(standalone[run.seed], run.method, len(st.clients))
        digest = settings_hash(
            cfg_id, "training_time", dataset, partition, run.method, run.seed, data_fingerprint(st), contributions
        )
        history = run_training_time(cfg, st, run.method, contributions, Job(run.checkpoint, digest))
        out = {**st.info, "method": run.method, **contribution_fields(contributions), "history": history}
        yield run, finished(out, st, started)


def training_time_rounds(runs: list[dict]):
    """Tidy per-round metrics of the training-time runs."""
    import pandas as pd

    rows = [
        {
            "dataset": r["dataset"],
            "partition": r["partition"],
            "scheme": r["scheme"],
            "method": r["method"],
            "seed": r["seed"],
            "round": h["round"],
            "metric": k,
            "value": h[k],
        }
        for r in runs
        for h in r["history"]
        for k in ROUND_METRICS
    ]
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------- writer scale
def scale_cfg(cfg: dict) -> dict:
    """The aequa config seen by the scale experiment: its own dataset subset, model, clients and rounds."""
    sc = cfg["scale"]
    return {
        **cfg,
        "max_train_samples": {"default": sc["max_train_samples"]},
        "models": {"default": sc["model"]},
        "train": {**cfg["train"], "rounds": {"default": sc["rounds"]}},
    }


def scale_setting(
    cfg: dict, root: int, device: str, dataset: str, dataset_file: str, writers: str | None, seed_index: int
) -> tuple[dict, Setting, Callable[[int], np.ndarray]]:
    """(the scale config, the setting, round -> sampled participants): writer clients, a fixed share per round."""
    from fairshare.data.partition import by_writer

    sc = cfg["scale"]
    scfg = scale_cfg(cfg)
    entry = {"name": "writers", **sc["partition"]}
    if entry["scheme"] == "by_writer" and not writers:
        raise ConfigError(
            "aequa.scale.partition.scheme by_writer needs real writer ids (--writers, FEMNIST only); use scheme: writers"
        )
    override = None
    if writers:

        def override(labels, train_idx, rng):
            return by_writer(
                labels,
                np.load(writers)["writers_train"][train_idx],
                max_clients=sc["clients"],
                min_size=sc["partition"].get("min_size", 1),
                rng=rng,
            )

    st = prepare(
        scfg, root, device, dataset, dataset_file, entry, seed_index, clients=sc["clients"], partition_override=override
    )
    per_round = max(1, int(round(sc["participation_fraction"] * len(st.clients))))

    def joins(r: int) -> np.ndarray:
        return np.sort(
            seeding.generator(root, f"aequa/scale/participants/{st.key}", st.seed, r).choice(
                len(st.clients), size=per_round, replace=False
            )
        )

    return scfg, st, joins


def run_scale(scfg: dict, st: Setting, joins, method: str, contributions: Contributions | None, job: Job) -> dict:
    """One method of the scalability experiment: the run's result fields."""
    from fairshare.games.aequa_allocation import anneal

    if method == "standalone":
        states, _ = standalone_states(scfg, st, job, scheduled=False)
        out = {"reward_acc": [st.acc(x) for x in states], "global_acc": None}
        if st.val is not None:
            out["validation_acc"] = [st.val_acc(x) for x in states]
        return out
    if method == "fedavg_ft":
        glob, tuned = fedavg_ft_states(scfg, st, job, participants=joins)
        return {"global_acc": st.acc(glob), "reward_acc": [st.acc(x) for x in tuned]}
    state = train_aequa(scfg, st, job, "aequa_scale", participants=joins)
    curve = width_curve(st, state)
    alloc = anneal(
        contributions.fit,
        fit_curve(st, state, curve),
        seeding.generator(st.root, f"aequa/scale/game/{st.key}", st.seed),
        **annealing_options(scfg),
    )
    return {
        "global_acc": float(curve[-1]),
        "reward_acc": curve[alloc.indices].tolist(),
        "widths": st.widths.tolist(),
        "curve": curve.tolist(),
        "ir_infeasible": alloc.ir_infeasible.tolist(),
    }


def scale_runs(
    cfg: dict,
    root: int,
    device_name: str,
    dataset: str,
    dataset_file: str,
    writers: str | None,
    runs: Sequence[Run],
    cfg_id: str,
) -> Iterator[tuple[Run, dict]]:
    """Train the scale runs of one job, each seed's standalone run first (the contributions of its other methods),
    yielding each run's result fields when it is done."""
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import settings_hash

    standalone: dict[int, dict] = {}
    for run in job_order(runs):
        started = time.perf_counter()
        set_deterministic(seeding.integer_seed(root, f"aequa/scale/torch/{dataset}/{run.method}", run.seed) % 2**31)
        scfg, st, joins = scale_setting(cfg, root, device_name, dataset, dataset_file, writers, run.seed)
        contributions = None
        if run.method != "standalone":
            contributions = contributions_of(standalone[run.seed], len(st.clients))
        digest = settings_hash(cfg_id, "scale", dataset, run.method, run.seed, data_fingerprint(st), contributions)
        out = {**st.info, "method": run.method, "participants_per_round": int(len(joins(0)))}
        out.pop("class_counts")
        out.update(contribution_fields(contributions))
        out.update(run_scale(scfg, st, joins, run.method, contributions, Job(run.checkpoint, digest)))
        if run.method == "standalone":
            standalone[run.seed] = out
        yield run, finished(out, st, started)


def scale_overhead(scfg: dict, st: Setting, joins, rounds: int, job: Job):
    """Seconds per round of FedAvg and of Aequa's slimmable training, each round timed for both in one process (so
    both see the same machine load), each method continuing from its own model (Sec. 6.6)."""
    import pandas as pd

    from fairshare.learning import baselines

    fedavg = baselines.fedavg_step(
        st.model, st.clients, st.train, st.order_rng, executor=st.executor, participants=joins
    )
    aequa = aequa_step(scfg, st, "aequa_overhead", participants=joins)

    def step(r: int, state: dict) -> tuple[dict, dict, int]:
        timed, seconds, samples = {}, {}, 0
        for name, method in (("fedavg", fedavg), ("aequa", aequa)):
            began = time.perf_counter()
            timed[name], _, n = method(r, state[name])
            seconds[name] = time.perf_counter() - began
            samples += n
        return timed, seconds, samples

    _, rows = job.rounds(step, {"fedavg": st.init, "aequa": st.init}, rounds, desc="overhead")
    frame = pd.DataFrame([{"method": row["metric"], "round": row["round"], "seconds": row["value"]} for row in rows])
    return frame.sort_values("method", kind="stable", key=lambda m: m.map({"fedavg": 0, "aequa": 1})).reset_index(
        drop=True
    )


def scale_results(runs: list[dict]):
    """Per-run accuracy, Pearson, MCG, CGS and IPR of the scale runs (FedAvg-FT and Aequa)."""
    import pandas as pd

    from fairshare import metrics as m

    rows = []
    for r in runs:
        if r["method"] == "standalone":
            continue
        c, a = r["contributions"], r["reward_acc"]
        rows.append(
            {
                "method": r["method"],
                "seed": r["seed"],
                "accuracy": r["global_acc"],
                "pearson": pearson(c, a),
                "mcg": m.mean_collaboration_gain(a, c),
                "cgs": m.collaboration_gain_spread(a, c),
                "ipr": m.incentivized_participation_rate(a, c),
                "mean_reward": float(np.mean(a)),
                "clients": len(c),
                "participants_per_round": r["participants_per_round"],
            }
        )
    return pd.DataFrame(rows)


def table4(tidy, dataset: str):
    """Table 4: (CSV frame, Markdown). The per-round overhead is a timing: :func:`overhead_summary`."""
    means = tidy.groupby("method")[["accuracy", "pearson", "mcg", "cgs", "ipr"]].mean()
    table = means.reindex([x for x in ("fedavg_ft", "aequa") if x in means.index]).reset_index()
    table.insert(0, "algorithm", [LABELS[x] for x in table.method])
    clients = int(tidy.clients.iloc[0]) if len(tidy) else 0
    lines = [
        f"Table 4 (reproduction): {dataset} with {clients} writer clients, "
        f"{int(tidy.participants_per_round.iloc[0]) if len(tidy) else 0} per round, mean over {tidy.seed.nunique()} seed(s)",
        "",
        "| Algorithm | Accuracy | Pearson | MCG | CGS |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {row.algorithm} | {row.accuracy:.3f} | {row.pearson:.3f} | {row.mcg:.3f} | {row.cgs:.3f} |"
        for row in table.itertuples()
    ]
    return table, "\n".join(lines) + "\n"


def overhead_summary(overhead) -> str:
    """One Markdown line on Aequa's per-round overhead over FedAvg (Sec. 6.6) from :func:`scale_overhead`'s rows."""
    per_round = overhead.groupby("method").seconds.median()
    f, a = per_round.get("fedavg", np.nan), per_round.get("aequa", np.nan)
    return (
        f"Seconds per round on this machine (median of {overhead['round'].nunique()}, measured alternately in one "
        f"process): FedAvg {f:.3f} s, Aequa {a:.3f} s, overhead {a - f:+.3f} s ({100 * (a / f - 1):+.0f}%)\n"
    )


def scale_width_curve(runs: list[dict]):
    """a(p) of every Aequa scale run (Fig. 5's data)."""
    return width_curve_rows([r for r in runs if r["method"] == "aequa"], ("seed",))
