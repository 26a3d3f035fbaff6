"""Commands of the payoff/model-reward paper: coalition valuation, allocations, Figure 2, properties, claims.

Heavy imports (torch, pandas, scipy) happen inside the commands: the 31 ``valuate`` jobs start quickly.
"""
from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from fairshare import seeding
from fairshare.cli import CommandError, cfg_argument, section
from fairshare.io import read_json, write_csv, write_json

GROUP = "payoff-flows"
HELP = "Shapley-fair payoffs, payoff flows and budget-constrained model rewards (coalition valuation, Figure 2)"
PAPER = "payoff_flows"
#: Figure 2's budget scenarios for the paper's five parties (caption of Fig. 2): the reference table always uses them.
PAPER_SCENARIOS = [
    {"name": "b = inf", "budgets": None},
    {"name": "b = 0", "budgets": [0.0] * 5},
    {"name": "b = 0.3 for [0]", "budgets": [0.3, 0.0, 0.0, 0.0, 0.0]},
]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("valuate", help="train one coalition's model and record v(C)")
    p.add_argument("--dataset", required=True, help="cached dataset (.npz)")
    p.add_argument("--mask", type=int, required=True, help="coalition bitmask (bit k = party k)")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=valuate)

    p = sub.add_parser("assemble", help="collect the coalition values into one bitmask value table")
    p.add_argument("inputs", nargs="+", help="one valuation JSON per non-empty coalition")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=assemble)

    p = sub.add_parser("analyze", help="allocations and payoff flows of a value table under each budget scenario")
    p.add_argument("--values", required=True, help="value table JSON (fields parties, v)")
    p.add_argument("--scenarios", choices=["config", "paper"], default="config",
                   help="budget scenarios: the config's, or Figure 2's three for the paper's five parties")
    p.add_argument("--experiment", required=True, help="label written to the result rows (trained / reference)")
    p.add_argument("--allocations", required=True)
    p.add_argument("--flows", required=True)
    cfg_argument(p)
    p.set_defaults(func=analyze)

    p = sub.add_parser("figure2", help="Figure 2 panels a-h from an allocations/flows pair")
    p.add_argument("--allocations", required=True)
    p.add_argument("--flows", required=True)
    p.add_argument("--title", required=True)
    p.add_argument("--output", required=True, help="figure stem (png and pdf are written)")
    p.set_defaults(func=figure2)

    p = sub.add_parser("properties", help="axioms and lemmas checked on value tables and on random monotone games")
    p.add_argument("--tables", nargs="+", required=True, help="label=path pairs of value tables")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=properties)

    p = sub.add_parser("claims", help="the paper's Section 5 observations on each value table")
    p.add_argument("--tables", nargs="+", required=True, help="label=path pairs of value tables")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=claims)


def party_names(label_ranges: list) -> list[str]:
    """The paper's party labels: [s-e] for labels s..e, [s] for one label."""
    return [f"[{lo}]" if lo == hi else f"[{lo}-{hi}]" for lo, hi in label_ranges]


def valuate(args: argparse.Namespace) -> None:
    import torch

    from fairshare.data.datasets import load_cache
    from fairshare.data.partition import label_range
    from fairshare.learning.valuation import coalition_indices, train_and_score

    started = time.perf_counter()
    cfg, seed = section(args, "payoff_flows"), section(args, "seed")
    torch.set_num_threads(1)  # one job per core; a tiny MLP gains nothing from a second intra-op thread
    ds = load_cache(args.dataset)
    parties = label_range(ds.y_train, cfg["label_ranges"]).client_indices
    if not 0 < args.mask < 1 << len(parties):
        raise CommandError(f"coalition mask {args.mask} is out of range for {len(parties)} parties")
    idx = coalition_indices(parties, args.mask, cfg["data_mode"])
    acc = train_and_score(ds.x_train, ds.y_train, ds.x_test, ds.y_test, idx, n_classes=ds.n_classes, epochs=cfg["epochs"],
                          batch_size=cfg["batch_size"], lr=cfg["lr"], hidden=cfg["hidden"],
                          init_seed=seeding.integer_seed(seed, "payoff_flows/init"),
                          order_rng=seeding.generator(seed, "payoff_flows/data_order", args.mask))
    write_json(args.output, {"mask": args.mask, "members": [k for k in range(len(parties)) if args.mask >> k & 1],
                             "dataset": ds.name, "train_samples": int(len(idx)), "epochs": cfg["epochs"],
                             "accuracy": acc, "value": cfg["nu"] * acc, "seconds": round(time.perf_counter() - started, 3)})


def assemble(args: argparse.Namespace) -> None:
    from fairshare.io import run_metadata

    cfg, seed = section(args, "payoff_flows"), section(args, "seed")
    n = len(cfg["label_ranges"])
    records = {rec["mask"]: rec for rec in map(read_json, args.inputs)}
    missing = sorted(set(range(1, 1 << n)) - set(records))
    if missing:
        raise CommandError(f"coalitions {missing} have no valuation file")
    v = [0.0] + [records[m]["value"] for m in range(1, 1 << n)]
    seconds = [records[m]["seconds"] for m in range(1, 1 << n)]
    write_json(args.output, {
        "description": "v(C) = nu * test accuracy of an MLP trained on coalition C's data from one fixed "
                       "initialisation (this pipeline's coalition valuation); index = bitmask, bit k = parties[k]",
        "dataset": sorted({rec["dataset"] for rec in records.values()}),
        "parties": party_names(cfg["label_ranges"]),
        "label_ranges": cfg["label_ranges"],
        "nu": cfg["nu"], "data_mode": cfg["data_mode"], "epochs": cfg["epochs"], "hidden": cfg["hidden"],
        "batch_size": cfg["batch_size"], "lr": cfg["lr"],
        "v": v,
        "job_seconds": {"total": round(sum(seconds), 2), "max": max(seconds), "per_coalition": seconds},
        "meta": run_metadata(seed),
    })


def _scenarios(args: argparse.Namespace, n: int) -> list[dict[str, Any]]:
    scenarios = PAPER_SCENARIOS if args.scenarios == "paper" else section(args, "payoff_flows")["budget_scenarios"]
    for s in scenarios:
        if s["budgets"] is not None and len(s["budgets"]) != n:
            raise CommandError(f"budget scenario '{s['name']}' has {len(s['budgets'])} budgets for {n} parties")
    return scenarios


def analyze(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.games.payoff_flows_properties import quiet_allocate

    table = read_json(args.values)
    v, names = np.asarray(table["v"], dtype=float), table["parties"]
    if len(v) != 1 << len(names):
        raise CommandError(f"{args.values}: {len(v)} values for {len(names)} parties (need 2^n)")
    own = v[[1 << i for i in range(len(names))]]
    seed = section(args, "seed")
    alloc_rows, flow_rows = [], []
    for scenario in _scenarios(args, len(names)):
        budgets = scenario["budgets"]
        a = quiet_allocate(v, budgets)
        for i, party in enumerate(names):
            alloc_rows.append({"paper": PAPER, "experiment": args.experiment, "seed": seed, "scenario": scenario["name"],
                               "party": party, "budget": np.inf if budgets is None else budgets[i], "v_single": own[i],
                               "v_grand": v[-1], "shapley": a.shapley[i], "payoff": a.payoff[i], "cost": a.cost[i],
                               "revenue": a.revenue[i], "lam": a.lam[i], "model_value": a.model_value[i]})
            flow_rows += [{"paper": PAPER, "experiment": args.experiment, "seed": seed, "scenario": scenario["name"],
                           "payer": party, "payee": payee, "flow": a.flows[i, j]} for j, payee in enumerate(names)]
    write_csv(args.allocations, pd.DataFrame(alloc_rows))
    write_csv(args.flows, pd.DataFrame(flow_rows))


def figure2(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.plots.payoff_flows import figure2 as draw

    draw(pd.read_csv(args.allocations), pd.read_csv(args.flows), args.title, args.output)


def _tables(items: list[str]) -> list[tuple[str, dict]]:
    out = []
    for item in items:
        label, sep, path = item.partition("=")
        if not sep:
            raise CommandError(f"'{item}' is not a label=path pair")
        out.append((label, read_json(path)))
    return out


def properties(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.games.payoff_flows_properties import check_properties, random_monotone_game

    cfg = section(args, "payoff_flows")
    rng = seeding.generator(section(args, "seed"), "payoff_flows/properties")
    games = [(f"{label} table", np.asarray(table["v"], dtype=float)) for label, table in _tables(args.tables)]
    sizes = rng.integers(cfg["random_game_players"][0], cfg["random_game_players"][1] + 1, size=cfg["random_games"])
    games += [(f"random monotone game {k}", random_monotone_game(int(n), rng)) for k, n in enumerate(sizes)]
    rows = [{"game": label, "players": len(v).bit_length() - 1, "property": c.name, "kind": c.kind, "residual": c.residual,
             "tolerance": c.tolerance, "holds": c.holds, "detail": c.detail}
            for label, v in games for c in check_properties(v, rng)]
    write_csv(args.output, pd.DataFrame(rows))


def claims(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.games.payoff_flows_properties import paper_observations

    rows = []
    for label, table in _tables(args.tables):
        source = f"value table: {label} ({', '.join(np.atleast_1d(table.get('dataset', ['mnist'])))})"
        for obs in paper_observations(np.asarray(table["v"], dtype=float), table["parties"]):
            rows.append({"claim": f"{obs.claim} [{label}]", "paper_states": obs.paper_states, "parameters": source,
                         "reproduced": obs.reproduced, "holds": obs.holds, "note": "" if obs.holds else "does not hold on this table"})
    write_csv(args.output, pd.DataFrame(rows, columns=["claim", "paper_states", "parameters", "reproduced", "holds", "note"]))
