"""The payoff-flows paper's experiments: coalition valuation, value table, allocations under budgets (Figure 2).

"Trade-off between Payoff and Model Rewards in Shapley-Fair Collaborative Machine Learning" (Nguyen, Low & Jaillet,
NeurIPS 2022), Section 5. The ``payoff_flows`` config block becomes :class:`Valuation` (what one coalition's
training reads) or :class:`Analysis` (the budget scenarios); the library does the rest:
``learning.valuation`` trains one model per coalition, ``games.payoff_flows`` allocates payoffs, flows and models.
Results are plain records and tidy tables. pandas (and scipy, through the budget LP) are imported only by the steps
that need them, so each of the 2^n - 1 valuation jobs starts with torch alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fairshare import seeding
from fairshare.games.payoff_flows import allocate, singletons

__all__ = [
    "PAPER",
    "Scenario",
    "PAPER_SCENARIOS",
    "party_names",
    "Valuation",
    "Analysis",
    "Outcome",
    "Table",
    "read_table",
    "value_coalition",
    "value_table",
    "allocations",
]

if TYPE_CHECKING:
    import pandas as pd

PAPER = "payoff_flows"


@dataclass(frozen=True)
class Scenario:
    """One budget scenario: a name and one budget per party (None: unlimited)."""

    name: str
    budgets: tuple[float, ...] | None


#: Figure 2's budget scenarios for the paper's five parties (caption of Fig. 2): the reference table always uses them.
PAPER_SCENARIOS = (
    Scenario("b = inf", None),
    Scenario("b = 0", (0.0,) * 5),
    Scenario("b = 0.3 for [0]", (0.3, 0.0, 0.0, 0.0, 0.0)),
)


def party_names(label_ranges: Sequence[Sequence[int]]) -> list[str]:
    """The paper's party labels: [s-e] for labels s..e, [s] for one label."""
    return [f"[{lo}]" if lo == hi else f"[{lo}-{hi}]" for lo, hi in label_ranges]


@dataclass(frozen=True)
class Valuation:
    """What one coalition's valuation reads (the paper's Sec. 5 and the authors' code; docs/payoff_flows.md)."""

    seed: int
    dataset: str
    label_ranges: tuple[tuple[int, int], ...]
    hidden: tuple[int, ...]
    epochs: int
    batch_size: int
    lr: float
    nu: float
    data_mode: str

    #: The config keys a valuation job reads; the rule passes only these, so editing budgets reruns no training.
    KEYS = ("dataset", "label_ranges", "hidden", "epochs", "batch_size", "lr", "nu", "data_mode")

    @classmethod
    def from_config(cls, block: Mapping[str, Any], seed: int) -> Valuation:
        return cls(
            seed=int(seed),
            dataset=block["dataset"],
            label_ranges=tuple((int(lo), int(hi)) for lo, hi in block["label_ranges"]),
            hidden=tuple(int(h) for h in block["hidden"]),
            epochs=int(block["epochs"]),
            batch_size=int(block["batch_size"]),
            lr=float(block["lr"]),
            nu=float(block["nu"]),
            data_mode=block["data_mode"],
        )

    @property
    def n_parties(self) -> int:
        return len(self.label_ranges)

    @property
    def parties(self) -> list[str]:
        return party_names(self.label_ranges)


@dataclass(frozen=True)
class Analysis:
    """What the allocation step reads: the seed (written to the rows) and the budget scenarios (Figure 2)."""

    seed: int
    budget_scenarios: tuple[Scenario, ...]

    @classmethod
    def from_config(cls, block: Mapping[str, Any], seed: int) -> Analysis:
        scenarios = tuple(
            Scenario(s["name"], None if s["budgets"] is None else tuple(float(b) for b in s["budgets"]))
            for s in block["budget_scenarios"]
        )
        return cls(int(seed), scenarios)


# ---- Figure 2 results read back for the claims (one value table: its budget scenarios by role) ----
@dataclass(frozen=True)
class Outcome:
    """One budget scenario's allocation of one value table, in party order (read from the result tables)."""

    budgets: np.ndarray
    own: np.ndarray  # v(i)
    grand: float  # v(N)
    shapley: np.ndarray
    payoff: np.ndarray
    model: np.ndarray  # v'_i(N), the model reward
    flows: np.ndarray  # row i pays column j


@dataclass(frozen=True)
class Table:
    """One value table's Figure 2 results: its label, dataset, parties and the scenarios found among its rows."""

    label: str
    dataset: str
    parties: tuple[str, ...]
    scenarios: dict[str, Outcome]  # keys: "unlimited", "zero", "first"


def _role(budgets: np.ndarray) -> str | None:
    """Which of Figure 2's scenarios a budget vector is: all unlimited, all zero, or only the first party's > 0."""
    if np.all(np.isinf(budgets)):
        return "unlimited"
    if np.all(budgets == 0):
        return "zero"
    if budgets[0] > 0 and np.isfinite(budgets[0]) and np.all(budgets[1:] == 0):
        return "first"
    return None


def read_table(label: str, dataset: str, alloc: pd.DataFrame, flows: pd.DataFrame) -> Table:
    """The scenarios of one allocations/flows pair (as written by ``experiment.allocations``), keyed by role."""
    parties = tuple(dict.fromkeys(alloc["party"]))
    scenarios = {}
    for name, rows in alloc.groupby("scenario", sort=False):
        rows = rows.set_index("party").loc[list(parties)]
        role = _role(rows["budget"].to_numpy(float))
        if role is None or role in scenarios:
            continue
        matrix = flows[flows["scenario"] == name].pivot(index="payer", columns="payee", values="flow")
        scenarios[role] = Outcome(
            budgets=rows["budget"].to_numpy(float),
            own=rows["v_single"].to_numpy(float),
            grand=float(rows["v_grand"].iloc[0]),
            shapley=rows["shapley"].to_numpy(float),
            payoff=rows["payoff"].to_numpy(float),
            model=rows["model_value"].to_numpy(float),
            flows=matrix.loc[list(parties), list(parties)].to_numpy(float),
        )
    return Table(label, dataset, parties, scenarios)


def value_coalition(
    st: Valuation,
    ds: Any,
    mask: int,
    checkpoint: str | Path | None = None,
    device: str = "cpu",
    place: tuple[int, int] = (1, 1),
) -> dict[str, Any]:
    """v(C) for coalition ``mask`` (bit k = party k): train the MLP on the coalition's data, score it on the test set.

    ``ds`` is an ``ArrayDataset``; ``device`` is where the MLP trains (the config's ``device``). The checkpoint is keyed
    by the valuation settings, the seed, the coalition and the data, so a checkpoint of any other job is discarded
    rather than resumed. ``place``: (k, N), the job's k-th coalition of N, named in progress lines.
    """
    from fairshare.data.partition import label_range
    from fairshare.learning.progress import numbered
    from fairshare.learning.rounds import settings_hash
    from fairshare.learning.valuation import coalition_indices, train_and_score

    parties = label_range(ds.y_train, st.label_ranges).client_indices
    idx = coalition_indices(parties, mask, st.data_mode)
    settings = settings_hash(dataclasses.asdict(st), mask, ds.x_train, ds.y_train, ds.x_test, ds.y_test)
    acc = train_and_score(
        ds.x_train,
        ds.y_train,
        ds.x_test,
        ds.y_test,
        idx,
        n_classes=ds.n_classes,
        epochs=st.epochs,
        batch_size=st.batch_size,
        lr=st.lr,
        hidden=st.hidden,
        init_seed=seeding.integer_seed(st.seed, "payoff_flows/init"),
        order_rng=seeding.generator(st.seed, "payoff_flows/data_order", mask),
        checkpoint=checkpoint,
        settings=settings,
        progress=True,
        device=device,
        label=numbered(f"payoff_flows valuation {ds.name} coalition={mask} seed={st.seed}", *place),
    )
    return {
        "mask": mask,
        "members": [k for k in range(len(parties)) if mask >> k & 1],
        "dataset": ds.name,
        "train_samples": int(len(idx)),
        "epochs": st.epochs,
        "accuracy": acc,
        "value": st.nu * acc,
    }


def value_table(st: Valuation, records: Mapping[int, Mapping[str, Any]], meta: Mapping[str, Any]) -> dict[str, Any]:
    """The bitmask value table v (v[0] = 0) from one valuation record per non-empty coalition, with its settings."""
    masks = range(1, 1 << st.n_parties)
    return {
        "description": "v(C) = nu * test accuracy of an MLP trained on coalition C's data from one fixed "
        "initialisation (this pipeline's coalition valuation); index = bitmask, bit k = parties[k]",
        "dataset": sorted({rec["dataset"] for rec in records.values()}),
        "parties": st.parties,
        "label_ranges": [list(r) for r in st.label_ranges],
        "nu": st.nu,
        "data_mode": st.data_mode,
        "epochs": st.epochs,
        "hidden": list(st.hidden),
        "batch_size": st.batch_size,
        "lr": st.lr,
        "v": [0.0] + [records[m]["value"] for m in masks],
        "meta": dict(meta),
    }


def allocations(
    v: Sequence[float], parties: Sequence[str], scenarios: Sequence[Scenario], experiment: str, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figure 2's data: one row per (scenario, party) with payoffs and models, one per (scenario, payer, payee) flow.

    ``allocate`` warns once if ``v`` is not monotone (trained accuracies may not be; the paper assumes they are).
    """
    import pandas as pd

    v = np.asarray(v, dtype=float)
    own = singletons(v)
    alloc_rows, flow_rows = [], []
    for scenario in scenarios:
        budgets = scenario.budgets
        a = allocate(v, budgets)
        keys = {"paper": PAPER, "experiment": experiment, "seed": seed, "scenario": scenario.name}
        for i, party in enumerate(parties):
            alloc_rows.append(
                {
                    **keys,
                    "party": party,
                    "budget": np.inf if budgets is None else budgets[i],
                    "v_single": own[i],
                    "v_grand": v[-1],
                    "shapley": a.shapley[i],
                    "payoff": a.payoff[i],
                    "cost": a.cost[i],
                    "revenue": a.revenue[i],
                    "lam": a.lam[i],
                    "model_value": a.model_value[i],
                }
            )
            flow_rows += [
                {**keys, "payer": party, "payee": payee, "flow": a.flows[i, j]} for j, payee in enumerate(parties)
            ]
    return pd.DataFrame(alloc_rows), pd.DataFrame(flow_rows)
