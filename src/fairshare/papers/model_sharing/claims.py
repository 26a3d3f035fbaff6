"""Model-sharing Games: every scorecard row, judged from this run's results and evidence.

One entry point, :func:`claims`. The rows of the printed numbers (Tables 1-5, §2 stability statements, Example C.6)
are in :mod:`.claims_printed`, the theorem checks of §5 and App. C (uniform federation) in :mod:`.claims_uniform`,
those of §6-§7 and App. D (optimal coarse and fine-grained federation) in :mod:`.claims_weighted`; the §4 Monte Carlo
rows are here. Every function takes computed values (tables, the Appendix C report, the Monte Carlo table, the
evidence of :func:`.evidence.theorem_evidence`) and returns Claim records; none computes what it judges. ``claim``
rows test a statement as the paper states it; ``printed`` rows compare a printed number at its printed precision;
``erratum`` rows are statements whose printed form fails: the row matches only when, on this run, the printed form
fails and the corrected one holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from fairshare.papers.model_sharing import claims_printed, claims_uniform, claims_weighted
from fairshare.papers.model_sharing.evidence import cor_4_4_printed_display
from fairshare.papers.model_sharing.experiment import PAPER, Settings
from fairshare.pipeline.report import Claim, erratum_outcome

__all__ = ["Z_MAX", "claims"]

# |z| of a Monte Carlo mean against a closed form: a two-sided normal tail of 6e-5 per value, so a correct formula
# passes all 24 values with probability above 0.998, and a wrong one is rejected once the error exceeds 4 s.e.
Z_MAX = 4.0


# ------------------------------------------------------------------------------------- §4: Monte Carlo
_THEOREMS_4 = {
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


def _monte_carlo(table: pd.DataFrame, printed_display: Mapping[tuple[int, int], float]) -> list[Claim]:
    """Thms 4.1-4.2 and Cors 4.3-4.4 against simulation (|z| <= Z_MAX per player), and Cor 4.4's Gaussian display
    as printed (``printed_display``: player j's error read with another player i's D/(n_i - D - 1))."""
    rows = []
    for method, (artifact, states) in _THEOREMS_4.items():
        tasks = ("mean",) if method == "coarse" else ("mean", "regression")
        sub = table[(table.method == method) & table.task.isin(tasks)]
        worst = float(sub.z.abs().max())
        found = f"largest |z| = {worst:.2f} over {len(sub)} (task, player) values, {int(sub.worlds.max())} worlds"
        rows.append(
            Claim.statement(
                paper=PAPER,
                artifact=artifact,
                claim="closed form vs Monte Carlo",
                paper_states=states,
                reproduced=found,
                holds=bool(len(sub)) and worst <= Z_MAX,
            )
        )
    coarse = table[(table.method == "coarse") & (table.task == "regression")].set_index("player")
    z_printed = {
        (j, i): (coarse.loc[j, "simulated"] - value) / coarse.loc[j, "se"] for (j, i), value in printed_display.items()
    }
    best = {j: min(abs(z) for (jj, _), z in z_printed.items() if jj == j) for j in coarse.index}
    printed_fails = any(z > Z_MAX for z in best.values())
    corrected = float(coarse.z.abs().max())
    corrected_holds = corrected <= Z_MAX
    rows.append(
        Claim.erratum(
            paper=PAPER,
            artifact="Cor 4.4",
            claim="Gaussian regression display vs Monte Carlo",
            paper_states="err_j = mu_e (1-w)^2 sum_i n_i^2/N^2 D/(n_i-D-1) + mu_e (w^2 + 2(1-w)w n_j/N) D/(n_i-D-1) + ...",
            reproduced=f"{erratum_outcome(printed_fails, corrected_holds)}; printed, best other player i per j: "
            f"|z| = {', '.join(f'{abs(z):.1f}' for z in best.values())}; corrected: largest |z| = {corrected:.2f}",
            holds=printed_fails and corrected_holds,
            note="corrected: the second term's factor is D/(n_j - D - 1) (zeta_j)",
        )
    )
    return rows


def _theorem_checks(evidence: Mapping[str, Any]) -> list[Claim]:
    """Every §5-§7 and App. C-D row, in the paper's order, from :func:`.evidence.theorem_evidence`."""
    s5, c, s6, s7 = evidence["section_5"], evidence["appendix_c"], evidence["section_6"], evidence["section_7"]
    u, w = claims_uniform, claims_weighted
    return [
        u.lemma_5_1(s5["lemma_5_1_errors"]),
        u.lemma_5_1_proof(s5["lemma_5_1_formula"], s5["lemma_5_1_derivative"]),
        *u.corollary_5_2(s5["cor_5_2"]),
        *u.lemma_5_3(s5["lemma_5_3_above"], s5["lemma_5_3_at_or_above"]),
        u.theorem_5_4(s5["theorem_5_4"]),
        u.theorem_5_5(s5["theorem_5_5"]),
        *u.appendix_c_derivatives(c["derivatives"], c["c4_corrected"], c["thresholds"]),
        *u.appendix_c_monotonicity(c["grid"], c["grid_top"]),
        *u.lemma_c5(c["c5_identity"], c["c5_search"], c["c5_context"]),
        *w.lemma_6_1_and_6_3(s6["lemma_6_1"]),
        w.corollary_6_2(s6["cor_6_2"]),
        *w.lemma_6_4(s6["lemma_6_4"]),
        *w.appendix_d(s6, evidence["points"]),
        *w.theorem_6_5(s6["theorem_6_5"]),
        *w.lemma_7_1(s7["lemma_7_1"]),
        w.corollary_7_2(s7["cor_7_2"]),
        w.corollary_7_2_core(s7["cor_7_2_core"]),
        w.summary(evidence["summary"]),
    ]


def claims(results: Mapping[str, Any], settings: Settings) -> list[Claim]:
    """The rows of the results present, in the paper's order. ``tables`` (:func:`.experiment.table` of each
    ``reference`` table), ``appendix_c`` and ``core_vs_l`` (:func:`.experiment.appendix_c`): every printed number and
    §2 stability statement; ``monte_carlo`` (:func:`.experiment.monte_carlo`): Thms 4.1-4.2, Cors 4.3-4.4, with Cor
    4.4's printed display read at ``settings``' Monte Carlo setup; ``theorems`` (:func:`.evidence.theorem_evidence`):
    §5-§7 and App. C-D."""
    unknown = sorted(set(results) - {"reference", "tables", "appendix_c", "core_vs_l", "monte_carlo", "theorems"})
    if unknown:
        raise ValueError(f"no model-sharing claims for results {unknown}")
    rows = []
    if "tables" in results:
        printed = claims_printed.printed_values
        rows += printed(results["reference"], results["tables"], results["appendix_c"], results["core_vs_l"])
    if "monte_carlo" in results:
        rows += _monte_carlo(results["monte_carlo"], cor_4_4_printed_display(settings))
    if "theorems" in results:
        rows += _theorem_checks(results["theorems"])
    return rows
