"""The model-sharing claim rows: each judge says "match" on this run's evidence and "differs" when fed evidence
where its statement is false (an erratum row also when the printed form holds or the corrected one fails)."""

from __future__ import annotations

import copy
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import yaml

from fairshare.games import model_sharing_two_type as tt
from fairshare.papers.model_sharing import claims, claims_printed, claims_uniform, claims_weighted, experiment
from fairshare.papers.model_sharing import evidence as ev
from fairshare.pipeline.config import validate_config
from tests.conftest import REPO

REF = yaml.safe_load((REPO / "workflow" / "reference" / "model_sharing_printed.yaml").read_text())
SETTINGS = experiment.Settings.from_config(
    validate_config({"model_sharing": {"monte_carlo": {"worlds": 4000}}})["model_sharing"], 0
)


@pytest.fixture(scope="module")
def evidence():
    return ev.theorem_evidence("small", np.random.default_rng(0))


@pytest.fixture(scope="module")
def mc():
    return experiment.monte_carlo(SETTINGS)


@pytest.fixture(scope="module")
def appendix():
    return experiment.appendix_c(REF["appendix_c"], (6, 7))


def status(rows, artifact: str, claim: str) -> str:
    found = [r.status for r in rows if r.artifact == artifact and r.claim == claim]
    assert len(found) == 1, (artifact, claim, found)
    return found[0]


def test_printed_derivatives_against_exact_ones():
    p = {"s": Fraction(9, 2), "l": Fraction(7, 3), "n_s": Fraction(4), "n_l": Fraction(23)}
    p |= {"mu_e": Fraction(10), "sigma2": Fraction(3, 2)}
    args = [p[k] for k in ev.POINT_KEYS]
    assert tt.derivative(tt.err_small_uniform, p, "s") == ev.c1_derivative_printed(*args)
    # the printed C.4 derivative has a sign typo (spec erratum 8)
    assert tt.derivative(tt.err_large_uniform, p, "s") != ev.c4_derivative_printed(*args)
    assert tt.derivative(tt.err_large_uniform, p, "s") == ev.c4_derivative_corrected(*args)
    assert tt.quotient_numerator(tt.g_large, tt.h_large, p, "s") != ev.d4_numerator_printed(*args)
    assert tt.quotient_numerator(tt.g_large, tt.h_large, p, "s") == ev.d4_numerator_corrected(*args)
    assert tt.g_large(*args) / ev.h_large_printed(*args) != tt.err_large_coarse(*args)  # h_L's n_s


def test_every_row_matches_on_this_runs_evidence(evidence, mc):
    rows = claims.claims({"monte_carlo": mc, "theorems": evidence}, SETTINGS)
    assert {r.paper for r in rows} == {"model_sharing"}
    assert [r.claim for r in rows if r.status != "match"] == []
    errata = {(r.artifact, r.claim) for r in rows if r.kind == "erratum"}
    assert {("Cor 4.4", "Gaussian regression display vs Monte Carlo"), ("Lemma C.4", "derivative")} <= errata
    assert {("Lemma C.5", "statement"), ("Lemma D.3", "h_L"), ("Thm 6.5", "pi_d branch")} <= errata


def test_monte_carlo_rows_fail_on_a_wrong_formula(mc):
    wrong = mc.copy()
    wrong.loc[(wrong.method == "local") & (wrong.player == 0), "z"] = 9.0
    assert (
        status(
            claims._monte_carlo(wrong, ev.cor_4_4_printed_display(SETTINGS)),
            "Thm 4.1",
            "closed form vs Monte Carlo",
        )
        == "differs"
    )
    # the printed display agreeing with the simulation (it does not) makes the erratum row differ
    coarse = mc[(mc.method == "coarse") & (mc.task == "regression")].set_index("player")
    agreeing = {(j, i): coarse.loc[j, "simulated"] for j in coarse.index for i in coarse.index if i != j}
    assert (
        status(claims._monte_carlo(mc, agreeing), "Cor 4.4", "Gaussian regression display vs Monte Carlo") == "differs"
    )
    wrong = mc.copy()
    wrong.loc[(wrong.method == "coarse") & (wrong.task == "regression"), "z"] = 5.0
    rows = claims._monte_carlo(wrong, ev.cor_4_4_printed_display(SETTINGS))
    assert status(rows, "Cor 4.4", "Gaussian regression display vs Monte Carlo") == "differs"


def test_section_5_rows_fail_on_false_evidence(evidence):
    s5 = copy.deepcopy(evidence["section_5"])
    s5["lemma_5_1_errors"][5] = list(reversed(s5["lemma_5_1_errors"][5]))  # n < threshold but error grows with M
    assert claims_uniform.lemma_5_1(s5["lemma_5_1_errors"]).status == "differs"
    assert claims_uniform.lemma_5_1_proof([(1, 2)], s5["lemma_5_1_derivative"]).status == "differs"
    assert claims_uniform.lemma_5_1_proof(s5["lemma_5_1_formula"], [(Fraction(1), Fraction(0))]).status == "differs"
    s5["cor_5_2"][(3, 5)] = {((0,), (1,), (2,))}
    assert status(claims_uniform.corollary_5_2(s5["cor_5_2"]), "Cor 5.2", "n < mu_e/s2") == "differs"
    above = [(n, [((0, 1),)]) for n, _ in s5["lemma_5_3_above"]]
    assert (
        status(claims_uniform.lemma_5_3(above, s5["lemma_5_3_at_or_above"]), "Lemma 5.3", "all n_i > mu_e/s2")
        == "differs"
    )
    at_or_above = [(n, set()) for n, _ in s5["lemma_5_3_at_or_above"]]
    assert (
        status(claims_uniform.lemma_5_3(s5["lemma_5_3_above"], at_or_above), "Lemma 5.3", "all n_i >= mu_e/s2")
        == "differs"
    )
    blocked = [i[:4] + ([(1, 0)],) for i in s5["theorem_5_4"]]
    assert claims_uniform.theorem_5_4(blocked).status == "differs"
    moved = [i[:5] + ([("S", (1, 0), (0, 0))], i[6]) for i in s5["theorem_5_5"]]
    assert claims_uniform.theorem_5_5(moved).status == "differs"
    assert claims_uniform.theorem_5_4([]).status == "differs"  # nothing checked is not a match


def test_appendix_c_rows_fail_on_false_evidence(evidence):
    c = copy.deepcopy(evidence["appendix_c"])
    c["derivatives"]["C.1"][0] = (Fraction(1), Fraction(2))
    c["thresholds"]["C.3"][0] = Fraction(1, 7)
    rows = claims_uniform.appendix_c_derivatives(c["derivatives"], c["c4_corrected"], c["thresholds"])
    assert status(rows, "Lemma C.1", "derivative") == "differs"
    assert status(rows, "Lemma C.3", "threshold") == "differs"
    printed_right = dict(c["derivatives"], **{"C.4": c["c4_corrected"]})
    rows = claims_uniform.appendix_c_derivatives(printed_right, c["c4_corrected"], c["thresholds"])
    assert status(rows, "Lemma C.4", "derivative") == "differs"  # the printed form holding is not the erratum
    grid, top = c["grid"], c["grid_top"]
    e = grid[(5, 11)]
    e[(2, 1)] = (e[(1, 1)][0] + 1, e[(2, 1)][1])  # err_S grows with s; err_L(2, 1) unchanged
    e[(2, 2)] = (e[(2, 2)][0], e[(2, 1)][1] - 1)  # err_L falls with l at n_l = 11
    e[(3, 3)] = (e[(3, 2)][0] + 1, e[(3, 3)][1])
    rows = claims_uniform.appendix_c_monotonicity(grid, top)
    assert status(rows, "Lemma C.1", "monotone") == "differs"
    assert status(rows, "Lemma C.2", "monotone") == "differs"
    grid = copy.deepcopy(evidence["appendix_c"]["grid"])
    e = grid[(5, 6)]  # n_l < threshold: err_S must fall with l, err_L change direction at most once in s
    e[(1, 2)] = (e[(1, 1)][0] + 1, e[(1, 2)][1])
    for s, bump in ((1, 1), (2, -1), (3, 1), (4, -1)):
        e[(s, 1)] = (e[(s, 1)][0], e[(s, 1)][1] + bump)
    rows = claims_uniform.appendix_c_monotonicity(grid, top)
    assert status(rows, "Lemma C.3", "monotone") == "differs"
    assert status(rows, "Lemma C.4", "shape, n_l < mu_e/s2") == "differs"
    grid = copy.deepcopy(evidence["appendix_c"]["grid"])
    e = grid[(5, 30)]
    for s, bump in ((1, 1), (2, -1), (3, 1), (4, -1)):
        e[(s, 1)] = (e[(s, 1)][0], e[(s, 1)][1] + bump)
    assert status(claims_uniform.appendix_c_monotonicity(grid, top), "Lemma C.4", "shape, n_l >= mu_e/s2") == "differs"


def test_lemma_c5_rows_fail_on_false_evidence(evidence):
    c = evidence["appendix_c"]
    rows = claims_uniform.lemma_c5([(Fraction(1), Fraction(2))], c["c5_search"], c["c5_context"])
    assert status(rows, "Lemma C.5", "proof identity") == "differs"
    inst, l1, errs = c["c5_context"][0]
    violated = [(inst, l1, {**errs, (1, 1): (Fraction(0), Fraction(0))})]
    assert (
        status(claims_uniform.lemma_c5(c["c5_identity"], c["c5_search"], violated), "Lemma C.5", "statement")
        == "differs"
    )
    no_counterexample = {k: {cell: (Fraction(0), Fraction(0)) for cell in e} for k, e in c["c5_search"].items()}
    rows = claims_uniform.lemma_c5(c["c5_identity"], no_counterexample, c["c5_context"])
    assert status(rows, "Lemma C.5", "statement") == "differs"


def test_section_6_rows_fail_on_false_evidence(evidence):
    s6 = copy.deepcopy(evidence["section_6"])
    m = s6["lemma_6_1"][0]
    m["local"] = Fraction(0)  # local learning better than every w
    m["w_printed"] += 1
    m["closed_form"] += 1
    rows = claims_weighted.lemma_6_1_and_6_3(s6["lemma_6_1"])
    assert [r.status for r in rows] == ["differs"] * 3
    assert claims_weighted.corollary_6_2([(n, set()) for n, _ in s6["cor_6_2"]]).status == "differs"
    key = next(iter(s6["lemma_6_4"]))
    core, exact, formula = s6["lemma_6_4"][key]
    s6["lemma_6_4"][key] = ([], exact, formula + 1)
    assert [r.status for r in claims_weighted.lemma_6_4(s6["lemma_6_4"])] == ["differs", "differs"]


def test_appendix_d_rows_fail_on_false_evidence(evidence):
    s6 = copy.deepcopy(evidence["section_6"])
    s6["d1_gh"][0] = (Fraction(1), Fraction(2))
    s6["d3_h_printed"] = s6["d3_h_corrected"]  # the printed h_L would then be right: no erratum
    s6["numerators"]["D.2"]["printed"][0] = (Fraction(1), Fraction(2))
    s6["numerators"]["D.4"]["corrected"][0] = (Fraction(1), Fraction(2))
    s6["d_thresholds"]["D.2"]["corrected"][0] = Fraction(1)
    grid = s6["d_grid"][(5, 50)]
    grid[(2, 1)] = (grid[(1, 1)][0] + 1, grid[(1, 1)][1] + 1)  # err_S and err_L grow with s
    rows = claims_weighted.appendix_d(s6, evidence["points"])
    for artifact, claim in (
        ("Lemma D.1", "g_S/h_S"),
        ("Lemma D.3", "h_L"),
        ("Lemma D.2", "derivative"),
        ("Lemma D.4", "derivative"),
        ("Lemma D.2", "threshold"),
        ("Lemma D.1", "monotone"),
        ("Lemma D.4", "monotone"),
    ):
        assert status(rows, artifact, claim) == "differs", (artifact, claim)
    s6 = copy.deepcopy(evidence["section_6"])
    s6["d_grid"][(5, 50)][(1, 6)] = (Fraction(9), Fraction(9))  # err_S and err_L jump up from l = 5 to 6
    rows = claims_weighted.appendix_d(s6, evidence["points"])
    assert status(rows, "Lemma D.2", "monotone") == "differs"
    assert status(rows, "Lemma D.3", "monotone") == "differs"


def test_theorem_6_5_rows_fail_on_false_evidence(evidence):
    instances = copy.deepcopy(evidence["section_6"]["theorem_6_5"])
    for i in instances:
        i["grand_blockers"] = [(1, 0)]
    rows = claims_weighted.theorem_6_5(instances)
    assert status(rows, "Thm 6.5", "pi_g branch") == "differs"
    assert status(rows, "Thm 6.5", "pi_d branch") == "differs"  # at a tie pi_g is then blocked too
    instances = copy.deepcopy(evidence["section_6"]["theorem_6_5"])
    for i in instances:
        i["split_blockers"] = []  # the printed branch would hold at the ties
    assert status(claims_weighted.theorem_6_5(instances), "Thm 6.5", "pi_d branch") == "differs"


def test_section_7_and_summary_rows_fail_on_false_evidence(evidence):
    weights = copy.deepcopy(evidence["section_7"]["lemma_7_1"])
    weights[0]["partials"][0] += 1
    weights[1]["weights"] = [Fraction(3, 2), Fraction(-1, 2)]
    rows = claims_weighted.lemma_7_1(weights)
    assert [r.status for r in rows] == ["differs", "differs"]
    best = [(n, [(Fraction(2), Fraction(1))] * len(n)) for n, _ in evidence["section_7"]["cor_7_2"]]
    assert claims_weighted.corollary_7_2(best).status == "differs"
    objections = [dict(i, objections=[(1, 1)]) for i in evidence["summary"]]
    assert claims_weighted.summary(objections).status == "differs"


def test_printed_values_fail_on_false_results(appendix):
    report, core = appendix
    result = experiment.table("table2", REF["tables"]["table2"])
    cell = dict(result.cells.iloc[0], exact="3")
    assert claims_printed.table_cell("Table 2", cell, "", "").status == "differs"
    stability = result.stability.copy()
    stability["core"] = stability.partition == "{a},{b},{c}"
    stability["core_blocking"] = ""
    errors_table = {
        mask: {j: Fraction(1) for j in row}
        for mask, row in experiment.st.coalition_table([5, 5, 25], mu_e=10, sigma2=1, method="uniform").items()
    }
    errors_table[7][0] = Fraction(2)  # player a worse off in the grand coalition than elsewhere
    for statement in REF["tables"]["table2"]["stability_claims"][::2] + [
        {"notion": "core", "minimal_for_all": [[0, 1, 2]]}
    ]:
        assert claims_printed.stability_statement("Table 2", statement, stability, errors_table).status == "differs", (
            statement
        )
    includes = {"notion": "core", "includes": [[0], [1], [2]]}
    assert claims_printed.stability_statement("Table 2", includes, result.stability, errors_table).status == "differs"
    wrong = copy.deepcopy(report)
    wrong["leave_one_out"][0]["reproduced"] = ["1.107323"]
    wrong["leave_one_out"][1]["sizes_from_the_others"], wrong["leave_one_out"][1]["reproduced"] = [], []
    assert [r.status for r in claims_printed.example_c6_values(wrong)][:3] == ["differs", "differs", "match"]
    wrong = copy.deepcopy(report)
    wrong["errors"]["pi(0,1)"]["err_L"] = "0"  # large players would rather stay alone than join anything
    rows = claims_printed.example_c6_statements(wrong, core)
    assert [r.status for r in rows][:5] == ["differs", "match", "match", "differs", "differs"]
    wrong["errors"]["pi(0,1)"]["err_L"] = "2"  # now joining pi(70,3) with a fourth large player pays
    assert claims_printed.example_c6_statements(wrong, core)[1].status == "differs"
    wrong["errors"]["pi(68,4)"]["err_S"] = "2"  # the small players would not leave pi(70,3)
    assert claims_printed.example_c6_statements(wrong, core)[2].status == "differs"
    core_stable = core.assign(core_stable=True, blocking_coalitions="")
    rows = claims_printed.example_c6_statements(report, core_stable)
    assert status(rows, "Example C.6", "conclusion, L = 7") == "differs"
    assert (
        status(claims_printed.example_c6_statements(report, core[core.L < 7]), "Example C.6", "conclusion, L >= 7")
        == "not run in this profile"
    )


def test_printed_values_on_the_paper(appendix):
    report, core = appendix
    tables = [experiment.table(name, spec) for name, spec in REF["tables"].items()]
    rows = claims_printed.printed_values(REF, tables, report, core)
    assert [(r.artifact, r.claim) for r in rows if r.status != "match"] == [("Table 5", "err_d({a,b,c,d})")]
    assert sum(r.artifact == "Example C.6" and r.kind == "printed" for r in rows) == 7


@pytest.mark.parametrize(
    ("method", "artifact"), [("local", "Thm 4.1"), ("fine", "Thm 4.2"), ("uniform", "Cor 4.3"), ("coarse", "Cor 4.4")]
)
def test_each_section_4_row_fails_when_its_simulation_disagrees(mc, method, artifact):
    wrong = mc.copy()
    wrong.loc[(wrong.method == method) & (wrong.task == "mean") & (wrong.player == 1), "z"] = -4.5
    rows = claims._monte_carlo(wrong, ev.cor_4_4_printed_display(SETTINGS))
    assert status(rows, artifact, "closed form vs Monte Carlo") == "differs"


@pytest.mark.parametrize("regime", ["<", "=", ">"])
def test_each_corollary_5_2_regime_fails_on_a_wrong_core(evidence, regime):
    cores = dict(evidence["section_5"]["cor_5_2"])
    side = {"<": -1, "=": 0, ">": 1}[regime]
    key = next(k for k in cores if (k[1] > claims_uniform.THRESHOLD) - (k[1] < claims_uniform.THRESHOLD) == side)
    cores[key] = set()  # an empty core is never the stated one
    assert status(claims_uniform.corollary_5_2(cores), "Cor 5.2", f"n {regime} mu_e/s2") == "differs"


@pytest.mark.parametrize("lemma", ["C.1", "C.2", "C.3"])
def test_each_printed_appendix_c_derivative_fails_when_it_disagrees(evidence, lemma):
    c = copy.deepcopy(evidence["appendix_c"])
    exact, printed = c["derivatives"][lemma][-1]
    c["derivatives"][lemma][-1] = (exact, printed + 1)
    rows = claims_uniform.appendix_c_derivatives(c["derivatives"], c["c4_corrected"], c["thresholds"])
    assert status(rows, f"Lemma {lemma}", "derivative") == "differs"


@pytest.mark.parametrize("lemma", ["C.2", "C.3", "C.4"])
def test_each_appendix_c_threshold_fails_where_the_derivative_is_not_zero(evidence, lemma):
    c = copy.deepcopy(evidence["appendix_c"])
    c["thresholds"][lemma] = [None, Fraction(-1, 3)] + c["thresholds"][lemma]
    rows = claims_uniform.appendix_c_derivatives(c["derivatives"], c["c4_corrected"], c["thresholds"])
    assert status(rows, f"Lemma {lemma}", "threshold") == "differs"
    c["thresholds"][lemma] = [None]  # no defined point: nothing was checked
    rows = claims_uniform.appendix_c_derivatives(c["derivatives"], c["c4_corrected"], c["thresholds"])
    assert status(rows, f"Lemma {lemma}", "threshold") == "differs"


@pytest.mark.parametrize("lemma", ["D.1", "D.2", "D.3", "D.4"])
def test_each_appendix_d_numerator_fails_when_its_form_disagrees(evidence, lemma):
    s6 = copy.deepcopy(evidence["section_6"])
    pairs = s6["numerators"][lemma]
    form = "printed" if pairs["corrected"] is None else "corrected"  # erratum rows: the corrected form failing
    exact, value = pairs[form][0]
    pairs[form][0] = (exact, value - 1)
    assert status(claims_weighted.appendix_d(s6, evidence["points"]), f"Lemma {lemma}", "derivative") == "differs"


@pytest.mark.parametrize("lemma", ["D.2", "D.3"])
def test_each_appendix_d_threshold_fails_when_the_corrected_one_misses_or_the_printed_one_holds(evidence, lemma):
    s6 = copy.deepcopy(evidence["section_6"])
    s6["d_thresholds"][lemma]["corrected"][0] = Fraction(1, 5)
    assert status(claims_weighted.appendix_d(s6, evidence["points"]), f"Lemma {lemma}", "threshold") == "differs"
    s6 = copy.deepcopy(evidence["section_6"])
    s6["d_thresholds"][lemma]["printed"] = [Fraction(0)] * len(s6["d_thresholds"][lemma]["printed"])
    assert status(claims_weighted.appendix_d(s6, evidence["points"]), f"Lemma {lemma}", "threshold") == "differs"


def test_corollary_7_2_core_row_fails_when_another_partition_is_in_the_core(evidence):
    core = copy.deepcopy(evidence["section_7"]["cor_7_2_core"])
    n, partitions = core[0]
    core[0] = (n, partitions + [tuple((j,) for j in range(len(n)))])
    assert claims_weighted.corollary_7_2_core(core).status == "differs"
    assert claims_weighted.corollary_7_2_core([]).status == "differs"


TABLE_CELLS = [
    (name, cell)
    for name, spec in REF["tables"].items()
    for cell in experiment.table(name, spec).cells.to_dict("records")
]


@pytest.mark.parametrize(
    ("name", "cell"), TABLE_CELLS, ids=[f"{n}-{c['player']}{c['structure']}" for n, c in TABLE_CELLS]
)
def test_every_printed_table_cell_differs_when_the_value_is_one_printed_unit_off(name, cell):
    """The exact value moved by one unit of the printed precision no longer rounds to the printed number."""
    digits = len(cell["printed"].split(".")[1]) if "." in cell["printed"] else 0
    off = Fraction(cell["exact"]) + Fraction(1, 10**digits)
    row = claims_printed.table_cell(name.replace("table", "Table "), dict(cell, exact=str(off)), "", "")
    assert row.status == "differs"


def _falsified(statement, report, errors_table):
    """(report, errors table) on which the §2 statement is false."""
    report, errors_table = report.copy(), {m: dict(r) for m, r in errors_table.items()}
    if "most_preferred" in statement:
        j = statement["player"]
        other = next(
            m
            for m, r in errors_table.items()
            if j in r and m not in {experiment.mask(b) for b in statement["most_preferred"]}
        )
        errors_table[other][j] = Fraction(-1)
    elif "minimal_for_all" in statement:
        j = statement["minimal_for_all"][0][0]
        here = experiment.mask(statement["minimal_for_all"][0])
        errors_table[here][j] = max(r[j] for r in errors_table.values() if j in r) + 1
    elif "blocked_by" in statement:
        report["core_blocking"] = ""
    elif "only" in statement or "includes" in statement:
        report[statement["notion"]] = False
    else:  # excludes
        report[statement["notion"]] = True
    return report, errors_table


STATEMENTS = [
    (name, s)
    for name, spec in REF["tables"].items()
    for s in spec.get("stability_claims", []) + claims_printed.TEXT_STATEMENTS.get(name, [])
]


@pytest.mark.parametrize(("name", "statement"), STATEMENTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(STATEMENTS)])
def test_every_section_2_statement_differs_on_results_where_it_is_false(name, statement):
    spec = REF["tables"][name]
    result = experiment.table(name, spec)
    errors_table = experiment.st.coalition_table(spec["n"], mu_e=10, sigma2=1, method=spec["method"])
    assert claims_printed.stability_statement(name, statement, result.stability, errors_table).status == "match"
    report, errors = _falsified(statement, result.stability, errors_table)
    assert claims_printed.stability_statement(name, statement, report, errors).status == "differs"


@pytest.mark.parametrize("index", range(7))
def test_every_example_c6_value_differs_when_reproduced_one_unit_off(appendix, index):
    report = copy.deepcopy(appendix[0])
    value = report["leave_one_out"][index]
    value["reproduced"] = [f"{Decimal(r) + Decimal('0.000001'):f}" for r in value["reproduced"]]
    assert claims_printed.example_c6_values(report)[index].status == "differs"
