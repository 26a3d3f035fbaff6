"""Model-sharing Games (Donahue & Kleinberg, AAAI 2021): config block -> settings -> exact tables and curves.

Every table of §2 is recomputed exactly (Fractions) beside its printed cells, with every coalition's errors and
every partition's stability; Example C.6 is recomputed from sample sizes inferred from two printed values; the
Monte Carlo run and the two extra figures' data come from the settings. All results are tidy DataFrames. Whether a
value matches what the paper prints is decided in the claims (:mod:`.claims_printed`); the exact evidence of the
§4-§7 and App. C-D checks is computed in :mod:`.evidence`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from fairshare import seeding
from fairshare.games import model_sharing as ms
from fairshare.games import model_sharing_two_type as tt
from fairshare.games import stability as st
from fairshare.games.model_sharing_sim import MU_E, SIGMA2, simulate

__all__ = [
    "PAPER",
    "NAMES",
    "TABLE_4_POPULATION",
    "EXAMPLE_C6_COALITIONS",
    "SHAPES",
    "MonteCarlo",
    "PhaseGrid",
    "log_integers",
    "Settings",
    "round_like",
    "label",
    "mask",
    "partition",
    "TableResult",
    "table",
    "appendix_c",
    "consistent_sizes",
    "leave_one_out",
    "monte_carlo",
    "error_vs_size",
    "partition_shape",
    "phase_diagram",
]

PAPER = "model_sharing"
NAMES = "abcdefghij"
PAPER_MU, PAPER_SIGMA2 = 10, 1  # every table of §2 uses mu_e = 10, sigma2 = 1
TABLE_4_POPULATION = (3, 1)  # three small players and one large one (Tables 4-5), always drawn in the phase diagram
# Coalitions Example C.6 compares (App. C text): pi(70,3) vs pi(70,0) and pi(0,1), pi(70,4), pi(68,4), pi(68,3).
EXAMPLE_C6_COALITIONS = ((70, 3), (70, 0), (0, 1), (70, 4), (68, 4), (68, 3))
SHAPES = ("grand", "small | large", "small | large alone", "small + some large | rest alone", "all alone", "other")


@dataclass(frozen=True)
class MonteCarlo:
    """Simulated worlds and the three players' setup of the authors' notebooks 01/02."""

    worlds: int
    n: tuple[int, ...]
    w: tuple[float, ...]
    v: tuple[tuple[float, ...], ...]
    regression_sigma2_d: tuple[float, ...]


@dataclass(frozen=True)
class PhaseGrid:
    """Two-type phase diagram: S small and L large players, n_s = 1..n_max, n_l on a log-spaced integer axis."""

    S: int
    L: int
    n_max: int
    n_large: tuple[int, ...]


def log_integers(low: int, high: int, points: int) -> tuple[int, ...]:
    """About ``points`` distinct integers from low to high, evenly spaced on a log scale."""
    return tuple(sorted({int(round(x)) for x in np.geomspace(low, high, points)}))


@dataclass(frozen=True)
class Settings:
    """The ``model_sharing`` config block (defaults filled by the schema) and the run's root seed."""

    seed: int
    claims_grid: str
    appendix_c_L: tuple[int, ...]
    monte_carlo: MonteCarlo
    curve_sizes: tuple[int, ...]
    curve_max_players: int
    phase: PhaseGrid

    @classmethod
    def from_config(cls, block: Mapping[str, Any], seed: int) -> Settings:
        mc = block["monte_carlo"]
        return cls(
            seed=int(seed),
            claims_grid=block["claims_grid"],
            appendix_c_L=tuple(block["appendix_c_L"]),
            monte_carlo=MonteCarlo(
                worlds=mc["worlds"],
                n=tuple(mc["n"]),
                w=tuple(mc["w"]),
                v=tuple(tuple(row) for row in mc["v"]),
                regression_sigma2_d=tuple(mc["regression_sigma2_d"]),
            ),
            curve_sizes=tuple(block["curve_sizes"]),
            curve_max_players=block["curve_max_players"],
            phase=PhaseGrid(
                S=block["phase"]["S"],
                L=block["phase"]["L"],
                n_max=block["phase"]["n_max"],
                n_large=log_integers(2, block["phase"]["n_large_max"], block["phase"]["n_large_points"]),
            ),
        )


# ------------------------------------------------------------------------------------------------ helpers
def round_like(exact: Fraction, printed: str) -> str:
    """``exact`` rounded half-up to as many decimals as ``printed`` carries (computed exactly, no float)."""
    digits = max(0, -Decimal(printed).as_tuple().exponent)
    value = Decimal(exact.numerator) / Decimal(exact.denominator)
    return str(value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def label(players) -> str:
    """A coalition as the paper writes it: {a,b}."""
    return "{" + ",".join(NAMES[j] for j in players) + "}"


def mask(block) -> int:
    """Bitmask of a coalition (the key of :func:`fairshare.games.stability.coalition_table`)."""
    return sum(1 << k for k in block)


def partition(structure) -> st.Partition:
    """A coalition structure from the reference YAML in canonical (sorted) form."""
    return tuple(sorted(tuple(sorted(b)) for b in structure))


# ------------------------------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class TableResult:
    """One §2 table: its printed cells beside exact values (and those rounded to the printed precision), every
    coalition's errors, every partition's stability."""

    name: str
    cells: pd.DataFrame
    all_coalitions: pd.DataFrame
    stability: pd.DataFrame


def table(name: str, spec: Mapping[str, Any]) -> TableResult:
    """Recompute one printed table (``spec``: its entry in the reference YAML) exactly."""
    n, method = spec["n"], spec["method"]
    errors = st.coalition_table(n, mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=method)
    rows = []
    for entry in spec["rows"]:
        structure = partition(entry["structure"])
        for player, printed in entry["printed"].items():
            printed = str(printed)
            exact = errors[mask(next(b for b in structure if player in b))][player]
            rows.append(
                {
                    "table": name,
                    "method": method,
                    "structure": st.describe(structure),
                    "player": NAMES[player],
                    "n": n[player],
                    "exact": str(exact),
                    "value": float(exact),
                    "rounded": round_like(exact, printed),
                    "printed": printed,
                }
            )
    full = [
        {"coalition": label(st.mask_to_players(m)), "player": NAMES[j], "n": n[j], "exact": str(e), "value": float(e)}
        for m, row in errors.items()
        for j, e in row.items()
    ]
    stable = {
        notion: set(st.stable_partitions(n, mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=method, notion=notion))
        for notion in st.NOTIONS
    }
    printed_rows = {partition(entry["structure"]) for entry in spec["rows"]}
    report = [
        {
            "partition": st.describe(part),
            **{notion: part in stable[notion] for notion in st.NOTIONS},
            "in_printed_table": part in printed_rows,
            "core_blocking": ";".join(label(b) for b in st.blocking_coalitions(part, errors)),
            "strict_core_blocking": ";".join(label(b) for b in st.blocking_coalitions(part, errors, strict=True)),
        }
        for part in st.set_partitions(len(n))
    ]
    return TableResult(name, pd.DataFrame(rows), pd.DataFrame(full), pd.DataFrame(report))


# --------------------------------------------------------------------------------------------- appendix C
def appendix_c(ref: Mapping[str, Any], large_counts: tuple[int, ...]) -> tuple[dict, pd.DataFrame]:
    """Example C.6 (``ref``: the reference's ``appendix_c``): printed values, the sample sizes inferred from two of
    them, and the Thm 5.5 output's stability for each number of large players L. Returns (report, core-vs-L table)."""
    mu, s2, S = Fraction(ref["mu_e"]), Fraction(ref["sigma2"]), ref["S"]
    printed = {r["quantity"]: Fraction(r["value"]) for r in ref["printed"]}
    # The paper never states n_s, n_l (docs/model_sharing.md); invert two printed values: err_L(pi(0,1)) = mu_e / n_l, and
    # err_S(pi(S,0)) = mu_e/(S n_s) + s2 (S-1)/S (uniform federation of S equal small players, Lemma 5.1).
    n_l = round(mu / printed["err_L(pi(0,1))"])
    n_s = round(mu / (S * (printed["err_S(pi(70,0))"] - s2 * (S - 1) / S)))
    game = st.TwoTypeGame(n_s, n_l, S, max(large_counts), mu_e=mu, sigma2=s2, method="uniform")
    values = []
    for r in ref["printed"]:
        es, el = game.err(r["s"], r["l"])
        exact = es if r["type"] == "S" else el
        values.append(
            {
                "quantity": r["quantity"],
                "printed": r["value"],
                "exact": str(exact),
                "reproduced": round_like(exact, r["value"]),
            }
        )
    core_rows = []
    for L in large_counts:
        g = st.TwoTypeGame(n_s, n_l, S, L, mu_e=mu, sigma2=s2, method="uniform")
        p = st.theorem_5_5_partition(g)
        blockers = g.blocking(p)
        core_rows.append(
            {
                "L": L,
                "partition": st.describe_typed(p),
                "l_prime": max(l for s, l in p if s == S),
                "individually_stable": g.is_individually_stable(p),
                "core_stable": not blockers,
                "blocking_coalitions": ";".join(f"pi({s},{l})" for s, l in blockers),
                "blockers_err_S": ";".join(f"{float(g.err(s, l)[0]):.6f}" for s, l in blockers),
                "blockers_err_L": ";".join(f"{float(g.err(s, l)[1]):.6f}" for s, l in blockers),
            }
        )
    report = {
        "mu_e": str(mu),
        "sigma2": str(s2),
        "S": S,
        "inferred_n_s": n_s,
        "inferred_n_l": n_l,
        "inference": "n_l = mu_e / err_L(pi(0,1)); n_s = mu_e / (S (err_S(pi(S,0)) - s2 (S-1)/S)); the paper does not "
        "print them (the authors' notebook uses the same 11 and 106)",
        "values": values,
        "extra_values": {
            "err_S(pi(70,4))": f"{float(game.err(70, 4)[0]):.6f}",
            "err_S(pi(67,4))": f"{float(game.err(67, 4)[0]):.6f}",
            "err_L(pi(67,4))": f"{float(game.err(67, 4)[1]):.6f}",
            "err_L(pi(68,3))": f"{float(game.err(68, 3)[1]):.6f}",
        },
        "errors": {
            f"pi({a},{b})": {k: str(e) for k, e in zip(("err_S", "err_L"), game.err(a, b)) if e is not None}
            for a, b in EXAMPLE_C6_COALITIONS
        },
        "leave_one_out": leave_one_out(ref["printed"], mu, s2),
        "theorem_5_5_partition_by_L": {row["L"]: row["partition"] for row in core_rows},
        "core_vs_L": core_rows,
        "errata": [
            "'we cannot add another large player to the pi(70, 30) coalition' should read pi(70, 3)",
            "'pi(68, 3) >_L pi(0, 1)' should read pi(68, 4) (the printed 0.943147 is err_L(pi(68, 4)))",
        ],
    }
    return report, pd.DataFrame(core_rows)


def consistent_sizes(printed: list[Mapping[str, Any]], mu: Fraction, s2: Fraction) -> list[tuple[int, int]]:
    """Every integer (n_s, n_l) with n_s < mu_e/s2 < n_l <= 10 mu_e/s2 (Case 3 of §5, the setting of Example C.6) at
    which each of ``printed``'s uniform two-type errors rounds to its printed value (float search, exact check)."""
    threshold = int(mu / s2)
    n_s = np.arange(1, threshold)[:, None].astype(float)
    n_l = np.arange(threshold + 1, 10 * threshold + 1)[None, :].astype(float)
    ok = np.ones((n_s.shape[0], n_l.shape[1]), dtype=bool)
    for r in printed:
        f = tt.err_small_uniform if r["type"] == "S" else tt.err_large_uniform
        half = 0.5 * 10.0 ** -max(0, -Decimal(r["value"]).as_tuple().exponent)
        ok &= np.abs(f(r["s"], r["l"], n_s, n_l, float(mu), float(s2)) - float(r["value"])) <= half * (1 + 1e-9)
    found = []
    for i, k in zip(*np.nonzero(ok)):
        pair = (int(n_s[i, 0]), int(n_l[0, k]))
        if all(round_like(_typed_error(r, *pair, mu, s2), r["value"]) == r["value"] for r in printed):
            found.append(pair)
    return found


def _typed_error(r: Mapping[str, Any], n_s: int, n_l: int, mu: Fraction, s2: Fraction) -> Fraction:
    es, el = ms.two_type_errors(r["s"], r["l"], n_s, n_l, mu_e=mu, sigma2=s2, method="uniform")
    return es if r["type"] == "S" else el


def leave_one_out(printed: list[Mapping[str, Any]], mu: Fraction, s2: Fraction) -> list[dict[str, Any]]:
    """Each printed Example C.6 value recomputed at every (n_s, n_l) the other six printed values allow, so that no
    value is compared with a number inferred from itself."""
    out = []
    for k, r in enumerate(printed):
        pairs = consistent_sizes([q for i, q in enumerate(printed) if i != k], mu, s2)
        out.append(
            {
                "quantity": r["quantity"],
                "printed": r["value"],
                "sizes_from_the_others": [list(p) for p in pairs],
                "reproduced": [round_like(_typed_error(r, *p, mu, s2), r["value"]) for p in pairs],
            }
        )
    return out


# ------------------------------------------------------------------------------------- simulation, curves
def monte_carlo(settings: Settings) -> pd.DataFrame:
    """Simulated vs closed-form error per task (mean estimation, regression), method and player."""
    cfg = settings.monte_carlo
    n, w, v = list(cfg.n), list(cfg.w), np.array(cfg.v, float)
    rows = []
    for task, sigma2_d in (("mean", None), ("regression", list(cfg.regression_sigma2_d))):
        rng = seeding.generator(settings.seed, "game", 2, 0 if task == "mean" else 1)
        sim = simulate(n, w, v, worlds=cfg.worlds, rng=rng, sigma2_d=sigma2_d)
        for method, (mean, se) in sim.items():
            weights = {"coarse": w, "fine": v}.get(method)
            if task == "mean":
                exact = ms.errors(n, mu_e=MU_E, sigma2=SIGMA2, method=method, weights=weights)
            else:
                exact = ms.regression_errors(n, mu_e=MU_E, sigma2_d=sigma2_d, method=method, weights=weights)
            for j in range(len(n)):
                rows.append(
                    {
                        "task": task,
                        "method": method,
                        "player": j,
                        "n": n[j],
                        "worlds": cfg.worlds,
                        "simulated": mean[j],
                        "se": se[j],
                        "exact": exact[j],
                        "z": (mean[j] - exact[j]) / se[j],
                    }
                )
    return pd.DataFrame(rows)


def error_vs_size(settings: Settings) -> pd.DataFrame:
    """Error of one of M equal players (n samples each) per federation method (Lemmas 5.1, 6.4)."""
    return pd.DataFrame(
        [
            {
                "n": n,
                "M": m,
                "method": method,
                "error": float(ms.errors([n] * m, mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=method)[0]),
            }
            for n in settings.curve_sizes
            for m in range(1, settings.curve_max_players + 1)
            for method in ("uniform", "coarse", "fine")
        ]
    )


def partition_shape(typed_partition: st.TypedPartition, S: int, L: int) -> str:
    """Name of a typed partition's shape, comparable across populations (S, L)."""
    blocks = sorted(typed_partition, reverse=True)
    if blocks == [(S, L)]:
        return SHAPES[0]
    if blocks == sorted([(S, 0), (0, L)], reverse=True):
        return SHAPES[1]
    if all(s + l == 1 for s, l in blocks):
        return SHAPES[4]
    rest = [b for b in blocks if b != (0, 1)]  # everything but the lone large players
    if len(rest) == 1 and rest[0][0] == S:
        return SHAPES[2] if rest[0][1] == 0 else SHAPES[3]
    return SHAPES[5]


def phase_diagram(settings: Settings) -> pd.DataFrame:
    """Stable typed partitions over (n_s, n_l) for Table 4's population and the configured one, per method."""
    ph = settings.phase
    populations = dict.fromkeys([TABLE_4_POPULATION, (ph.S, ph.L)])  # the paper's own population first
    rows = []
    for S, L in populations:
        for method, notion in (("uniform", "core"), ("coarse", "strict_core"), ("fine", "core")):
            for n_s in range(1, ph.n_max + 1):
                for n_l in ph.n_large:
                    if n_l <= n_s:
                        continue
                    game = st.TwoTypeGame(n_s, n_l, S, L, mu_e=PAPER_MU, sigma2=PAPER_SIGMA2, method=method)
                    stable = game.stable(notion)
                    paper, paper_notion, source = st.paper_partition(game)
                    shapes = {partition_shape(p, S, L) for p in stable}
                    rows.append(
                        {
                            "method": method,
                            "notion": notion,
                            "S": S,
                            "L": L,
                            "n_s": n_s,
                            "n_l": n_l,
                            "stable": " | ".join(st.describe_typed(p) for p in stable) or "none",
                            "stable_shapes": " & ".join(x for x in SHAPES if x in shapes) or "none",
                            "paper_partition": st.describe_typed(paper),
                            "paper_notion": paper_notion,
                            "paper_source": source,
                            "paper_partition_in_set": paper in stable,
                        }
                    )
    return pd.DataFrame(rows)
