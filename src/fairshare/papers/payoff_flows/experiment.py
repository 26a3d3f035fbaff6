"""The payoff-flows paper's experiments: coalition valuation, allocations under budgets (Figure 2), properties suite.

"Trade-off between Payoff and Model Rewards in Shapley-Fair Collaborative Machine Learning" (Nguyen, Low & Jaillet,
NeurIPS 2022), Section 5. The ``payoff_flows`` config block becomes :class:`Valuation` (what one coalition's
training reads) or :class:`Analysis` (budget scenarios, properties suite); the library does the rest:
``learning.valuation`` trains one model per coalition, ``games.payoff_flows`` allocates payoffs, flows and models.
Results are plain records and tidy tables. pandas (and scipy, through the budget LP) are imported only by the steps
that need them, so each of the 2^n - 1 valuation jobs starts with torch alone.
"""

from __future__ import annotations

import dataclasses
import itertools
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import factorial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fairshare import seeding
from fairshare.games.payoff_flows import (
    Allocation,
    NonMonotoneGameWarning,
    adjusted_game,
    allocate,
    fixed_point_lambda,
    monotonicity_violations,
    singletons,
)
from fairshare.games.shapley import conditional_shapley, n_players, shapley_values

if TYPE_CHECKING:
    import pandas as pd

PAPER = "payoff_flows"
#: Property checks hold to this absolute tolerance unless a check names its own.
TOL = 1e-9


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
    """What one coalition's valuation reads (spec §3.1, the authors' training setup)."""

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
    """What the allocation and properties steps read: budget scenarios and the random-game suite (spec §5)."""

    seed: int
    budget_scenarios: tuple[Scenario, ...]
    random_games: int
    random_game_players: tuple[int, int]

    @classmethod
    def from_config(cls, block: Mapping[str, Any], seed: int) -> Analysis:
        scenarios = tuple(
            Scenario(s["name"], None if s["budgets"] is None else tuple(float(b) for b in s["budgets"]))
            for s in block["budget_scenarios"]
        )
        low, high = block["random_game_players"]
        return cls(int(seed), scenarios, int(block["random_games"]), (int(low), int(high)))


def value_coalition(st: Valuation, ds: Any, mask: int, checkpoint: str | Path | None = None) -> dict[str, Any]:
    """v(C) for coalition ``mask`` (bit k = party k): train the MLP on the coalition's data, score it on the test set.

    ``ds`` is an ``ArrayDataset``. The checkpoint is keyed by the valuation settings, the seed, the coalition and the
    data, so a checkpoint of any other job is discarded rather than resumed.
    """
    from fairshare.data.partition import label_range
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


def quiet_allocate(v: np.ndarray, budgets: Sequence[float] | None = None) -> Allocation:
    """``allocate`` without the non-monotone warning (callers report monotonicity themselves)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonMonotoneGameWarning)
        return allocate(v, budgets)


def allocations(
    v: Sequence[float], parties: Sequence[str], scenarios: Sequence[Scenario], experiment: str, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figure 2's data: one row per (scenario, party) with payoffs and models, one per (scenario, payer, payee) flow."""
    import pandas as pd

    v = np.asarray(v, dtype=float)
    own = singletons(v)
    alloc_rows, flow_rows = [], []
    for scenario in scenarios:
        budgets = scenario.budgets
        a = quiet_allocate(v, budgets)
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


# ---- properties suite (spec §5, T1-T22): every axiom and lemma of Sections 3-4 checked numerically ----


@dataclass(frozen=True)
class Check:
    """One numerical check: ``residual`` is the largest violation found, held to ``tolerance``."""

    name: str
    residual: float
    tolerance: float = TOL
    detail: str = ""
    kind: str = "property"  # or "diagnostic": reported, not required (e.g. monotonicity of a trained table)

    @property
    def holds(self) -> bool:
        return bool(self.residual <= self.tolerance)


def random_monotone_game(n: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform random coalition values made monotone by a running maximum over subsets (spec §5 (a))."""
    v = rng.random(1 << n)
    v[0] = 0.0
    for k in range(n):  # after pass k, v(S) >= v(S - k) for every S; later passes keep earlier ones
        with_k = np.flatnonzero((np.arange(1 << n) >> k) & 1)
        v[with_k] = np.maximum(v[with_k], v[with_k ^ (1 << k)])
    return v


def permutation_conditional_shapley(v: np.ndarray, i: int) -> np.ndarray:
    """Remark 3.10: phi_{j|i} as the average marginal contribution of j over orders of N that start with i."""
    n = n_players(v)
    out = np.zeros(n)
    for order in itertools.permutations([k for k in range(n) if k != i]):
        mask = 1 << i
        for j in order:
            out[j] += v[mask | 1 << j] - v[mask]
            mask |= 1 << j
    return out / factorial(n - 1)


def generalised_payoff(v: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """Remark 3.6: alpha phi_i + (beta - alpha v(N)) / n, the unique payoffs with sum beta and dummy share
    (beta - alpha v(N)) / n."""
    return alpha * shapley_values(v) + (beta - alpha * v[-1]) / n_players(v)


def _extend(v: np.ndarray, new_value) -> np.ndarray:
    """A game with one more player n: v(S) for S without n, ``new_value(S)`` for S + n (S a mask of N)."""
    return np.concatenate([v, np.array([new_value(s) for s in range(len(v))])])


def _max_abs(x) -> float:
    return float(np.max(np.abs(x))) if np.size(x) else 0.0


def _budget_checks(
    v: np.ndarray, F: np.ndarray, budgets: np.ndarray, label: str, rng: np.random.Generator
) -> Iterator[Check]:
    n = n_players(v)
    grand, own = v[-1], singletons(v)
    a = quiet_allocate(v, budgets)
    cost = F.sum(axis=1)
    yield Check(
        f"budgets respected ({label})",
        float(np.max(np.maximum(-a.payoff - budgets, 0.0))),
        detail="max over i of -p_i - b_i",
    )
    slack = [0.0 if cost[k] <= 1e-15 else min(1.0 - a.lam[k], abs(a.payoff[k] + budgets[k])) for k in range(n)]
    yield Check(f"budget fully used when binding ({label})", max(slack), 1e-7, "each i: lambda_i = 1 or p_i = -b_i")
    ir = max(np.max(np.maximum(own - a.model_value, 0.0)), np.max(np.maximum(a.model_value - grand, 0.0)))
    yield Check(f"feasibility and individual rationality, Eq. 8 ({label})", float(ir), detail="v(i) <= model_i <= v(N)")
    yield Check(
        f"weak efficiency, Remark 4.2 ({label})", float(grand - a.model_value.max()), detail="some party gets v(N)"
    )
    yield Check(f"balance under budgets ({label})", abs(float(a.payoff.sum())))
    yield Check(
        f"LP lambda equals the authors' fixed point ({label})", _max_abs(fixed_point_lambda(F, budgets) - a.lam), 1e-7
    )
    consistency = max(
        _max_abs(conditional_shapley(adjusted_game(v, k, a.lam[k]))[k] - a.lam[k] * F[k]) for k in range(n)
    )
    yield Check(
        f"marginal contribution consistency, Eq. 9/11 ({label})",
        consistency,
        detail="phi_{j|i}(v'_i) = lambda_i phi_{j|i}(v), v'_i from Eq. 10",
    )
    # random directions scaled back onto the feasible set's boundary (A (t x) = t A x <= b for t in [0, 1] as b >= 0)
    directions = rng.random((400, n))
    load = directions * cost - directions @ F
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(load > 1e-15, budgets / load, np.inf)
    feasible = directions * np.minimum(room.min(axis=1), 1.0)[:, None]
    yield Check(
        f"lambda* dominates sampled feasible lambdas, T20 ({label})",
        float(np.max(feasible - a.lam, initial=0.0)),
        1e-9,
        "400 random directions scaled to the feasible boundary",
    )


def check_properties(v: Sequence[float], rng: np.random.Generator) -> Iterator[Check]:
    """Every property of Sections 3-4 on the game ``v`` (payoffs, flows, budgets); random parts drawn from ``rng``."""
    v = np.asarray(v, dtype=float)
    n = n_players(v)
    grand, own = v[-1], singletons(v)
    drops = monotonicity_violations(v)
    F = conditional_shapley(v)
    yield Check(
        "monotone game (the paper's assumption)",
        float(drops.max(initial=0.0)),
        0.0,
        f"{len(drops)} drops; min phi_(j|i) = {F[~np.eye(n, dtype=bool)].min():.4g}",
        kind="diagnostic",
    )
    a = quiet_allocate(v)
    phi = a.shapley
    yield Check("Shapley efficiency", abs(phi.sum() - grand))
    yield Check("balance, Lemma 3.1", abs(float(a.payoff.sum())))
    yield Check("closed form n phi - v(N) equals the flow form, Eq. 1 = Eq. 7", _max_abs(a.payoff - (n * phi - grand)))
    pair_gaps = (a.payoff[:, None] - a.payoff[None, :]) - n * (phi[:, None] - phi[None, :])
    yield Check("Shapley fairness, Cor. 3.3", _max_abs(pair_gaps))
    clear = np.abs(phi - grand / n) > TOL
    yield Check(
        "negative payoff iff below-average Shapley value, Cor. 3.2",
        float(np.sum((a.payoff[clear] < 0) != (phi[clear] < grand / n))),
        0.0,
        "count of sign mismatches",
    )
    yield Check("fair cost, Eq. 4", _max_abs(F.sum(axis=1) - (grand - own)))
    yield Check("flow decomposition n phi_i = v(i) + sum_j phi_(i|j), Eq. 6", _max_abs(n * phi - own - F.sum(axis=0)))
    if n <= 6:
        yield Check(
            "permutation form of phi_(j|i), Remark 3.10",
            max(_max_abs(F[i] - permutation_conditional_shapley(v, i)) for i in range(n)),
        )
    w = rng.random(1 << n)
    w[0] = 0.0
    scale = float(rng.normal())
    aw, asum, ascaled = quiet_allocate(w), quiet_allocate(v + w), quiet_allocate(scale * v)
    yield Check(
        "linearity of payoffs and flows",
        max(
            _max_abs(asum.payoff - a.payoff - aw.payoff),
            _max_abs(ascaled.payoff - scale * a.payoff),
            _max_abs(asum.flows - a.flows - aw.flows),
            _max_abs(ascaled.flows - scale * a.flows),
        ),
    )
    i = int(rng.integers(n))
    shifted = v + 0.37 * ((np.arange(1 << n) >> i) & 1)
    yield Check(
        "translation invariance of payer i's flows, Cor. 3.8",
        _max_abs(conditional_shapley(shifted)[i] - F[i]),
        detail=f"i = {i}",
    )
    dummy = _extend(v, lambda s: v[s])
    ad, Fd = quiet_allocate(dummy), conditional_shapley(dummy)
    yield Check("dummy party pays v(N) and is a conditional dummy", max(abs(ad.payoff[n] + grand), _max_abs(Fd[:, n])))
    twin = _extend(v, lambda s: v[s | 1])  # player n duplicates player 0: S + n is worth S + 0
    at, Ft = quiet_allocate(twin), conditional_shapley(twin)
    others = [k for k in range(n + 1) if k not in (0, n)]
    yield Check(
        "symmetry and conditional symmetry",
        max(abs(at.payoff[0] - at.payoff[n]), _max_abs(Ft[others, 0] - Ft[others, n])),
    )
    omni = _extend(v, lambda s: grand)
    yield Check("an omnipotent party has no cost, Remark 3.11", _max_abs(conditional_shapley(omni)[n]))
    alpha, beta = 1.7, 0.3
    general = generalised_payoff(v, alpha, beta)
    yield Check(
        "Remark 3.6: generalised efficiency and dummy; reduces to phi, to Eq. 1 and to beta/n",
        max(
            abs(general.sum() - beta),
            abs(generalised_payoff(dummy, alpha, beta)[n] - (beta - alpha * grand) / (n + 1)),
            _max_abs(generalised_payoff(v, 1.0, grand) - phi),
            _max_abs(generalised_payoff(v, n, 0.0) - a.payoff),
            _max_abs(generalised_payoff(v, 0.0, beta) - beta / n),
        ),
    )
    for label, budgets in (("zero budgets", np.zeros(n)), ("random budgets", rng.random(n) * 0.5 * max(grand, 1e-9))):
        yield from _budget_checks(v, F, budgets, label, rng)
    unlimited = quiet_allocate(v, np.full(n, 1e9))
    yield Check(
        "huge finite budgets give lambda = 1 and v(N) for all, T21",
        max(_max_abs(1 - unlimited.lam), _max_abs(unlimited.model_value - grand)),
    )
    zero = quiet_allocate(v, np.zeros(n))
    yield Check("zero budgets give zero payoffs, T21", _max_abs(zero.payoff))
    raised = np.zeros(n)
    raised[int(rng.integers(n))] = 0.3 * grand
    yield Check(
        "raising one budget lowers no lambda, T22",
        float(np.max(np.maximum(zero.lam - quiet_allocate(v, raised).lam, 0.0))),
    )


def properties(tables: Sequence[tuple[str, Sequence[float]]], st: Analysis) -> pd.DataFrame:
    """The properties suite on each labelled value table and on ``st.random_games`` random monotone games."""
    import pandas as pd

    rng = seeding.generator(st.seed, "payoff_flows/properties")
    games = [(f"{label} table", np.asarray(v, dtype=float)) for label, v in tables]
    low, high = st.random_game_players
    sizes = rng.integers(low, high + 1, size=st.random_games)
    games += [(f"random monotone game {k}", random_monotone_game(int(n), rng)) for k, n in enumerate(sizes)]
    rows = [
        {
            "game": label,
            "players": len(v).bit_length() - 1,
            "property": c.name,
            "kind": c.kind,
            "residual": c.residual,
            "tolerance": c.tolerance,
            "holds": c.holds,
            "detail": c.detail,
        }
        for label, v in games
        for c in check_properties(v, rng)
    ]
    return pd.DataFrame(rows)
