"""Commands for the Aequa extensions: participation rate as the contribution (Sec. 6.4, Table 3, Fig. 2),
training-time rewards (Sec. 6.5, Algorithm 2, Figs 3-4) and FEMNIST at scale (Sec. 6.6, Table 4, Fig. 5). Every output
path comes from the rule."""

from __future__ import annotations

import argparse
import time

from fairshare import seeding
from fairshare.cli import CommandError, cfg_argument, section
from fairshare.io import read_json, run_metadata, write_csv, write_json, write_text

GROUP = "aequa-ext"
HELP = "Aequa extensions: participation-rate contributions (Table 3, Fig. 2), training-time rewards (Figs 3-4), FEMNIST at scale (Table 4, Fig. 5)"


def _job(
    sub: argparse._SubParsersAction, name: str, help: str, func, seed_index_default: int | None = None
) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help)
    p.add_argument("--dataset", required=True, help="the setting's dataset name as configured")
    p.add_argument("--dataset-file", required=True, help="cached .npz (after the offline fallback)")
    p.add_argument("--seed-index", type=int, required=seed_index_default is None, default=seed_index_default)
    p.add_argument("--output", required=True)
    p.add_argument(
        "--checkpoint", help="round checkpoint (resumed when its settings match; removed once the output is written)"
    )
    cfg_argument(p)
    p.set_defaults(func=func)
    return p


def register(sub: argparse._SubParsersAction) -> None:
    from fairshare.papers.aequa_extensions.experiment import PARTICIPATION_METHODS, SCALE_METHODS, TRAINING_TIME_METHODS

    p = _job(
        sub,
        "participation",
        "one (dataset, method, seed) with Bernoulli participation; rates are the contributions",
        participation,
    )
    p.add_argument("--method", required=True, choices=PARTICIPATION_METHODS)

    p = sub.add_parser("participation-summary", help="Table 3 (CSV + Markdown), claims and Figure 2")
    p.add_argument("runs", nargs="+")
    p.add_argument("--table", nargs=2, required=True, metavar=("CSV", "MD"), help="Table 3")
    p.add_argument("--per-client", required=True, help="per-client rates and rewards (CSV)")
    p.add_argument("--claims", required=True)
    p.add_argument("--figure", required=True, help="figure stem (png + pdf)")
    cfg_argument(p)
    p.set_defaults(func=participation_summary)

    p = _job(sub, "training-time", "one (dataset, partition, method, seed) evaluated every round", training_time)
    p.add_argument("--partition", required=True)
    p.add_argument("--method", required=True, choices=TRAINING_TIME_METHODS)
    p.add_argument("--standalone", required=True, help="the setting's standalone run (contributions)")

    p = sub.add_parser("training-time-summary", help="per-round metrics, claims and Figures 3-4")
    p.add_argument("runs", nargs="+")
    p.add_argument("--rounds", required=True, help="tidy per-round metrics (CSV)")
    p.add_argument("--claims", required=True)
    p.add_argument(
        "--figure",
        nargs=2,
        action="append",
        required=True,
        metavar=("PARTITION", "STEM"),
        help="one figure (png + pdf) of a partition's runs; repeat per figure",
    )
    cfg_argument(p)
    p.set_defaults(func=training_time_summary)

    p = _job(
        sub, "scale", "one method of the FEMNIST scalability experiment (writer clients, partial participation)", scale
    )
    p.add_argument(
        "--writers",
        help="npz with writers_train (real FEMNIST writer ids); without it the configured writer-like partition",
    )
    p.add_argument("--method", required=True, choices=SCALE_METHODS)
    p.add_argument("--standalone", help="the standalone run (contributions); every method but standalone needs it")

    p = _job(
        sub,
        "scale-overhead",
        "seconds per round of FedAvg and Aequa, alternately in one process",
        scale_overhead,
        seed_index_default=0,
    )
    p.add_argument("--writers")

    p = sub.add_parser("scale-summary", help="Table 4, overhead, claims and Figure 5")
    p.add_argument("runs", nargs="+")
    p.add_argument("--overhead", required=True)
    p.add_argument("--table", nargs=2, required=True, metavar=("CSV", "MD"), help="Table 4")
    p.add_argument("--claims", required=True)
    p.add_argument("--curve", required=True, help="a(p) of the Aequa runs (CSV)")
    p.add_argument("--figure", required=True, help="figure stem (png + pdf)")
    cfg_argument(p)
    p.set_defaults(func=scale_summary)

    p = sub.add_parser("femnist-data", help="cache LEAF's preprocessed FEMNIST (arrays + writer ids)")
    p.add_argument("--leaf-dir", required=True)
    p.add_argument("--output", required=True, help="dataset cache (.npz)")
    p.add_argument("--writers", required=True, help="writer ids (.npz with writers_train, writers_test)")
    p.set_defaults(func=femnist_data)


def _finish(args: argparse.Namespace, out: dict, root: int, st, started: float) -> None:
    from fairshare.learning.rounds import discard_checkpoint

    out["seconds"] = time.perf_counter() - started
    out["metadata"] = run_metadata(root, seed_index=st.seed, device=str(st.device))
    write_json(args.output, out)
    discard_checkpoint(args.checkpoint)


def participation(args: argparse.Namespace) -> None:
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import settings_hash
    from fairshare.papers.aequa import experiment as ex
    from fairshare.papers.aequa_extensions.experiment import run_participation

    started = time.perf_counter()
    cfg, root = section(args, "aequa"), section(args, "seed")
    entry = ex.partition_entry(cfg, cfg["participation"]["partition"])
    set_deterministic(
        seeding.integer_seed(root, f"aequa/participation/torch/{args.dataset}/{args.method}", args.seed_index) % 2**31
    )
    st = ex.prepare(cfg, root, section(args, "device"), args.dataset, args.dataset_file, entry, args.seed_index)
    job = ex.Job(
        args.checkpoint,
        settings_hash(args.cfg, "participation", args.dataset, args.method, args.seed_index, ex.data_fingerprint(st)),
    )
    out = {**st.info, "method": args.method, **run_participation(cfg, st, args.method, job)}
    _finish(args, out, root, st, started)


def participation_summary(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa_extensions import experiment as ex
    from fairshare.papers.aequa_extensions.claims import participation_claims
    from fairshare.papers.aequa_extensions.figures import reward_vs_rate
    from fairshare.report import write_claims

    pc = section(args, "aequa")["participation"]
    per_client, tidy = ex.participation_results([read_json(p) for p in args.runs])
    datasets = list(dict.fromkeys(pc["datasets"]))
    frame, markdown = ex.table3(tidy, datasets)
    write_csv(args.table[0], frame)
    write_text(args.table[1], markdown)
    write_csv(args.per_client, per_client)
    write_claims(args.claims, participation_claims(tidy, datasets, pc["rate_range"]))
    reward_vs_rate(per_client, tidy, args.figure)


def training_time(args: argparse.Namespace) -> None:
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import settings_hash
    from fairshare.papers.aequa import experiment as ex
    from fairshare.papers.aequa_extensions.experiment import run_training_time

    started = time.perf_counter()
    cfg, root = section(args, "aequa"), section(args, "seed")
    entry = ex.partition_entry(cfg, args.partition)
    set_deterministic(
        seeding.integer_seed(
            root, f"aequa/training_time/torch/{args.dataset}/{args.partition}/{args.method}", args.seed_index
        )
        % 2**31
    )
    st = ex.prepare(cfg, root, section(args, "device"), args.dataset, args.dataset_file, entry, args.seed_index)
    contributions = ex.read_contributions(args.standalone, args.method, len(st.clients))
    digest = settings_hash(
        args.cfg,
        "training_time",
        args.dataset,
        args.partition,
        args.method,
        args.seed_index,
        ex.data_fingerprint(st),
        contributions,
    )
    history = run_training_time(cfg, st, args.method, contributions, ex.Job(args.checkpoint, digest))
    out = {**st.info, "method": args.method, **ex.contribution_fields(contributions), "history": history}
    _finish(args, out, root, st, started)


def training_time_summary(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa_extensions.claims import training_time_claims
    from fairshare.papers.aequa_extensions.experiment import training_time_rounds
    from fairshare.papers.aequa_extensions.figures import metrics_over_rounds
    from fairshare.report import write_claims

    runs = [read_json(p) for p in args.runs]
    tidy = training_time_rounds(runs)
    write_csv(args.rounds, tidy)
    write_claims(args.claims, training_time_claims(tidy, runs))
    for partition, stem in args.figure:
        metrics_over_rounds(tidy[tidy.partition == partition], stem)


def scale(args: argparse.Namespace) -> None:
    """One method of the scalability experiment (Sec. 6.6, Table 4, Fig. 5): writer clients, partial participation."""
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import settings_hash
    from fairshare.papers.aequa import experiment as ex
    from fairshare.papers.aequa_extensions.experiment import run_scale, scale_setting

    started = time.perf_counter()
    cfg, root = section(args, "aequa"), section(args, "seed")
    if args.method != "standalone" and not args.standalone:
        raise CommandError(f"method {args.method} needs --standalone (the contributions)")
    set_deterministic(
        seeding.integer_seed(root, f"aequa/scale/torch/{args.dataset}/{args.method}", args.seed_index) % 2**31
    )
    scfg, st, joins = scale_setting(
        cfg, root, section(args, "device"), args.dataset, args.dataset_file, args.writers, args.seed_index
    )
    contributions = ex.read_contributions(args.standalone, args.method, len(st.clients))
    digest = settings_hash(
        args.cfg, "scale", args.dataset, args.method, args.seed_index, ex.data_fingerprint(st), contributions
    )
    out = {**st.info, "method": args.method, "participants_per_round": int(len(joins(0)))}
    out.pop("class_counts")
    out.update(ex.contribution_fields(contributions))
    out.update(run_scale(scfg, st, joins, args.method, contributions, ex.Job(args.checkpoint, digest)))
    _finish(args, out, root, st, started)


def scale_overhead(args: argparse.Namespace) -> None:
    """Seconds per round of FedAvg and of Aequa's slimmable training, measured alternately in one process (Sec. 6.6)."""
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import discard_checkpoint, settings_hash
    from fairshare.papers.aequa import experiment as ex
    from fairshare.papers.aequa_extensions import experiment as ext

    cfg, root = section(args, "aequa"), section(args, "seed")
    set_deterministic(seeding.integer_seed(root, f"aequa/scale/overhead/{args.dataset}", args.seed_index) % 2**31)
    scfg, st, joins = ext.scale_setting(
        cfg, root, section(args, "device"), args.dataset, args.dataset_file, args.writers, args.seed_index
    )
    digest = settings_hash(args.cfg, "scale-overhead", args.dataset, args.seed_index, ex.data_fingerprint(st))
    write_csv(
        args.output,
        ext.scale_overhead(scfg, st, joins, cfg["scale"]["overhead_rounds"], ex.Job(args.checkpoint, digest)),
    )
    discard_checkpoint(args.checkpoint)


def scale_summary(args: argparse.Namespace) -> None:
    """Table 4 (accuracy, Pearson, MCG, CGS of FedAvg-FT and Aequa), the overhead table, claims and Figure 5."""
    import pandas as pd

    from fairshare.papers.aequa_extensions import experiment as ex
    from fairshare.papers.aequa_extensions.claims import scale_claims
    from fairshare.papers.aequa_extensions.figures import scale_figure
    from fairshare.report import write_claims

    runs = [read_json(p) for p in args.runs]
    tidy = ex.scale_results(runs)
    overhead = pd.read_csv(args.overhead)
    frame, markdown = ex.table4(tidy, overhead, runs[0]["dataset"])
    write_csv(args.table[0], frame)
    write_text(args.table[1], markdown)
    write_claims(args.claims, scale_claims(tidy))
    curves = ex.scale_width_curve(runs)
    write_csv(args.curve, curves)
    clients = int(tidy.clients.iloc[0]) if len(tidy) else 0
    scale_figure(curves, tidy, f"{runs[0]['dataset']}, {clients} writer clients", args.figure)


def femnist_data(args: argparse.Namespace) -> None:
    from fairshare.data.datasets import save_cache
    from fairshare.data.leaf import load_femnist
    from fairshare.io import write_npz

    ds, writers_train, writers_test = load_femnist(args.leaf_dir)
    save_cache(ds, args.output)
    write_npz(args.writers, writers_train=writers_train, writers_test=writers_test)
