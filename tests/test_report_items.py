"""The HTML report's items (issue 27): tables as HTML pages, captions with the verdict of their scorecard rows and
the command that made the item."""

from __future__ import annotations

import base64
import json

import docutils.core

from fairshare.cli import main
from fairshare.pipeline.report_items import (
    caption_rst,
    number_text,
    producer_command,
    scorecard_rows,
    status_counts,
    table_html,
)

CARD = [
    {"paper": "aequa", "artifact": "Table 3, Fig. 2", "claim": "rho_p >= 0.9 *all*", "status": "match"},
    {"paper": "aequa", "artifact": "Table 3", "claim": "above IAFL", "status": "inconclusive"},
    {"paper": "aequa", "artifact": "Table 4", "claim": "scales", "status": "not run in this profile"},
    {"paper": "mmfl", "artifact": "Table 3", "claim": "other paper", "status": "differs"},
]
ENTRY = {
    "id": "aequa_table3",
    "paper": "aequa",
    "kind": "table",
    "ref": "Table 3 (participation rate as the contribution)",
    "rows": ["Table 3"],
    "shows": "Pearson correlation with participation.",
    "look_for": "Correlation near 1.",
    "title": "Aequa",
    "rule": "aequa_participation",
    "snakefile": "workflow/rules/aequa_extensions.smk",
    "template": "fairshare aequa-ext participation {input} > {log}",
    "command": "fairshare aequa-ext participation results/x.json > logs/x.log",
    "profile": "test",
    "seed": 7,
    "settings": "seeds=1",
    "files": ["results/aequa/table3.csv"],
}


def _html(rst: str) -> str:
    body = rst.removeprefix("{% raw %}").removesuffix("{% endraw %}")
    return docutils.core.publish_parts(body, writer="html", settings_overrides={"report_level": 2})["body"]


def test_rows_match_each_comma_separated_part_of_the_artifact_within_the_paper():
    rows = scorecard_rows(CARD, "aequa", ["Table 3"])
    assert [r["claim"] for r in rows] == ["rho_p >= 0.9 *all*", "above IAFL"]
    assert status_counts(rows) == {"match": 1, "differs": 0, "inconclusive": 1, "not run": 0}
    assert status_counts(scorecard_rows(CARD, "aequa", ["Table *"]))["not run"] == 1


def test_the_caption_says_what_to_look_for_the_verdict_and_the_command():
    rst = caption_rst(ENTRY, CARD)
    assert rst.startswith("{% raw %}") and rst.rstrip().endswith("{% endraw %}")
    html = _html(rst)
    assert "System Message" not in html  # the claims' markup characters are escaped
    for text in (
        "What the paper shows",
        "Correlation near 1.",
        "2 rows: 1 match, 0 differs, 1 inconclusive, 0 not run",
    ):
        assert text in html, html
    assert "rho_p &gt;= 0.9 *all*" in html and "aequa_participation" in html
    assert "results/x.json" in html and "{input}" not in html and "manifest id" in html


def test_a_command_of_any_length_and_markup_in_the_manifest_text_give_no_docutils_message():
    """A training rule's command lists every run (11,624 characters in the default profile: over docutils' 10,000 per
    line); the manifest's text is plain text (``|z|`` is no substitution)."""
    runs = " ".join(f"--run {s} aequa results/aequa/runs/digits/oc3/aequa/seed{s}.json" for s in range(300))
    entry = {
        **ENTRY,
        "command": f"fairshare aequa run {runs} > logs/x.log",
        "look_for": "points near the line (|z| < 3)",
    }
    rst = caption_rst(entry, CARD)
    assert len(entry["command"]) > 10_000 and max(map(len, rst.splitlines())) <= 120
    html = _html(rst)
    assert "System Message" not in html and "|z| &lt; 3" in html
    assert "seed299.json &gt; logs/x.log" in html and "seed0.json" in html  # the whole command, in a literal block


def test_a_caption_without_rows_or_job_record_says_so_and_shows_the_template():
    html = _html(caption_rst({**ENTRY, "rows": [], "command": None}, CARD))
    assert "no scorecard row checks this item" in html and "{input}" in html


def test_the_command_comes_from_snakemakes_job_record(tmp_path):
    name = base64.urlsafe_b64encode(b"results/a.csv").decode()
    (tmp_path / name).write_text(json.dumps({"rule": "r", "shellcmd": "echo a > results/a.csv"}))
    assert producer_command("results/a.csv", tmp_path) == "echo a > results/a.csv"
    assert producer_command("results/b.csv", tmp_path) is None


def test_a_table_item_is_an_html_table_of_each_csv_and_json(tmp_path):
    (tmp_path / "t.csv").write_text("claim,status\n<b>x</b>,match\ny,differs\n")
    (tmp_path / "u.md").write_text("| other table |\n")
    (tmp_path / "t.json").write_text('{"a": 1}\n')
    page = table_html([str(tmp_path / n) for n in ("u.md", "t.csv", "t.json")], "Table 3")
    assert page.count("<table>") == 1 and "<th>claim</th>" in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "<pre>| other table |" in page and "&quot;a&quot;: 1" in page and "#f8d7d7" in page
    assert "<script" not in page and "<details>" not in page


def test_long_floats_show_four_significant_digits_and_short_numbers_as_written():
    """Table II showed ``0.5247999999999999`` (issue 39); a value the paper prints keeps its digits."""
    assert number_text("0.5247999999999999") == "0.5248"
    assert number_text("0.9559411430259418") == "0.9559"
    assert number_text("-13295.123456") == "-13295" and number_text("1.2345678e-05") == "1.235e-05"
    assert number_text("0.9999999999999991") == "1"
    for kept in ("1.107322", "3.0", "12345678901", "0.956 ± 0.005", "nan", "fedfair", ""):
        assert number_text(kept) == kept


def test_a_tables_cells_are_rounded_with_the_full_value_on_hover(tmp_path):
    (tmp_path / "t.csv").write_text("method,value,seeds\nfedfair,0.5247999999999999,3.0\n")
    page = table_html([str(tmp_path / "t.csv")], "Table II")
    assert "<td class='n' title='0.5247999999999999'>0.5248</td>" in page and "<td>3.0</td>" in page
    assert ">0.5247999999999999<" not in page


def test_a_wide_table_leads_with_the_papers_layout_and_folds_every_column(tmp_path):
    """Aequa's Table 1 CSV (15 columns) needed horizontal scrolling: its Markdown (the paper's layout) is shown as a
    table first, the CSV folded under it."""
    columns = ["partition", "dataset"] + [
        f"{m}{s}" for m in ("FedAvg", "CGSV", "IAFL", "Aequa") for s in ("", " mean", " seeds")
    ]
    values = ["Homogeneous", "digits"] + ["0.956 ± 0.005", "0.9559411430259418", "3.0"] * 4
    (tmp_path / "table1.csv").write_text(",".join(columns) + "\n" + ",".join(values) + "\n")
    (tmp_path / "table1.md").write_text(
        "Table 1 (reproduction): balanced accuracy\n\n| Partition | Dataset | FedAvg | CGSV | IAFL | Aequa |\n"
        "|---|---|---|---|---|---|\n| Homogeneous | digits | 0.956 ± 0.005 | 0.927 ± 0.016 | a \\| b | 0.959 |\n"
        "|  | synthetic | 0.668 | 0.659 | 0.668 | 0.670 |\n"
    )
    page = table_html([str(tmp_path / "table1.csv"), str(tmp_path / "table1.md")], "Table 1")
    first, folded = page.split("<details>")
    assert "<p>Table 1 (reproduction): balanced accuracy</p>" in first and first.count("<tr>") == 3
    assert "<th>Aequa</th>" in first and "<td>a | b</td>" in first and "<td></td><td>synthetic</td>" in first
    assert "14 columns" in folded and folded.count("<th>") == 14 and "FedAvg mean" not in first


def test_the_commands_write_items_and_captions(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,2\n")
    (tmp_path / "f.png").write_bytes(b"png")
    items = [
        {"output": str(tmp_path / "out/t.html"), "inputs": [str(tmp_path / "t.csv")], "kind": "table", "title": "T"},
        {"output": str(tmp_path / "out/f.png"), "inputs": [str(tmp_path / "f.png")], "kind": "figure", "title": "F"},
    ]
    (tmp_path / "items.json").write_text(json.dumps(items))
    main(["report", "items", str(tmp_path / "items.json")])
    assert "<td>2</td>" in (tmp_path / "out/t.html").read_text() and (tmp_path / "out/f.png").read_bytes() == b"png"
    card = tmp_path / "card.csv"
    card.write_text(
        "paper,artifact,claim,status\n" + "".join(f'{r["paper"]},"{r["artifact"]}",x,{r["status"]}\n' for r in CARD)
    )
    caption = tmp_path / "cap" / "aequa_table3.rst"
    entry = {**ENTRY, "source": "results/none.csv", "caption": str(caption)}
    (tmp_path / "captions.json").write_text(json.dumps([entry]))
    main(["report", "captions", str(tmp_path / "captions.json"), "--scorecard", str(card)])
    assert "1 match, 0 differs, 1 inconclusive" in caption.read_text()
