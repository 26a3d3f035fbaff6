"""Model-sharing Games: every scorecard row, judged from this run's results and evidence (:mod:`.experiment`).

Each function below takes computed values (tables, the Appendix C report, the Monte Carlo table, the evidence of
:func:`.experiment.theorem_evidence`) and returns Claim records; none computes what it judges. ``claim`` rows test a
statement as the paper states it; ``printed`` rows compare a printed number at its printed precision; ``erratum``
rows are statements whose printed form fails: the row matches only when, on this run, the printed form fails and
the corrected one holds.
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
    THRESHOLD,
    TableResult,
    label,
    mask,
    partition,
    round_like,
)
from fairshare.report import Claim

# |z| of a Monte Carlo mean against a closed form: a two-sided normal tail of 6e-5 per value, so a correct formula
# passes all 24 values with probability above 0.998, and a wrong one is rejected once the error exceeds 4 s.e.
Z_MAX = 4.0


def _claim(artifact: str, claim: str, states: str, reproduced: str, holds: bool | None, note: str = "") -> Claim:
    return Claim.verdict(
        holds,
        paper=PAPER,
        artifact=artifact,
        claim=claim,
        kind="claim",
        paper_states=states,
        reproduced=reproduced,
        note=note,
    )


def _erratum(
    artifact: str, claim: str, printed: str, corrected: str, fails: bool, corrected_holds: bool, reproduced: str
) -> Claim:
    """An erratum row: it matches when the printed statement ``fails`` and the corrected one holds on this run."""
    found = f"as printed: {'fails' if fails else 'holds'}; corrected: {'holds' if corrected_holds else 'fails'}"
    return Claim.verdict(
        fails and corrected_holds,
        paper=PAPER,
        artifact=artifact,
        claim=claim,
        kind="erratum",
        paper_states=printed,
        reproduced=f"{found}; {reproduced}",
        note=f"corrected: {corrected}",
    )


def _equal(pairs: Sequence[tuple[Any, Any]]) -> tuple[bool, str]:
    """Whether every (computed, stated) pair is equal, and how many are."""
    same = sum(a == b for a, b in pairs)
    return bool(pairs) and same == len(pairs), f"{same} of {len(pairs)} equal"


# -------------------------------------------------------------------------- §2 and Example C.6: printed values
def table_cell(artifact: str, cell: Mapping[str, Any], parameters: str) -> Claim:
    """One printed table cell: the exact error rounded half-up to the printed precision equals the printed value."""
    rounded = round_like(Fraction(cell["exact"]), cell["printed"])
    return Claim.verdict(
        Decimal(rounded) == Decimal(cell["printed"]),
        paper=PAPER,
        artifact=artifact,
        claim=f"err_{cell['player']}({cell['structure']})",
        kind="printed",
        paper_states=cell["printed"],
        reproduced=f"{rounded} (exact {cell['exact']}); {parameters}",
        note=cell["note"] or "",
    )


def stability_statement(
    artifact: str, statement: Mapping[str, Any], report: pd.DataFrame, errors_table: Mapping[int, Mapping[int, Any]]
) -> Claim:
    """One §2 stability statement (``statement``: its reference entry) against every partition's stability."""
    notion = statement["notion"]
    stable = set(report.loc[report[notion].astype(bool), "partition"])
    if "only" in statement:
        want = {st.describe(partition(p)) for p in statement["only"]}
        states, holds, found = f"{notion}: only {sorted(want)}", stable == want, f"{notion} stable: {sorted(stable)}"
    elif "includes" in statement or "excludes" in statement:
        part = st.describe(partition(statement.get("includes") or statement["excludes"]))
        states = f"{notion}: {part} is {'' if 'includes' in statement else 'not '}stable"
        holds, found = (part in stable) == ("includes" in statement), f"{notion} stable: {sorted(stable)}"
    elif "blocked_by" in statement:
        part = partition(statement["blocked_by"]["partition"])
        coalition = label(tuple(statement["blocked_by"]["coalition"]))
        value = report.set_index("partition").loc[st.describe(part), "core_blocking"]
        blockers = {b for b in value.split(";") if b} if isinstance(value, str) else set()
        states, holds = f"{st.describe(part)} is blocked by {coalition}", coalition in blockers
        found = f"blocking coalitions: {sorted(blockers)}"
    else:
        part = partition(statement["minimal_for_all"])
        gaps = [
            (j, errors_table[mask(b)][j], min(r[j] for r in errors_table.values() if j in r)) for b in part for j in b
        ]
        states = f"every player's error is minimal in {st.describe(part)}"
        holds = all(mine <= best for _, mine, best in gaps)
        found = f"{sum(mine <= best for _, mine, best in gaps)} of {len(gaps)} players at their minimum"
    return _claim(artifact, "stability (§2 text)", states, found, holds)


def example_c6_values(report: Mapping[str, Any]) -> list[Claim]:
    """Each printed Example C.6 value, recomputed at the sample sizes the other six printed values determine."""
    rows = []
    for v in report["leave_one_out"]:
        sizes = [tuple(p) for p in v["sizes_from_the_others"]]
        holds = bool(sizes) and all(Decimal(r) == Decimal(v["printed"]) for r in v["reproduced"])
        rows.append(
            Claim.verdict(
                holds,
                paper=PAPER,
                artifact="Example C.6",
                claim=v["quantity"],
                kind="printed",
                paper_states=v["printed"],
                reproduced=f"{', '.join(v['reproduced']) or 'no value'} at (n_s, n_l) in {sizes}; uniform, mu_e=100, s2=1",
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
            "pi(70,4) <_L pi(0,1): no large player joins pi(70,3)",
            err["pi(70,4)"]["err_L"] > err["pi(0,1)"]["err_L"],
            [shown("pi(70,4)", "err_L"), shown("pi(0,1)", "err_L")],
            "the text names the coalition pi(70, 30); the comparison it rests on is about pi(70, 3)",
        ),
        (
            "pi(68,4) >_S pi(70,3)",
            err["pi(68,4)"]["err_S"] < err["pi(70,3)"]["err_S"],
            [shown("pi(68,4)", "err_S"), shown("pi(70,3)", "err_S")],
            "",
        ),
        (
            "pi(68,3) >_L pi(0,1) (as printed)",
            err["pi(68,3)"]["err_L"] < err["pi(0,1)"]["err_L"],
            [shown("pi(68,3)", "err_L"), shown("pi(0,1)", "err_L")],
            "the value printed beside it is err_L(pi(68,4)); the argument needs the next row",
        ),
        (
            "pi(68,4) >_L pi(0,1): the large players doing local learning prefer pi(68,4)",
            err["pi(68,4)"]["err_L"] < err["pi(0,1)"]["err_L"],
            [shown("pi(68,4)", "err_L"), shown("pi(0,1)", "err_L")],
            "",
        ),
    ]
    rows = [
        _claim("Example C.6", "comparison", states, "; ".join(found) + f"; {sizes}", holds, note)
        for states, holds, found, note in comparisons
    ]
    example = core_vs_l[core_vs_l.L >= 7]
    states = "S = 70, L >= 7: the Thm 5.5 arrangement is pi(70,3) + lone large players, individually stable, not core"
    if example.empty:
        return rows + [_claim("Example C.6", "conclusion", states, "no L >= 7 configured (appendix_c_L)", None)]
    for r in example.itertuples():
        blockers = [b for b in str(r.blocking_coalitions).split(";") if b.startswith("pi(")]
        holds = r.l_prime == 3 and bool(r.individually_stable) and not bool(r.core_stable) and "pi(68,4)" in blockers
        found = f"L={r.L}: {r.partition}; individually stable {bool(r.individually_stable)}; blocked by {blockers}"
        rows.append(_claim("Example C.6", "conclusion", states + ", blocked by pi(68,4)", f"{found}; {sizes}", holds))
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
            rows.append(table_cell(artifact, cell, parameters))
        errors_table = st.coalition_table(spec["n"], mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=spec["method"])
        rows += [
            stability_statement(artifact, s, result.stability, errors_table) for s in spec.get("stability_claims", [])
        ]
    return rows + example_c6_values(appendix) + example_c6_statements(appendix, core_vs_l)


# ------------------------------------------------------------------------------------- §4: Monte Carlo
THEOREMS_4 = {
    "local": ("Thm 4.1", "local estimation: err = mu_e / n_j (mean), mu_e D / (n_j - D - 1) (Gaussian regression)"),
    "fine": (
        "Thm 4.2",
        "fine-grained weights v: err = mu_e sum_i v_ji^2 zeta_i + (sum_{i!=j} v_ji^2 + (sum_{i!=j} v_ji)^2) s2'",
    ),
    "uniform": (
        "Cor 4.3",
        "uniform federation: err = mu_e sum_i n_i^2 zeta_i / N^2 + (sum_{i!=j} n_i^2 + (N-n_j)^2)/N^2 s2'",
    ),
    "coarse": ("Cor 4.4", "coarse weight w (mean estimation): err = mu_e (w^2/n_j + (1-w^2)/N) + B_j/N^2 (1-w)^2 s2"),
}


def monte_carlo(table: pd.DataFrame, printed_display: Mapping[tuple[int, int], float]) -> list[Claim]:
    """Thms 4.1-4.2 and Cors 4.3-4.4 against simulation (|z| <= Z_MAX per player), and Cor 4.4's Gaussian display
    as printed (``printed_display``: player j's error read with another player i's D/(n_i - D - 1))."""
    rows = []
    for method, (artifact, states) in THEOREMS_4.items():
        tasks = ("mean",) if method == "coarse" else ("mean", "regression")
        sub = table[(table.method == method) & table.task.isin(tasks)]
        worst = float(sub.z.abs().max())
        found = f"largest |z| = {worst:.2f} over {len(sub)} (task, player) values, {int(sub.worlds.max())} worlds"
        rows.append(_claim(artifact, "closed form vs Monte Carlo", states, found, bool(len(sub)) and worst <= Z_MAX))
    coarse = table[(table.method == "coarse") & (table.task == "regression")].set_index("player")
    z_printed = {
        (j, i): (coarse.loc[j, "simulated"] - value) / coarse.loc[j, "se"] for (j, i), value in printed_display.items()
    }
    best = {j: min(abs(z) for (jj, _), z in z_printed.items() if jj == j) for j in coarse.index}
    fails = any(z > Z_MAX for z in best.values())
    corrected = float(coarse.z.abs().max())
    rows.append(
        _erratum(
            "Cor 4.4",
            "Gaussian regression display vs Monte Carlo",
            "err_j = mu_e (1-w)^2 sum_i n_i^2/N^2 D/(n_i-D-1) + mu_e (w^2 + 2(1-w)w n_j/N) D/(n_i-D-1) + ...",
            "the second term's factor is D/(n_j - D - 1) (zeta_j)",
            fails,
            corrected <= Z_MAX,
            f"printed, best other player i per j: |z| = {', '.join(f'{abs(z):.1f}' for z in best.values())}; "
            f"corrected: largest |z| = {corrected:.2f}",
        )
    )
    return rows


# ------------------------------------------------------------------------------------------- §5 uniform
def lemma_5_1(errors: Mapping[int, Sequence[Fraction]]) -> Claim:
    """Equal sizes n, uniform: players minimise error in pi_g if n < mu_e/s2, in pi_l if n > mu_e/s2, and are
    indifferent at n = mu_e/s2 (``errors[n]``: one player's error in coalitions of M = 1, 2, ... players)."""
    bad = []
    for n, e in errors.items():
        steps = [b - a for a, b in zip(e, e[1:])]
        want = (lambda d: d < 0) if n < THRESHOLD else (lambda d: d > 0) if n > THRESHOLD else (lambda d: d == 0)
        if not all(want(d) for d in steps):
            bad.append(n)
    found = f"{len(errors)} sizes n, M = 1..{max(len(e) for e in errors.values())}; failing n: {bad or 'none'}"
    states = "equal n, uniform: minimum in pi_g if n < mu_e/s2, in pi_l if n > mu_e/s2, indifferent if equal"
    return _claim("Lemma 5.1", "statement", states, found, not bad)


def lemma_5_1_proof(formula: Sequence[tuple], derivative: Sequence[tuple]) -> Claim:
    """The proof's error mu_e/(Mn) + s2 (M-1)/M equals Cor 4.3, and its derivative (s2 n - mu_e)/(n M^2) the exact one."""
    ok_f, found_f = _equal(formula)
    ok_d, found_d = _equal(derivative)
    states = "equal n: err = mu_e/(Mn) + s2 (M-1)/M, d err/dM = (s2 n - mu_e)/(n M^2)"
    return _claim(
        "Lemma 5.1", "proof", states, f"error vs Cor 4.3: {found_f}; derivative vs exact: {found_d}", ok_f and ok_d
    )


def corollary_5_2(cores: Mapping[tuple[int, int], set]) -> list[Claim]:
    """Uniform, equal sizes: core = {pi_g} below mu_e/s2, {pi_l} above, every partition at it (``cores[(M, n)]``)."""
    rows = []
    for regime, states in (
        ("<", "uniform, equal n < mu_e/s2: pi_g is the only core-stable partition"),
        ("=", "uniform, equal n = mu_e/s2: every partition is core-stable"),
        (">", "uniform, equal n > mu_e/s2: pi_l is the only core-stable partition"),
    ):
        side = {"<": -1, "=": 0, ">": 1}[regime]
        cases = {k: v for k, v in cores.items() if (k[1] > THRESHOLD) - (k[1] < THRESHOLD) == side}
        expected = {
            "<": lambda m: {(tuple(range(m)),)},
            ">": lambda m: {tuple((j,) for j in range(m))},
            "=": lambda m: set(st.set_partitions(m)),
        }[regime]
        bad = [k for k, core in cases.items() if core != expected(k[0])]
        found = f"(M, n) = {sorted(cases)}; differing: {bad or 'none'}"
        rows.append(_claim("Cor 5.2", f"n {regime} mu_e/s2", states, found, bool(cases) and not bad))
    return rows


def lemma_5_3(above: Sequence[tuple], at_or_above: Sequence[tuple]) -> list[Claim]:
    """Uniform: all n_i > mu_e/s2 => pi_l is the unique core element; all n_i >= mu_e/s2 with some > => every
    partition leaving the n_k > mu_e/s2 players alone is in the core (``(n, core)`` per instance)."""
    cases = [(n, core) for n, core in above if all(x > THRESHOLD for x in n)]
    bad = [n for n, core in cases if list(core) != [tuple((j,) for j in range(len(n)))]]
    first = _claim(
        "Lemma 5.3",
        "all n_i > mu_e/s2",
        "uniform, all n_i > mu_e/s2: pi_l is the unique element in the core",
        f"{len(cases)} random instances, M=2..5, n_i in 11..60; differing: {bad or 'none'}",
        bool(cases) and not bad,
    )
    cases = [(n, core) for n, core in at_or_above if all(x >= THRESHOLD for x in n) and any(x > THRESHOLD for x in n)]
    missing = 0
    for n, core in cases:
        for part in st.set_partitions(len(n)):
            if all(len(block) == 1 for block in part if any(n[j] > THRESHOLD for j in block)):
                missing += part not in core
    second = _claim(
        "Lemma 5.3",
        "all n_i >= mu_e/s2",
        "uniform, all n_i >= mu_e/s2, some >: every partition with the n_k > mu_e/s2 players alone is in the core",
        f"{len(cases)} random instances, M=2..5, n_i in {{10, 11..40}}; such partitions outside the core: {missing}",
        bool(cases) and missing == 0,
    )
    return [first, second]


def theorem_5_4(instances: Sequence[tuple]) -> Claim:
    """Uniform, n_s < n_l <= mu_e/s2: pi_g is core stable (``(n_s, n_l, S, L, blockers of pi_g)`` per instance)."""
    cases = [i for i in instances if i[0] < i[1] <= THRESHOLD]
    bad = [i[:4] for i in cases if i[4]]
    return _claim(
        "Thm 5.4",
        "statement",
        "uniform, n_s < n_l <= mu_e/s2: the grand coalition is core stable",
        f"{len(cases)} two-type instances, n_l <= 10; blocked: {bad or 'none'}",
        bool(cases) and not bad,
    )


def theorem_5_5(instances: Sequence[tuple]) -> Claim:
    """Uniform, n_s < mu_e/s2 < n_l: the proof's construction is individually stable (``(n_s, n_l, S, L, partition,
    profitable single moves, blocking coalitions)`` per instance)."""
    cases = [i for i in instances if i[0] < THRESHOLD < i[1]]
    bad = [i[:4] for i in cases if i[5]]
    not_core = sum(bool(i[6]) for i in cases)
    return _claim(
        "Thm 5.5",
        "statement",
        "uniform, n_l > mu_e/s2 (Case 3: n_s < mu_e/s2): the constructed arrangement is individually stable",
        f"{len(cases)} two-type instances; with a profitable move: {bad or 'none'}",
        bool(cases) and not bad,
        f"{not_core} of them are not core stable (the theorem claims individual stability only)",
    )


# ------------------------------------------------------------------------------------------ App. C uniform
DERIVATIVES = {
    "C.1": "d err_S / d s",
    "C.2": "d err_L / d l",
    "C.3": "d err_S / d l",
}
THRESHOLDS = {"C.2": "l", "C.3": "l", "C.4": "s"}


def appendix_c_derivatives(
    derivatives: Mapping[str, Sequence[tuple]], c4_corrected: Sequence[tuple], thresholds: Mapping[str, Sequence]
) -> list[Claim]:
    """Each printed derivative against the exact one at rational points (pairs (exact, printed)), and each printed
    sign-change threshold (the exact derivative there, which must be 0)."""
    rows = []
    for lemma, what in DERIVATIVES.items():
        ok, found = _equal(derivatives[lemma])
        rows.append(_claim(f"Lemma {lemma}", "derivative", f"printed {what}", f"{found} (exact, rational points)", ok))
    printed_ok, printed_found = _equal(derivatives["C.4"])
    corrected_ok, corrected_found = _equal(c4_corrected)
    rows.append(
        _erratum(
            "Lemma C.4",
            "derivative",
            "printed d err_L / d s = n_s l n_l (mu_e - n_s s2)/(...)^3 - n_s^2 s (...)/(...)^3",
            "the first term's sign is negative: -n_s l n_l (mu_e - n_s s2)/(l n_l + s n_s)^3",
            not printed_ok,
            corrected_ok,
            f"printed: {printed_found}; corrected: {corrected_found} (exact, rational points)",
        )
    )
    for lemma, wrt in THRESHOLDS.items():
        zeros = sum(d == 0 for d in thresholds[lemma])
        rows.append(
            _claim(
                f"Lemma {lemma}",
                "threshold",
                f"the sign of the derivative in {wrt} changes at the printed {wrt}_0",
                f"exact derivative is 0 at {zeros} of {len(thresholds[lemma])} rational points",
                bool(thresholds[lemma]) and zeros == len(thresholds[lemma]),
            )
        )
    return rows


def _steps(grid: Mapping, top: int, k: int, along: str) -> list[tuple[int, int, int, int, Fraction]]:
    """(n_s, n_l, s, l, change of err[k] from pi(s, l) to one more player of type ``along``) over every grid cell."""
    out = []
    for (n_s, n_l), e in grid.items():
        for s in range(top + 1):
            for l in range(top + 1):
                nxt = (s + 1, l) if along == "s" else (s, l + 1)
                if (s, l) in e and e[(s, l)][k] is not None and e[nxt][k] is not None:
                    out.append((n_s, n_l, s, l, e[nxt][k] - e[(s, l)][k]))
    return out


def appendix_c_monotonicity(grid: Mapping, top: int) -> list[Claim]:
    """Lemmas C.1-C.4 on exact uniform errors of pi(s, l), s, l <= ``top`` (``grid[(n_s, n_l)][(s, l)]``)."""
    grid_text = f"n_s in 1..10, n_l in {{n_s+1, 10, 11, 15, 30, 100}}, s,l <= {top}"
    rows = []
    c1 = [x for x in _steps(grid, top, 0, "s") if x[0] <= THRESHOLD and x[0] < x[1] and x[2] >= 1]
    not_strict = [x[:4] for x in c1 if x[4] >= 0]
    boundary_flat = all(x[0] == THRESHOLD and x[3] == 0 and x[4] == 0 for x in c1 if x[4] >= 0)
    rows.append(
        _erratum(
            "Lemma C.1",
            "monotone",
            "uniform, n_s <= mu_e/s2, n_s < n_l: err_S strictly decreases with more small players (every l >= 0)",
            "strict except at n_s = mu_e/s2 with l = 0, where err_S = s2 for every s (Lemma 5.1)",
            bool(not_strict),
            bool(c1) and boundary_flat,
            f"{len(c1)} steps in s on {grid_text}; not decreasing: {len(not_strict)} {not_strict[:3]}",
        )
    )
    c2 = [x for x in _steps(grid, top, 1, "l") if x[1] >= THRESHOLD and x[0] < x[1] and x[3] >= 1]
    not_strict = [x[:4] for x in c2 if x[4] <= 0]
    boundary_flat = all(x[1] == THRESHOLD and x[2] == 0 and x[4] == 0 for x in c2 if x[4] <= 0)
    rows.append(
        _erratum(
            "Lemma C.2",
            "monotone",
            "uniform, n_l >= mu_e/s2, n_s < n_l: err_L strictly increases with more large players (every s >= 0)",
            "strict except at n_l = mu_e/s2 with s = 0, where err_L = s2 for every l (Lemma 5.1)",
            bool(not_strict),
            bool(c2) and boundary_flat,
            f"{len(c2)} steps in l on {grid_text}; not increasing: {len(not_strict)} {not_strict[:3]}",
        )
    )
    c3 = [x for x in _steps(grid, top, 0, "l") if x[0] < x[1] <= THRESHOLD and x[2] >= 1]
    bad = [x[:4] for x in c3 if x[4] >= 0]
    rows.append(
        _claim(
            "Lemma C.3",
            "monotone",
            "uniform, n_s < n_l <= mu_e/s2: small players always prefer more large players",
            f"{len(c3)} steps in l on {grid_text}; not decreasing: {len(bad)} {bad[:3]}",
            bool(c3) and not bad,
        )
    )
    for regime, states in (
        (">=", "uniform, n_s <= mu_e/s2 <= n_l: err_L in s is first decreasing, then increasing"),
        ("<", "uniform, n_s < n_l < mu_e/s2: err_L in s changes direction at most once"),
    ):
        bad, curves = [], 0
        for (n_s, n_l), e in grid.items():
            if n_s > THRESHOLD or (n_l >= THRESHOLD) != (regime == ">="):
                continue
            for l in range(1, top + 1):
                curves += 1
                signs = [d > 0 for d in (e[(s + 1, l)][1] - e[(s, l)][1] for s in range(top + 1)) if d != 0]
                changes = sum(a != b for a, b in zip(signs, signs[1:]))
                ok = signs == sorted(signs) if regime == ">=" else changes <= 1
                if not ok:
                    bad.append((n_s, n_l, l))
        rows.append(
            _claim(
                "Lemma C.4",
                f"shape, n_l {regime} mu_e/s2",
                states,
                f"{curves} curves err_L(s), s <= {top + 1}; violating: {bad or 'none'}",
                bool(curves) and not bad,
            )
        )
    return rows


def lemma_c5(identity: Sequence[tuple], search: Mapping, context: Sequence[tuple]) -> list[Claim]:
    """Lemma C.5: its proof's identity, and the statement as printed (both types prefer the coalition with more
    small players), reversed, and reversed in the Thm 5.5 context the proof relies on."""
    ok, found = _equal(identity)
    rows = [
        _claim(
            "Lemma C.5",
            "proof identity",
            "err_S(s, l) = err_L(s, l) + 2 s2 (n_l - n_s)/(l n_l + s n_s)",
            f"{found}; (n_s, n_l) in {{(1,11),(5,25),(9,100),(3,7)}}, s,l <= 5",
            ok,
        )
    ]
    literal, reversed_ = [], []
    for (n_s, n_l), e in search.items():
        cells = [c for c in e if c[0] >= 1 and c[1] >= 1]
        for s1, l1 in cells:
            for s2, l2 in cells:
                if s2 < s1:
                    a, b = e[(s1, l1)], e[(s2, l2)]
                    if a[0] < b[0] and a[1] < b[1]:
                        literal.append((n_s, n_l, (s1, l1), (s2, l2)))
                    if b[0] < a[0] and b[1] < a[1]:
                        reversed_.append((n_s, n_l, (s1, l1), (s2, l2)))
    violations = [
        (inst, (s2, l2))
        for inst, l1, errs in context
        for (s2, l2), e2 in errs.items()
        if s2 < inst[2] and e2[0] < errs[(inst[2], l1)][0] and e2[1] < errs[(inst[2], l1)][1]
    ]
    rows.append(
        _erratum(
            "Lemma C.5",
            "statement",
            "uniform, s2 < s1: no l2 gives pi(s1,l1) >_S pi(s2,l2) and pi(s1,l1) >_L pi(s2,l2)",
            "reversed (no pi(s2 < s1, l2) preferred by both types), and only with (s1, l1) = (S, l') of the Thm 5.5 "
            "arrangement; reversed but general it is false too",
            bool(literal),
            bool(context) and not violations and bool(reversed_),
            f"search over s <= 30, l <= 5 on {len(search)} (n_s, n_l): as printed {len(literal)} counterexamples "
            f"(first {literal[:1]}), reversed {len(reversed_)} (first {reversed_[:1]}); Thm 5.5 context: "
            f"{len(violations)} violations in {len(context)} instances with l' > 0",
        )
    )
    return rows


# ------------------------------------------------------------------------------------------- §6 coarse
def lemma_6_1_and_6_3(minima: Sequence[Mapping[str, Fraction]]) -> list[Claim]:
    """Each player's error is the quadratic e0 + b w + a w^2 in its coarse weight w (Cor 4.4); from its exact
    coefficients: the minimiser, the printed w*, the minimum against local learning and Lemma 6.3's closed form."""
    bad_min, bad_w, bad_form = 0, 0, 0
    for m in minima:
        w = -m["b"] / (2 * m["a"]) if m["a"] > 0 else None
        best = m["e0"] + m["b"] * w + m["a"] * w * w if w is not None else None
        bad_min += w is None or not (w < 1 and best < m["local"])
        bad_w += w is None or m["w_printed"] != w
        bad_form += best is None or m["closed_form"] != best
    grid = f"{len(minima)} players of random coalitions (M=2..6, n_i < 300, random mu_e, s2), exact"
    return [
        _claim(
            "Lemma 6.1",
            "statement",
            "coarse federation: the minimum error is achieved at w_j < 1, so federation beats local learning",
            f"{grid}; minimiser >= 1 or minimum >= local error: {bad_min}",
            bool(minima) and bad_min == 0,
        ),
        _claim(
            "Lemma 6.1",
            "proof",
            "w* = B s2 / (mu_e N^2 (1/n_j - 1/N) + B s2) is the minimiser",
            f"{grid}; printed w* differs from the exact minimiser: {bad_w}",
            bool(minima) and bad_w == 0,
        ),
        _claim(
            "Lemma 6.3",
            "statement",
            "optimal coarse error = (mu_e (N - n_j) + B s2) / ((N - n_j) N + n_j B s2/mu_e)",
            f"{grid}; closed form differs from the exact minimum: {bad_form}",
            bool(minima) and bad_form == 0,
        ),
    ]


def corollary_6_2(instances: Sequence[tuple]) -> Claim:
    """Optimal coarse: pi_g is always individually stable (``(n, individually stable partitions)`` per instance)."""
    bad = [n for n, stable in instances if (tuple(range(len(n))),) not in stable]
    return _claim(
        "Cor 6.2",
        "statement",
        "optimal coarse: the grand coalition is always individually stable",
        f"{len(instances)} random instances, M=2..6, n_i < 300; not individually stable: {bad or 'none'}",
        bool(instances) and not bad,
    )


def lemma_6_4(equal: Mapping[tuple[int, int], tuple]) -> list[Claim]:
    """Optimal coarse, equal sizes: pi_g is the only core element; the proof's closed form (``(core, exact error,
    proof's formula)`` per (M, n))."""
    bad = [k for k, (core, _, _) in equal.items() if list(core) != [(tuple(range(k[0])),)]]
    ok, found = _equal([(exact, formula) for _, exact, formula in equal.values()])
    grid = f"(M, n): M in {sorted({k[0] for k in equal})}, n in {sorted({k[1] for k in equal})}"
    return [
        _claim(
            "Lemma 6.4",
            "statement",
            "mean estimation, optimal coarse, n_j = n: pi_g is the only element in the core",
            f"{grid}; differing: {bad or 'none'}",
            bool(equal) and not bad,
        ),
        _claim(
            "Lemma 6.4",
            "proof",
            "equal sizes: err = (mu_e^2/(nM) + mu_e s2)/(mu_e + n s2)",
            f"{grid}; {found}",
            ok,
        ),
    ]


def appendix_d(evidence: Mapping[str, Any], points: int) -> list[Claim]:
    """App. D: g/h forms of Lemma 6.3, printed numerators of d(g/h) and thresholds, at exact points."""
    rows = []
    ok, found = _equal(evidence["d1_gh"])
    rows.append(_claim("Lemma D.1", "g_S/h_S", "err_S = g_S/h_S is the optimal coarse error (Lemma 6.3)", found, ok))
    printed_ok, printed_found = _equal(evidence["d3_h_printed"])
    corrected_ok, corrected_found = _equal(evidence["d3_h_corrected"])
    rows.append(
        _erratum(
            "Lemma D.3",
            "h_L",
            "err_L = g_L/h_L with h_L = (s n_s + (l-1) n_l)^2 + n_s (s n_s + (l-1) n_l) + n_l s2/mu_e B_L",
            "the second term of h_L is n_l (s n_s + (l-1) n_l)",
            not printed_ok,
            corrected_ok,
            f"g_L/h_L vs Lemma 6.3 at integer instances: printed {printed_found}, corrected {corrected_found}",
        )
    )
    corrections = {
        "D.3": "the factor (l-1)(mu_e + n_s s2) is (l-1) n_l (mu_e + n_l s2)",
        "D.4": "the factor l n_l (mu_e + s2 (2 n_l - n_s)) is (l-1) n_l (mu_e + s2 (2 n_l - n_s))",
    }
    for lemma, pairs in evidence["numerators"].items():
        wrt = "s" if lemma in ("D.1", "D.4") else "l"
        printed_ok, printed_found = _equal(pairs["printed"])
        if pairs["corrected"] is None:
            rows.append(
                _claim(f"Lemma {lemma}", "derivative", f"printed g'h - gh' in {wrt}", printed_found, printed_ok)
            )
            continue
        corrected_ok, corrected_found = _equal(pairs["corrected"])
        rows.append(
            _erratum(
                f"Lemma {lemma}",
                "derivative",
                f"printed g'h - gh' in {wrt}",
                corrections[lemma],
                not printed_ok,
                corrected_ok,
                f"{points} rational points: printed {printed_found}, corrected {corrected_found}",
            )
        )
    corrections = {
        "D.2": "l_0 = -(s-1) n_s (mu_e + s2 (2 n_s - n_l)) / (n_l (mu_e + s2 n_l)): the factor (s-1) n_s is missing",
        "D.3": "l_1 = 1 - s n_s (mu_e + s2 (2 n_s - n_l)) / (n_l (mu_e + n_l s2))",
    }
    for lemma, at in evidence["d_thresholds"].items():
        printed_zeros = sum(d == 0 for d in at["printed"])
        corrected_zeros = sum(d == 0 for d in at["corrected"])
        rows.append(
            _erratum(
                f"Lemma {lemma}",
                "threshold",
                "the sign of d err / d l changes at the printed threshold",
                corrections[lemma],
                printed_zeros < len(at["printed"]),
                bool(at["corrected"]) and corrected_zeros == len(at["corrected"]),
                f"exact derivative is 0 at the printed threshold at {printed_zeros} of {len(at['printed'])} points, "
                f"at the corrected one at {corrected_zeros} of {len(at['corrected'])}",
            )
        )
    grid, top, thresholds = evidence["d_grid"], evidence["d_grid_top"], evidence["d_thresholds_grid"]
    grid_text = f"(n_s, n_l) in {sorted(grid)}, s,l <= {top}"
    checks = (
        ("D.1", 0, "s", lambda x: x[2] >= 1, "optimal coarse: err_S decreases with more small players"),
        (
            "D.2",
            0,
            "l",
            lambda x: x[2] >= 1 and x[3] > thresholds[("D.2", x[0], x[1], x[2])],
            "optimal coarse: err_S decreases with more large players for l > l_0",
        ),
        (
            "D.3",
            1,
            "l",
            lambda x: x[3] >= 1 and x[3] > thresholds[("D.3", x[0], x[1], x[2])],
            "optimal coarse: err_L decreases with more large players for l > l_1 (for every l >= 1 when s = 0)",
        ),
        ("D.4", 1, "s", lambda x: x[3] >= 1, "optimal coarse: err_L decreases with more small players"),
    )
    for lemma, k, along, applies, states in checks:
        steps = [x for x in _steps(grid, top, k, along) if applies(x)]
        bad = [x[:4] for x in steps if x[4] >= 0]
        found = f"{len(steps)} steps in {along} on {grid_text}; not decreasing: {len(bad)} {bad[:3]}"
        rows.append(_claim(f"Lemma {lemma}", "monotone", states, found, bool(steps) and not bad))
    return rows


def theorem_6_5(instances: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Theorem 6.5's two branches, as stated (a tie err_S(pi_g) = err_S(pi(S,0)) in the pi_d branch) and with the
    tie in the pi_g branch as its proof argues (per instance: both errors and each partition's strict blockers)."""
    strict = [i for i in instances if i["grand_S"] < i["alone_S"]]
    bad = [i["instance"] for i in strict if i["grand_blockers"]]
    rows = [
        _claim(
            "Thm 6.5",
            "pi_g branch",
            "optimal coarse, two types: pi_g >_S pi(S,0) implies pi_g is strictly core stable",
            f"{len(strict)} two-type instances; not strictly core stable: {bad or 'none'}",
            bool(strict) and not bad,
        )
    ]
    weak = [i for i in instances if i["grand_S"] >= i["alone_S"]]
    printed_bad = [i["instance"] for i in weak if i["split_blockers"]]
    ties = [i for i in weak if i["grand_S"] == i["alone_S"]]
    corrected_bad = [
        i["instance"] for i in weak if (i["grand_blockers"] if i["grand_S"] == i["alone_S"] else i["split_blockers"])
    ]
    rows.append(
        _erratum(
            "Thm 6.5",
            "pi_d branch",
            "pi_g <=_S pi(S,0) (weakly, ties included) implies {pi(S,0), pi(0,L)} is strictly core stable",
            "strict preference pi_g <_S pi(S,0) implies pi_d strictly core stable; at a tie pi_g is (the proof's case)",
            bool(printed_bad),
            bool(weak) and not corrected_bad,
            f"{len(weak)} instances in this branch, {len(ties)} exact ties; pi_d not strictly core stable in "
            f"{printed_bad or 'none'}; corrected rule fails in {corrected_bad or 'none'}",
        )
    )
    return rows


# -------------------------------------------------------------------------------------------- §7 fine
def lemma_7_1(weights: Sequence[Mapping[str, Sequence[Fraction]]]) -> list[Claim]:
    """Lemma 7.1's weights minimise Thm 4.2's error over sum v = 1 (a convex quadratic: equal partial derivatives,
    the KKT condition) and lie strictly between 0 and 1 (``weights``, ``partials`` per player)."""
    kkt = sum(len(set(w["partials"])) == 1 and sum(w["weights"]) == 1 for w in weights)
    inside = sum(all(0 < x < 1 for x in w["weights"]) for w in weights)
    grid = f"{len(weights)} players of random coalitions, M=2..6, exact"
    return [
        _claim(
            "Lemma 7.1",
            "minimiser",
            "v_jj = (1 + s2 sum 1/V_i)/(1 + V_j sum 1/V_i), v_jk = (V_j - s2)/(V_k (1 + V_j sum 1/V_i)) minimise err_j",
            f"{grid}; KKT (sum v = 1, equal partial derivatives of Thm 4.2's error) at {kkt} of {len(weights)}",
            bool(weights) and kkt == len(weights),
        ),
        _claim(
            "Lemma 7.1",
            "range",
            "v_jj and v_jk are always strictly between 0 and 1",
            f"{grid}; all weights in (0, 1) for {inside} of {len(weights)}",
            bool(weights) and inside == len(weights),
        ),
    ]


def corollary_7_2(best: Sequence[tuple]) -> Claim:
    """Optimal fine: pi_g is optimal for each player (``(n, [(error in pi_g, least error over coalitions)])``)."""
    bad = [(n, j) for n, players in best for j, (grand, least) in enumerate(players) if grand > least]
    return _claim(
        "Cor 7.2",
        "statement",
        "optimal fine-grained federation: pi_g is optimal for each player",
        f"{len(best)} random instances, M=2..6, every coalition; players better off elsewhere: {bad or 'none'}",
        bool(best) and not bad,
    )


def summary(instances: Sequence[Mapping[str, Any]]) -> Claim:
    """§5-§7: for two types the paper's results construct a stable partition (objections per instance)."""
    bad = [(i["method"], i["instance"], i["notion"]) for i in instances if i["objections"]]
    return _claim(
        "§5-§7",
        "two types: a stable partition exists",
        "for small and large players a stable partition always exists, constructed by Lemma 5.3, Thm 5.4, 5.5, "
        "6.5 and Cor 7.2 (under the notion each claims)",
        f"{len(instances)} instances over uniform, coarse, fine; objections in {bad or 'none'}",
        bool(instances) and not bad,
    )


def theorem_checks(evidence: Mapping[str, Any]) -> list[Claim]:
    """Every §5-§7 and App. C-D row, in the paper's order, from :func:`.experiment.theorem_evidence`."""
    s5, c, s6, s7 = evidence["section_5"], evidence["appendix_c"], evidence["section_6"], evidence["section_7"]
    return [
        lemma_5_1(s5["lemma_5_1_errors"]),
        lemma_5_1_proof(s5["lemma_5_1_formula"], s5["lemma_5_1_derivative"]),
        *corollary_5_2(s5["cor_5_2"]),
        *lemma_5_3(s5["lemma_5_3_above"], s5["lemma_5_3_at_or_above"]),
        theorem_5_4(s5["theorem_5_4"]),
        theorem_5_5(s5["theorem_5_5"]),
        *appendix_c_derivatives(c["derivatives"], c["c4_corrected"], c["thresholds"]),
        *appendix_c_monotonicity(c["grid"], c["grid_top"]),
        *lemma_c5(c["c5_identity"], c["c5_search"], c["c5_context"]),
        *lemma_6_1_and_6_3(s6["lemma_6_1"]),
        corollary_6_2(s6["cor_6_2"]),
        *lemma_6_4(s6["lemma_6_4"]),
        *appendix_d(s6, evidence["points"]),
        *theorem_6_5(s6["theorem_6_5"]),
        *lemma_7_1(s7["lemma_7_1"]),
        corollary_7_2(s7["cor_7_2"]),
        summary(evidence["summary"]),
    ]
