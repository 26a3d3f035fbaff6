"""The statement-inventory reader and checker (fairshare.pipeline.inventory) on inventories and scorecards made here."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from fairshare.pipeline.inventory import has_test, main, problems, read_inventory, row_matches

TABLE = """# Paper

## Inventory
<!-- inventory:start -->
| where | statement | checked by | refuted by |
|---|---|---|---|
| Table 1 | every cell | row: `Table 1` / `*` | `tests/test_x.py::test_false_table` |
| Sec. 5 | A beats B \\| always | row: `Sec. 5` / `A beats [13]*`<br>row: `Fig. 2` / `trend` | `tests/test_x.py::test_false_sec5[a]` |
| Lemma 2 | an identity | test: `tests/test_x.py::test_identity` | — |
| App. J | a data set we lack | not reproducible here: the data set is private | — |
<!-- inventory:end -->
"""
TESTS = "def test_false_table():\n    pass\n\ndef test_false_sec5(a):\n    pass\n\ndef test_identity():\n    pass\n"


def _card(*rows: tuple[str, str]) -> pd.DataFrame:
    return pd.DataFrame([{"paper": "demo", "artifact": a, "claim": c, "status": "match"} for a, c in rows])


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "demo.md").write_text(TABLE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(TESTS)
    return tmp_path


def test_reads_every_kind_of_entry(repo):
    entries = read_inventory(repo / "docs" / "demo.md")
    assert [e.where for e in entries] == ["Table 1", "Sec. 5", "Lemma 2", "App. J"]
    assert entries[1].statement == "A beats B | always"
    assert entries[1].rows == (("Sec. 5", "A beats [13]*"), ("Fig. 2", "trend"))
    assert entries[2].test == "tests/test_x.py::test_identity" and not entries[2].rows
    assert entries[3].reason == "the data set is private"


def test_star_is_the_only_wildcard():
    assert row_matches(("Sec. 5", "A beats [13]*"), "Sec. 5", "A beats [13] by 0.2")
    assert not row_matches(("Sec. 5", "A beats [13]*"), "Sec. 5", "A beats 1 by 0.2")
    assert not row_matches(("Sec. 5", "A beats*"), "Sec. 6", "A beats B")


def test_a_complete_inventory_has_no_problems(repo):
    card = _card(("Table 1", "cell a"), ("Table 1", "cell b"), ("Sec. 5", "A beats [13]'s"), ("Fig. 2", "trend"))
    assert problems("demo", read_inventory(repo / "docs" / "demo.md"), [card], repo) == []


def test_reports_missing_rows_orphans_and_tests(repo):
    entries = read_inventory(repo / "docs" / "demo.md")
    card = _card(("Table 1", "cell a"), ("Sec. 5", "A beats [13]"), ("Fig. 3", "a row nobody lists"))
    found = problems("demo", entries, [card], repo)
    assert any("no scorecard row `Fig. 2` / `trend`" in p for p in found)
    assert any("`Fig. 3` / `a row nobody lists` is in no inventory entry" in p for p in found)
    (repo / "tests" / "test_x.py").write_text("def test_false_table():\n    pass\n")
    found = problems("demo", entries, [card], repo)
    assert any("no test tests/test_x.py::test_identity" in p for p in found)


def test_rows_of_other_scorecards_count_but_are_not_orphans(repo):
    entries = read_inventory(repo / "docs" / "demo.md")
    first = _card(("Table 1", "cell a"), ("Sec. 5", "A beats [13]"))
    second = _card(("Fig. 2", "trend"), ("Fig. 9", "only at a larger scale"))
    assert problems("demo", entries, [first, second], repo) == []


def test_a_row_entry_needs_a_refuting_test(repo):
    page = repo / "docs" / "demo.md"
    page.write_text(TABLE.replace("`tests/test_x.py::test_false_table`", "—"))
    found = problems("demo", read_inventory(page), [_card(("Table 1", "x"))], repo, orphans_in=None)
    assert any("Table 1" in p and "no 'refuted by' test" in p for p in found)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("# no inventory here\n", "no inventory"),
        (TABLE.replace("| refuted by |", "|"), "inventory columns must be"),
        (TABLE.replace("| test: `tests/test_x.py::test_identity` |", "| see the proof |"), "'checked by' must be"),
        (TABLE.replace("not reproducible here: the data set is private", "not reproducible here:"), "checked by"),
    ],
)
def test_a_malformed_inventory_is_one_clear_error(repo, table, message):
    (repo / "docs" / "demo.md").write_text(table)
    with pytest.raises(ValueError, match=message):
        read_inventory(repo / "docs" / "demo.md")


def test_has_test_finds_functions_only(repo):
    assert has_test("tests/test_x.py::test_false_sec5[a]", repo)
    assert not has_test("tests/test_x.py::test_absent", repo)
    assert not has_test("tests/test_y.py::test_identity", repo)


def test_command_line_exit_status(repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    good = _card(("Table 1", "c"), ("Sec. 5", "A beats [13]"), ("Fig. 2", "trend"))
    good.to_csv(repo / "good.csv", index=False)
    _card(("Table 9", "c")).to_csv(repo / "bad.csv", index=False)
    assert main(["docs/demo.md", "good.csv"]) == 0
    assert main(["docs/demo.md", "bad.csv"]) == 1
    assert "is in no inventory entry" in capsys.readouterr().out
