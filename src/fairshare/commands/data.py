"""Commands of the data steps: build a cached dataset, draw the configured partitions."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from fairshare import seeding
from fairshare.data import datasets
from fairshare.data.partition import make_partition
from fairshare.errors import UserError
from fairshare.io import write_csv, write_json
from fairshare.pipeline.commands_shared import cfg_argument, section
from fairshare.pipeline.config import dataset_mirrors

__all__ = ["GROUP", "HELP", "register", "build", "partitions", "inventory"]

GROUP = "data"
HELP = "datasets and partitions: cache each dataset (.npz), draw the configured partitions, inventory of the caches"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="fetch (mirror/download, checksum-verified) and cache one dataset as .npz")
    p.add_argument("name", choices=datasets.CACHEABLE, help="the dataset to build")
    p.add_argument("--output", required=True, help="where to write the dataset cache (.npz)")
    cfg_argument(p)
    p.set_defaults(func=build)

    p = sub.add_parser("partitions", help="draw every configured partition; write index lists and a heatmap grid")
    p.add_argument("--datasets", nargs="+", required=True, help="cached .npz files, one per partition, in config order")
    p.add_argument("--outputs", nargs="+", required=True, help="one JSON per partition, in config order")
    p.add_argument("--summary", required=True, help="CSV with the client x class counts of every partition")
    p.add_argument("--figure", required=True, help="figure stem (png and pdf are written)")
    cfg_argument(p)
    p.set_defaults(func=partitions)

    p = sub.add_parser("inventory", help="record size and MD5 of every cached dataset the run uses (DVC stage output)")
    p.add_argument("files", nargs="*", help="the cached dataset files (.npz) to record")
    p.add_argument("--output", required=True, help="where to write the size and MD5 per file name (JSON)")
    p.set_defaults(func=inventory)


def build(args: argparse.Namespace) -> None:
    data_cfg = section(args, "data")
    stand_in = data_cfg.get("stand_in", {})
    if args.name in stand_in.get("datasets", []):
        from fairshare.data.stand_in import STAND_IN_DATASETS, stand_in_dataset

        seed = seeding.torch_seed(section(args, "seed"), "dataset", STAND_IN_DATASETS.index(args.name))
        ds = stand_in_dataset(args.name, n_train=stand_in["n_train"], n_test=stand_in["n_test"], seed=seed)
    elif args.name == "sst":
        ds = _sst(data_cfg)
    else:
        ds = _registered(args, data_cfg)
    datasets.save_cache(ds, args.output)


def _sst(data_cfg: dict) -> datasets.ArrayDataset:
    """SST-5 from Stanford's PTB trees (fairshare.data.sst; downloaded only when data.allow_download is true)."""
    from fairshare.data import sst

    try:
        archive = sst.fetch_archive(data_cfg["raw_dir"], data_cfg["allow_download"])
    except sst.SSTError as exc:
        raise UserError(str(exc)) from None
    x_train, y_train, x_test, y_test, _ = sst.sst_arrays(archive)
    return datasets.ArrayDataset("sst", x_train, y_train, x_test, y_test, sst.CLASSES)


def _registered(args: argparse.Namespace, data_cfg: dict) -> datasets.ArrayDataset:
    return datasets.build_dataset(
        args.name,
        raw_dir=data_cfg["raw_dir"],
        mirrors=dataset_mirrors(data_cfg, args.name),
        allow_download=data_cfg["allow_download"],
        rng=seeding.generator(section(args, "seed"), "dataset"),
        synthetic=data_cfg["synthetic"],
    )


def partitions(args: argparse.Namespace) -> None:
    from fairshare.commands._partition_figures import partition_grid

    specs = section(args, "partitions")
    if not len(specs) == len(args.datasets) == len(args.outputs):
        raise UserError(
            f"{len(specs)} partitions configured but {len(args.datasets)} dataset files and {len(args.outputs)} outputs given"
        )
    seed = section(args, "seed")
    drawn, rows = [], []
    for k, (spec, path, output) in enumerate(zip(specs, args.datasets, args.outputs)):
        ds = datasets.load_cache(path)
        part = make_partition(ds.y_train, spec, seeding.generator(seed, "partition", k))
        write_json(output, {"dataset": ds.name, **part.to_json()})
        drawn.append((spec["name"], ds.name, part))
        for client, counts in enumerate(part.counts):
            rows += [
                {"partition": spec["name"], "dataset": ds.name, "client": client, "class": c, "count": int(n)}
                for c, n in enumerate(counts)
            ]
    write_csv(args.summary, pd.DataFrame(rows, columns=["partition", "dataset", "client", "class", "count"]))
    partition_grid(drawn, args.figure)


def inventory(args: argparse.Namespace) -> None:
    import hashlib

    rows = {}
    for path in map(Path, args.files):
        rows[path.name] = {"bytes": path.stat().st_size, "md5": hashlib.md5(path.read_bytes()).hexdigest()}
    write_json(args.output, {"datasets": rows})
