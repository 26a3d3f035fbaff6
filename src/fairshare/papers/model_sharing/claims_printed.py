"""Model-sharing Games, printed values: one row per printed cell of Tables 1-5 (the exact error rounded half-up to
the printed precision against the printed value), per §2 stability statement, and per Example C.6 value and
comparison, judged on :func:`.experiment.table` and :func:`.experiment.appendix_c`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pandas as pd

from fairshare.games import stability as st
from fairshare.papers.model_sharing.experiment import (
    PAPER,
    PAPER_MU,
    PAPER_SIGMA2,
    TableResult,
    label,
    mask,
    partition,
    round_like,
)
from fairshare.pipeline.report import Claim

__all__ = [
    "example_c6_statements",
    "example_c6_values",
    "matches_printed",
    "printed_values",
    "stability_statement",
    "table_cell",
]


def matches_printed(rounded: str, printed: str) -> bool:
    """A value rounded half-up to the paper's printed precision (:func:`.experiment.round_like`) equals the printed
    number; also the ``match`` of each Example C.6 value in appendix_c.json."""
    return Decimal(rounded) == Decimal(printed)


def table_cell(artifact: str, cell: Mapping[str, Any], parameters: str, discrepancy: str) -> Claim:
    """One printed table cell: the exact error rounded half-up to the printed precision equals the printed value
    (``discrepancy``: the reference's explanation of a known mismatch, noted when the cell differs)."""
    rounded = round_like(Fraction(cell["exact"]), cell["printed"])
    holds = matches_printed(rounded, cell["printed"])
    return Claim.printed(
        paper=PAPER,
        artifact=artifact,
        claim=f"err_{cell['player']}({cell['structure']})",
        paper_states=cell["printed"],
        reproduced=f"{rounded} (exact {cell['exact']}); {parameters}",
        holds=holds,
        note="" if holds else discrepancy,
    )


# §2 sentences about Tables 1-3 that the reference YAML's stability_claims do not list (players a, b, c = 0, 1, 2)
TEXT_STATEMENTS: dict[str, list[dict[str, Any]]] = {
    # "Every player sees its error minimized in the grand coalition"
    "table1": [{"notion": "core", "minimal_for_all": [[0, 1, 2]]}],
    # "a and b would most prefer {a, b}{c}, whereas c would most prefer {a}, {b, c} or (identically) {b}, {a, c}"
    "table2": [
        {"player": 0, "most_preferred": [[0, 1]]},
        {"player": 1, "most_preferred": [[0, 1]]},
        {"player": 2, "most_preferred": [[1, 2], [0, 2]]},
    ],
    # "the players minimize their error by being alone"
    "table3": [{"notion": "core", "minimal_for_all": [[0], [1], [2]]}],
}


def _judge_statement(
    statement: Mapping[str, Any], report: pd.DataFrame, errors_table: Mapping[int, Mapping[int, Any]]
) -> tuple[str, bool, str]:
    """(what the statement says, whether it holds, what was found) for one §2 statement."""
    if "most_preferred" in statement:
        j = statement["player"]
        least = min(r[j] for r in errors_table.values() if j in r)
        best = {m for m, r in errors_table.items() if r.get(j) == least}
        want = {mask(b) for b in statement["most_preferred"]}
        name = label((j,))[1:-1]
        states = f"{name} most prefers the coalition {' or '.join(label(b) for b in statement['most_preferred'])}"
        found = f"{name}'s least error in {sorted(label(st.mask_to_players(m)) for m in best)}"
        return states, best == want, found
    notion = statement.get("notion")
    stable = set(report.loc[report[notion].astype(bool), "partition"])
    if "only" in statement:
        want = {st.describe(partition(p)) for p in statement["only"]}
        states = f"{notion}: only {' or '.join(sorted(want))}"
        return states, stable == want, f"{notion} stable: {sorted(stable)}"
    if "includes" in statement or "excludes" in statement:
        part = st.describe(partition(statement.get("includes") or statement["excludes"]))
        states = f"{notion}: {part} is {'' if 'includes' in statement else 'not '}stable"
        return states, (part in stable) == ("includes" in statement), f"{notion} stable: {sorted(stable)}"
    if "blocked_by" in statement:
        part = partition(statement["blocked_by"]["partition"])
        coalition = label(tuple(statement["blocked_by"]["coalition"]))
        value = report.set_index("partition").loc[st.describe(part), "core_blocking"]
        blockers = {b for b in value.split(";") if b} if isinstance(value, str) else set()
        return f"{st.describe(part)} is blocked by {coalition}", coalition in blockers, f"blocking: {sorted(blockers)}"
    part = partition(statement["minimal_for_all"])
    gaps = [(j, errors_table[mask(b)][j], min(r[j] for r in errors_table.values() if j in r)) for b in part for j in b]
    found = f"{sum(mine <= best for _, mine, best in gaps)} of {len(gaps)} players at their minimum"
    return f"every player's error is minimal in {st.describe(part)}", all(m <= b for _, m, b in gaps), found


def stability_statement(
    artifact: str, statement: Mapping[str, Any], report: pd.DataFrame, errors_table: Mapping[int, Mapping[int, Any]]
) -> Claim:
    """One §2 statement (``statement``: its reference entry) against every partition's stability and every
    coalition's exact errors (``errors_table``: :func:`fairshare.games.stability.coalition_table`)."""
    states, holds, found = _judge_statement(statement, report, errors_table)
    return Claim.statement(
        paper=PAPER,
        artifact=artifact,
        claim=f"§2 text: {states}",
        paper_states=states,
        reproduced=found,
        holds=holds,
    )


def example_c6_values(report: Mapping[str, Any]) -> list[Claim]:
    """Each printed Example C.6 value, recomputed at the sample sizes the other six printed values determine."""
    rows = []
    for v in report["leave_one_out"]:
        sizes = [tuple(p) for p in v["sizes_from_the_others"]]
        holds = bool(sizes) and all(matches_printed(r, v["printed"]) for r in v["reproduced"])
        rows.append(
            Claim.printed(
                paper=PAPER,
                artifact="Example C.6",
                claim=v["quantity"],
                paper_states=v["printed"],
                reproduced=f"{', '.join(v['reproduced']) or 'no value'} at (n_s, n_l) in {sizes}; uniform, mu_e=100, s2=1",
                holds=holds,
                note="n_s, n_l are not printed; they are inferred from the other six printed values",
            )
        )
    return rows


def example_c6_statements(report: Mapping[str, Any], core_vs_l: pd.DataFrame) -> list[Claim]:
    """The comparisons Example C.6 makes, on the exact errors at the inferred (n_s, n_l), and its conclusion for
    every configured L >= 7 (the example's setting)."""
    err = {k: {t: Fraction(e) for t, e in v.items()} for k, v in report["errors"].items()}
    sizes = f"n_s={report['inferred_n_s']}, n_l={report['inferred_n_l']} (inferred), mu_e=100, s2=1"

    def shown(key: str, kind: str) -> str:
        return f"{kind}({key}) = {float(err[key][kind]):.6f}"

    comparisons = [
        (
            "pi(70,3) >_S pi(70,0) and pi(70,3) >_L pi(0,1)",
            "pi(70,3) >_S pi(70,0) and pi(70,3) >_L pi(0,1): both types would rather participate",
            err["pi(70,3)"]["err_S"] < err["pi(70,0)"]["err_S"] and err["pi(70,3)"]["err_L"] < err["pi(0,1)"]["err_L"],
            [
                shown("pi(70,3)", "err_S"),
                shown("pi(70,0)", "err_S"),
                shown("pi(70,3)", "err_L"),
                shown("pi(0,1)", "err_L"),
            ],
            "",
        ),
        (
            "pi(70,4) <_L pi(0,1)",
            "pi(70,4) <_L pi(0,1): no large player joins pi(70,3)",
            err["pi(70,4)"]["err_L"] > err["pi(0,1)"]["err_L"],
            [shown("pi(70,4)", "err_L"), shown("pi(0,1)", "err_L")],
            "the text names the coalition pi(70, 30); the comparison it rests on is about pi(70, 3)",
        ),
        (
            "pi(68,4) >_S pi(70,3)",
            "pi(68,4) >_S pi(70,3)",
            err["pi(68,4)"]["err_S"] < err["pi(70,3)"]["err_S"],
            [shown("pi(68,4)", "err_S"), shown("pi(70,3)", "err_S")],
            "",
        ),
        (
            "pi(68,3) >_L pi(0,1) (as printed)",
            "pi(68,3) >_L pi(0,1) (as printed)",
            err["pi(68,3)"]["err_L"] < err["pi(0,1)"]["err_L"],
            [shown("pi(68,3)", "err_L"), shown("pi(0,1)", "err_L")],
            "the value printed beside it is err_L(pi(68,4)); the argument needs the next row",
        ),
        (
            "pi(68,4) >_L pi(0,1)",
            "pi(68,4) >_L pi(0,1): the large players doing local learning prefer pi(68,4)",
            err["pi(68,4)"]["err_L"] < err["pi(0,1)"]["err_L"],
            [shown("pi(68,4)", "err_L"), shown("pi(0,1)", "err_L")],
            "",
        ),
    ]
    rows = [
        Claim.statement(
            paper=PAPER,
            artifact="Example C.6",
            claim=f"comparison: {short}",
            paper_states=states,
            reproduced="; ".join(found) + f"; {sizes}",
            holds=holds,
            note=note,
        )
        for short, states, holds, found, note in comparisons
    ]
    example = core_vs_l[core_vs_l.L >= 7]
    states = "S = 70, L >= 7: the Thm 5.5 arrangement is pi(70,3) + lone large players, individually stable, not core"
    if example.empty:
        return rows + [
            Claim.statement(
                paper=PAPER,
                artifact="Example C.6",
                claim="conclusion, L >= 7",
                paper_states=states,
                reproduced="no L >= 7 configured (appendix_c_L)",
                holds=None,
            )
        ]
    for r in example.itertuples():
        blockers = [b for b in str(r.blocking_coalitions).split(";") if b.startswith("pi(")]
        holds = r.l_prime == 3 and bool(r.individually_stable) and not bool(r.core_stable) and "pi(68,4)" in blockers
        found = f"L={r.L}: {r.partition}; individually stable {bool(r.individually_stable)}; blocked by {blockers}"
        rows.append(
            Claim.statement(
                paper=PAPER,
                artifact="Example C.6",
                claim=f"conclusion, L = {r.L}",
                paper_states=states + ", blocked by pi(68,4)",
                reproduced=f"{found}; {sizes}",
                holds=holds,
            )
        )
    return rows


def printed_values(
    ref: Mapping[str, Any], tables: Sequence[TableResult], appendix: Mapping[str, Any], core_vs_l: pd.DataFrame
) -> list[Claim]:
    """Every printed table cell and §2 stability statement (``ref``: the reference YAML), then Example C.6."""
    rows = []
    for result in tables:
        spec = ref["tables"][result.name]
        artifact = result.name.replace("table", "Table ")
        parameters = f"{spec['method']}, n={spec['n']}, mu_e=10, s2=1"
        for cell in result.cells.to_dict("records"):
            rows.append(table_cell(artifact, cell, parameters, spec.get("known_discrepancy", "")))
        errors_table = st.coalition_table(spec["n"], mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=spec["method"])
        statements = spec.get("stability_claims", []) + TEXT_STATEMENTS.get(result.name, [])
        rows += [stability_statement(artifact, s, result.stability, errors_table) for s in statements]
    return rows + example_c6_values(appendix) + example_c6_statements(appendix, core_vs_l)
