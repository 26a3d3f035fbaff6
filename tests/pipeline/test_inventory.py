"""Every statement each paper makes has a row, a unit test or a stated reason (docs/<paper>.md's inventory), every
scorecard row is in an inventory, and every paper artifact of the manifest has scorecard rows (issue 28).

Checked against this run's test-profile scorecard (where a row with no inventory entry fails) together with the
committed scorecards of the larger profiles under metrics/ (rows that only exist at their scale)."""

from __future__ import annotations

import pandas as pd
import yaml

from fairshare.pipeline.inventory import problems, read_inventory
from fairshare.pipeline.report_items import scorecard_rows
from tests.conftest import REPO

PAPERS = ("model_sharing", "dp_coalitions", "payoff_flows", "mmfl", "auctions", "aequa")
COMMITTED = [REPO / "metrics" / "default" / "scorecard.csv", REPO / "metrics" / "cpu_scale" / "scorecard.csv"]


def _scorecards(run) -> list[pd.DataFrame]:
    cards = [run / "results" / "scorecard.csv", *(p for p in COMMITTED if p.is_file())]
    return [pd.read_csv(p, dtype=str, keep_default_na=False) for p in cards]


# Called from tests/pipeline/test_pipeline.py's end-to-end test of the test profile, inside the one test that makes
# the shared test-profile run: as tests of their own (xdist group test_profile_run), CI's durations showed a second
# test-profile run set up for them (about 500 s each on a slow machine).
def check_every_statement_and_every_row_is_in_the_inventory(run) -> None:
    cards = _scorecards(run)
    found = [
        line
        for paper in PAPERS
        for line in problems(paper, read_inventory(REPO / "docs" / f"{paper}.md"), cards, REPO, orphans_in=0)
    ]
    assert not found, "\n".join(found[:40])


def check_every_paper_artifact_of_the_manifest_has_rows(run) -> None:
    cards = pd.concat(_scorecards(run)).to_dict("records")
    manifest = yaml.safe_load((REPO / "workflow" / "manifest.yaml").read_text())
    without = []
    for entry in manifest:
        if entry["paper"] in ("report", "partitions") or str(entry.get("ref", "")).startswith("supporting"):
            continue
        if not scorecard_rows(cards, entry["paper"], entry.get("rows", [])):  # as the report's caption finds them
            without.append(f"{entry['id']} ({entry['ref']}): rows {entry.get('rows', [])}")
    assert not without, without
