"""The HTML report's items (issue 27): tables as HTML pages, captions with the verdict of their scorecard rows and
the command that made the item."""

from __future__ import annotations

import base64
import json

import docutils.core

from fairshare.cli import main
from fairshare.pipeline.report_items import caption_rst, producer_command, scorecard_rows, status_counts, table_html

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
    (tmp_path / "t.md").write_text("| same table |\n")
    (tmp_path / "t.json").write_text('{"a": 1}\n')
    page = table_html([str(tmp_path / n) for n in ("t.md", "t.csv", "t.json")], "Table 3")
    assert page.count("<table>") == 1 and "<th>claim</th>" in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "same table" not in page and "&quot;a&quot;: 1" in page and "#f8d7d7" in page and "<script" not in page


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
