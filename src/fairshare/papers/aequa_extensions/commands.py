"""Commands for the Aequa extensions: participation rate as the contribution (Sec. 6.4, Table 3, Fig. 2),
training-time rewards (Sec. 6.5, Algorithm 2, Figs 3-4) and FEMNIST at scale (Sec. 6.6, Table 4, Fig. 5). Settings come from ``aequa`` (shared with the main
experiments, so a training-time setting reuses the main experiments' standalone contributions)."""
from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np

from fairshare import seeding
from fairshare.cli import CommandError, section
from fairshare.papers.aequa.commands import (Setting, _pearson, annealing_options, job_parser, lookup, partition_entry, prepare, summary_parser,
                                 train_slimmable)
from fairshare.io import read_json, run_metadata, write_csv, write_json, write_text

GROUP = "aequa-ext"
HELP = "Aequa extensions: participation-rate contributions (Table 3, Fig. 2), training-time rewards (Figs 3-4), FEMNIST at scale (Table 4, Fig. 5)"
PARTICIPATION_METHODS = ("fedavg_ft", "cgsv", "iafl", "aequa")
TRAINING_TIME_METHODS = ("fedavg_ft", "cgsv", "iafl", "aequa", "aequa_cgsv", "aequa_shapfed")
LABELS = {"fedavg_ft": "FedAvg-FT", "cgsv": "CGSV", "iafl": "IAFL", "aequa": "Aequa", "aequa_cgsv": "Aequa+CGSV", "aequa_shapfed": "Aequa+ShapFed"}


def register(sub: argparse._SubParsersAction) -> None:
    p = job_parser(sub, "participation", "one (dataset, method, seed) with Bernoulli participation; rates are the contributions", participation)
    p.add_argument("--method", required=True, choices=PARTICIPATION_METHODS)

    p = summary_parser(sub, "participation-summary", "Table 3 (CSV + Markdown), claims and Figure 2", participation_summary)
    p.add_argument("--figure", required=True, help="figure stem (png + pdf)")

    p = job_parser(sub, "training-time", "one (dataset, partition, method, seed) evaluated every round", training_time)
    p.add_argument("--partition", required=True)
    p.add_argument("--method", required=True, choices=TRAINING_TIME_METHODS)
    p.add_argument("--standalone", required=True, help="the setting's standalone run (contributions)")

    p = summary_parser(sub, "training-time-summary", "per-round metrics, claims and Figures 3-4", training_time_summary)
    p.add_argument("--figures", required=True, help="folder of the figures")

    p = job_parser(sub, "scale", "one method of the FEMNIST scalability experiment (writer clients, partial participation)", scale)
    p.add_argument("--writers", help="npz with writers_train (real FEMNIST writer ids); without it the configured writer-like partition")
    p.add_argument("--method", required=True, choices=SCALE_METHODS)
    p.add_argument("--standalone", help="the standalone run (contributions); every method but standalone needs it")

    p = job_parser(sub, "scale-overhead", "seconds per round of FedAvg and Aequa, alternately in one process", scale_overhead,
                   seed_index_default=0)
    p.add_argument("--writers")

    p = summary_parser(sub, "scale-summary", "Table 4, overhead, claims and Figure 5", scale_summary)
    p.add_argument("--overhead", required=True)
    p.add_argument("--figure", required=True)

    p = sub.add_parser("femnist-data", help="cache LEAF's preprocessed FEMNIST (arrays + writer ids)")
    p.add_argument("--leaf-dir", required=True)
    p.add_argument("--output", required=True, help="dataset cache (.npz)")
    p.add_argument("--writers", required=True, help="writer ids (.npz with writers_train, writers_test)")
    p.set_defaults(func=femnist_data)


# ----------------------------------------------------------------------------------------------- participation
def participation_rates(n: int, low: float, high: float) -> np.ndarray:
    """Client i's probability of joining a round: evenly spaced over [low, high] (Sec. 6.4 "a mild but controlled
    variation"; the formula is lost, reconstruction [spec §2.6])."""
    return np.linspace(low, high, n)


def participants_schedule(rates: np.ndarray, rng_of_round) -> Any:
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


def participation(args: argparse.Namespace) -> None:
    from fairshare.games.aequa_allocation import anneal
    from fairshare.learning import aequa as aq
    from fairshare.learning import rewards
    from fairshare.learning.engine import set_deterministic

    started = time.perf_counter()
    cfg, root = section(args, "aequa"), section(args, "seed")
    pc = cfg["participation"]
    entry = partition_entry(cfg, pc["partition"])
    set_deterministic(seeding.integer_seed(root, f"aequa/participation/torch/{args.dataset}/{args.method}", args.seed_index) % 2**31)
    st = prepare(cfg, root, section(args, "device"), args.dataset, args.dataset_file, entry, args.seed_index)
    rates = participation_rates(len(st.clients), *pc["rate_range"])
    joins = participants_schedule(rates, lambda r: seeding.generator(root, f"aequa/participation/{st.key}", st.seed, r))
    tr, executor = cfg["train"], cfg["executor"]
    common = (st.model, st.init, st.clients, st.settings, st.rounds, st.order_rng)
    joined = np.bincount(np.concatenate([joins(r) for r in range(st.rounds)] + [np.array([], int)]), minlength=len(rates))
    out: dict[str, Any] = {**st.info, "method": args.method, "rates": rates.tolist(), "joined": joined.tolist()}
    if args.method == "fedavg_ft":
        glob, tuned = rewards.fedavg_ft(*common, finetune_epochs=cfg["fedavg_ft"]["finetune_epochs"], lr_at=st.lr_at, executor=executor,
                                        weighted=tr["weighted_aggregation"], participants=joins)
        out.update(global_acc=st.acc(glob), reward_acc=[st.acc(x) for x in tuned])
    elif args.method == "cgsv":
        c = cfg["cgsv"]
        server, locals_, _ = rewards.cgsv(*common, gamma=lookup(c["gamma"], st.used, args.dataset), alpha=c["alpha"], beta=c["beta"],
                                          min_reputation=c["min_reputation"], lr_at=st.lr_at, executor=executor, participants=joins)
        out.update(global_acc=st.acc(server), reward_acc=[st.acc(x) for x in locals_])
    elif args.method == "iafl":
        sampling = lambda r: seeding.generator(root, f"aequa/participation/sampling/{st.key}", st.seed, r)  # noqa: E731
        server, locals_ = rewards.iafl(*common, rates, sampling, kappa=cfg["iafl"]["kappa"], q=cfg["iafl"]["q"], lr_at=st.lr_at,
                                       executor=executor, participants=joins)
        out.update(global_acc=st.acc(server), reward_acc=[st.acc(x) for x in locals_])
    else:
        state = train_slimmable(cfg, st, "aequa_participation", participants=joins)
        widths = st.bn_grid if st.bn_grid is not None else aq.width_grid(st.p_min, cfg["width_step"], st.p_max)
        curve = aq.width_accuracy_curve(st.model, state, widths, *st.test, st.n_classes)
        target = rates_as_accuracies(rates, curve)
        alloc = anneal(target, curve, seeding.generator(root, f"aequa/participation/game/{st.key}", st.seed), **annealing_options(cfg))
        out.update(global_acc=float(curve[-1]), reward_acc=curve[alloc.indices].tolist(), allocated_width=widths[alloc.indices].tolist(),
                   widths=widths.tolist(), curve=curve.tolist(), allocation_target=target.tolist())
    out["seconds"] = time.perf_counter() - started
    out["metadata"] = run_metadata(root, seed_index=st.seed, device=str(st.device))
    write_json(args.output, out)


def participation_summary(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.plots import aequa_ext as plots

    cfg = section(args, "aequa")
    runs = [read_json(p) for p in args.runs]
    per_client = pd.DataFrame([{"dataset": r["dataset"], "method": r["method"], "seed": r["seed"], "client": i, "rate": rate,
                                "joined": j, "reward_acc": a}
                               for r in runs for i, (rate, j, a) in enumerate(zip(r["rates"], r["joined"], r["reward_acc"]))])
    tidy = pd.DataFrame([{"dataset": r["dataset"], "method": r["method"], "seed": r["seed"], "accuracy": r["global_acc"],
                          "pearson": _pearson(r["rates"], r["reward_acc"])} for r in runs])
    datasets = list(dict.fromkeys(cfg["participation"]["datasets"]))
    means = tidy.groupby(["dataset", "method"])[["accuracy", "pearson"]].mean()
    rows, lines = [], []
    header = "| Method | " + " | ".join(f"{d} Acc. | {d} ρ" for d in datasets) + " |"
    lines += [f"Table 3 (reproduction): participation rate as the contribution; accuracy of the global model and Pearson "
              f"correlation between participation rates and reward accuracies, mean over {tidy.seed.nunique()} seed(s)", "", header,
              "|---|" + "---|---|" * len(datasets)]
    for m in PARTICIPATION_METHODS:
        if not any((d, m) in means.index for d in datasets):
            continue
        rec = {"method": LABELS[m]}
        for d in datasets:
            acc, rho = (means.loc[(d, m)] if (d, m) in means.index else (np.nan, np.nan))
            rec[f"{d} accuracy"], rec[f"{d} pearson"] = float(acc), float(rho)
        rows.append(rec)
        lines.append(f"| {LABELS[m]} | " + " | ".join(f"{rec[f'{d} accuracy']:.3f} | {rec[f'{d} pearson']:.3f}" for d in datasets) + " |")
    out = Path(args.outdir)
    write_csv(out / "table3.csv", pd.DataFrame(rows))
    write_text(out / "table3.md", "\n".join(lines) + "\n")
    write_csv(out / "participation_per_client.csv", per_client)
    claims = []
    for d in datasets:
        get = lambda m, k: float(means.loc[(d, m)][k]) if (d, m) in means.index else float("nan")  # noqa: E731
        aequa_rho = get("aequa", "pearson")
        beaten = [LABELS[b] for b in PARTICIPATION_METHODS[:-1] if get(b, "pearson") >= aequa_rho]
        claims.append({"claim": f"{d}: Aequa's rewards correlate with participation rates more than every baseline's",
                       "paper_states": "Aequa attains the highest Pearson correlation with participation rates (Table 3, Fig. 2)",
                       "parameters": f"rates evenly spaced in {cfg['participation']['rate_range']}, {tidy.seed.nunique()} seed(s)",
                       "holds": bool(not np.isnan(aequa_rho) and not beaten),
                       "note": f"Aequa ρ {aequa_rho:.3f}; " + ", ".join(f"{LABELS[b]} {get(b, 'pearson'):.3f}" for b in PARTICIPATION_METHODS[:-1] if (d, b) in means.index)
                               + (f"; not above: {', '.join(beaten)}" if beaten else "")})
        if {"iafl", "aequa"} <= {m for m in PARTICIPATION_METHODS if (d, m) in means.index}:
            order = sorted([m for m in PARTICIPATION_METHODS if (d, m) in means.index], key=lambda m: -np.nan_to_num(get(m, "pearson"), nan=-np.inf))
            claims.append({"claim": f"{d}: IAFL is second on Pearson correlation with participation rates",
                           "paper_states": "IAFL second-best, trailing Aequa by a clear margin (Table 3)",
                           "parameters": "mean over seeds; NaN ranks last", "holds": order[:2] == ["aequa", "iafl"],
                           "note": "ranking: " + ", ".join(f"{LABELS[m]} {get(m, 'pearson'):.3f}" for m in order)})
        best_acc = np.nanmax([get(m, "accuracy") for m in PARTICIPATION_METHODS])
        claims.append({"claim": f"{d}: Aequa's global accuracy is on par with the best method's under partial participation",
                       "paper_states": "Aequa keeps accuracy comparable to FedAvg (Table 3)",
                       "parameters": f"within {cfg['participation']['accuracy_tolerance']} of the best",
                       "holds": bool(get("aequa", "accuracy") >= best_acc - cfg["participation"]["accuracy_tolerance"]),
                       "note": ", ".join(f"{LABELS[m]} {get(m, 'accuracy'):.3f}" for m in PARTICIPATION_METHODS if (d, m) in means.index)})
    write_csv(out / "participation_claims.csv", pd.DataFrame(claims, columns=["claim", "paper_states", "parameters", "holds", "note"]))
    plots.reward_vs_rate(per_client, tidy, args.figure)


# ----------------------------------------------------------------------------------------------- training-time rewards
def _evaluation(st: Setting, contributions: np.ndarray, reward_acc, global_acc: float, r: int, extra: dict | None = None) -> dict:
    from fairshare import metrics as m

    a = np.asarray(reward_acc, float)
    return {"round": r + 1, "accuracy": global_acc, "pearson": _pearson(contributions, a), "mcg": m.mean_collaboration_gain(a, contributions),
            "cgs": m.collaboration_gain_spread(a, contributions), "ipr": m.incentivized_participation_rate(a, contributions),
            "reward_acc": a.tolist(), **(extra or {})}


def training_time(args: argparse.Namespace) -> None:
    from fairshare.games.aequa_allocation import anneal
    from fairshare.learning import aequa as aq
    from fairshare.learning import rewards
    from fairshare.learning.aequa_training_time import train_aequa_training_time
    from fairshare.learning.engine import set_deterministic

    started = time.perf_counter()
    cfg, root = section(args, "aequa"), section(args, "seed")
    tt = cfg["training_time"]
    entry = partition_entry(cfg, args.partition)
    set_deterministic(seeding.integer_seed(root, f"aequa/training_time/torch/{args.dataset}/{args.partition}/{args.method}", args.seed_index) % 2**31)
    st = prepare(cfg, root, section(args, "device"), args.dataset, args.dataset_file, entry, args.seed_index)
    contributions = np.asarray(read_json(args.standalone)["reward_acc"], float)
    if len(contributions) != len(st.clients):
        raise CommandError(f"{args.standalone} has {len(contributions)} clients, this setting {len(st.clients)}")
    tr, executor, every = cfg["train"], cfg["executor"], tt["eval_every"]
    due = lambda r: (r + 1) % every == 0 or r == st.rounds - 1  # noqa: E731
    history: list[dict] = []
    common = (st.model, st.init, st.clients, st.settings, st.rounds, st.order_rng)
    widths = st.bn_grid if st.bn_grid is not None else aq.width_grid(st.p_min, cfg["width_step"], st.p_max)

    if args.method == "fedavg_ft":
        def hook(r, state):
            if due(r):
                tuned = rewards.finetune(st.model, state, st.clients, st.settings, cfg["fedavg_ft"]["finetune_epochs"], st.order_rng, r + 1,
                                         lr_at=st.lr_at, executor=executor)
                history.append(_evaluation(st, contributions, [st.acc(x) for x in tuned], st.acc(state), r))
        rewards.fedavg(*common, lr_at=st.lr_at, executor=executor, weighted=tr["weighted_aggregation"], on_round=hook)
    elif args.method in ("cgsv", "iafl"):
        def hook(r, server, locals_):
            if due(r):
                history.append(_evaluation(st, contributions, [st.acc(x) for x in locals_], st.acc(server), r))
        if args.method == "cgsv":
            c = cfg["cgsv"]
            rewards.cgsv(*common, gamma=lookup(c["gamma"], st.used, args.dataset), alpha=c["alpha"], beta=c["beta"],
                         min_reputation=c["min_reputation"], lr_at=st.lr_at, executor=executor, on_round=hook)
        else:
            sampling = lambda r: seeding.generator(root, f"aequa/sampling/{st.key}", st.seed, r)  # noqa: E731
            rewards.iafl(*common, contributions, sampling, kappa=cfg["iafl"]["kappa"], q=cfg["iafl"]["q"], lr_at=st.lr_at, executor=executor,
                         on_round=hook)
    elif args.method == "aequa":  # post-training allocation, applied to the model of every evaluated round
        def hook(r, state):
            if due(r):
                curve = aq.width_accuracy_curve(st.model, state, widths, *st.test, st.n_classes)
                alloc = anneal(contributions, curve, seeding.generator(root, f"aequa/training_time/game/{st.key}", st.seed, r), **annealing_options(cfg))
                history.append(_evaluation(st, contributions, curve[alloc.indices], float(curve[-1]), r,
                                           {"widths": widths[alloc.indices].tolist()}))
        train_slimmable(cfg, st, "aequa", on_round=hook)
    else:
        from fairshare.learning.slimmable import set_width

        def hook(r, state, held):
            if due(r):
                st.model.load_state_dict(state)
                accs = []
                for p in held:
                    set_width(st.model, float(p))
                    accs.append(rewards.balanced_accuracy_of(st.model, None, *st.test, st.n_classes))
                set_width(st.model, 1.0)
                history.append(_evaluation(st, contributions, accs, st.acc(state), r, {"widths": held.tolist()}))
        train_aequa_training_time(st.model, st.init, st.clients, st.settings, st.rounds, order_rng=st.order_rng,
                                  width_rng=lambda r, i: seeding.generator(root, f"aequa/training_time/widths/{st.key}/{args.method}", st.seed, r, i),
                                  p_min=st.p_min, ca=args.method.split("_", 1)[1], beta=tt["beta"], last_k=tt["last_k"], min_score=tt["min_score"],
                                  grid=None if st.bn_grid is None else st.bn_grid.tolist(), subwidth_mode=cfg["subwidth_mode"], lr_at=st.lr_at,
                                  weighted=tr["weighted_aggregation"], width_loss=cfg["width_loss"], on_round=hook)
    out = {**st.info, "method": args.method, "contributions": contributions.tolist(), "history": history,
           "seconds": time.perf_counter() - started, "metadata": run_metadata(root, seed_index=st.seed, device=str(st.device))}
    write_json(args.output, out)


def training_time_summary(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.plots import aequa_ext as plots

    cfg = section(args, "aequa")
    runs = [read_json(p) for p in args.runs]
    rows = [{"dataset": r["dataset"], "partition": r["partition"], "scheme": r["scheme"], "method": r["method"], "seed": r["seed"],
             "round": h["round"], "metric": k, "value": h[k]}
            for r in runs for h in r["history"] for k in ("accuracy", "pearson", "mcg", "cgs", "ipr")]
    tidy = pd.DataFrame(rows)
    out = Path(args.outdir)
    write_csv(out / "training_time_rounds.csv", tidy)
    final = tidy[tidy["round"] == tidy.groupby(["dataset", "partition", "method", "seed"])["round"].transform("max")]
    means = final.groupby(["dataset", "partition", "method", "metric"]).value.mean()
    claims = []
    for d, p in sorted({(d, p) for d, p, _, _ in means.index}):
        get = lambda m, k: float(means.get((d, p, m, k), np.nan))  # noqa: E731
        present = [m for m in TRAINING_TIME_METHODS if not np.isnan(get(m, "accuracy"))]
        ranking = sorted(present, key=lambda m: -np.nan_to_num(get(m, "pearson"), nan=-np.inf))  # NaN (identical rewards) ranks last
        note = "ρ ranking: " + ", ".join(f"{LABELS[m]} {get(m, 'pearson'):.3f}" for m in ranking) + "; accuracy: " + \
               ", ".join(f"{LABELS[m]} {get(m, 'accuracy'):.3f}" for m in present)
        base = dict(parameters=f"final round, mean over {final.seed.nunique()} seed(s); NaN ρ ranks last", note=note)
        if "aequa" in present:
            claims.append({"claim": f"{d}/{p}: post-training Aequa has the highest Pearson correlation", "holds": ranking[0] == "aequa",
                           "paper_states": "Aequa best (Figs 3-4)", **base})
        for variant in ("aequa_cgsv", "aequa_shapfed"):
            if variant not in present:
                continue
            others = [m for m in present if m in ("fedavg_ft", "cgsv", "iafl")]
            held = [_pearson(r["contributions"], r["history"][-1]["widths"]) for r in runs
                    if (r["dataset"], r["partition"], r["method"]) == (d, p, variant)]
            claims.append({"claim": f"{d}/{p}: training-time {LABELS[variant]} correlates rewards with contributions better than every baseline",
                           "holds": bool(others) and all(ranking.index(variant) < ranking.index(b) for b in others),
                           "paper_states": "Aequa+CGSV second in both settings, Aequa+ShapFed comparable (Figs 3-4)",
                           **{**base, "note": f"{LABELS[variant]}: ρ(contribution, final width) {np.nanmean(held):.3f}; {base['note']}"}})
    write_csv(out / "training_time_claims.csv", pd.DataFrame(claims, columns=["claim", "paper_states", "parameters", "holds", "note"]))
    for fig, p in cfg["training_time"]["partitions"].items():
        plots.metrics_over_rounds(tidy[tidy.partition == p], Path(args.figures) / f"{fig}_training_time")


# ----------------------------------------------------------------------------------------------- FEMNIST at scale
SCALE_METHODS = ("standalone", "fedavg_ft", "aequa")


def scale_cfg(cfg: dict) -> dict:
    """The aequa config seen by the scale experiment: its own dataset subset, model, clients and rounds."""
    sc = cfg["scale"]
    return {**cfg, "max_train_samples": {"default": sc["max_train_samples"]}, "models": {"default": sc["model"]},
            "train": {**cfg["train"], "rounds": {"default": sc["rounds"]}}}


def _scale_setting(args: argparse.Namespace, cfg: dict, root: int) -> tuple[dict, Setting, Any]:
    from fairshare.data.partition import by_writer

    sc = cfg["scale"]
    scfg = scale_cfg(cfg)
    entry = {"name": "writers", **sc["partition"]}
    if entry["scheme"] == "by_writer" and not args.writers:
        raise CommandError("aequa.scale.partition.scheme by_writer needs real writer ids (--writers, FEMNIST only); use scheme: writers")
    st = prepare(scfg, root, section(args, "device"), args.dataset, args.dataset_file, entry, args.seed_index, clients=sc["clients"],
                 partition_override=None if not args.writers else
                 lambda labels, train_idx, rng: by_writer(labels, np.load(args.writers)["writers_train"][train_idx], max_clients=sc["clients"],
                                                          min_size=sc["partition"].get("min_size", 1), rng=rng))
    per_round = max(1, int(round(sc["participation_fraction"] * len(st.clients))))
    joins = lambda r: np.sort(seeding.generator(root, f"aequa/scale/participants/{st.key}", st.seed, r).choice(  # noqa: E731
        len(st.clients), size=per_round, replace=False))
    return scfg, st, joins


def femnist_data(args: argparse.Namespace) -> None:
    from fairshare.data.datasets import save_cache
    from fairshare.data.leaf import load_femnist
    from fairshare.io import write_npz

    ds, writers_train, writers_test = load_femnist(args.leaf_dir)
    save_cache(ds, args.output)
    write_npz(args.writers, writers_train=writers_train, writers_test=writers_test)


def scale(args: argparse.Namespace) -> None:
    """One method of the scalability experiment (Sec. 6.6, Table 4, Fig. 5): writer clients, partial participation."""
    from fairshare.games.aequa_allocation import anneal
    from fairshare.learning import aequa as aq
    from fairshare.learning import rewards
    from fairshare.learning.engine import set_deterministic

    started = time.perf_counter()
    cfg, root = section(args, "aequa"), section(args, "seed")
    set_deterministic(seeding.integer_seed(root, f"aequa/scale/torch/{args.dataset}/{args.method}", args.seed_index) % 2**31)
    scfg, st, joins = _scale_setting(args, cfg, root)
    tr, executor = scfg["train"], scfg["executor"]
    out: dict[str, Any] = {**st.info, "method": args.method, "participants_per_round": int(len(joins(0)))}
    out.pop("class_counts")
    if args.method == "standalone":
        epochs = tr["standalone_epochs"] or st.rounds * tr["local_epochs"]
        states = rewards.standalone(st.model, st.init, st.clients, st.settings, epochs, st.order_rng, executor=executor)
        out.update(reward_acc=[st.acc(x) for x in states], global_acc=None)
    else:
        if not args.standalone:
            raise CommandError(f"method {args.method} needs --standalone (the contributions)")
        contributions = np.asarray(read_json(args.standalone)["reward_acc"], float)
        out["contributions"] = contributions.tolist()
        if args.method == "fedavg_ft":
            glob, tuned = rewards.fedavg_ft(st.model, st.init, st.clients, st.settings, st.rounds, st.order_rng, lr_at=st.lr_at,
                                            finetune_epochs=scfg["fedavg_ft"]["finetune_epochs"], executor=executor,
                                            weighted=tr["weighted_aggregation"], participants=joins)
            out.update(global_acc=st.acc(glob), reward_acc=[st.acc(x) for x in tuned])
        else:
            state = train_slimmable(scfg, st, "aequa_scale", participants=joins)
            widths = st.bn_grid if st.bn_grid is not None else aq.width_grid(st.p_min, scfg["width_step"], st.p_max)
            curve = aq.width_accuracy_curve(st.model, state, widths, *st.test, st.n_classes)
            alloc = anneal(contributions, curve, seeding.generator(root, f"aequa/scale/game/{st.key}", st.seed), **annealing_options(scfg))
            out.update(global_acc=float(curve[-1]), reward_acc=curve[alloc.indices].tolist(), widths=widths.tolist(), curve=curve.tolist(),
                       ir_infeasible=alloc.ir_infeasible.tolist())
    out["seconds"] = time.perf_counter() - started
    out["metadata"] = run_metadata(root, seed_index=st.seed, device=str(st.device))
    write_json(args.output, out)


def scale_overhead(args: argparse.Namespace) -> None:
    """Seconds per round of FedAvg and of Aequa's slimmable training, measured alternately in one process (Sec. 6.6)."""
    from fairshare.learning import rewards
    from fairshare.learning.engine import set_deterministic

    cfg, root = section(args, "aequa"), section(args, "seed")
    set_deterministic(seeding.integer_seed(root, f"aequa/scale/overhead/{args.dataset}", args.seed_index) % 2**31)
    scfg, st, joins = _scale_setting(args, cfg, root)
    n = cfg["scale"]["overhead_rounds"]
    timing: dict[str, list[float]] = {"fedavg": [], "aequa": []}
    state_f = state_a = st.init
    for r in range(n):  # alternate so both see the same machine load; round r of each starts from its own model
        for method in ("fedavg", "aequa"):
            t = time.perf_counter()
            if method == "fedavg":
                state_f = rewards.fedavg(st.model, state_f, st.clients, st.settings, 1, lambda _, i, r=r: st.order_rng(r, i),
                                         executor=scfg["executor"], participants=lambda _, r=r: joins(r))
            else:
                state_a = train_slimmable(scfg, dataclasses.replace(st, init=state_a, rounds=1), "aequa_overhead",
                                          participants=lambda _, r=r: joins(r))
            timing[method].append(time.perf_counter() - t)
    rows = [{"method": m, "round": r + 1, "seconds": s} for m, v in timing.items() for r, s in enumerate(v)]
    import pandas as pd

    write_csv(args.output, pd.DataFrame(rows))


def scale_summary(args: argparse.Namespace) -> None:
    """Table 4 (accuracy, Pearson, MCG, CGS of FedAvg-FT and Aequa), the overhead table, claims and Figure 5."""
    import pandas as pd

    from fairshare import metrics as m
    from fairshare.plots import aequa_ext as plots

    runs = [read_json(p) for p in args.runs]
    rows = []
    for r in runs:
        if r["method"] == "standalone":
            continue
        c, a = r["contributions"], r["reward_acc"]
        rows.append({"method": r["method"], "seed": r["seed"], "accuracy": r["global_acc"], "pearson": _pearson(c, a),
                     "mcg": m.mean_collaboration_gain(a, c), "cgs": m.collaboration_gain_spread(a, c),
                     "ipr": m.incentivized_participation_rate(a, c), "clients": len(c), "participants_per_round": r["participants_per_round"]})
    tidy = pd.DataFrame(rows)
    means = tidy.groupby("method")[["accuracy", "pearson", "mcg", "cgs", "ipr"]].mean()
    overhead = pd.read_csv(args.overhead)
    per_round = overhead.groupby("method").seconds.median()
    out = Path(args.outdir)
    table = means.reindex([x for x in ("fedavg_ft", "aequa") if x in means.index]).reset_index()
    table.insert(0, "algorithm", [LABELS[x] for x in table.method])
    write_csv(out / "table4.csv", table)
    clients = int(tidy.clients.iloc[0]) if len(tidy) else 0
    lines = [f"Table 4 (reproduction): {runs[0]['dataset']} with {clients} writer clients, "
             f"{int(tidy.participants_per_round.iloc[0]) if len(tidy) else 0} per round, mean over {tidy.seed.nunique()} seed(s)", "",
             "| Algorithm | Accuracy | Pearson | MCG | CGS |", "|---|---|---|---|---|"]
    lines += [f"| {row.algorithm} | {row.accuracy:.3f} | {row.pearson:.3f} | {row.mcg:.3f} | {row.cgs:.3f} |" for row in table.itertuples()]
    f, a = per_round.get("fedavg", np.nan), per_round.get("aequa", np.nan)
    lines += ["", f"Seconds per round (median of {overhead['round'].nunique()}, measured alternately in one process): "
                  f"FedAvg {f:.3f} s, Aequa {a:.3f} s, overhead {a - f:+.3f} s ({100 * (a / f - 1):+.0f}%)"]
    write_text(out / "table4.md", "\n".join(lines) + "\n")
    get = lambda meth, k: float(means.loc[meth, k]) if meth in means.index else np.nan  # noqa: E731
    claims = [
        {"claim": "at scale, Aequa's reward correlation beats FedAvg-FT's", "paper_states": "Aequa: high Pearson, low CGS (Table 4)",
         "parameters": f"{clients} clients", "holds": bool(get("aequa", "pearson") > np.nan_to_num(get("fedavg_ft", "pearson"), nan=-np.inf)),
         "note": f"Aequa {get('aequa', 'pearson'):.3f}, FedAvg-FT {get('fedavg_ft', 'pearson'):.3f}"},
        {"claim": "at scale, Aequa's global accuracy is at least FedAvg's", "paper_states": "Aequa improves test accuracy by [lost] pp (Table 4)",
         "parameters": f"{clients} clients", "holds": bool(get("aequa", "accuracy") >= get("fedavg_ft", "accuracy")),
         "note": f"Aequa {get('aequa', 'accuracy'):.3f}, FedAvg {get('fedavg_ft', 'accuracy'):.3f}"},
        {"claim": "Aequa's per-round overhead over FedAvg is small", "paper_states": "only a [lost] ([lost]%) increase per round (Sec. 6.6)",
         "parameters": "median seconds per round; 'small' = under 2x here (Aequa trains two widths per minibatch)",
         "holds": bool(a < 2 * f), "note": f"FedAvg {f:.3f} s, Aequa {a:.3f} s ({100 * (a / f - 1):+.0f}%)"},
    ]
    write_csv(out / "scale_claims.csv", pd.DataFrame(claims, columns=["claim", "paper_states", "parameters", "holds", "note"]))
    curves = pd.DataFrame([{"seed": r["seed"], "width": w, "accuracy": acc} for r in runs if r["method"] == "aequa"
                           for w, acc in zip(r["widths"], r["curve"])])
    write_csv(out / "scale_width_curve.csv", curves)
    ft_client = [float(np.mean(r["reward_acc"])) for r in runs if r["method"] == "fedavg_ft"]
    plots.scale_accuracy_vs_width(curves, get("fedavg_ft", "accuracy"), float(np.mean(ft_client)) if ft_client else np.nan,
                                  f"{runs[0]['dataset']}, {clients} writer clients", args.figure)
