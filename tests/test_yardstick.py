"""The paper's effect as the yardstick (issue 42 item 2): the minimum detectable effect against a hand computation,
each kind of non-match, the effects file's entries and their coverage of the committed scorecards' training rows."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from fairshare.errors import UserError
from fairshare.pipeline import readme_numbers, report
from fairshare.pipeline import verdicts as v
from fairshare.pipeline import yardstick as y

ROOT = Path(__file__).resolve().parents[1]
EFFECTS = ROOT / y.EFFECTS_FILE
COMMITTED = [ROOT / "metrics" / "default" / "scorecard.csv", ROOT / "metrics" / "cpu_scale" / "scorecard.csv"]
SEEDS = [0.01, 0.03, -0.02, 0.04, 0.00]


def test_the_mde_is_the_t_quantiles_times_the_standard_error():
    # By hand: mean 0.012, deviations -0.002 0.018 -0.032 0.028 -0.012, squares summing to 0.00228, sd sqrt(0.00057);
    # t(0.975, 4) = 2.776445, t(0.80, 4) = 0.940965 (printed tables).
    sd = math.sqrt(0.00228 / 4)
    expected = (2.776445 + 0.940965) * sd / math.sqrt(5)
    assert v.minimum_detectable_effect(v.interval(SEEDS)) == pytest.approx(expected, rel=1e-5)
    assert expected == pytest.approx(0.03969, abs=1e-5)
    # The verdict's interval (flipped by `lower`) has the same spread, so the same MDE; too few seeds give none.
    assert v.verdict_mde(v.lower(v.interval(SEEDS))) == pytest.approx(expected, rel=1e-5)
    assert math.isnan(v.minimum_detectable_effect(v.interval([0.1])))
    assert math.isnan(v.verdict_mde(v.spread_decreases(SEEDS, SEEDS)))


def test_a_statement_over_settings_takes_its_largest_single_mde_and_a_pooled_one_its_own():
    wide = [0.10, -0.05, 0.12, -0.08, 0.02]
    settings = {"a": v.higher(v.interval(SEEDS)), "b": v.higher(v.interval(wide))}
    largest = v.minimum_detectable_effect(v.interval(wide))
    assert largest > v.minimum_detectable_effect(v.interval(SEEDS))
    assert v.verdict_mde(v.every(settings)) == pytest.approx(largest)
    pooled = v.most(settings)
    assert pooled.interval is not None and pooled.p_against is not None
    half = (pooled.interval.high - pooled.interval.low) / 2
    # 10 pooled values: t(0.975, 9) = 2.262157, t(0.80, 9) = 0.883427 (printed tables).
    assert v.verdict_mde(pooled) == pytest.approx(half * (2.262157 + 0.883427) / 2.262157, rel=1e-5)


def test_a_comparison_row_carries_its_mde_and_the_oriented_interval_it_was_decided_on():
    row = report.Claim.comparison(
        paper="p",
        artifact="Table 1",
        claim="A below B",
        paper_states="A < B",
        reproduced="",
        verdict=v.lower(v.interval(SEEDS)),
    )
    decision = y.parse_decision(row.decision)
    iv = v.interval(SEEDS)
    assert decision == y.Decision("side", pytest.approx(-iv.high, abs=1e-6), pytest.approx(-iv.low, abs=1e-6), 0.0)
    assert float(row.mde) == pytest.approx(0.03969, abs=1e-4)
    over = report.Claim.comparison(
        paper="p", artifact="T", claim="c", paper_states="", reproduced="", verdict=v.spread_decreases(SEEDS, SEEDS)
    )
    assert (over.decision, over.mde) == (y.NO_INTERVAL, "")
    assert (
        report.Claim.statement(paper="p", artifact="T", claim="c", paper_states="", reproduced="", holds=True).decision
        == ""
    )


def _side(low: float, high: float, bar: float = 0.0) -> y.Decision:
    return y.Decision("side", low, high, bar)


PAPER = y.PaperEffect(0.046, "Table II, 10 tasks")


def test_an_interval_with_zero_but_not_the_papers_effect_is_smaller_than_the_papers_effect():
    text = y.classify("inconclusive", _side(-0.019, 0.027), PAPER)
    assert text == "smaller than the paper's +0.046: [-0.0190, +0.0270]"
    assert y.kind_of("inconclusive", text) == y.SMALLER


def test_an_interval_with_zero_and_the_papers_effect_is_underpowered():
    text = y.classify("inconclusive", _side(-0.051, 0.118), PAPER, mde="0.08")
    assert text.startswith("underpowered: [-0.0510, +0.1180] contains 0 and the paper's +0.046 (MDE 0.08)")
    assert y.kind_of("inconclusive", text) == y.UNDERPOWERED
    # Against a margin: the bar is named.
    assert "contains the bar +0.1" in y.classify("inconclusive", _side(-0.19, 0.63, 0.1), y.PaperEffect(0.3, "s"))


def test_differs_matches_and_the_other_inconclusives():
    assert y.classify("differs", _side(-0.05, -0.01), PAPER) == "differs"
    assert y.classify("match", _side(0.01, 0.05), PAPER) == ""
    unstated = y.PaperEffect(None, not_stated="a figure without numbers")
    assert y.classify("inconclusive", _side(-0.1, 0.1), unstated) == f"{y.OTHER}: the paper states no effect"
    assert y.classify("inconclusive", None, PAPER).startswith(f"{y.OTHER}: no single interval")
    assert y.classify("inconclusive", _side(-math.inf, math.inf), PAPER).startswith(f"{y.OTHER}: no interval")
    assert "does not clear" in y.classify("inconclusive", _side(-0.1, 0.1, 0.05), y.PaperEffect(0.02, "s"))
    assert y.kind_of("differs", "differs") == "differs"
    assert y.kind_of("inconclusive", f"{y.OTHER}: the paper states no effect") == y.OTHER
    assert y.kind_of("smoke: plumbing only", "") == ""


def test_equivalence_rows_are_underpowered_only_when_the_interval_holds_the_papers_gap():
    gap = y.PaperEffect(-0.004, "Table II, 10 tasks, Avg Acc")
    wide = y.classify("inconclusive", y.Decision("equivalence", -0.0355, 0.0098, 0.02), gap)
    assert wide.startswith("underpowered: [-0.0355, +0.0098] contains the paper's -0.004 and crosses ±0.02")
    # [-0.034, -0.006] excludes the paper's -0.004: the run's gap is not the paper's, but it is not "smaller".
    unlike = y.classify("inconclusive", y.Decision("equivalence", -0.034, -0.006, 0.02), gap)
    assert unlike.startswith(f"{y.OTHER}: unlike the paper's -0.004: [-0.0340, -0.0060]")


def test_the_scorecard_joins_the_effects_and_counts_the_kinds_per_paper():
    def row(claim: str, status: str, decision: str) -> dict:
        base = dict.fromkeys(report.CLAIM_COLUMNS, "")
        return base | dict(
            paper="mmfl", artifact="Table II", claim=claim, kind="claim", status=status, decision=decision
        )

    card = pd.DataFrame(
        [
            row("higher (exp2_s10)", "inconclusive", "side [-0.019, 0.027] bar 0"),
            row("higher (exp2_s6)", "inconclusive", "side [-0.05, 0.03] bar 0"),
            row("other", "inconclusive", "side [-0.05, 0.03] bar 0"),
            row("over settings", "differs", y.NO_INTERVAL),
            row("printed", "match", ""),
        ]
    )
    entries = [
        ("mmfl", "Table II", "higher (exp2_s10)", PAPER),
        ("mmfl", "Table II", "higher (*)", y.PaperEffect(0.022, "Table II, 6 tasks")),
        ("mmfl", "Table*", "*", y.PaperEffect(None, not_stated="no cell")),
    ]
    out = y.with_yardstick(card, entries)
    assert out["paper_effect"].tolist() == [
        "+0.046 (Table II, 10 tasks)",
        "+0.022 (Table II, 6 tasks)",
        "not stated: no cell",
        "not stated: no cell",
        "",
    ]
    assert out["yardstick"].tolist()[:4] == [
        "smaller than the paper's +0.046: [-0.0190, +0.0270]",
        "underpowered: [-0.0500, +0.0300] contains 0 and the paper's +0.022",
        f"{y.OTHER}: the paper states no effect",
        "differs",
    ]
    summary = report.summarize(out)
    assert summary["yardstick"] == {
        "mmfl": {"match": 0, "differs": 1, y.SMALLER: 1, y.UNDERPOWERED: 1, y.OTHER: 1, "not run in this profile": 0}
    }
    assert "| **total** | 4 | 0 | 1 | 1 | 1 | 1 | 0 |" in report.to_markdown(out, summary, "test")
    assert report.summarize(card.drop(columns=["decision"]))["yardstick"] == {}


def test_a_malformed_effects_entry_is_refused_in_one_line(tmp_path):
    path = tmp_path / "effects.yaml"
    for body in (
        "- {paper: mmfl, artifact: T, claim: c}",
        "- {paper: mmfl, artifact: T, claim: c, effect: 0.1}",
        "- {paper: mmfl, artifact: T, claim: c, effect: 0.1, source: s, not_stated: r}",
        "- {paper: mmfl, artifact: T, claim: c, effect: big, source: s}",
    ):
        path.write_text(body)
        with pytest.raises(UserError, match="entry 1"):
            y.load_effects(path)


def _committed_training_rows() -> pd.DataFrame:
    cards = [pd.read_csv(p, dtype=str, keep_default_na=False) for p in COMMITTED if p.is_file()]
    card = pd.concat(cards).drop_duplicates(["paper", "artifact", "claim"])
    return card[card["paper"].isin(report.TRAINING_PAPERS) & (card["kind"] == "claim")]


def test_every_training_statement_of_the_committed_scorecards_has_an_entry():
    entries = y.load_effects(EFFECTS)
    rows = _committed_training_rows()
    assert len(rows) > 100
    missing = [
        f"{r.paper} / {r.artifact} / {r.claim}"
        for r in rows.itertuples()
        if y.effect_for(entries, r.paper, r.artifact, r.claim) is None
    ]
    assert not missing, missing[:10]


def test_table_ii_effects_are_differences_of_the_papers_printed_cells():
    """The effects are the paper's numbers: each Table II effect is FedFairMMFL's printed cell minus the baseline's,
    as the committed scorecard's printed rows quote them (paper_states), never a value from the run."""
    card = pd.concat(pd.read_csv(p, dtype=str, keep_default_na=False) for p in COMMITTED if p.is_file())
    printed = card[(card["paper"] == "mmfl") & (card["kind"] == "printed") & (card["artifact"] == "Table II")]
    cell = {r.claim: float(r.paper_states) for r in printed.itertuples()}
    entries = y.load_effects(EFFECTS)
    tasks = {"exp2_s6": "6 tasks", "exp2_s10": "10 tasks"}
    checked = 0
    for run, n in tasks.items():
        for name, baseline in (("random", "Random"), ("round robin", "Round Robin")):
            for metric, claim in (
                ("Min Acc", f"FedFairMMFL reaches a higher final minimum accuracy than {name} ({run})"),
                ("Avg Acc", f"FedFairMMFL's final average accuracy is comparable with {name}'s ({run})"),
            ):
                effect = y.effect_for(entries, "mmfl", "Table II", claim)
                expected = cell[f"FedFairMMFL, {n}, {metric}"] - cell[f"{baseline}, {n}, {metric}"]
                assert effect.effect == pytest.approx(expected, abs=1e-9), claim
                checked += 1
    assert checked == 8


def test_readme_summary_shows_the_kinds_once_the_committed_scorecard_has_them(tmp_path):
    import shutil

    metrics = tmp_path / "metrics"
    shutil.copytree(ROOT / "metrics", metrics)
    card = pd.read_csv(metrics / "default" / "scorecard.csv", dtype=str, keep_default_na=False)
    before = readme_numbers.scorecard_summary(metrics)
    if "yardstick" in card.columns:
        pytest.skip("the committed scorecard already has the yardstick columns")
    assert "smaller than the paper's effect" not in before
    training = card["paper"].isin(report.TRAINING_PAPERS) & (card["interval"] != "")
    card["decision"] = [y.NO_INTERVAL if t else "" for t in training]
    card["yardstick"] = [
        "differs" if s == "differs" else (f"{y.OTHER}: x" if s == "inconclusive" else "") for s in card["status"]
    ]
    card.to_csv(metrics / "default" / "scorecard.csv", index=False)
    after = readme_numbers.scorecard_summary(metrics)
    assert after.startswith(before.rstrip("\n"))
    total = after.splitlines()[-1].split(" | ")
    assert total[1] == str(int(training.sum()))
