"""Commands for the recruitment auctions (FedFairMMFL paper, Section V): Experiment 5, recruitment files for
Experiment 6, measured properties, claims, Figures 7a-7c."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from fairshare import seeding
from fairshare.cli import CommandError, cfg_argument, section
from fairshare.games import auctions as au
from fairshare.games import auctions_claims as claims_lib
from fairshare.games import auctions_properties as props
from fairshare.io import read_json, run_metadata, write_csv, write_json

GROUP = "auctions"
HELP = "client-recruitment auctions for multi-model FL (budget-fair, max-min fair, GMMFair, baselines)"
BID_KEY = 7  # seeding key of the Exp 5 / Exp 6 bid profiles
CLAIM_COLUMNS = ["claim", "artifact", "paper_states", "parameters", "holds", "reproduced", "note"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("exp5", help="take-up per task vs budget for every mechanism (Figures 7a, 7b)")
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=exp5)

    p = sub.add_parser("recruit", help="one recruitment JSON (winners per task, participation, payments) per mechanism and seed")
    p.add_argument("--budget", type=float, required=True)
    p.add_argument("--outputs", nargs="+", required=True, help="paths .../{mechanism}/seed{n}.json")
    cfg_argument(p)
    p.set_defaults(func=recruit)

    p = sub.add_parser("properties", help="misreporting gains (Theorem 8, Corollary 9) and Corollary 10 by Monte Carlo")
    p.add_argument("--truthfulness", required=True)
    p.add_argument("--corollary10", required=True)
    cfg_argument(p)
    p.set_defaults(func=properties)

    p = sub.add_parser("claims", help="the paper's orderings, truthfulness statements and Corollary 10, from the results")
    p.add_argument("--exp5", required=True)
    p.add_argument("--truthfulness", required=True)
    p.add_argument("--corollary10", required=True)
    p.add_argument("--output", required=True)
    cfg_argument(p)
    p.set_defaults(func=claims)

    p = sub.add_parser("figures", help="Figures 7a and 7b")
    p.add_argument("--exp5", required=True)
    p.add_argument("--outdir", required=True)
    cfg_argument(p)
    p.set_defaults(func=figures)

    p = sub.add_parser("exp6", help="train two tasks with FedFairMMFL on the clients of one recruitment file (Figure 7c)")
    p.add_argument("--recruitment", required=True, help="a JSON written by 'fairshare auctions recruit'")
    p.add_argument("--datasets", nargs="+", required=True, help="name=path of the two tasks' cached datasets")
    p.add_argument("--output", required=True)
    p.add_argument("--checkpoint", required=True)
    cfg_argument(p)
    p.set_defaults(func=exp6)

    p = sub.add_parser("figure7c", help="minimum accuracy across the two tasks vs round, per mechanism, and the Fig. 7c claims")
    p.add_argument("runs", nargs="+")
    p.add_argument("--summary", required=True)
    p.add_argument("--claims", required=True)
    p.add_argument("--output", required=True, help="figure stem")
    cfg_argument(p)
    p.set_defaults(func=figure7c)


def experiment_bids(cfg: dict, root: int, seed: int) -> np.ndarray:
    """Seed ``seed``'s Exp 5 bid profile (users x 2); Exp 6 recruits from the same profiles."""
    return au.experiment5_bids(cfg["users"], seeding.generator(root, "game", BID_KEY, seed), cfg["task1_mu"], cfg["task1_sigma"])


def switches(cfg: dict) -> dict:
    """The mechanisms' reading switches from the config (each mechanism takes only its own)."""
    return {"fractional": cfg["fractional"], "strict": cfg["strict_reallocation"], "reallocation": cfg["reallocation"],
            "skip": cfg["skip_unaffordable"], "payment": cfg["budget_fair_payment"]}


def recruit_one(cfg: dict, root: int, mechanism: str, seed: int, budget: float, bids: np.ndarray | None = None) -> au.Recruitment:
    """Mechanism ``mechanism`` on seed ``seed``'s profile at ``budget`` (the same draw in Exp 5 and Exp 6)."""
    bids = experiment_bids(cfg, root, seed) if bids is None else bids
    rng = seeding.generator(root, "sampling", BID_KEY, seed, int(round(budget * 1000)))
    return au.run_mechanism(mechanism, bids, budget, rng, **switches(cfg))


def exp5(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    cfg, root = section(args, "auctions"), section(args, "seed")
    rows = []
    for seed in tqdm(range(cfg["seeds"]), desc="exp5 seeds", unit="seed"):
        bids = experiment_bids(cfg, root, seed)
        for budget in cfg["budgets"]:
            for mech in cfg["mechanisms"]:
                r = recruit_one(cfg, root, mech, seed, budget, bids)
                metrics = {f"take_up_task{s + 1}": float(n) for s, n in enumerate(r.take_up)}
                metrics.update(difference=r.difference, min_recruited=r.objective, spent=r.spent)
                rows += [{"paper": "auctions", "experiment": "exp5", "method": mech, "seed": seed, "round": 0, "budget": float(budget),
                          "metric": k, "value": v} for k, v in metrics.items()]
    write_csv(args.output, pd.DataFrame(rows))


def recruit(args: argparse.Namespace) -> None:
    cfg, root = section(args, "auctions"), section(args, "seed")
    for path in args.outputs:
        mechanism, seed_dir = Path(path).parent.name, Path(path).stem
        if mechanism not in au.MECHANISMS or not seed_dir.startswith("seed") or not seed_dir[4:].isdigit():
            raise CommandError(f"cannot read mechanism and seed from '{path}' (expected .../<mechanism>/seed<n>.json)")
        seed = int(seed_dir[4:])
        bids = experiment_bids(cfg, root, seed)
        r = recruit_one(cfg, root, mechanism, seed, args.budget, bids)
        record = {"paper": "auctions", "experiment": "recruitment", "mechanism": mechanism, "seed": seed, "budget": args.budget,
                  "switches": {k: v for k, v in switches(cfg).items() if k in au.SWITCHES.get(mechanism, ())},
                  "bid_distributions": {"task1": f"N({cfg['task1_mu']}, {cfg['task1_sigma']}^2) truncated to [0, 1]", "task2": "pdf 2x on [0, 1]"},
                  **r.to_record(), "bids": bids.tolist(), "metadata": run_metadata(root, seed_index=seed)}
        write_json(path, record)


def read_recruitment(path: str | Path) -> tuple[dict, au.Recruitment]:
    """A recruitment JSON and the :class:`Recruitment` it holds."""
    record = read_json(path)
    return record, au.Recruitment.from_record(record)


def properties(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    cfg, root = section(args, "auctions"), section(args, "seed")
    tcfg = cfg["truthfulness"]
    reports = np.linspace(0.0, 1.0, tcfg["grid_points"])
    sw = switches(cfg)
    variants = [(m, m, sw) for m in au.MECHANISMS] + [("budget_fair_uniform_price", "budget_fair", {**sw, "payment": "uniform"})]
    rows = []
    for p in tqdm(range(tcfg["profiles"]), desc="misreport profiles", unit="profile"):
        rng = seeding.generator(root, "game", 9, p)
        costs = au.experiment5_bids(tcfg["users"], rng, cfg["task1_mu"], cfg["task1_sigma"])
        budget = float(rng.uniform(*tcfg["budget_range"]))
        for label, mech, options in variants:
            summary = props.misreport_profile(mech, costs, budget, reports, seed=p, **options)
            rows += [{"paper": "auctions", "experiment": "truthfulness", "method": label, "seed": p, "round": 0, "budget": budget,
                      "metric": k, "value": float(v)} for k, v in summary.items()]
    write_csv(args.truthfulness, pd.DataFrame(rows))

    ccfg, out = cfg["corollary10"], []
    for k, y in enumerate(ccfg["y_values"]):
        exact = props.corollary10(y)
        mc = props.corollary10_monte_carlo(y, cfg["corollary_draws"], seeding.generator(root, "game", 10, k))
        auc = props.corollary10_auctions(y, ccfg["users"], ccfg["auction_draws"], seeding.generator(root, "game", 11, k))
        for method, values, draws in (("closed_form", exact, 0), ("monte_carlo", mc, cfg["corollary_draws"]), ("auctions", auc, ccfg["auction_draws"])):
            for mech, value in zip(("maxmin", "budget_fair"), values):
                out.append({"method": method, "y": y, "metric": f"p_no_user_{mech}", "value": value})
                if draws:
                    out.append({"method": method, "y": y, "metric": f"se_{mech}", "value": float(np.sqrt(max(value * (1 - value), 1e-12) / draws))})
    frame = pd.DataFrame(out)
    frame.insert(0, "round", 0)
    frame.insert(0, "seed", 0)
    frame.insert(0, "experiment", "corollary10")
    frame.insert(0, "paper", "auctions")
    write_csv(args.corollary10, frame[["paper", "experiment", "method", "seed", "round", "y", "metric", "value"]])


def claims(args: argparse.Namespace) -> None:
    cfg = section(args, "auctions")
    rows = claims_lib.exp5_claims(pd.read_csv(args.exp5), cfg["constrained_budget_max"])
    rows += claims_lib.truthfulness_claims(pd.read_csv(args.truthfulness))
    rows += claims_lib.corollary10_claims(pd.read_csv(args.corollary10), cfg["corollary10"]["tolerance_se"])
    write_csv(args.output, pd.DataFrame(rows, columns=CLAIM_COLUMNS))


def figures(args: argparse.Namespace) -> None:
    from fairshare.plots.auctions import figure7

    cfg = section(args, "auctions")
    caption = (f"Task-1 bids ~ N({cfg['task1_mu']:g}, {cfg['task1_sigma']:g}^2) truncated to [0, 1] (reconstruction: the paper does not give "
               f"them; chosen so task 1 is clearly cheaper, which reproduces the paper's ordering); task-2 bids have pdf 2x on [0, 1]. "
               f"{cfg['users']} clients, 2 tasks, {cfg['seeds']} seeds; shaded: budget-constrained region B <= {cfg['constrained_budget_max']:g}.")
    figure7(pd.read_csv(args.exp5), Path(args.outdir), caption, cfg["constrained_budget_max"])


def exp6(args: argparse.Namespace) -> None:
    from fairshare.papers.mmfl.commands import make_task
    from fairshare.data.datasets import load_cache
    from fairshare.data.partition import mmfl_iid
    from fairshare.learning.engine import resolve_device, set_deterministic
    from fairshare.learning.mmfl import run_mmfl

    cfg, train = section(args, "auctions"), dict(section(args, "mmfl"))
    exp, root = cfg["exp6"], section(args, "seed")
    if exp["local_epochs"] is not None:
        train["local_epochs"] = exp["local_epochs"]
    record, recruited = read_recruitment(args.recruitment)
    mechanism, seed = record["mechanism"], int(record["seed"])
    if record["n_tasks"] != len(exp["tasks"]):
        raise CommandError(f"{args.recruitment} recruits for {record['n_tasks']} tasks, but auctions.exp6.tasks names {len(exp['tasks'])}")
    set_deterministic(seeding.integer_seed(root, "auctions_exp6", seed) % (2**31))
    device = resolve_device(section(args, "device"))
    paths = dict(item.split("=", 1) for item in args.datasets)
    tasks = []
    for s, name in enumerate(exp["tasks"]):
        ds = load_cache(paths[name])
        part = mmfl_iid(ds.y_train, record["n_users"], exp["size_range"], seeding.generator(root, "partition", 70 + seed, s))
        tasks.append(make_task(name, ds, part, position=s, train_cfg=train, root=root, init_key=70 + seed, test_key=20_000 + s,
                               device=device, mask_absent=False))
    rows, _ = run_mmfl(tasks, n_clients=record["n_users"], active_rate=exp["active_rate"], rounds=exp["rounds"], policy="fedfair",
                       alpha=train["alpha"], weighted_aggregation=True, executor=train["executor"],
                       sampling_rng=lambda r: seeding.generator(root, "sampling", 80 + seed, r),
                       order_rng=lambda r, s, c: seeding.generator(root, "data_order", 80 + seed, r, s, c), checkpoint=args.checkpoint,
                       eligibility=recruited.x)
    df = pd.DataFrame(rows)
    df.insert(0, "recruited", [float(recruited.take_up[t]) for t in df.task])
    df.insert(0, "budget", float(record["budget"]))
    df.insert(0, "seed", seed)
    df.insert(0, "method", mechanism)
    df.insert(0, "experiment", "exp6")
    write_csv(args.output, df)
    Path(args.checkpoint).unlink(missing_ok=True)


def figure7c(args: argparse.Namespace) -> None:
    from fairshare.plots.auctions import figure7c as draw

    runs = pd.concat([pd.read_csv(p) for p in args.runs], ignore_index=True)
    per_round = runs.groupby(["method", "seed", "round"]).agg(min_acc=("accuracy", "min"), min_recruited=("recruited", "min")).reset_index()
    write_csv(args.summary, per_round)
    rows = claims_lib.exp6_claims(per_round, section(args, "auctions")["exp6"]["nearly_same_tolerance"])
    write_csv(args.claims, pd.DataFrame(rows, columns=CLAIM_COLUMNS))
    draw(per_round, args.output, sorted(runs.budget.unique()))
