"""The Aequa extensions' experiments: participation rate as the contribution (Sec. 6.4, Table 3, Fig. 2),
training-time rewards (Sec. 4.3 and 6.5, Algorithm 2, Figs 3-4) and a writer-scale federation with partial
participation and its per-round overhead (Sec. 6.6, Table 4, Fig. 5).

Each experiment is an ``Experiment`` of ``papers.aequa.methods`` (who joins each round, how Aequa's model becomes
rewards, when rewards are evaluated) run through the main experiments' job skeleton
(``papers.aequa.experiment.run_job``), so a training-time setting reuses the main experiments' standalone
contributions and every run is seeded and set up exactly as a job of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

from fairshare.papers.aequa.experiment import JobInputs, Run, run_job
from fairshare.papers.aequa.federation import Setting
from fairshare.papers.aequa.methods import Context, Experiment, Joining
from fairshare.papers.aequa.settings import ExtensionSettings, PerDataset, Scale
from fairshare.papers.aequa.tables import pearson, width_curve_rows
from fairshare.pipeline.config import ConfigError

__all__ = [
    "PARTICIPATION_METHODS",
    "TRAINING_TIME_METHODS",
    "SCALE_METHODS",
    "LABELS",
    "ROUND_METRICS",
    "participation_rates",
    "participants_schedule",
    "rates_as_accuracies",
    "bernoulli_joining",
    "participation_rewards",
    "participation_runs",
    "participation_results",
    "table3",
    "round_rewards",
    "training_time_runs",
    "training_time_rounds",
    "final_width_correlations",
    "contribution_measurement",
    "sampled_joining",
    "scale_rewards",
    "scale_runs",
    "scale_overhead",
    "scale_results",
    "table4",
    "overhead_summary",
    "scale_width_curve",
]

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


def _anneal(ctx: Context, target: np.ndarray, fitted: np.ndarray, stream: str, *keys: int):
    """Aequa's allocation (Sec. 4.2, configured cost) of ``target`` contributions on a(p) = ``fitted``."""
    from fairshare.games.aequa_allocation import anneal

    return anneal(target, fitted, ctx.st.stream(stream, *keys), **ctx.settings.allocation.annealing())


# ----------------------------------------------------------------------------------------------- participation
def participation_rates(n: int, low: float, high: float) -> np.ndarray:
    """Client i's probability of joining a round: evenly spaced over [low, high] (Sec. 6.4 "a mild but controlled
    variation"; the formula is lost, reconstruction [docs/aequa.md])."""
    return np.linspace(low, high, n)


def participants_schedule(
    rates: np.ndarray, rng_of_round: Callable[[int], np.random.Generator]
) -> Callable[[int], np.ndarray]:
    """round -> indices of the clients that join it (independent Bernoulli(rate_i) draws per round)."""
    return lambda r: np.flatnonzero(rng_of_round(r).random(len(rates)) < rates)


def rates_as_accuracies(rates: np.ndarray, curve: np.ndarray) -> np.ndarray:
    """Participation rates min-max mapped onto the accuracy range [a(p_min), a(1)] of the trained model, so the
    allocation's gains compare like with like (App. D.6-style normalisation, reconstruction [docs/aequa.md])."""
    lo, hi = float(np.min(curve)), float(np.max(curve))
    span = rates.max() - rates.min()
    if span <= 0:
        return np.full_like(rates, hi)
    return lo + (hi - lo) * (rates - rates.min()) / span


def bernoulli_joining(rate_range: tuple[float, float]) -> Callable[[Setting], Joining]:
    """Sec. 6.4: client i joins each round with its rate; the rates are the contributions, recorded with how often
    each client joined."""

    def joining(st: Setting) -> Joining:
        rates = participation_rates(len(st.clients), *rate_range)
        joins = participants_schedule(rates, lambda r: st.stream(f"aequa/participation/{st.key}", r))
        joined = np.bincount(
            np.concatenate([joins(r) for r in range(st.rounds)] + [np.array([], int)]), minlength=len(rates)
        )
        return Joining(joins, {"rates": rates.tolist(), "joined": joined.tolist()}, rates)

    return joining


def participation_rewards(ctx: Context, state: dict, rounds_done: int) -> dict:
    """Aequa's rewards with participation rates as the contributions: the rates mapped onto a(p), then allocated."""
    st = ctx.st
    curve = st.width_curve(state)
    fitted = st.fit_curve(state, curve)
    target = rates_as_accuracies(ctx.fit, fitted)
    alloc = _anneal(ctx, target, fitted, f"aequa/participation/game/{st.key}")
    return {
        "global_acc": float(curve[-1]),
        "reward_acc": curve[alloc.indices].tolist(),
        "allocated_width": st.widths[alloc.indices].tolist(),
        "widths": st.widths.tolist(),
        "curve": curve.tolist(),
        "allocation_target": target.tolist(),
    }


def participation_runs(
    settings: ExtensionSettings, inputs: JobInputs, runs: Sequence[Run]
) -> Iterator[tuple[Run, dict]]:
    """The participation runs of one job (dataset), each run's result fields as soon as it is done."""
    pc = settings.participation
    experiment = Experiment(
        "participation",
        "aequa/participation/torch/{dataset}/{method}",
        participation_rewards,
        width_stream="aequa_participation",
        sampling_stream="aequa/participation/sampling",
        joining=bernoulli_joining(pc.rate_range),
    )
    return run_job(experiment, settings.aequa, inputs, runs, partition=pc.partition, contributions="none")


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
                "pearson_joined": pearson(r["joined"], r["reward_acc"]),
            }
            for r in runs
        ]
    )
    return per_client, tidy


def table3(tidy, datasets: list[str]):
    """Table 3: (CSV frame, Markdown) of every method's accuracy and Pearson correlation per dataset, rho against the
    rounds each client joined (what the claims judge; against the configured rates Aequa's rho is near 1 by
    construction)."""
    import pandas as pd

    means = tidy.groupby(["dataset", "method"])[["accuracy", "pearson_joined"]].mean()
    rows, lines = [], []
    header = "| Method | " + " | ".join(f"{d} Acc. | {d} ρ" for d in datasets) + " |"
    lines += [
        f"Table 3 (reproduction): participation rate as the contribution; accuracy of the global model and Pearson "
        f"correlation between the rounds each client joined and its reward accuracy, mean over "
        f"{tidy.seed.nunique()} seed(s)",
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
def round_rewards(ctx: Context, state: dict, rounds_done: int) -> dict:
    """Post-training Aequa applied to the model of an evaluated round: a(p), the allocation, the widths allocated."""
    st = ctx.st
    curve = st.width_curve(state)
    alloc = _anneal(ctx, ctx.fit, st.fit_curve(state, curve), f"aequa/training_time/game/{st.key}", rounds_done - 1)
    return {
        "global_acc": float(curve[-1]),
        "reward_acc": curve[alloc.indices],
        "widths": st.widths[alloc.indices].tolist(),
    }


def training_time_runs(
    settings: ExtensionSettings, inputs: JobInputs, partition: str, runs: Sequence[Run], standalone: Mapping[int, str]
) -> Iterator[tuple[Run, dict]]:
    """The training-time runs of one job (setting), each evaluated every ``eval_every`` rounds (and the last) against
    the test split's contributions; ``standalone``: seed -> the main experiments' standalone run of that seed."""
    tt = settings.training_time
    experiment = Experiment(
        "training_time",
        "aequa/training_time/torch/{dataset}/{partition}/{method}",
        round_rewards,
        measure_every=tt.eval_every,
        training_time=tt,
    )
    return run_job(
        experiment,
        settings.aequa,
        inputs,
        runs,
        partition=partition,
        contributions="files",
        standalone_files=standalone,
    )


def training_time_rounds(runs: list[dict]):
    """Tidy per-round metrics of the training-time runs; ``assessment``: Algorithm 2's contribution assessment of
    the run (empty for the other methods)."""
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
            "assessment": r.get("assessment"),
        }
        for r in runs
        for h in r["history"]
        for k in ROUND_METRICS
    ]
    return pd.DataFrame(rows)


def final_width_correlations(runs: list[dict]):
    """Per run that allocates widths: Pearson(contribution, width held in the final evaluated round)."""
    import pandas as pd

    rows = [
        {
            "dataset": r["dataset"],
            "partition": r["partition"],
            "method": r["method"],
            "seed": r["seed"],
            "pearson_width": pearson(r["contributions"], r["history"][-1]["widths"]),
        }
        for r in runs
        if "widths" in r["history"][-1]
    ]
    return pd.DataFrame(rows, columns=["dataset", "partition", "method", "seed", "pearson_width"])


def _measurement(run: dict) -> dict:
    """How well a standalone run measured its clients' contributions, as ``aequa.tables`` records it for the main
    runs: the validation-vs-test RMS difference (``contribution_error``), a test half's error (``crossfit_error``:
    RMS of the halves' difference over sqrt 2) and the test contributions' spread (``contribution_spread``); NaN for
    a split the run did not record."""
    c = np.asarray(run["reward_acc"], float)
    error = crossfit = np.nan
    if "validation_acc" in run:
        error = float(np.sqrt(np.mean((np.asarray(run["validation_acc"], float) - c) ** 2)))
    if "reward_acc_halves" in run:
        a, b = np.asarray(run["reward_acc_halves"], float)
        crossfit = float(np.sqrt(np.mean((a - b) ** 2) / 2))
    return {"contribution_error": error, "crossfit_error": crossfit, "contribution_spread": float(np.std(c))}


def contribution_measurement(standalone: list[dict]):
    """Per standalone run (the contributions of the training-time runs, the main experiments' own): dataset,
    partition, seed and how well it measured the contributions (:func:`_measurement`), which tells whether a rho
    row can be judged (:func:`fairshare.papers.aequa.claims_measure.unmeasured`, issue 38)."""
    import pandas as pd

    columns = ["dataset", "partition", "seed", "contribution_error", "crossfit_error", "contribution_spread"]
    rows = [
        {"dataset": r["dataset"], "partition": r["partition"], "seed": r["seed"], **_measurement(r)} for r in standalone
    ]
    return pd.DataFrame(rows, columns=columns)


# ----------------------------------------------------------------------------------------------- writer scale
def _scale_setting(
    settings: ExtensionSettings, inputs: JobInputs, writers: str | None
) -> Callable[[Run, PerDataset], Setting]:
    """``run_job``'s setting builder for the scale runs: writer clients (real writer ids with ``writers``)."""
    from fairshare.data.partition import by_writer

    sc: Scale = settings.scale
    if sc.partition.scheme == "by_writer" and not writers:
        raise ConfigError(
            "aequa.scale.partition.scheme by_writer needs real writer ids (--writers, FEMNIST only); use scheme: writers"
        )
    override = None
    if writers:

        def override(labels, train_idx, rng):
            return by_writer(
                labels,
                np.load(writers)["writers_train"][train_idx],
                max_clients=sc.clients,
                min_size=sc.partition.options.get("min_size", 1),
                rng=rng,
            )

    training = sc.training(settings.aequa)

    def setting(run: Run, p_min: PerDataset) -> Setting:
        st = inputs.setting(training, sc.partition, run, p_min, clients=sc.clients, partition_override=override)
        return dataclasses.replace(st, info={k: v for k, v in st.info.items() if k != "class_counts"})

    return setting


def sampled_joining(fraction: float) -> Callable[[Setting], Joining]:
    """Sec. 6.6: a fixed share of the clients, sampled uniformly every round."""

    def joining(st: Setting) -> Joining:
        per_round = max(1, int(round(fraction * len(st.clients))))

        def joins(r: int) -> np.ndarray:
            stream = st.stream(f"aequa/scale/participants/{st.key}", r)
            return np.sort(stream.choice(len(st.clients), size=per_round, replace=False))

        return Joining(joins, {"participants_per_round": int(len(joins(0)))})

    return joining


def scale_rewards(ctx: Context, state: dict, rounds_done: int) -> dict:
    """Aequa's rewards at scale: a(p) and the allocation (configured cost)."""
    st = ctx.st
    curve = st.width_curve(state)
    alloc = _anneal(ctx, ctx.fit, st.fit_curve(state, curve), f"aequa/scale/game/{st.key}")
    return {
        "global_acc": float(curve[-1]),
        "reward_acc": curve[alloc.indices].tolist(),
        "widths": st.widths.tolist(),
        "curve": curve.tolist(),
        "ir_infeasible": alloc.ir_infeasible.tolist(),
    }


def _scale_experiment(settings: ExtensionSettings, name: str, torch_stream: str, rounds: int = 0) -> Experiment:
    return Experiment(
        name,
        torch_stream,
        scale_rewards,
        width_stream="aequa_scale",
        standalone_schedule=False,
        joining=sampled_joining(settings.scale.participation_fraction),
        rounds=rounds,
    )


def scale_runs(
    settings: ExtensionSettings,
    inputs: JobInputs,
    writers: str | None,
    runs: Sequence[Run],
    standalone: Mapping[int, str] | None = None,
) -> Iterator[tuple[Run, dict]]:
    """The scale runs of one job, each seed's standalone run first (the contributions of its other methods), or with
    ``standalone`` (seed -> a standalone scale run's file) the contributions read from there."""
    sc = settings.scale
    return run_job(
        _scale_experiment(settings, "scale", "aequa/scale/torch/{dataset}/{method}"),
        sc.training(settings.aequa),
        inputs,
        runs,
        partition=sc.partition.name,
        contributions="files" if standalone else "job",
        standalone_files=standalone,
        setting=_scale_setting(settings, inputs, writers),
    )


def scale_overhead(settings: ExtensionSettings, inputs: JobInputs, writers: str | None, checkpoint: str | None):
    """Seconds per round of FedAvg and of Aequa's slimmable training on the scale federation (seed 0), each round
    timed for both in one process (so both see the same machine load), each method continuing from its own model
    (Sec. 6.6): one row per (method, round)."""
    import pandas as pd

    sc = settings.scale
    experiment = _scale_experiment(settings, "scale-overhead", "aequa/scale/overhead/{dataset}", sc.overhead_rounds)
    ((_, out),) = run_job(
        experiment,
        sc.training(settings.aequa),
        inputs,
        [Run(0, "overhead", None, checkpoint)],
        partition=sc.partition.name,
        contributions="none",
        setting=_scale_setting(settings, inputs, writers),
    )
    frame = pd.DataFrame(
        [{"method": row["metric"], "round": row["round"], "seconds": row["value"]} for row in out["seconds"]]
    )
    return frame.sort_values("method", kind="stable", key=lambda m: m.map({"fedavg": 0, "aequa": 1})).reset_index(
        drop=True
    )


def scale_results(runs: list[dict]):
    """Per-run accuracy, Pearson, MCG, CGS and IPR of the scale runs (FedAvg-FT and Aequa), and what tells whether
    a rho or CGS can be read: the spread of the rewards over clients against the standard error of one accuracy on
    the test split (``reward_spread``, ``reward_error``: rewards that spread less are constant up to test noise),
    and the contributions' validation-vs-test RMS difference and a test half's error (from the seed's standalone run,
    NaN without it) against their spread (``contribution_error``, ``crossfit_error``, ``contribution_spread``)."""
    import pandas as pd

    from fairshare import metrics as m

    crossfit = {r["seed"]: _measurement(r)["crossfit_error"] for r in runs if r["method"] == "standalone"}
    rows = []
    for r in runs:
        if r["method"] == "standalone":
            continue
        c, a = r["contributions"], r["reward_acc"]
        mean = float(np.mean(a))
        valid = np.asarray(r.get("contributions_validation", c), float)
        rows.append(
            {
                "method": r["method"],
                "seed": r["seed"],
                "accuracy": r["global_acc"],
                "pearson": pearson(c, a),
                "mcg": m.mean_collaboration_gain(a, c),
                "cgs": m.collaboration_gain_spread(a, c),
                "ipr": m.incentivized_participation_rate(a, c),
                "mean_reward": mean,
                "reward_spread": float(np.std(a)),
                "reward_error": float(np.sqrt(mean * (1 - mean) / r["n_test"])),
                "contribution_error": float(np.sqrt(np.mean((valid - np.asarray(c, float)) ** 2))),
                "crossfit_error": crossfit.get(r["seed"], np.nan),
                "contribution_spread": float(np.std(c)),
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
