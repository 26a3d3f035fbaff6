"""The DP-coalitions claim rows: each judge says "match" on this run's evidence and "differs" when fed evidence
where its statement is false (an erratum row also when the printed form holds or the corrected one fails)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

from fairshare.papers.dp_coalitions import claims, claims_sentences, experiment
from fairshare.pipeline.config import validate_config
from tests.conftest import REPO

REF = yaml.safe_load((REPO / "workflow" / "reference" / "dp_coalitions_printed.yaml").read_text())
BLOCK = {
    "claims_instances": 3,
    "monte_carlo_repetitions": 20000,
    "pos": {"alphas": [-1, -0.5, 0, 0.5, 1], "n_values": [1000, 10000]},
}
SETTINGS = experiment.Settings.from_config(validate_config({"dp_coalitions": BLOCK})["dp_coalitions"], 0)


@pytest.fixture(scope="module")
def evidence():
    return experiment.claim_evidence(SETTINGS)


@pytest.fixture(scope="module")
def tables():
    intervals, _ = experiment.figure1(REF["figure1"])
    return intervals, experiment.worked_examples(REF), experiment.price_of_stability(SETTINGS)


def status(rows, artifact: str, claim: str) -> str:
    found = [r.status for r in rows if r.artifact == artifact and r.claim == claim]
    assert len(found) == 1, (artifact, claim, found)
    return found[0]


def test_every_row_matches_on_this_runs_evidence(evidence, tables):
    intervals, examples, pos = tables
    results = {
        "evidence": evidence,
        "fig1_intervals": intervals,
        "worked_examples": examples,
        "price_of_stability": pos,
    }
    rows = claims.claims(results, SETTINGS)
    assert [(r.artifact, r.claim) for r in rows if r.status != "match"] == []
    errata = {(r.artifact, r.claim) for r in rows if r.kind == "erratum"}
    assert errata == {
        ("Lemma 1", "designer's eps"),
        ("Section 5", "eps comparison"),
        ("Claim 2", "alpha > -1/2"),
        ("Theorem 2", "proof D.6: grand coalition at alpha = -1/2"),
    }
    assert all(r.reproduced.startswith("as printed: fails; corrected: holds; ") for r in rows if r.kind == "erratum")
    assert sum(r.kind == "printed" for r in rows) == 22  # every number of the Lemma 4 example
    for name in ("Theorem 1", "Theorem 2", "Theorem 3", "Theorem 4"):
        assert (
            sum(r.artifact == name and r.claim.startswith("alpha = ") and r.claim != "alpha = -1/2" for r in rows) == 5
        )


def test_model_rows_fail_on_false_evidence(evidence):
    wrong = [dict(e, formula=e["simulated"] + 10 * e["se"]) for e in evidence["equation_1"]]
    assert claims._equation_1(wrong).status == "differs"
    lemma_1 = [dict(e, best_set=(0, 2)) for e in evidence["lemma_1"]]
    assert status(claims._lemma_1(lemma_1), "Lemma 1", "cheapest players") == "differs"
    printed_optimal = [dict(e, sc_printed=e["best_sc"]) for e in evidence["lemma_1"]]
    assert status(claims._lemma_1(printed_optimal), "Lemma 1", "designer's eps") == "differs"
    far = [dict(e, best_eps=e["eps_closed"] * 1.01) for e in evidence["lemma_1"]]
    assert status(claims._lemma_1(far), "Lemma 1", "designer's eps") == "differs"
    wrong_var = [dict(e, var_closed=e["var_at_eps"] * 1.001) for e in evidence["lemma_1"]]
    assert status(claims._lemma_1(wrong_var), "Eqs. (2)-(3)", "designer's Var and SC") == "differs"


def test_eps_rows_fail_on_false_evidence(evidence):
    eps = copy.deepcopy(evidence["eps"])
    eps[0]["designer"] = eps[0]["designer"][::-1].copy()  # costlier players get larger eps
    eps[0]["designer_next"] = eps[0]["designer"] * 2
    assert status(claims._eps_remarks(eps), "Section 4.1", "remarks") == "differs"
    larger = [dict(e, selfish=e["designer"] * e["k"] ** (1 / 3)) for e in evidence["eps"]]  # as printed
    rows = claims._eps_remarks(larger)
    assert status(rows, "Section 5", "eps comparison") == "differs"
    assert status(rows, "Section 5", "more stringent privacy") == "differs"
    off = [dict(e, selfish=e["designer"] * 0.5) for e in evidence["eps"]]  # smaller, but not by k^(-1/3)
    assert status(claims._eps_remarks(off), "Section 5", "eps comparison") == "differs"
    better = [dict(e, var_selfish=e["var_designer"]) for e in evidence["eps"]]
    assert status(claims._eps_remarks(better), "Section 5", "more stringent privacy") == "differs"
    wrong = [dict(e, numeric=e["eps"] * 1.01) for e in evidence["lemma_2"]]
    assert claims._lemma_2(wrong).status == "differs"
    wrong = [dict(e, sc_eq6=e["sc_def6"] * 1.001) for e in evidence["lemma_2"]]
    assert claims._lemma_2(wrong).status == "differs"


def test_stability_rows_fail_on_false_evidence(evidence):
    wrong = [dict(e, direct=set()) if e["closed"] else dict(e, direct={(0, 1)}) for e in evidence["claims_5_6"]]
    assert claims._claims_5_6(wrong).status == "differs"
    shorter = [dict(e, robust=(e["nash"][0], e["nash"][0])) for e in evidence["claim_1"]]
    assert claims._claim_1(shorter).status == "differs"
    violated = [dict(e, robust_by_definition=False) for e in evidence["claim_1"]]
    assert claims._claim_1(violated).status == "differs"
    unstable = [dict(e, grand_stable=False) for e in evidence["claim_2"]]
    rows = claims._claim_2(unstable)
    assert status(rows, "Claim 2", "alpha > -1/2") == "differs"  # the un-ceiled bound fails too
    assert status(rows, "Claim 2", "alpha < -1/2") == "differs"
    stable = [dict(e, grand_stable=True) for e in evidence["claim_2"]]
    assert status(claims._claim_2(stable), "Claim 2", "alpha > -1/2") == "differs"  # the ceiled bound then holds


def test_table_rows_fail_on_false_results(tables):
    intervals, examples, _ = tables
    wrong = examples.copy()
    wrong.loc[0, "reproduced"] = "3.2625"
    wrong.loc[wrong["compare"] == "contains", "reproduced"] = "player 6 out, player 5 in"
    wrong.loc[wrong["compare"] == "exists", "reproduced"] = "none"
    wrong.loc[wrong["compare"] == "same", "reproduced"] = "no"
    assert [r.status for r in claims._worked_examples(wrong)].count("match") == len(examples) - 1 - 1 - 1 - 3
    monotone_nash = intervals.copy()
    monotone_nash.loc[monotone_nash.notion == "nash", "max_size"] = 4
    monotone_nash.loc[monotone_nash.notion == "robust", "max_size"] = np.arange((intervals.notion == "robust").sum())[
        ::-1
    ]
    rows = claims._figure_1(monotone_nash)
    assert [r.status for r in rows] == ["differs", "differs", "differs"]


def test_structure_rows_fail_on_false_evidence(evidence):
    ev = copy.deepcopy(evidence["lemma_6_claim_8"])
    ev[0]["sizes"] = [3, 2]
    ev[0]["pieces"][0]["downward_stable"] = False
    ev[0]["pieces"][0]["linear"] = 99
    assert [r.status for r in claims._lemma_6_claim_8(ev)] == ["differs"] * 3
    ident = copy.deepcopy(evidence["claims_3_4"])
    ident["h_minus_g"] = -1.0
    ident["robust"][-1.0] = [(3, 0.1, 0.2)]
    ident["robust"][0.5] = [(3, 0.1, 0.3), (4, 0.2, 0.4)]
    ident["interval"][0] = dict(ident["interval"][0], lower=0.0, upper=100.0, exists=False)
    assert [r.status for r in claims._claims_3_4(ident)] == ["differs"] * 4
    ev = copy.deepcopy(evidence["claim_7"])
    ev[0]["members"] = (1, 2)
    ev[0]["chain"] = []
    assert [r.status for r in claims._claim_7(ev)] == ["differs", "differs"]


def test_pos_rows_fail_on_false_results(evidence, tables):
    pos = tables[2].copy()
    pos.loc[
        (pos.alpha == 0) & (pos.n == pos.n.max()), ["var_centralized", "sc_decentralized", "pos_sc", "pos_var"]
    ] *= 10
    pos.loc[(pos.alpha == 1) & (pos.n == pos.n.max()), "k_centralized"] = 5
    rows = claims._theorems_1_to_4(pos)
    for name in ("Theorem 1", "Theorem 2", "Theorem 3", "Theorem 4"):
        assert status(rows, name, "alpha = 0") == "differs"
    assert status(rows, "Theorem 1", "alpha = 1") == "differs"
    boundary = dict(evidence["theorem_2_boundary"], at_099phi=[10] * len(evidence["theorem_2_boundary"]["at_099phi"]))
    assert claims._theorem_2_boundary(boundary).status == "differs"
    boundary = dict(evidence["theorem_2_boundary"], sizes_at_4phi_n6=[6, 3])
    assert claims._theorem_2_boundary(boundary).status == "differs"
    above = [dict(e, pos_sc=100.0) for e in evidence["theorem_3"]]
    assert [r.status for r in claims._theorem_3_bound(above)] == ["differs", "differs"]
    one_case = [e for e in evidence["theorem_3"] if e["x_prime"] > e["n"]]
    assert status(claims._theorem_3_bound(one_case), "Theorem 3", "proof E.1 cases") == "differs"  # untested cases
    below = [dict(e, pos_sc=0.5) for e in evidence["theorem_3"]]
    assert status(claims._theorem_3_bound(below), "Theorem 3", "alpha in (1/2, 1]") == "differs"


EXAMPLES = experiment.worked_examples(REF)


def _falsified(row: dict) -> str:
    """A reproduced value that makes this worked-example row's statement false."""
    if row["compare"] == "number":
        return f"{float(row['printed']) + 10.0 ** -len(str(row['printed']).split('.')[1]):.6f}"
    if row["compare"] == "exists":
        return "none" if row["printed"] == "some" else "{1,2}"
    return "something else"


@pytest.mark.parametrize("index", range(len(EXAMPLES)), ids=lambda i: EXAMPLES.iloc[i]["quantity"])
def test_every_worked_example_row_differs_when_its_value_is_false(index):
    wrong = EXAMPLES.copy()
    wrong.loc[index, "reproduced"] = _falsified(EXAMPLES.iloc[index].to_dict())
    rows = claims._worked_examples(wrong)
    assert rows[index].status == "differs"
    assert all(r.status == "match" for i, r in enumerate(rows) if i != index)


THEOREM_COLUMNS = {
    "Theorem 1": "sc_centralized",
    "Theorem 2": "sc_decentralized",
    "Theorem 3": "pos_sc",
    "Theorem 4": "pos_var",
}


@pytest.mark.parametrize("name", sorted(THEOREM_COLUMNS))
@pytest.mark.parametrize("alpha", BLOCK["pos"]["alphas"])
def test_every_theorem_row_differs_when_its_order_in_n_is_off(tables, name, alpha):
    """The stated quantity ten times larger at the largest n: its log-log slope is off by one."""
    pos = tables[2].copy()
    pos.loc[(pos.alpha == alpha) & (pos.n == pos.n.max()), THEOREM_COLUMNS[name]] *= 10
    assert status(claims._theorems_1_to_4(pos), name, f"alpha = {alpha:g}") == "differs"


def test_theorem_1_half_row_differs_when_a_size_is_never_optimal(evidence):
    found = dict(evidence["theorem_1_half"], sizes=[0, 2, 3, 5, 6])
    assert claims_sentences.k_star_half(found).status == "differs"
    assert claims_sentences.k_star_half(dict(found, sizes=[0, 1, 2, 3, 4, 5, 6])).status == "differs"


def test_d6_erratum_row_differs_when_the_printed_condition_agrees_or_the_corrected_one_does_not(evidence):
    agreeing = [dict(e, printed=e["corrected"]) for e in evidence["d6"]]
    assert claims_sentences.d6_condition(agreeing).status == "differs"
    flipped = copy.deepcopy(evidence["d6"])
    flipped[0]["stable"] = [not s for s in flipped[0]["stable"]]
    assert claims_sentences.d6_condition(flipped).status == "differs"
    assert claims_sentences.d6_condition([]).status == "differs"


def test_claim_2_not_necessary_row_differs_when_every_stable_grand_coalition_meets_the_condition(evidence):
    only_covered = [e for e in evidence["claim_2"] if not e["grand_stable"]]
    assert claims_sentences.claim_2_not_necessary(only_covered).status == "differs"
    assert claims_sentences.claim_2_not_necessary(evidence["claim_2"]).status == "match"
