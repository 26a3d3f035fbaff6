"""Section 5's statements: each check says "differs" on results where the statement is false, every statement holds
on the authors' stored MNIST table, and a statement that cannot be checked on a table says so in its row."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from fairshare.games.payoff_flows import rho_shapley_rewards
from fairshare.papers.payoff_flows import claims as c
from fairshare.papers.payoff_flows.experiment import PAPER_SCENARIOS, Outcome, Scenario, Table, allocations, read_table
from fairshare.pipeline.report import read_claims, write_claims
from tests.conftest import REPO

pytestmark = pytest.mark.filterwarnings("ignore::fairshare.games.payoff_flows.NonMonotoneGameWarning")

REFERENCE = json.loads((REPO / "workflow" / "reference" / "payoff_mnist_5parties_v.json").read_text())


def _table(v, parties, scenarios=PAPER_SCENARIOS, dataset="mnist", label="reference") -> Table:
    alloc, flows = allocations(v, parties, scenarios, label, 0)
    return read_table(label, dataset, alloc, flows)


@pytest.fixture(scope="module")
def reference() -> Table:
    return _table(REFERENCE["v"], REFERENCE["parties"])


def test_every_statement_holds_on_the_authors_table(reference):
    rows = c.claims({reference.label: reference}, None)[: len(c.STATEMENTS)]
    assert len(rows) == len(c.STATEMENTS) == 12
    assert [r.status for r in rows] == ["match"] * 12
    assert {r.kind for r in rows} == {"claim"} and all(r.claim.endswith("[reference]") for r in rows)


def test_scenarios_are_found_by_their_budgets(reference):
    assert set(reference.scenarios) == {"unlimited", "zero", "first"}
    assert reference.scenarios["first"].budgets.tolist() == [0.3, 0, 0, 0, 0]
    np.testing.assert_allclose(
        reference.scenarios["zero"].flows.sum(axis=0) - reference.scenarios["zero"].flows.sum(1), 0, atol=1e-12
    )


def _with(outcome: Outcome, **changes) -> Outcome:
    return dataclasses.replace(outcome, **{k: np.array(v, dtype=float) for k, v in changes.items()})


def test_each_check_says_differs_where_the_statement_is_false(reference):
    free, zero, first = (reference.scenarios[r] for r in ("unlimited", "zero", "first"))
    grand = zero.grand
    false_cases = {
        "better_than_own": (c._better_than_own, _with(zero, model=np.r_[zero.own[0], zero.model[1:]])),
        "not_rho_shapley": (c._not_rho_shapley, _with(zero, model=rho_shapley_rewards(zero.shapley, grand, 0.7))),
        "first_party_improves": (
            c._first_party_improves,
            zero,
            _with(first, model=np.r_[zero.model[0], first.model[1:]]),
        ),
        "helps_others": (c._helps_others, zero, _with(first, model=np.r_[first.model[0], zero.model[1:]])),
        "largest_payoff_last": (c._largest_payoff_last, _with(free, payoff=[0, 0, 0, 1, 0.5])),
        "middle_above_small": (c._middle_above_small, _with(free, payoff=[0.2, 0, 0.1, 0, 0])),
        "last_gets_grand_at_zero": (c._last_gets_grand_at_zero, _with(zero, model=np.r_[zero.model[:4], grand - 0.01])),
        "middle_parties_improve": (
            c._middle_parties_improve,
            zero,
            _with(first, model=np.r_[first.model[:3], zero.model[3], first.model[4]]),
        ),
        "first_row_grows": (c._first_row_grows, zero, dataclasses.replace(first, flows=_row(first.flows, 0, 3, zero))),
        "last_column_grows": (
            c._last_column_grows,
            zero,
            dataclasses.replace(first, flows=_row(first.flows, 2, 4, zero)),
        ),
        "last_grand_and_paid": (c._last_grand_and_paid, _with(first, payoff=np.r_[first.payoff[:4], 0.0])),
        "last_row_unchanged": (
            c._last_row_unchanged,
            zero,
            dataclasses.replace(first, flows=_row(first.flows, 4, 0, None)),
        ),
    }
    checked = {st.check.__name__.lstrip("_") for st in c.STATEMENTS}
    assert checked == set(false_cases)
    for name, (check, *outcomes) in false_cases.items():
        assert check(*outcomes)[0] is False, name


def _row(flows: np.ndarray, i: int, j: int, like: Outcome | None) -> np.ndarray:
    """``flows`` with entry (i, j) set to ``like``'s (no increase), or raised by 0.01 when ``like`` is None."""
    out = flows.copy()
    out[i, j] = like.flows[i, j] if like is not None else out[i, j] + 0.01
    return out


def test_weak_efficiency_is_not_enough_for_the_last_party(reference):
    # [6-9] getting v(N) and a positive payoff both matter: v(N) going to another party fails the statement
    first = reference.scenarios["first"]
    assert c._last_grand_and_paid(_with(first, model=np.r_[first.model[:4], first.grand - 0.1]))[0] is False


def test_rho_shapley_needs_positive_shapley_values(reference):
    zero = reference.scenarios["zero"]
    holds, why = c._not_rho_shapley(_with(zero, shapley=np.r_[-0.01, zero.shapley[1:]]))
    assert holds is None and "positive" in why


def test_statements_that_cannot_be_checked_say_why():
    # three parties (the test profile's table): only the four statements about any table are checked
    v = np.array([0.0, 0.2, 0.1, 0.4, 0.2, 0.45, 0.35, 0.56])
    budgets = [Scenario("b = inf", None), Scenario("b = 0", (0.0,) * 3), Scenario("b = 0.3 for [0-2]", (0.3, 0, 0))]
    rows = c.claims({"trained": _table(v, ["[0-2]", "[3-5]", "[6-9]"], budgets, "digits", "trained")}, None)
    rows = [r for r in rows if r.artifact != "App. J"]
    run = [r for r in rows if r.status != "not run in this profile"]
    assert len(run) == 4 and all(r.claim.endswith("[trained]") for r in rows)
    assert all("not the paper's five" in r.note for r in rows if r not in run)
    # a table without the first-party scenario
    trained = _table(REFERENCE["v"], REFERENCE["parties"], PAPER_SCENARIOS[:2], "fashion_mnist", "trained")
    rows = [r for r in c.claims({"trained": trained}, None) if r.artifact != "App. J"]
    skipped = {r.claim: r.note for r in rows if r.status == "not run in this profile"}
    assert sum("no first-budget scenario" in note for note in skipped.values()) == 7


def test_rows_round_trip_through_the_claims_file(reference, tmp_path):
    write_claims(tmp_path / "claims.csv", c.claims({reference.label: reference}, None))
    frame = read_claims(tmp_path / "claims.csv")
    assert len(frame) == 12 + len(c.APP_J)
    assert set(frame["status"][:12]) == {"match"} and set(frame["status"][12:]) == {"not run in this profile"}


def test_app_j_rows_are_not_run_without_a_cifar10_table(reference):
    """App. J (CIFAR-10): a row per observation that could fail, "not run in this profile" with the reason in a
    profile whose tables are MNIST and its stand-ins (every profile here), the same text in every profile."""
    trained = dataclasses.replace(reference, label="trained", dataset="fashion_mnist")
    rows = [r for r in c.claims({"reference": reference, "trained": trained}, None) if r.artifact == "App. J"]
    assert [r.claim for r in rows] == [f"CIFAR-10: {st.claim}" for st in c.APP_J] and len(rows) == 3
    assert {r.status for r in rows} == {"not run in this profile"}
    assert all("no CIFAR-10 value table" in r.note and "trained: fashion_mnist" in r.note for r in rows)


def test_app_j_rows_are_judged_on_a_cifar10_table(reference):
    """On a CIFAR-10 table the rows are judged: match where the observations hold, differs where they do not (zero
    budgets that leave the first party with its own model; a budget for it that changes nobody's model)."""
    cifar = dataclasses.replace(reference, label="trained", dataset=c.APP_J_DATASET)
    rows = [r for r in c.claims({"trained": cifar}, None) if r.artifact == "App. J"]
    assert [r.status for r in rows] == ["match"] * 3 and all("cifar10" in r.reproduced for r in rows)
    zero = reference.scenarios["zero"]
    zero = _with(zero, model=np.r_[zero.own[0], zero.model[1:]])
    first = dataclasses.replace(reference.scenarios["first"], model=zero.model.copy())
    false = dataclasses.replace(cifar, scenarios={**cifar.scenarios, "zero": zero, "first": first})
    rows = [r for r in c.claims({"trained": false}, None) if r.artifact == "App. J"]
    assert [r.status for r in rows] == ["differs"] * 3


#: [13]'s payoffs on the MNIST experiment as printed in Sec. 5 (Ohrimenko et al.; two decimals, so half a unit in the
#: last place is 0.005).
OHRIMENKO_PAYOFFS = (-0.41, -0.26, -0.02, 0.12, 0.58)


def test_our_unlimited_payoffs_are_not_the_printed_vector_of_13(reference):
    # Sec. 5: [13]'s scheme "results in a payoff vector [...] which is different from ours". [13]'s division function
    # is not given (so its vector and its non-linearity are not reproducible here); what is left is a fixed fact about
    # two different formulas on the authors' fixed table, hence a unit test and not a scorecard row. Our b = inf payoffs
    # are linear in v (tests/games/test_payoff_flows.py::test_rho_shapley_is_not_linear_but_the_flows_are).
    ours = reference.scenarios["unlimited"].payoff
    assert float(np.max(np.abs(ours - np.array(OHRIMENKO_PAYOFFS)))) > 0.005
