"""Commands for the Aequa extensions: participation rate as the contribution (Sec. 6.4, Table 3, Fig. 2),
training-time rewards (Sec. 6.5, Algorithm 2, Figs 3-4) and FEMNIST at scale (Sec. 6.6, Table 4, Fig. 5). Every output
path comes from the rule."""

from __future__ import annotations

import argparse

from fairshare.errors import UserError
from fairshare.io import read_json, write_csv, write_text
from fairshare.papers.aequa.commands import job_inputs, parse_runs, runs_argument, write_runs
from fairshare.pipeline.commands_shared import cfg_argument, discard_checkpoints_when_done, section

__all__ = [
    "GROUP",
    "HELP",
    "register",
    "settings",
    "participation",
    "participation_summary",
    "training_time",
    "training_time_summary",
    "scale",
    "scale_overhead",
    "scale_summary",
    "femnist_data",
]

GROUP = "aequa-ext"
HELP = "Aequa extensions: participation-rate contributions (Table 3, Fig. 2), training-time rewards (Figs 3-4), FEMNIST at scale (Table 4, Fig. 5)"


def _job(
    sub: argparse._SubParsersAction, name: str, help: str, func, methods: tuple[str, ...] = (), note: str = ""
) -> argparse.ArgumentParser:
    """A training command: its runs (``--run``, one per seed and method), or with no ``methods`` one output."""
    p = sub.add_parser(name, help=help)
    p.add_argument("--dataset", required=True, help="the setting's dataset name as configured")
    p.add_argument("--dataset-file", required=True, help="cached .npz (after the offline fallback)")
    if methods:
        runs_argument(p, methods, note)
    else:
        p.add_argument("--output", required=True, help="seconds per round of each method (CSV)")
        p.add_argument(
            "--checkpoint",
            help="round checkpoint (resumed when its settings match; removed once the output is written)",
        )
    cfg_argument(p)
    p.set_defaults(func=func)
    return p


def register(sub: argparse._SubParsersAction) -> None:
    from fairshare.papers.aequa_extensions.experiment import PARTICIPATION_METHODS, SCALE_METHODS, TRAINING_TIME_METHODS

    _job(
        sub,
        "participation",
        "runs of one dataset (seeds, methods) with Bernoulli participation; rates are the contributions",
        participation,
        PARTICIPATION_METHODS,
    )

    p = sub.add_parser("participation-summary", help="Table 3 (CSV + Markdown), claims and Figure 2")
    p.add_argument("runs", nargs="+", help="run JSONs written by `aequa-ext participation`")
    p.add_argument("--table", nargs=2, required=True, metavar=("CSV", "MD"), help="Table 3")
    p.add_argument("--per-client", required=True, help="per-client rates and rewards (CSV)")
    p.add_argument("--claims", required=True, help="claims (CSV)")
    p.add_argument("--figure", required=True, help="figure stem (png + pdf)")
    cfg_argument(p)
    p.set_defaults(func=participation_summary)

    p = _job(
        sub,
        "training-time",
        "runs of one (dataset, partition) (seeds, methods) evaluated every round",
        training_time,
        TRAINING_TIME_METHODS,
    )
    p.add_argument("--partition", required=True, help="name of an aequa.partitions entry")
    p.add_argument(
        "--standalone",
        nargs=2,
        action="append",
        required=True,
        metavar=("SEED", "JSON"),
        help="the setting's standalone run of a seed (the contributions); one per seed trained",
    )

    p = sub.add_parser("training-time-summary", help="per-round metrics, claims and Figures 3-4")
    p.add_argument("runs", nargs="+", help="run JSONs written by `aequa-ext training-time`")
    p.add_argument("--rounds", required=True, help="tidy per-round metrics (CSV)")
    p.add_argument(
        "--standalone",
        nargs="+",
        default=[],
        metavar="JSON",
        help="the settings' standalone runs (the contributions): a setting they measure no better than its clients "
        "differ is not judged on rho (without them every setting is judged)",
    )
    p.add_argument("--claims", required=True, help="claims (CSV)")
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
        sub,
        "scale",
        "runs (seeds, methods) of the FEMNIST scalability experiment (writer clients, partial participation)",
        scale,
        SCALE_METHODS,
        "each seed's methods need the seed's standalone run (the contributions) in the job",
    )
    p.add_argument(
        "--writers",
        help="npz with writers_train (real FEMNIST writer ids); without it the configured writer-like partition",
    )
    p.add_argument(
        "--standalone",
        nargs=2,
        action="append",
        default=[],
        metavar=("SEED", "JSON"),
        help="a seed's standalone scale run (its contributions) instead of training it in the job (sensitivity reruns)",
    )

    p = _job(sub, "scale-overhead", "seconds per round of FedAvg and Aequa, alternately in one process", scale_overhead)
    p.add_argument(
        "--writers",
        help="npz with writers_train (real FEMNIST writer ids); without it the configured writer-like partition",
    )
    p.add_argument("--summary", required=True, help="Markdown: the median seconds per round and the overhead")

    p = sub.add_parser("scale-summary", help="Table 4, claims and Figure 5")
    p.add_argument("runs", nargs="+", help="run JSONs written by `aequa-ext scale`")
    p.add_argument("--table", nargs=2, required=True, metavar=("CSV", "MD"), help="Table 4")
    p.add_argument("--claims", required=True, help="claims (CSV)")
    p.add_argument("--curve", required=True, help="a(p) of the Aequa runs (CSV)")
    p.add_argument("--figure", required=True, help="figure stem (png + pdf)")
    cfg_argument(p)
    p.set_defaults(func=scale_summary)

    p = sub.add_parser("femnist-data", help="cache LEAF's preprocessed FEMNIST (arrays + writer ids)")
    p.add_argument(
        "--leaf-dir", required=True, help="folder of LEAF's preprocessed FEMNIST (train/ and test/ JSON files)"
    )
    p.add_argument("--output", required=True, help="dataset cache (.npz)")
    p.add_argument("--writers", required=True, help="writer ids (.npz with writers_train, writers_test)")
    cfg_argument(p)
    p.set_defaults(func=femnist_data)


def settings(args: argparse.Namespace):
    """The ``aequa`` block of ``--cfg`` as the extensions' typed settings."""
    from fairshare.papers.aequa.settings import ExtensionSettings

    return ExtensionSettings.from_block(section(args, "aequa"))


def participation(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa_extensions.experiment import PARTICIPATION_METHODS, participation_runs

    runs = parse_runs(args, PARTICIPATION_METHODS)
    write_runs(runs, participation_runs(settings(args), job_inputs(args), runs))


def participation_summary(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa_extensions import experiment as ex
    from fairshare.papers.aequa_extensions.claims import claims
    from fairshare.papers.aequa_extensions.figures import reward_vs_rate
    from fairshare.pipeline.report import write_claims

    extensions = settings(args)
    per_client, tidy = ex.participation_results([read_json(p) for p in args.runs])
    frame, markdown = ex.table3(tidy, list(dict.fromkeys(extensions.participation.datasets)))
    write_csv(args.table[0], frame)
    write_text(args.table[1], markdown)
    write_csv(args.per_client, per_client)
    write_claims(args.claims, claims({"participation": tidy}, extensions))
    reward_vs_rate(per_client, tidy, args.figure)


def training_time(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa_extensions.experiment import TRAINING_TIME_METHODS, training_time_runs

    runs = parse_runs(args, TRAINING_TIME_METHODS)
    if not all(seed.isdigit() for seed, _ in args.standalone):
        raise UserError("--standalone SEED JSON: the seed is a seed index")
    standalone = {int(seed): path for seed, path in args.standalone}
    write_runs(runs, training_time_runs(settings(args), job_inputs(args), args.partition, runs, standalone))


def training_time_summary(args: argparse.Namespace) -> None:
    from fairshare.papers.aequa_extensions import experiment as ex
    from fairshare.papers.aequa_extensions.claims import claims
    from fairshare.papers.aequa_extensions.figures import metrics_over_rounds
    from fairshare.pipeline.report import write_claims

    runs = [read_json(p) for p in args.runs]
    tidy = ex.training_time_rounds(runs)
    write_csv(args.rounds, tidy)
    results = {"training_time": tidy, "final_widths": ex.final_width_correlations(runs)}
    if args.standalone:
        results["measurement"] = ex.contribution_measurement([read_json(p) for p in args.standalone])
    write_claims(args.claims, claims(results, settings(args)))
    for partition, stem in args.figure:
        metrics_over_rounds(tidy[tidy.partition == partition], stem)


def scale(args: argparse.Namespace) -> None:
    """Runs of the scalability experiment (Sec. 6.6, Table 4, Fig. 5): writer clients, partial participation."""
    from fairshare.papers.aequa_extensions.experiment import SCALE_METHODS, scale_runs

    runs = parse_runs(args, SCALE_METHODS)
    standalone = {int(seed): path for seed, path in args.standalone if seed.isdigit()}
    if len(standalone) != len(args.standalone):
        raise UserError("--standalone SEED JSON: the seed is a seed index")
    if standalone and any(r.method == "standalone" for r in runs):
        raise UserError("--standalone and a standalone --run exclude each other")
    write_runs(runs, scale_runs(settings(args), job_inputs(args), args.writers, runs, standalone or None))


def scale_overhead(args: argparse.Namespace) -> None:
    """Seconds per round of FedAvg and of Aequa's slimmable training, measured alternately in one process (Sec. 6.6)."""
    from fairshare.papers.aequa_extensions import experiment as ex

    rows = ex.scale_overhead(settings(args), job_inputs(args), args.writers, args.checkpoint)
    write_csv(args.output, rows)
    write_text(args.summary, ex.overhead_summary(rows))
    discard_checkpoints_when_done([args.checkpoint])


def scale_summary(args: argparse.Namespace) -> None:
    """Table 4 (accuracy, Pearson, MCG, CGS of FedAvg-FT and Aequa), claims and Figure 5."""
    from fairshare.papers.aequa_extensions import experiment as ex
    from fairshare.papers.aequa_extensions.claims import claims
    from fairshare.papers.aequa_extensions.figures import scale_figure
    from fairshare.pipeline.report import write_claims

    runs = [read_json(p) for p in args.runs]
    tidy = ex.scale_results(runs)
    frame, markdown = ex.table4(tidy, runs[0]["dataset"])
    write_csv(args.table[0], frame)
    write_text(args.table[1], markdown)
    curves = ex.scale_width_curve(runs)
    write_claims(args.claims, claims({"scale": tidy, "scale_curve": curves}, settings(args)))
    write_csv(args.curve, curves)
    clients = int(tidy.clients.iloc[0]) if len(tidy) else 0
    scale_figure(curves, tidy, f"{runs[0]['dataset']}, {clients} writer clients", args.figure)


def femnist_data(args: argparse.Namespace) -> None:
    """Cache FEMNIST from LEAF's folder, or (smoke profile: ``femnist`` in ``data.stand_in.datasets``) from a random
    stand-in folder in LEAF's layout, read by the same code."""
    from fairshare.data.leaf import cache_femnist, write_stand_in_leaf

    stand_in = args.cfg.get("data", {}).get("stand_in", {})
    if "femnist" not in stand_in.get("datasets", []):
        cache_femnist(args.leaf_dir, args.output, args.writers)
        return
    import tempfile

    from fairshare import seeding
    from fairshare.data.stand_in import STAND_IN_DATASETS

    with tempfile.TemporaryDirectory() as folder:
        seed = seeding.torch_seed(section(args, "seed"), "dataset", len(STAND_IN_DATASETS))  # after the others
        write_stand_in_leaf(folder, n_train=stand_in["n_train"], n_test=stand_in["n_test"], seed=seed)
        cache_femnist(folder, args.output, args.writers)
