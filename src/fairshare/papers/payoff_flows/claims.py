"""The payoff-flows paper's Section 5 statements about Figure 2, checked on this run's allocations (spec §3.1).

One entry point, :func:`claims`. Every row is computed from the allocations and flows tables of one value table (the authors' stored MNIST values,
or this run's coalition valuation) under Figure 2's three budget scenarios: b = inf, b = 0, and a budget for the
first party only. Statements that hold by construction (every party gets v(N) when lambda = 1, zero payoffs at zero
budgets, payoffs ordered like the Shapley values, weak efficiency, linearity of the flows, no model getting worse
when a budget grows) are unit tests of ``games.payoff_flows``, not rows here.

App. J repeats the experiment on CIFAR-10 (and IMDB) and says the same observations hold there; the appendix is not in
the paper text available here. Its CIFAR-10 rows (:data:`APP_J`) are judged on a value table of CIFAR-10 when the
profile valued one (``payoff_flows.dataset: cifar10``, the MNIST experiment's [s-e] parties), and read "not run in this
profile" with the reason otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fairshare.games.payoff_flows import order_conflicts, rho_shapley_gap
from fairshare.papers.payoff_flows.experiment import PAPER, Analysis, Outcome, Table
from fairshare.pipeline.report import Claim

__all__ = [
    "APP_J",
    "APP_J_DATASET",
    "EPS",
    "PAPER_PARTIES",
    "RHO_SHAPLEY_TOL",
    "STATEMENTS",
    "Statement",
    "claims",
]

PAPER_PARTIES = ("[0]", "[1-2]", "[0-3]", "[3-5]", "[6-9]")
#: A reward vector within this max-abs distance of some rho-Shapley vector counts as producible (accuracy units).
RHO_SHAPLEY_TOL = 1e-3
#: Changes smaller than this (accuracy units) count as no change: the LP is solved to about 1e-9.
EPS = 1e-9

Verdict = tuple[bool | None, str]


def _vec(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{x:.4f}" for x in values) + "]"


# ---- claims on any table (the paper's "desirable observations" (ii), (iii) and the rho-Shapley comparison) ----


def _better_than_own(zero: Outcome) -> Verdict:
    """(ii) With all budgets 0, every party still gets a model better than its own: v'_i(N) > v(i) for all i."""
    gains = zero.model - zero.own
    return bool(np.all(gains > EPS)), f"v'_i(N) - v(i) = {_vec(gains)}"


def _not_rho_shapley(zero: Outcome) -> Verdict:
    """The b = 0 model rewards are no rho-Shapley reward vector v(N) (phi_i / max phi)^rho for any rho >= 0."""
    if np.any(zero.shapley <= 0):
        return None, f"rho-Shapley needs positive Shapley values; phi = {_vec(zero.shapley)}"
    gap, rho = rho_shapley_gap(zero.model, zero.shapley, zero.grand)
    conflicts = order_conflicts(zero.model, zero.shapley)
    return gap > RHO_SHAPLEY_TOL, (
        f"best max-abs error over rho in [0, 50]: {gap:.4f} at rho = {rho:.3f}; {len(conflicts)} order conflicts "
        "(phi smaller, model larger; each rules out every rho)"
    )


def _first_party_improves(zero: Outcome, first: Outcome) -> Verdict:
    """(iii) Raising the first party's budget from 0 improves its own model."""
    return bool(first.model[0] > zero.model[0] + EPS), f"{zero.model[0]:.4f} -> {first.model[0]:.4f}"


def _helps_others(zero: Outcome, first: Outcome) -> Verdict:
    """(iii) Raising the first party's budget "can help others": some other party's model improves."""
    change = first.model[1:] - zero.model[1:]
    return bool(np.any(change > EPS)), f"other parties' model changes {_vec(change)}"


# ---- claims about the paper's named parties ([0], [1-2], [0-3], [3-5], [6-9]; Figure 2 on MNIST) ----


def _largest_payoff_last(unlimited: Outcome) -> Verdict:
    """Fig. 2a: [6-9] receives the largest payoff."""
    return int(np.argmax(unlimited.payoff)) == 4, f"payoffs {_vec(unlimited.payoff)}"


def _middle_above_small(unlimited: Outcome) -> Verdict:
    """Fig. 2a: [0-3]'s payoff exceeds those of [0] and [1-2]."""
    p = unlimited.payoff
    return bool(p[2] > max(p[0], p[1])), f"payoffs {_vec(p)}"


def _last_gets_grand_at_zero(zero: Outcome) -> Verdict:
    """Fig. 2d: with zero budgets [6-9] obtains the model of value v(N)."""
    return bool(abs(zero.model[4] - zero.grand) <= EPS), f"models {_vec(zero.model)}, v(N) = {zero.grand:.4f}"


def _middle_parties_improve(zero: Outcome, first: Outcome) -> Verdict:
    """Fig. 2f vs 2d: [1-2], [0-3] and [3-5] also get better models."""
    return (
        bool(np.all(first.model[1:4] > zero.model[1:4] + EPS)),
        f"{_vec(zero.model[1:4])} -> {_vec(first.model[1:4])}",
    )


def _first_row_grows(zero: Outcome, first: Outcome) -> Verdict:
    """First row of Fig. 2h vs 2g: [0]'s payments to every other party increase."""
    return (
        bool(np.all(first.flows[0, 1:] > zero.flows[0, 1:] + EPS)),
        f"{_vec(zero.flows[0, 1:])} -> {_vec(first.flows[0, 1:])}",
    )


def _last_column_grows(zero: Outcome, first: Outcome) -> Verdict:
    """Last column of Fig. 2h vs 2g: [1-2], [0-3] and [3-5] pay [6-9] more."""
    return (
        bool(np.all(first.flows[1:4, 4] > zero.flows[1:4, 4] + EPS)),
        f"{_vec(zero.flows[1:4, 4])} -> {_vec(first.flows[1:4, 4])}",
    )


def _last_grand_and_paid(first: Outcome) -> Verdict:
    """Fig. 2e, 2f: [6-9] still gets v(N) and a positive payoff."""
    holds = abs(first.model[4] - first.grand) <= EPS and first.payoff[4] > EPS
    return bool(holds), f"model {first.model[4]:.4f} (v(N) = {first.grand:.4f}), payoff {first.payoff[4]:.4f}"


def _last_row_unchanged(zero: Outcome, first: Outcome) -> Verdict:
    """Last row of Fig. 2g and 2h: [6-9]'s cost flows are identical."""
    gap = float(np.max(np.abs(first.flows[4] - zero.flows[4])))
    return gap <= EPS, f"b = 0: {_vec(zero.flows[4])}; largest change {gap:.1e}"


@dataclass(frozen=True)
class Statement:
    """One statement of Section 5: where the paper makes it, its words, the scenarios it needs, and its check."""

    artifact: str
    claim: str
    paper_states: str
    roles: tuple[str, ...]
    check: Callable[..., Verdict]
    paper_parties: bool = False  # about the paper's five named parties


STATEMENTS = (
    Statement(
        "Figure 2d",
        "b=0: every party still gets a better model than its own",
        "Fig. 2d, desirable observation (ii): with all budgets zero every party still gets a better model",
        ("zero",),
        _better_than_own,
    ),
    Statement(
        "Figure 2d",
        "b=0: the model rewards cannot be produced by rho-Shapley for any rho",
        "Sec. 5: the allocation in Fig. 2d cannot be obtained from the rho-Shapley value",
        ("zero",),
        _not_rho_shapley,
    ),
    Statement(
        "Figure 2f",
        "first party's budget raised: its model improves over b=0",
        "Fig. 2f vs 2d, desirable observation (iii): raising one party's budget helps itself",
        ("zero", "first"),
        _first_party_improves,
    ),
    Statement(
        "Figure 2f",
        "first party's budget raised: some other party's model improves",
        "desirable observation (iii): raising one party's budget can help others",
        ("zero", "first"),
        _helps_others,
    ),
    Statement(
        "Figure 2a",
        "b=inf: [6-9] gets the largest payoff",
        "Fig. 2a: party [6-9] receives the largest payoff reward",
        ("unlimited",),
        _largest_payoff_last,
        paper_parties=True,
    ),
    Statement(
        "Figure 2a",
        "b=inf: [0-3] gets more than [0] and [1-2]",
        "Fig. 2a: [0-3]'s payoff exceeds those of [0] and [1-2]",
        ("unlimited",),
        _middle_above_small,
        paper_parties=True,
    ),
    Statement(
        "Figure 2d",
        "b=0: [6-9] gets v(N)",
        "Fig. 2d: party [6-9] obtains the model of value v(N)",
        ("zero",),
        _last_gets_grand_at_zero,
        paper_parties=True,
    ),
    Statement(
        "Figure 2f",
        "b=0.3 for [0]: [1-2], [0-3] and [3-5] also get better models",
        "Fig. 2f vs 2d: [1-2], [0-3] and [3-5] also obtain better models",
        ("zero", "first"),
        _middle_parties_improve,
        paper_parties=True,
    ),
    Statement(
        "Figure 2h",
        "b=0.3 for [0]: [0]'s payments to the others increase",
        "first row of Fig. 2h vs 2g: [0] pays every other party more",
        ("zero", "first"),
        _first_row_grows,
        paper_parties=True,
    ),
    Statement(
        "Figure 2h",
        "b=0.3 for [0]: [1-2], [0-3] and [3-5] pay [6-9] more",
        "last column of Fig. 2h vs 2g",
        ("zero", "first"),
        _last_column_grows,
        paper_parties=True,
    ),
    Statement(
        "Figure 2e",
        "b=0.3 for [0]: [6-9] gets v(N) and a positive payoff",
        "Fig. 2e, 2f: [6-9] still obtains v(N) and a positive payoff",
        ("first",),
        _last_grand_and_paid,
        paper_parties=True,
    ),
    Statement(
        "Figure 2h",
        "b=0.3 for [0]: [6-9]'s cost flows are unchanged",
        "last rows of Fig. 2g and 2h are identical",
        ("zero", "first"),
        _last_row_unchanged,
        paper_parties=True,
    ),
)


#: App. J's data set that this pipeline can value (IMDB needs a text model and data not available offline: no row).
APP_J_DATASET = "cifar10"
#: App. J's statements: Sec. 5's observations that could come out either way on any table, (ii) and both halves of
#: (iii); (i) and (iv) hold on every table (unit tests of ``games.payoff_flows``).
APP_J = tuple(st for st in STATEMENTS if st.check in (_better_than_own, _first_party_improves, _helps_others))


def _app_j_claims(results: Mapping[str, Table]) -> list[Claim]:
    """App. J: observations (ii) and (iii) on this run's CIFAR-10 value table, or "not run in this profile" with the
    reason when the profile valued none. The row's text is the same in every profile (its id)."""
    table = next((t for t in results.values() if t.dataset == APP_J_DATASET), None)
    valued = ", ".join(f"{t.label}: {t.dataset}" for t in results.values()) or "none"
    absent = (
        f"no CIFAR-10 value table in this profile (its tables: {valued}); App. J's parties, model and budgets are not "
        "in the paper text available here: the reconstruction values CIFAR-10 with the MNIST experiment's [s-e] "
        "parties and model (payoff_flows.dataset: cifar10, in a profile that can download CIFAR-10)"
    )
    rows = []
    for st in APP_J:
        reason = absent if table is None else _not_checkable(st, table)
        holds, reproduced = (None, "") if reason else st.check(*(table.scenarios[r] for r in st.roles))
        rows.append(
            Claim.statement(
                paper=PAPER,
                artifact="App. J",
                claim=f"CIFAR-10: {st.claim}",
                paper_states=f"App. J: the CIFAR-10 experiment shares Sec. 5's observations ({st.paper_states})",
                reproduced=f"{reproduced} ({table.label} table, {table.dataset})" if reproduced else "",
                holds=holds,
                note=reason or _note(holds, reproduced),
            )
        )
    return rows


def _not_checkable(st: Statement, table: Table) -> str | None:
    """Why ``st`` cannot be checked on ``table`` (then its row says "not run in this profile"), or None."""
    missing = [role for role in st.roles if role not in table.scenarios]
    if missing:
        return f"this table has no {', '.join(missing)}-budget scenario"
    if st.paper_parties and table.parties != PAPER_PARTIES:
        return f"this table's parties {', '.join(table.parties)} are not the paper's five"
    return None


def _note(holds: bool | None, reproduced: str) -> str:
    if holds is None:  # the check itself found the statement undefined on this table
        return reproduced
    return "" if holds else "does not hold on this table"


def claims(results: Mapping[str, Table], settings: Analysis | None) -> list[Claim]:
    """One scorecard row per Section 5 statement and value table, whichever way it comes out, then App. J's rows
    (:func:`_app_j_claims`). ``results``: each value table's Figure 2 results by label (:func:`.experiment.read_table`);
    ``settings`` is not read: every statement is judged from the tables alone, whose budgets say which scenario each
    is (the claims rule passes no config)."""
    rows = []
    for table in results.values():
        source = f"{table.label} table, {table.dataset}"
        for st in STATEMENTS:
            reason = _not_checkable(st, table)
            holds, reproduced = (None, "") if reason else st.check(*(table.scenarios[r] for r in st.roles))
            if reason is None and "first" in st.roles:
                reproduced += f"; first party's budget {table.scenarios['first'].budgets[0]:g}"
            rows.append(
                Claim.statement(
                    paper=PAPER,
                    artifact=st.artifact,
                    claim=f"{st.claim} [{table.label}]",
                    paper_states=st.paper_states,
                    reproduced=f"{reproduced} ({source})" if reproduced else f"({source})",
                    holds=holds,
                    note=reason or _note(holds, reproduced),
                )
            )
    return rows + _app_j_claims(results)
