"""Commands of the payoff/model-reward paper: coalition valuation, value table, allocations, Figure 2, claims.

Each reads the inputs and config blocks its rule passes and writes the outputs the rule names.

Heavy imports (torch, pandas, scipy) happen inside the commands: jobs that do not train never import torch.
"""

from __future__ import annotations

import argparse

import numpy as np

from fairshare.errors import UserError
from fairshare.io import read_json, write_csv, write_json
from fairshare.papers.payoff_flows import experiment
from fairshare.papers.payoff_flows.experiment import PAPER, PAPER_SCENARIOS, Analysis, Valuation
from fairshare.pipeline.commands_shared import cfg_argument, discard_checkpoints_when_done, section

__all__ = ["GROUP", "HELP", "register", "valuate", "assemble", "analyze", "figure2", "claims"]

GROUP = "payoff-flows"
HELP = "Shapley-fair payoffs, payoff flows and budget-constrained model rewards (coalition valuation, Figure 2)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("valuate", help="train coalitions' models and record v(C), one JSON per coalition")
    p.add_argument("--dataset", required=True, help="cached dataset (.npz)")
    p.add_argument(
        "--coalition",
        nargs=3,
        action="append",
        required=True,
        dest="coalitions",
        metavar=("MASK", "OUTPUT", "CHECKPOINT"),
        help="one coalition (repeatable): its bitmask (bit k = party k), its JSON, and its per-epoch checkpoint "
        "(resumed when its settings match; removed once its JSON is written)",
    )
    cfg_argument(p)
    p.set_defaults(func=valuate)

    p = sub.add_parser("assemble", help="collect the coalition values into one bitmask value table")
    p.add_argument("inputs", nargs="+", help="one valuation JSON per non-empty coalition")
    p.add_argument("--output", required=True, help="the bitmask value table v(C) with its settings (JSON)")
    cfg_argument(p)
    p.set_defaults(func=assemble)

    p = sub.add_parser("analyze", help="allocations and payoff flows of a value table under each budget scenario")
    p.add_argument("--values", required=True, help="value table JSON (fields parties, v)")
    p.add_argument(
        "--scenarios",
        choices=["config", "paper"],
        default="config",
        help="budget scenarios: the config's, or Figure 2's three for the paper's five parties",
    )
    p.add_argument("--experiment", required=True, help="label written to the result rows (trained / reference)")
    p.add_argument(
        "--allocations", required=True, help="payoffs, costs, revenues and model values per scenario and party (CSV)"
    )
    p.add_argument("--flows", required=True, help="payoff flows per scenario, payer and payee (CSV)")
    cfg_argument(p)
    p.set_defaults(func=analyze)

    p = sub.add_parser("figure2", help="Figure 2 panels a-h from an allocations/flows pair")
    p.add_argument("--allocations", required=True, help="allocations of `payoff-flows analyze` (CSV)")
    p.add_argument("--flows", required=True, help="payoff flows of `payoff-flows analyze` (CSV)")
    p.add_argument("--title", required=True, help="the figure's title")
    p.add_argument("--png", required=True, help="where to write the figure (PNG)")
    p.add_argument("--pdf", required=True, help="where to write the figure (PDF)")
    p.set_defaults(func=figure2)

    p = sub.add_parser("claims", help="the paper's Section 5 statements, checked on each value table's allocations")
    p.add_argument(
        "--table",
        nargs=4,
        action="append",
        required=True,
        metavar=("LABEL", "VALUES", "ALLOCATIONS", "FLOWS"),
        help="a value table's label, its JSON (for the dataset name) and its allocations and flows CSVs",
    )
    p.add_argument("--output", required=True, help="claims (CSV)")
    p.set_defaults(func=claims)


def valuate(args: argparse.Namespace) -> None:
    """Value each ``--coalition`` in turn, writing its JSON as soon as it is done (a killed job keeps those)."""
    import torch

    from fairshare.data.datasets import load_cache

    st = Valuation.from_config(section(args, PAPER), section(args, "seed"))
    coalitions = []
    for mask, output, checkpoint in args.coalitions:
        if not mask.isdigit() or not 0 < int(mask) < 1 << st.n_parties:
            raise UserError(
                f"coalition mask {mask} is out of range for {st.n_parties} parties (1..{(1 << st.n_parties) - 1})"
            )
        coalitions.append((int(mask), output, checkpoint))
    from fairshare.learning.device import resolve_device

    device = resolve_device(args.cfg.get("device", "cpu"))
    if device.type == "cpu":
        torch.set_num_threads(1)  # one job per core; a tiny MLP gains nothing from a second intra-op thread
    data = load_cache(args.dataset)
    for k, (mask, output, checkpoint) in enumerate(coalitions):
        record = experiment.value_coalition(
            st, data, mask, checkpoint, device=str(device), place=(k + 1, len(coalitions))
        )
        write_json(output, record)
        discard_checkpoints_when_done([checkpoint])


def assemble(args: argparse.Namespace) -> None:
    from fairshare.io import run_metadata

    st = Valuation.from_config(section(args, PAPER), section(args, "seed"))
    records = {rec["mask"]: rec for rec in map(read_json, args.inputs)}
    missing = sorted(set(range(1, 1 << st.n_parties)) - set(records))
    if missing:
        raise UserError(f"coalitions {missing} have no valuation file")
    write_json(args.output, experiment.value_table(st, records, run_metadata(st.seed)))


def analyze(args: argparse.Namespace) -> None:
    table = read_json(args.values, checked=args.experiment != "reference")  # the authors' table: a fixture
    v, names = np.asarray(table["v"], dtype=float), table["parties"]
    if len(v) != 1 << len(names):
        raise UserError(f"{args.values}: {len(v)} values for {len(names)} parties (need 2^n)")
    seed = section(args, "seed")
    scenarios = (
        PAPER_SCENARIOS
        if args.scenarios == "paper"
        else Analysis.from_config(section(args, PAPER), seed).budget_scenarios
    )
    for s in scenarios:
        if s.budgets is not None and len(s.budgets) != len(names):
            raise UserError(f"budget scenario '{s.name}' has {len(s.budgets)} budgets for {len(names)} parties")
    alloc, flows = experiment.allocations(v, names, scenarios, args.experiment, seed)
    write_csv(args.allocations, alloc)
    write_csv(args.flows, flows)


def figure2(args: argparse.Namespace) -> None:
    import matplotlib.pyplot as plt
    import pandas as pd

    from fairshare.io import save_figure_paths
    from fairshare.papers.payoff_flows.figures import figure2 as draw

    fig = draw(pd.read_csv(args.allocations), pd.read_csv(args.flows), args.title)
    save_figure_paths(fig, (args.png, args.pdf))
    plt.close(fig)


def claims(args: argparse.Namespace) -> None:
    import pandas as pd

    from fairshare.papers.payoff_flows.claims import claims as check
    from fairshare.papers.payoff_flows.experiment import read_table
    from fairshare.pipeline.report import write_claims

    tables = {}
    for label, values, allocations, flows in args.table:
        dataset = ", ".join(
            read_json(values, checked=label != "reference").get("dataset", ["mnist"])
        )  # the authors' table is MNIST
        tables[label] = read_table(label, dataset, pd.read_csv(allocations), pd.read_csv(flows))
    write_claims(args.output, check(tables, None))  # the rule passes no config: the claims read none
