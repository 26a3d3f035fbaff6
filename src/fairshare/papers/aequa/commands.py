"""Commands for Aequa (fair model rewards via slimmable networks): one training job per (dataset, partition, method,
seed), then the paper's tables, claims and figures. Every output path comes from the rule."""

from __future__ import annotations

import argparse
import time

from fairshare import seeding
from fairshare.cli import CommandError, cfg_argument, section
from fairshare.io import read_json, run_metadata, write_csv, write_json, write_text

GROUP = "aequa"
HELP = "Aequa: slimmable collaborative training, fair post-training allocation, FedAvg-FT / CGSV / IAFL baselines"
TABLES = ("table1", "table2", "table7", "table8", "table9")


def register(sub: argparse._SubParsersAction) -> None:
    from fairshare.papers.aequa.experiment import METHODS

    p = sub.add_parser("run", help="train one (dataset, partition, method, seed) and write its per-client rewards")
    p.add_argument("--dataset", required=True, help="the setting's dataset name as configured")
    p.add_argument("--dataset-file", required=True, help="cached .npz (after the offline fallback)")
    p.add_argument("--partition", required=True, help="name of an aequa.partitions entry")
    p.add_argument("--method", required=True, choices=METHODS)
    p.add_argument("--seed-index", type=int, required=True)
    p.add_argument(
        "--standalone",
        help="the same setting's standalone result (contributions); every method but standalone needs it",
    )
    p.add_argument("--output", required=True, help="the run's JSON")
    p.add_argument(
        "--checkpoint", help="round checkpoint (resumed when its settings match; removed once the output is written)"
    )
    cfg_argument(p)
    p.set_defaults(func=run)

    p = sub.add_parser("summarize", help="tidy metrics, Tables 1, 2, 7, 8, 9 (CSV + Markdown) and the claims")
    p.add_argument("runs", nargs="+")
    p.add_argument("--summary", required=True, help="tidy metrics (CSV)")
    p.add_argument("--per-client", required=True, help="per-client contributions and rewards (CSV)")
    p.add_argument("--curves", required=True, help="Aequa's a(p) curves (CSV)")
    p.add_argument("--claims", required=True, help="claims (CSV)")
    for name in TABLES:
        p.add_argument(f"--{name}", nargs=2, required=True, metavar=("CSV", "MD"))
    cfg_argument(p)
    p.set_defaults(func=summarize)

    p = sub.add_parser(
        "figures", help="accuracy vs width (Aequa vs FedAvg-FT) and reward-vs-contribution scatter plots"
    )
    p.add_argument("--summary", required=True, help="summary.csv of `aequa summarize`")
    p.add_argument("--per-client", required=True, help="per_client.csv of `aequa summarize`")
    p.add_argument("--curves", required=True, help="width_curves.csv of `aequa summarize`")
    p.add_argument("--width-figure", required=True, help="stem of the accuracy-vs-width figure (.png and .pdf)")
    p.add_argument("--scatter-figure", required=True, help="stem of the reward-vs-contribution figure (.png and .pdf)")
    cfg_argument(p)
    p.set_defaults(func=figures)


def run(args: argparse.Namespace) -> None:
    from fairshare.learning.engine import set_deterministic
    from fairshare.learning.rounds import discard_checkpoint, settings_hash
    from fairshare.papers.aequa import experiment as ex

    started = time.perf_counter()
    cfg, root = section(args, "aequa"), section(args, "seed")
    if args.method != "standalone" and not args.standalone:
        raise CommandError(f"method {args.method} needs --standalone (the contributions)")
    entry = ex.partition_entry(cfg, args.partition)
    set_deterministic(
        seeding.integer_seed(root, f"aequa/torch/{args.dataset}/{args.partition}/{args.method}", args.seed_index)
        % 2**31
    )
    st = ex.prepare(
        cfg,
        root,
        section(args, "device"),
        args.dataset,
        args.dataset_file,
        entry,
        args.seed_index,
        p_min_key="p_min_ablation" if args.method == "aequa_pmin" else "p_min",
    )
    contributions = ex.read_contributions(args.standalone, args.method, len(st.clients))
    digest = settings_hash(
        args.cfg, args.dataset, args.partition, args.method, args.seed_index, ex.data_fingerprint(st), contributions
    )
    out = {**st.info, "method": args.method, **ex.contribution_fields(contributions)}
    out.update(ex.run_method(cfg, st, args.method, contributions, ex.Job(args.checkpoint, digest)))
    out["seconds"] = time.perf_counter() - started
    out["metadata"] = run_metadata(root, seed_index=st.seed, device=str(st.device))
    write_json(args.output, out)
    discard_checkpoint(args.checkpoint)


def summarize(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa import experiment as ex
    from fairshare.papers.aequa.claims import claims
    from fairshare.report import write_claims

    cfg = section(args, "aequa")
    runs = [read_json(p) for p in args.runs]
    tidy = ex.tidy_metrics(runs, cgs_ddof=cfg["cgs_ddof"])
    write_csv(args.summary, tidy)
    write_csv(args.per_client, ex.per_client(runs))
    write_csv(args.curves, ex.width_curves(runs))
    for name, (frame, markdown) in ex.paper_tables(tidy, cfg).items():
        csv_path, md_path = getattr(args, name)
        write_csv(csv_path, frame)
        write_text(md_path, markdown)
    write_claims(args.claims, claims(tidy, cfg))


def figures(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.papers.aequa.figures import draw

    cfg = section(args, "aequa")
    draw(
        pd.read_csv(args.summary),
        pd.read_csv(args.per_client),
        pd.read_csv(args.curves),
        cfg["curve_partition"],
        args.width_figure,
        args.scatter_figure,
    )
