"""Commands for the payoff/model-reward paper: coalition valuation, allocations, Figure 2, properties, claims."""
from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd

from fairshare import seeding
from fairshare.cli import CommandError, cfg_argument, section
from fairshare.data.datasets import load_cache
from fairshare.data.partition import label_range
from fairshare.games import payoff_flows as pf
from fairshare.games.shapley import conditional_shapley, shapley_values
from fairshare.io import read_json, write_csv, write_json

GROUP = "payoff-flows"
HELP = "Shapley-fair payoffs, payoff flows and budget-constrained model rewards"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("valuate", help="train one coalition's model and record v(C)")
    p.add_argument("--dataset", required=True)
    p.add_argument("--mask", type=int, required=True)
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=valuate)

    p = sub.add_parser("assemble", help="collect the coalition values into one bitmask table")
    p.add_argument("inputs", nargs="+")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=assemble)

    p = sub.add_parser("analyze", help="allocations and flows under each budget scenario")
    p.add_argument("--values", required=True)
    p.add_argument("--allocations", required=True)
    p.add_argument("--flows", required=True)
    cfg_argument(p)
    p.set_defaults(func=analyze)

    p = sub.add_parser("figure2", help="Figure 2 panels a-h from an allocations/flows pair")
    p.add_argument("--allocations", required=True)
    p.add_argument("--flows", required=True)
    p.add_argument("--title", required=True)
    p.add_argument("--output", required=True, help="figure stem")
    p.set_defaults(func=figure2)

    p = sub.add_parser("properties", help="axioms and lemmas checked on random games and on the reference table")
    p.add_argument("--reference", required=True)
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=properties)

    p = sub.add_parser("claims", help="the paper's qualitative observations on each value table")
    p.add_argument("--tables", nargs="+", required=True, help="label=path pairs of value tables")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=claims)


def _party_indices(labels: np.ndarray, ranges: list) -> list[np.ndarray]:
    return label_range(labels, ranges).client_indices


def valuate(args: argparse.Namespace) -> None:
    from fairshare.learning.valuation import coalition_indices, train_and_score

    cfg = section(args, "payoff_flows")
    seed = section(args, "seed")
    ds = load_cache(args.dataset)
    parties = _party_indices(ds.y_train, cfg["label_ranges"])
    if not 0 < args.mask < 1 << len(parties):
        raise CommandError(f"coalition mask {args.mask} is out of range for {len(parties)} parties")
    idx = coalition_indices(parties, args.mask, cfg["data_mode"])
    acc = train_and_score(ds.x_train, ds.y_train, ds.x_test, ds.y_test, idx, n_classes=ds.n_classes, epochs=cfg["epochs"],
                          batch_size=cfg["batch_size"], lr=cfg["lr"], hidden=cfg["hidden"], init_seed=seeding.integer_seed(seed, "init"),
                          order_rng=seeding.generator(seed, "data_order", args.mask))
    write_json(args.output, {"mask": args.mask, "members": [k for k in range(len(parties)) if args.mask >> k & 1], "dataset": ds.name,
                             "train_samples": int(len(idx)), "accuracy": acc, "value": cfg["nu"] * acc})


def assemble(args: argparse.Namespace) -> None:
    cfg = section(args, "payoff_flows")
    n = len(cfg["label_ranges"])
    v = [0.0] * (1 << n)
    datasets = set()
    for path in args.inputs:
        rec = read_json(path)
        v[rec["mask"]] = rec["value"]
        datasets.add(rec["dataset"])
    missing = [m for m in range(1, 1 << n) if not any(read_json(p)["mask"] == m for p in args.inputs)]
    if missing:
        raise CommandError(f"coalitions {missing} have no valuation file")
    names = [f"[{lo}]" if lo == hi else f"[{lo}-{hi}]" for lo, hi in cfg["label_ranges"]]
    write_json(args.output, {"description": "v(C) = nu * test accuracy of a model trained on coalition C (this pipeline)",
                             "dataset": sorted(datasets), "parties": names, "nu": cfg["nu"], "v": v})


def _scenarios(cfg: dict, n: int) -> list[tuple[str, list | None]]:
    out = []
    for s in cfg["budget_scenarios"]:
        b = s["budgets"]
        if b is not None and len(b) != n:
            raise CommandError(f"budget scenario '{s['name']}' has {len(b)} budgets for {n} parties")
        out.append((s["name"], b))
    return out


def analyze(args: argparse.Namespace) -> None:
    table = read_json(args.values)
    v = np.asarray(table["v"], float)
    names = table["parties"]
    singles = v[[1 << i for i in range(len(names))]]
    alloc_rows, flow_rows = [], []
    for name, budgets in _scenarios(section(args, "payoff_flows"), len(names)):
        a = pf.allocate(v, budgets)
        for i, party in enumerate(names):
            alloc_rows.append({"scenario": name, "party": party, "budget": np.inf if budgets is None else budgets[i], "v_single": singles[i],
                               "shapley": a.shapley[i], "payoff": a.payoff[i], "cost": a.cost[i], "revenue": a.revenue[i],
                               "lam": a.lam[i], "model_value": a.model_value[i], "v_grand": v[-1]})
            for j, payee in enumerate(names):
                flow_rows.append({"scenario": name, "payer": party, "payee": payee, "flow": a.flows[i, j]})
    write_csv(args.allocations, pd.DataFrame(alloc_rows))
    write_csv(args.flows, pd.DataFrame(flow_rows))


def figure2(args: argparse.Namespace) -> None:
    from fairshare.plots.payoff_flows import figure2 as draw

    draw(pd.read_csv(args.allocations), pd.read_csv(args.flows), args.title, args.output)


def _random_monotone_game(n: int, rng: np.random.Generator) -> np.ndarray:
    v = rng.random(1 << n)
    v[0] = 0.0
    masks = np.arange(1 << n)
    for i in range(n):  # cumulative max over supersets makes the game monotone
        for m in masks[(masks >> i & 1) == 1]:
            v[m] = max(v[m], v[m ^ 1 << i])
    return v


def properties(args: argparse.Namespace) -> None:
    from fairshare.games.payoff_flows_properties import check_all

    rng = seeding.generator(section(args, "seed"), "game", 5)
    count = section(args, "payoff_flows")["random_games"]
    rows = []
    games = [("reference MNIST table", np.asarray(read_json(args.reference)["v"], float))]
    games += [(f"random monotone game {k} (n={n})", _random_monotone_game(n, rng)) for k, n in enumerate(rng.integers(2, 7, size=count))]
    for label, v in games:
        for prop, holds, detail in check_all(v, rng):
            rows.append({"game": label, "property": prop, "holds": holds, "detail": detail})
    write_csv(args.output, pd.DataFrame(rows))


def claims(args: argparse.Namespace) -> None:
    from fairshare.games.payoff_flows_properties import paper_observations

    rows = []
    for item in args.tables:
        label, path = item.split("=", 1)
        table = read_json(path)
        for claim, holds, detail in paper_observations(np.asarray(table["v"], float)):
            rows.append({"claim": f"{claim} [{label}]", "paper_states": claim, "parameters": f"value table: {label}", "holds": holds, "note": detail})
    write_csv(args.output, pd.DataFrame(rows, columns=["claim", "paper_states", "parameters", "holds", "note"]))
