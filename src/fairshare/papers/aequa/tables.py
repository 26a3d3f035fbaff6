"""Aequa's tidy results and the paper's tables (Tables 1, 2, 7, 8, 9) from the main experiments' run results.

The tidy table has one row per (run, metric, allocation cost): the varied parameters are columns (``cost``: Aequa's
allocation cost, the configured one or a variant; ``p_min``: the smallest width an Aequa run trained, Table 8 lowers
it), never parsed out of method names.
"""

from __future__ import annotations

import warnings

import numpy as np

from fairshare.papers.aequa.settings import AequaSettings, Partition, describe_per_dataset

__all__ = [
    "COLUMNS",
    "TABLE1_COLUMNS",
    "BASELINES",
    "pearson",
    "fitted_split",
    "tidy_metrics",
    "with_cost",
    "per_client",
    "width_curve_rows",
    "width_curves",
    "main_partitions",
    "COST_LABELS",
    "paper_tables",
]

COLUMNS = {"fedavg_ft": "FedAvg-FT", "cgsv": "CGSV", "iafl": "IAFL", "aequa": "Aequa"}
TABLE1_COLUMNS = {"fedavg_ft": "FedAvg", "cgsv": "CGSV", "iafl": "IAFL", "aequa": "Aequa"}
BASELINES = ("fedavg_ft", "cgsv", "iafl")


def pearson(x, y) -> float:
    """Pearson correlation; NaN without a warning when an input is constant (identical rewards, reported as NaN)."""
    from fairshare.metrics import pearson as _pearson

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _pearson(x, y)


# ----------------------------------------------------------------------------------------------- tidy results
def _reward_metrics(c, a, cgs_ddof: int) -> dict:
    from fairshare import metrics as m

    return {
        "pearson": pearson(c, a),
        "mcg": m.mean_collaboration_gain(a, c),
        "cgs": m.collaboration_gain_spread(a, c, ddof=cgs_ddof),
        "ipr": m.incentivized_participation_rate(a, c),
        "min_gain": float(m.collaboration_gains(a, c).min()),
    }


def fitted_split(run: dict) -> tuple[np.ndarray, np.ndarray]:
    """(contributions, a(p)) of the split an Aequa run's allocation was fitted on: the validation split's, or the test
    split's when the run held out none."""
    c = np.asarray(run.get("contributions_validation", run["contributions"]), float)
    return c, np.asarray(run.get("curve_validation", run["curve"]), float)


def _fitted_metrics(run: dict, allocation: dict) -> dict:
    """Sec. 5.2 / App. D.3 as the paper computes rho: the allocation's rewards read on the split it was fitted on,
    against the contributions it was fitted on (no held-out split), with the IR gains there; and Table 9's
    rho(contribution, width) against the contributions the widths were fitted on (App. D.6: "input" and "output")."""
    if "widths" not in run:
        return {}
    c, curve = fitted_split(run)
    index = np.searchsorted(np.asarray(run["widths"], float), np.asarray(allocation["allocated_width"], float))
    rewards = curve[np.clip(index, 0, len(curve) - 1)]
    return {
        "pearson_fit": pearson(c, rewards),
        "min_gain_fit": float(np.min(rewards - c)),
        "pearson_width_fit": pearson(c, allocation["width_reward_width"]),
    }


def _held_out_metrics(run: dict) -> dict:
    """How well the held-out rho can be measured: the RMS difference between each client's contribution on the fitted
    (validation) split and on the test split (the fitted split's measurement error, an upper estimate), and the spread
    (standard deviation over clients) of the test contributions; with the test halves, the cross-fitted rho (mean of
    both directions) and a half's measurement error (RMS of the halves' difference over sqrt 2). Empty without
    either."""
    c, out = np.asarray(run["contributions"], float), {}
    if "contributions_validation" in run:
        fit = np.asarray(run["contributions_validation"], float)
        out["contribution_error"] = float(np.sqrt(np.mean((fit - c) ** 2)))
    if "crossfit_pearson" in run:
        a, b = np.asarray(run["contributions_halves"], float)
        out["pearson_crossfit"] = float(np.mean(run["crossfit_pearson"]))
        out["crossfit_error"] = float(np.sqrt(np.mean((a - b) ** 2) / 2))
    if out:
        out["contribution_spread"] = float(np.std(c))
    return out


def _allocation_metrics(c, allocation: dict, cgs_ddof: int, run: dict) -> dict:
    return {
        **_reward_metrics(c, allocation["reward_acc"], cgs_ddof),
        "pearson_width": pearson(c, allocation["width_reward_width"]),
        "pearson_width_acc": pearson(c, allocation["width_reward_acc"]),
        "ir_infeasible": float(np.sum(allocation["ir_infeasible"])),
        **_fitted_metrics(run, allocation),
    }


def large_clients_reward(run: dict) -> dict:
    """App. D.5: the mean reward of the clients holding the most data (within 10 % of the largest size: both large
    clients of a quantity-skew split), for the per-participant statements."""
    sizes, rewards = np.asarray(run["sizes"], float), np.asarray(run["reward_acc"], float)
    return {"large_reward": float(rewards[sizes >= 0.9 * sizes.max()].mean())}


def tidy_metrics(runs: list[dict], cgs_ddof: int = 0):
    """One row per (run, metric, allocation cost): accuracy, pearson, mcg, cgs, ipr, min_gain, all against the test
    split's contributions (+ Aequa's width-reward correlations). Aequa runs give one set of allocation metrics per cost
    (column ``cost``: the configured one and each variant) and record the p_min they trained with (column ``p_min``,
    Table 8); other methods leave both empty."""
    import pandas as pd

    rows = []
    for r in runs:
        per_cost: dict[str | None, dict] = {}
        if r["method"] == "standalone":
            per_cost[None] = {"mean_standalone": float(np.mean(r["reward_acc"]))}
        elif "allocation_spread" in r:  # an Aequa run: one set of allocation metrics per cost
            c = r["contributions"]
            per_cost[r["allocation_spread"]] = {
                "accuracy": r["global_acc"],
                **_allocation_metrics(c, r, cgs_ddof, r),
                **_held_out_metrics(r),
                **(large_clients_reward(r) if "sizes" in r else {}),
                "width_gap": float(r["curve"][-1] - r["curve"][0]),
            }
            for cost, allocation in r["variants"].items():
                per_cost[cost] = _allocation_metrics(c, allocation, cgs_ddof, r)
        else:
            per_cost[None] = {
                "accuracy": r["global_acc"],
                **_reward_metrics(r["contributions"], r["reward_acc"], cgs_ddof),
                **(large_clients_reward(r) if "sizes" in r else {}),
            }
        for cost, values in per_cost.items():
            for metric, value in values.items():
                rows.append(
                    {
                        "paper": "aequa",
                        "experiment": f"{r['dataset']}/{r['partition']}",
                        "method": r["method"],
                        "seed": r["seed"],
                        "round": r["rounds"],
                        "metric": metric,
                        "value": value,
                        "dataset": r["dataset"],
                        "dataset_used": r["dataset_used"],
                        "partition": r["partition"],
                        "scheme": r["scheme"],
                        "cost": cost,
                        "p_min": r.get("p_min"),
                    }
                )
    return pd.DataFrame(rows)


def with_cost(tidy, cost: str):
    """The rows of one allocation cost: every method's rows, with Aequa's allocation metrics under ``cost``."""
    return tidy[tidy.cost.isna() | (tidy.cost == cost)]


def per_client(runs: list[dict]):
    """Per-client contribution and reward accuracy of every run (the scatter plots' data)."""
    import pandas as pd

    rows = []
    for r in runs:
        if r["method"] == "standalone":
            continue
        widths = r.get("allocated_width", [None] * len(r["reward_acc"]))
        for i, (c, a, w) in enumerate(zip(r["contributions"], r["reward_acc"], widths)):
            rows.append(
                {
                    "dataset": r["dataset"],
                    "partition": r["partition"],
                    "method": r["method"],
                    "seed": r["seed"],
                    "client": i,
                    "size": r["sizes"][i],
                    "contribution": c,
                    "reward_acc": a,
                    "width": w,
                }
            )
    return pd.DataFrame(rows)


def width_curve_rows(runs: list[dict], keys: tuple[str, ...]):
    """The a(p) curves (test split) of the given Aequa runs, one row per (run, width), with the run's ``keys``."""
    import pandas as pd

    rows = [
        {**{k: r[k] for k in keys}, "width": w, "accuracy": a} for r in runs for w, a in zip(r["widths"], r["curve"])
    ]
    return pd.DataFrame(rows, columns=[*keys, "width", "accuracy"])


def width_curves(runs: list[dict]):
    """Aequa's width-accuracy curves a(p) (test split) of every Aequa run of the main experiments."""
    return width_curve_rows([r for r in runs if "curve" in r], ("dataset", "partition", "method", "seed"))


# ----------------------------------------------------------------------------------------------- tables
def main_partitions(settings: AequaSettings) -> list[Partition]:
    """Row groups of Tables 1 and 2: homogeneous, the chosen Dirichlet and quantity skew, label skew."""
    chosen = []
    for scheme in ("homogeneous", "dirichlet", "quantity_skew", "label_skew"):
        names = [p for p in settings.partitions if p.scheme == scheme]
        pick = settings.tables.table_partitions.get(scheme)
        named = [p for p in names if p.name == pick]
        if named or names:
            chosen.append((named or names)[0])
    return chosen


def _cell(values) -> str:
    v = np.asarray(values, float)
    if len(v) == 0:
        return ""
    if np.all(np.isnan(v)):
        return "NaN"
    mean = np.nanmean(v)
    return f"{mean:.3f} ± {np.nanstd(v):.3f}" if len(v) > 1 else f"{mean:.3f}"


def _grid_table(tidy, settings: AequaSettings, partitions: list[Partition], specs: list[tuple], title: str):
    """Paper layout: rows (partition group, dataset), columns (method, metric) with mean ± std over seeds, plus times-best rows.

    ``specs``: (method, metric, column label, higher_is_better, cost). ``cost`` None reads the configured allocation
    cost's rows; a variant's name reads that variant's Aequa rows, shown beside and left out of the times-best count.
    """
    import pandas as pd

    from fairshare.metrics import times_best

    main = with_cost(tidy, settings.allocation.spread)
    records, means = [], []
    for entry in partitions:
        for d in settings.tables.datasets:
            here = (tidy.dataset == d) & (tidy.partition == entry.name)
            if not here.any():
                continue
            rec = {"partition": entry.label(), "partition_name": entry.name, "dataset": d}
            row = []
            for method, metric, label, _, cost in specs:
                sub = (
                    main[(main.dataset == d) & (main.partition == entry.name)]
                    if cost is None
                    else tidy[here & (tidy.cost == cost)]
                )
                vals = sub[(sub.method == method) & (sub.metric == metric)].value.to_numpy(float)
                rec[label] = _cell(vals)
                rec[f"{label} mean"] = (
                    float(np.nanmean(vals)) if len(vals) and not np.all(np.isnan(vals)) else float("nan")
                )
                rec[f"{label} seeds"] = len(vals)
                row.append(rec[f"{label} mean"])
            records.append(rec)
            means.append(row)
    frame = pd.DataFrame(records)
    labels = [spec[2] for spec in specs]
    best_rows = {}
    if means:
        arr = np.array(means, float)
        groups: dict[tuple[str, bool], list[int]] = {}
        for j, (_, metric, _, higher, cost) in enumerate(specs):
            if cost is None:
                groups.setdefault((metric, higher), []).append(j)
        for (metric, higher), cols in groups.items():
            counts = times_best(arr[:, cols], higher_is_better=higher)
            for j, cnt in zip(cols, counts):
                best_rows.setdefault(metric, {})[labels[j]] = int(cnt)
    lines = [f"{title}", "", "| Partition | Dataset | " + " | ".join(labels) + " |", "|" + "---|" * (len(labels) + 2)]
    previous = None
    for rec in records:
        group = rec["partition"] if rec["partition"] != previous else ""
        previous = rec["partition"]
        lines.append(f"| {group} | {rec['dataset']} | " + " | ".join(rec[label] for label in labels) + " |")
    for metric, counts in best_rows.items():
        suffix = f" ({metric})" if len(best_rows) > 1 else ""
        lines.append(
            f"| Number of times that performs the best{suffix} | | "
            + " | ".join(str(counts.get(label, "")) for label in labels)
            + " |"
        )
        best = {
            "partition": f"Number of times best{suffix}",
            "dataset": "",
            **{label: str(counts[label]) for label in counts},
        }
        frame = pd.concat([frame, pd.DataFrame([best])], ignore_index=True)
    return frame, "\n".join(lines) + "\n"


COST_LABELS = {"std": "σ/μ", "var": "σ²/μ"}


def paper_tables(tidy, settings: AequaSettings) -> dict:
    """Tables 1, 2, 7, 8 and 9 as {name: (CSV frame, Markdown)}. Tables 2 and 7 show each allocation-cost variant's
    Aequa column beside the configured cost's (not counted in the times-best rows)."""
    import pandas as pd

    a, tables = settings.allocation, settings.tables
    main = main_partitions(settings)
    seeds = f"mean ± std over {tidy.seed.nunique()} seed(s)"
    cost = f"allocation cost {COST_LABELS[a.spread]} fitted on the {a.split} split"
    variants = [(v, f"Aequa ({COST_LABELS[v]})") for v in a.variants]
    t1 = _grid_table(
        tidy,
        settings,
        main,
        [(m, "accuracy", TABLE1_COLUMNS[m], True, None) for m in COLUMNS],
        "Table 1 (reproduction): balanced accuracy of the global model (FedAvg: before fine-tuning; CGSV/IAFL: server model; "
        f"Aequa: full width), {seeds}",
    )
    t2 = _grid_table(
        tidy,
        settings,
        main,
        [(m, "pearson", COLUMNS[m], True, None) for m in COLUMNS]
        + [("aequa", "pearson", label, True, v) for v, label in variants],
        f"Table 2 (reproduction): Pearson correlation between standalone accuracies and reward accuracies (test split), {seeds}; "
        f"Aequa: {cost}; NaN = identical rewards",
    )
    pair = [
        spec
        for m in COLUMNS
        for spec in ((m, "mcg", f"{COLUMNS[m]} MCG", True, None), (m, "cgs", f"{COLUMNS[m]} CGS", False, None))
    ]
    pair += [
        spec
        for v, label in variants
        for spec in (("aequa", "mcg", f"{label} MCG", True, v), ("aequa", "cgs", f"{label} CGS", False, v))
    ]
    t7 = _grid_table(
        tidy,
        settings,
        settings.partitions,
        pair,
        f"Table 7 (reproduction): mean collaboration gain (MCG) and collaboration gain spread (CGS), {seeds}; Aequa: {cost}",
    )
    qskew = [p for p in settings.partitions if p.scheme == "quantity_skew"]
    pmin = {m: ("aequa_pmin" if m == "aequa" else m) for m in COLUMNS}
    pair8 = [
        spec
        for m in COLUMNS
        for spec in (
            (pmin[m], "mcg", f"{COLUMNS[m]} MCG", True, None),
            (pmin[m], "cgs", f"{COLUMNS[m]} CGS", False, None),
        )
    ]
    t8 = _grid_table(
        tidy,
        settings,
        qskew,
        pair8,
        f"Table 8 (reproduction): MCG and CGS under quantity skew with Aequa's p_min lowered to {describe_per_dataset(settings.p_min_ablation)}, {seeds}",
    )
    records = []
    rows = with_cost(tidy, a.spread)
    wanted = [d for d in tables.datasets if d in tables.table9_datasets] or list(tables.datasets)
    for d in wanted:
        for entry in settings.partitions:
            sub = rows[(rows.dataset == d) & (rows.partition == entry.name) & (rows.method == "aequa")]
            if sub.empty:
                continue
            records.append(
                {
                    "dataset": d,
                    "partition": entry.label(),
                    "partition_name": entry.name,
                    "pearson(contribution, width)": _cell(sub[sub.metric == "pearson_width"].value),
                    "pearson(contribution, acc.)": _cell(sub[sub.metric == "pearson_width_acc"].value),
                }
            )
    t9 = pd.DataFrame(records)
    lines = [
        f"Table 9 (reproduction): width as the reward, {seeds}; {cost}",
        "",
        "| Dataset | Partition | ρ(contribution, width) | ρ(contribution, acc.) |",
        "|---|---|---|---|",
    ]
    previous = None
    for rec in records:
        lines.append(
            f"| {rec['dataset'] if rec['dataset'] != previous else ''} | {rec['partition']} | {rec['pearson(contribution, width)']} | "
            f"{rec['pearson(contribution, acc.)']} |"
        )
        previous = rec["dataset"]
    return {"table1": t1, "table2": t2, "table7": t7, "table8": t8, "table9": (t9, "\n".join(lines) + "\n")}
