"""The one claims interface: keyword-only constructors per kind, statuses from ``holds``, and the claims-file check."""

from pathlib import Path

import pytest

from fairshare.pipeline.report import Claim, read_claims, write_claims
from fairshare.validate import CorruptFileError

ROW = dict(paper="p", artifact="Table 1", claim="A beats B", paper_states="A > B", reproduced="0.9 vs 0.8")


@pytest.mark.parametrize(
    ("constructor", "kind"), [(Claim.printed, "printed"), (Claim.statement, "claim"), (Claim.erratum, "erratum")]
)
def test_each_constructor_sets_its_kind_and_the_status_from_holds(constructor, kind):
    statuses = [constructor(**ROW, holds=h).status for h in (True, False, None)]
    assert statuses == ["match", "differs", "not run in this profile"]
    assert {constructor(**ROW, holds=True).kind} == {kind}


def test_constructors_are_keyword_only_and_need_a_verdict():
    with pytest.raises(TypeError):
        Claim.statement("p", "Table 1", "A beats B", "A > B", "0.9", True)
    with pytest.raises(TypeError):
        Claim.statement(**ROW)  # holds is required: no row without a computed verdict


def test_values_become_text_and_none_becomes_empty():
    row = Claim.printed(**{**ROW, "reproduced": 0.125}, holds=1 > 0, note=None)
    assert (row.reproduced, row.note) == ("0.125", "")


def test_a_claims_file_round_trips_and_another_shape_is_refused(tmp_path):
    path = tmp_path / "claims.csv"
    write_claims(path, [Claim.statement(**ROW, holds=False)])
    assert read_claims(path)["status"].tolist() == ["differs"]
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(CorruptFileError, match="other.csv is malformed"):
        read_claims(tmp_path / "other.csv")


def test_known_reasons_are_appended_only_to_rows_that_do_not_match():
    from pathlib import Path

    import pandas as pd
    import yaml

    from fairshare.pipeline import report

    card = pd.DataFrame(
        {
            "paper": ["mmfl", "mmfl", "mmfl", "auctions"],
            "claim": ["Variance falls (exp2)", "Variance falls (exp3)", "Variance falls (exp4)", "Variance falls"],
            "status": ["differs", "inconclusive", "match", "differs"],
            "note": ["", "inconclusive: seed noise", "", ""],
        }
    )
    out = report.with_reasons(card, [{"paper": "mmfl", "claim": "Variance falls", "reason": "scale"}])
    assert list(out.note) == ["known reason: scale", "inconclusive: seed noise; known reason: scale", "", ""]
    assert list(out.status) == list(card.status)
    entries = yaml.safe_load(Path("workflow/known_reasons.yaml").read_text())
    assert entries and all(set(e) == {"paper", "claim", "reason"} for e in entries)


def test_the_verdict_table_puts_each_profiles_verdict_side_by_side():
    import pandas as pd

    from fairshare.pipeline import report

    card = pd.DataFrame(
        {
            "paper": ["mmfl", "mmfl", "model_sharing", "aequa"],
            "artifact": ["Figure 2", "Figure 3", "Table 1", "Table 9"],
            "claim": ["higher (exp1)", "falls (exp2)", "err", "rho = 1"],
            "kind": ["claim", "claim", "claim", "printed"],
            "status": ["match", "inconclusive", "match", "differs"],
        }
    )
    default = report.training_verdicts(card)
    assert list(default.claim) == ["higher (exp1)", "falls (exp2)"]  # training papers' statements only
    test = default.iloc[:1].assign(status="differs")
    table = report.verdict_table({"test": test, "default": default, "paper-scale": None})
    assert list(table["test"]) == ["differs", "-"]
    assert list(table["default"]) == ["match", "inconclusive"]
    assert set(table["paper-scale"]) == {report.NOT_RUN_HERE}
    text = report.verdict_table_markdown(table)
    assert "| inconclusive | 0 | 1 | 0 |" in text
    page = report.verdict_table_html(table)
    assert "<table>" in page and "<script" not in page
    # the count table has its own header (status, then the profiles) and a row per counted status, as the Markdown
    assert "<tr><th>status</th><th>test</th><th>default</th><th>paper-scale</th></tr>" in page
    assert "<tr><td>inconclusive</td><td>0</td><td>1</td><td>0</td></tr>" in page
    assert f"<tr><td>{report.OLDER_DEFINITIONS}</td>" in page


def test_a_column_decided_by_older_row_definitions_is_shown_as_such():
    import pandas as pd

    from fairshare.pipeline import report

    card = pd.DataFrame(
        {"paper": ["mmfl"], "artifact": ["Figure 2"], "claim": ["higher"], "kind": ["claim"], "status": ["match"]}
    )
    current = report.training_verdicts(card)
    assert set(current["definitions"]) == {report.row_definitions()}
    older = current.assign(definitions="0123456789ab")
    committed_before_the_column = current.drop(columns="definitions")
    table = report.verdict_table({"default": current, "cpu_scale": older, "test": committed_before_the_column})
    assert list(table["default"]) == ["match"]
    assert list(table["cpu_scale"]) == list(table["test"]) == [report.OLDER_DEFINITIONS]
    assert f"| {report.OLDER_DEFINITIONS} | 0 | 1 | 1 |" in report.verdict_table_markdown(table)


def test_the_row_definitions_change_with_the_claims_code(tmp_path, monkeypatch):
    import shutil

    from fairshare.pipeline import report

    src = Path(report.__file__).resolve().parents[1]
    copy = tmp_path / "fairshare"
    for sub in ("papers", "pipeline"):
        shutil.copytree(src / sub, copy / sub)
    monkeypatch.setattr(report, "__file__", str(copy / "pipeline" / "report.py"))
    before = report.row_definitions()
    claims = copy / "papers" / "mmfl" / "claims.py"
    claims.write_text(claims.read_text() + "\n# a changed row\n")
    assert report.row_definitions() != before
    (copy / "papers" / "model_sharing" / "claims.py").write_text("# not a training paper\n")
    claims.write_text(claims.read_text().removesuffix("\n# a changed row\n"))
    assert report.row_definitions() == before
